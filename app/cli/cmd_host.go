package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/internal/termtext"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/hostrun"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// LogPath is where a host writes host.log: the user's cache directory
// (config.LogPath).
func LogPath() string { return config.LogPath() }

// StateDir is where a host keeps its state (the activity log, the pins):
// config.StateDir.
func StateDir(getenv func(string) string) string { return config.StateDir(getenv) }

func (e *env) serve(a *argv) error {
	onDemand, asService := a.flag("on-demand"), a.flag("service")
	path, _, err := e.configPath()
	if err != nil {
		return err
	}
	rdir, err := api.DefaultRuntimeDir()
	if err != nil {
		return err
	}
	sock, err := api.DefaultSocketPath()
	if err != nil {
		return err
	}
	idle, err := idleTimeout(e.getenv)
	if err != nil {
		return err
	}
	opts := hostrun.Options{
		ConfigPath: path, RuntimeDir: rdir, SocketPath: sock, LogPath: LogPath(), StateDir: StateDir(e.getenv),
		Secrets: e.store(), OnDemand: onDemand, IdleTimeout: idle, Version: Version, Stderr: e.stderr,
		UserEnvFilled: api.FilledUserEnv(), PinsPath: pinsPath(e.getenv), SandboxTemp: config.SandboxTempRoot(),
	}
	if asService {
		return e.serveService(opts)
	}
	err = hostrun.Run(context.Background(), opts)
	var already *api.AlreadyRunningError
	if errors.As(err, &already) {
		return err
	}
	return err
}

// hostOrigin says how the host was started and with what environment.
func hostOrigin(info *hostapi.Info) string {
	s := "started by 'switchboard serve'"
	switch {
	case info.Service:
		s = "started by the background service"
	case info.OnDemand:
		s = "started on demand (by the tray or an AI app's bridge)"
	}
	if len(info.UserEnvFilled) > 0 {
		s += "; its environment lacked " + english.List(info.UserEnvFilled) + ", taken from the user database"
	}
	return s
}

// IdleTimeoutEnv is a hidden knob, for tests: a Go duration ("2s") that
// replaces the host's default idle timeout (10 minutes), the time a `serve --on-demand` host
// waits without a client before it stops its servers and exits.
const IdleTimeoutEnv = "SWITCHBOARD_IDLE_TIMEOUT"

func idleTimeout(getenv func(string) string) (time.Duration, error) {
	v := getenv(IdleTimeoutEnv)
	if v == "" {
		return 0, nil // the default
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s is %q: write a positive duration such as 30s or 10m, or unset it", IdleTimeoutEnv, v)
	}
	return d, nil
}

func (e *env) stopHost(*argv) error {
	ctx := context.Background()
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	if c == nil {
		fmt.Fprintln(e.stdout, "no Switchboard host is running")
		return nil
	}
	defer c.Close()
	pid := c.HostPID()
	if err := c.StopHost(ctx); err != nil {
		// The host may close the connection ("shutting down") before its
		// answer to host.stop is written: that is the stop we asked for.
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Code != api.CodeShuttingDown {
			return err
		}
	}
	// The host stops every server (their ladders) before it exits; the
	// connection closes when it is gone.
	select {
	case <-c.Done():
	case <-time.After(2 * time.Minute):
		return fmt.Errorf("the host (pid %d) did not exit within 2 minutes", pid)
	}
	fmt.Fprintf(e.stdout, "stopped the host (pid %d) and its servers\n", pid)
	return nil
}

func (e *env) status(*argv) error {
	ctx := context.Background()
	c, err := e.dial(ctx)
	if err != nil {
		return err
	}
	var list []hostapi.ServerStatus
	var info *hostapi.Info
	if c != nil {
		defer c.Close()
		hi, err := c.Info(ctx)
		if err != nil {
			return err
		}
		info = &hi
		if list, err = c.Servers(ctx); err != nil {
			return err
		}
	} else {
		list, err = e.offlineStatus(ctx)
		if err != nil {
			return err
		}
	}
	if e.json {
		return e.printJSON(map[string]any{"host": info, "servers": list})
	}
	if info == nil {
		fmt.Fprintln(e.stdout, "no host is running: the servers below are not running ('switchboard serve' starts them)")
	} else {
		fmt.Fprintf(e.stdout, "host pid %d, config %s\n", info.PID, info.ConfigPath)
		if note := e.otherConfigNote(info); note != "" {
			fmt.Fprintln(e.stdout, note)
		}
		fmt.Fprintf(e.stdout, "host socket %s, %s\n", info.Socket, hostOrigin(info))
		if info.AIClients > 0 {
			who := fmt.Sprint(info.AIClients)
			if apps := aiapps.Titles(info.AIApps); len(apps) > 0 {
				who += " (" + strings.Join(apps, ", ") + ")"
			}
			fmt.Fprintf(e.stdout, "AI apps connected through the gateway: %s\n", who)
		}
		if l := activityLine(info.Activity); l != "" {
			fmt.Fprintln(e.stdout, l)
		}
		shown := map[problemID]bool{} // an entry's problems are shown under it below
		for _, s := range list {
			for _, p := range s.Problems {
				shown[idOf(p)] = true
			}
		}
		for _, l := range configLines(info.Config, shown) {
			fmt.Fprintln(e.stdout, l)
		}
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stdout, "no servers: add one with 'switchboard servers add NAME -- COMMAND [ARGS...]'")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATE\tPID\tERA\tTOOLS\tUPTIME\tRESTARTS\tCOMMAND")
	for _, s := range list {
		pid, up := "-", "-"
		if s.PID != 0 {
			pid = fmt.Sprint(s.PID)
		}
		if !s.StartedAt.IsZero() && s.State == hostapi.StateRunning {
			up = time.Since(s.StartedAt).Round(time.Second).String()
		}
		cmd := s.Resolved
		switch {
		case s.URL != "": // a remote server (docs/remote.md)
			cmd = s.URL + " (" + s.Transport + ")"
		case cmd == "":
			cmd = s.Command + " (not found)"
		}
		era := s.Era
		if era == "" {
			era = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%d\t%s\n", termtext.Escape(s.Name), s.State, pid, era, s.Tools, up, s.Restarts, termtext.Escape(cmd))
	}
	tw.Flush()
	// What a server wrote (its stderr in LastError) is escaped: a server
	// must not retitle the terminal or overwrite these lines.
	for _, s := range list {
		for _, p := range s.Problems {
			fmt.Fprintf(e.stdout, "%s: %s\n", s.Name, termtext.Escape(problemLine(p)))
		}
		if s.Preparing != "" {
			fmt.Fprintf(e.stdout, "%s: %s before it starts\n", s.Name, termtext.Escape(s.Preparing))
		}
		if s.LastError != "" && s.State != "running" {
			fmt.Fprintf(e.stdout, "%s: %s\n", s.Name, termtext.Escape(s.LastError))
		}
		if s.Held > 0 {
			fmt.Fprintf(e.stdout, "%s: %s held for review, hidden from the AI apps: switchboard tools review %s\n", s.Name, plural(s.Held, "tool"), s.Name)
		}
		if l := sandboxLine(s.Sandbox); l != "" {
			fmt.Fprintf(e.stdout, "%s: %s\n", s.Name, termtext.Escape(l))
		}
		for _, p := range s.Issues {
			if p.Warning { // a note: it stops nothing (the strict sandbox of a server given folders)
				fmt.Fprintf(e.stdout, "%s: note: %s\n", s.Name, termtext.Escape(problemLine(p)))
			}
		}
		// A command not found is usually the last error too: said once,
		// with what to do about it (the host's install remedy, as data;
		// an older host's status has none: its words say it).
		said := s.State != hostapi.StateRunning && s.ResolveInLastError
		switch p := installIssue(s); {
		case len(s.Problems) > 0:
		case p != nil && said:
			fmt.Fprintf(e.stdout, "%s: to fix: %s\n", s.Name, termtext.Escape(remedyText(*p)))
		case p != nil:
			fmt.Fprintf(e.stdout, "%s: %s\n", s.Name, termtext.Escape(problemLine(*p)))
		case s.ResolveError != "" && !said:
			fmt.Fprintf(e.stdout, "%s: %s\n", s.Name, termtext.Escape(s.ResolveError))
		}
	}
	return nil
}

// problemID tells problems apart without their remedies (status shows a
// problem of the file under its server rather than twice).
type problemID struct{ server, key, message string }

func idOf(p hostapi.Problem) problemID { return problemID{p.Server, p.Key, p.Message} }

// configLines says what is wrong with the config file, for status and
// doctor: a file the host cannot use (and whether an earlier good one is
// in force or none is, so that nothing runs), and the problems of the
// entries of the file in force. Nothing when all is well.
func configLines(c hostapi.ConfigStatus, shown map[problemID]bool) []string {
	var out []string
	if c.Error != "" {
		if c.NoGoodConfig {
			out = append(out, fmt.Sprintf("the config file cannot be used (%s); the host has read no good config since it started, so no server runs: fix the file (the host reloads it when it is saved)", termtext.Escape(c.Error)))
		} else {
			out = append(out, fmt.Sprintf("the config file cannot be used (%s); the last good config is in force until the file is fixed", termtext.Escape(c.Error)))
		}
	}
	for _, p := range c.Problems {
		if !shown[idOf(p)] {
			out = append(out, "config: "+termtext.Escape(problemLine(p)))
		}
	}
	return out
}

// offlineStatus describes the config's servers when no host runs.
func (e *env) offlineStatus(ctx context.Context) ([]hostapi.ServerStatus, error) {
	path, _, err := e.configPath()
	if err != nil {
		return nil, err
	}
	f, err := config.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// One resolution everywhere, the host's (issue 27 §12): without a
	// host, commands are looked up in the login shell's PATH, which a host
	// started now would give its servers (as doctor does), not this
	// terminal's.
	lp, perr := hostrun.LoginPath(ctx, 5*time.Second)
	name := "the PATH a host gives servers (the login shell's; no host runs)"
	if perr != nil {
		name = "this process's PATH (no host runs, and the login shell's could not be read: " + perr.Error() + ")"
	}
	return hostrun.Statuses(f, lp, name), nil
}

func (e *env) doctor(*argv) error {
	ctx := context.Background()
	w := e.stdout
	problems := 0
	ok := func(format string, a ...any) { fmt.Fprintf(w, "ok    "+format+"\n", a...) }
	bad := func(format string, a ...any) { problems++; fmt.Fprintf(w, "FIX   "+format+"\n", a...) }
	info := func(format string, a ...any) { fmt.Fprintf(w, "      "+format+"\n", a...) }

	fmt.Fprintln(w, "Switchboard", Version)
	path, _, err := e.configPath()
	if err != nil {
		bad("config path: %v", err)
	}
	var file *config.File
	if path != "" {
		f, err := config.Load(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			ok("config %s does not exist yet (it is created by the first 'switchboard servers add')", path)
			file = config.New()
		case err != nil:
			bad("config %s cannot be used: %v", path, err)
		default:
			file = f
			if r := f.Report(); r.Len() > 0 {
				for _, p := range r.Problems() {
					bad("config: %s", problemLine(p))
				}
			} else {
				ok("config %s: %s, no problems", path, english.Plural(len(f.Servers), "server"))
			}
		}
	}

	e.doctorApps(ok, bad)

	c, err := e.dial(ctx)
	var running *hostapi.Info // the running host's, if one runs
	switch {
	case err != nil:
		bad("host: %v", err)
	case c == nil:
		sock, _ := api.DefaultSocketPath()
		info("host: none runs (socket %s); 'switchboard serve' starts one", sock)
	default:
		if hi, err := c.Info(ctx); err == nil {
			running = &hi
			ok("host: pid %d, socket %s, %s", hi.PID, hi.Socket, english.Plural(hi.Clients, "client"))
			info("host: %s", hostOrigin(&hi))
			if note := e.otherConfigNote(&hi); note != "" {
				bad("%s", note)
			}
			if hi.Config.Error != "" {
				bad("host: %s", configLines(hostapi.ConfigStatus{Error: hi.Config.Error, NoGoodConfig: hi.Config.NoGoodConfig}, nil)[0])
			}
		}
		c.Close()
	}
	info("log file: %s", LogPath())
	e.doctorService(ok, bad, info)
	doctorSandbox(file, ok, bad, info)

	store := e.store()
	if _, err := store.Get("switchboard-doctor-probe"); err == nil || errors.Is(err, secrets.ErrNotFound) {
		ok("keyring: reachable (service %q)", store.Service())
	} else {
		bad("keyring: %v", err)
	}

	// Commands are resolved with the PATH the servers get: the running
	// host's (it asked its login shell when it started), else the login
	// shell's, which a host started now would ask.
	var lp string
	if running != nil {
		lp = running.Path
		if running.PathError != "" {
			bad("login shell PATH: %s (the host's servers get the host's own PATH)", running.PathError)
		}
		if running.PinsError != "" {
			bad("tool pins: %s", running.PinsError)
		}
		ok("PATH: the running host's (pid %d), which its servers get: %s", running.PID, shorten(lp, 160))
	} else {
		var perr error
		lp, perr = hostrun.LoginPath(ctx, 5*time.Second)
		if perr != nil {
			bad("login shell PATH: %v (servers get this process's PATH meanwhile)", perr)
		}
		ok("PATH: no host runs: the login shell's, which a host started now would use: %s", shorten(lp, 160))
	}
	if file != nil {
		for _, sc := range hostrun.Statuses(file, lp, "") {
			if len(sc.Problems) > 0 {
				continue
			}
			if sc.URL != "" {
				ok("server %s: remote, %s (%s)", sc.Name, sc.URL, sc.Transport)
				if s := file.Servers[sc.Name]; s != nil && s.OAuth != nil {
					doctorSignIn(store, sc.Name, ok, bad)
				}
			} else if p := installIssue(sc); p != nil {
				bad("server %s: %s", sc.Name, problemLine(*p))
			} else if sc.ResolveError != "" {
				bad("server %s: %s", sc.Name, sc.ResolveError)
			} else {
				ok("server %s: %s resolves to %s", sc.Name, sc.Command, sc.Resolved)
			}
			for _, name := range sc.Secrets {
				if _, err := store.Get(name); err != nil {
					bad("server %s: %v", sc.Name, err)
				}
			}
		}
	}
	if _, err := engine.Resolve(&engine.Spec{Name: "node", Command: "node"}, lp); err != nil {
		info("Node.js is not in that PATH: npm-based servers (npx ...) need it; install it from your package manager or nodejs.org")
	}
	if problems > 0 {
		fmt.Fprintln(w, english.Plural(problems, "thing to fix", "things to fix"))
		return exitError{1}
	}
	fmt.Fprintln(w, "nothing to fix")
	return nil
}

// doctorSignIn says whether a remote server that signs in with OAuth has
// a sign-in in the keyring that the authorization server has not refused
// to renew (the host's record, config.OAuthSecret, read by
// config.SignInRefused; its tokens are never shown).
func doctorSignIn(store *secrets.Store, name string, ok, bad func(string, ...any)) {
	v, err := store.Get(config.OAuthSecret(name))
	switch {
	case errors.Is(err, secrets.ErrNotFound):
		bad("server %s: not signed in: run 'switchboard servers login %s'", name, name)
		return
	case err != nil:
		bad("server %s: its sign-in cannot be read from the keyring: %v", name, err)
		return
	}
	refused, err := config.SignInRefused(v.Reveal())
	if err != nil {
		bad("server %s: its stored sign-in cannot be read: run 'switchboard servers login %s'", name, name)
		return
	}
	if refused != "" {
		bad("server %s: the authorization server refused to renew its sign-in (%s): run 'switchboard servers login %s'", name, refused, name)
		return
	}
	ok("server %s: signed in (OAuth; the tokens are in the keyring)", name)
}

// otherConfigNote says so when the running host uses another config file
// than this process would (and no --config or SWITCHBOARD_CONFIG chose
// this one; dial refuses an explicit mismatch): a host started by an AI
// app's bridge, whose environment lacked this shell's XDG_CONFIG_HOME,
// reads the default file (docs/decisions.md). "" when they agree.
func (e *env) otherConfigNote(info *hostapi.Info) string {
	path, explicit, err := e.configPath()
	if err != nil || explicit || filepath.Clean(info.ConfigPath) == filepath.Clean(path) {
		return ""
	}
	why := ""
	if x := e.getenv("XDG_CONFIG_HOME"); x != "" {
		why = fmt.Sprintf(" (this shell's XDG_CONFIG_HOME is %s; the host's environment did not have it, as an AI app's bridge that started it may not)", x)
	}
	return fmt.Sprintf("the running host (pid %d) uses the config %s, not %s, this shell's%s: to use this one, stop the host ('switchboard stop') and start it from here ('switchboard serve', or the tray app), or set SWITCHBOARD_CONFIG=%s where the host starts (the service, the AI apps' entries)",
		info.PID, info.ConfigPath, path, why, path)
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
