package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// written loads the record of what Switchboard wrote into the apps'
// configs (aiapps.WrittenFile in the state directory).
func (e *env) written() (*aiapps.Written, string, error) {
	dir := config.StateDir(e.getenv)
	w, err := aiapps.LoadWritten(dir)
	return w, dir, err
}

// recordWritten notes the entries of the file Switchboard just wrote (or
// found connected) as its own; when once is set, only if the record has
// no entry for the file yet. A failure is a note: the file is written.
func (e *env) recordWritten(app *aiapps.App, path string, doc *aiapps.Doc, once bool) {
	w, dir, err := e.written()
	if err == nil {
		if once && w.Files[path] != nil {
			return
		}
		w.Record(app, path, doc)
		err = w.Save(dir)
	}
	if err != nil {
		fmt.Fprintf(e.stdout, "note: cannot record what Switchboard wrote in %s, so entries planted there later are not reported: %v\n", path, err)
	}
}

// clientsEnv is the environment the apps' paths are computed from.
func (e *env) clientsEnv() aiapps.Env {
	return aiapps.Env{GOOS: runtime.GOOS, Getenv: e.getenv}
}

func pathExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// bridgeExecutable is [bridge.Executable]; tests replace it.
var bridgeExecutable = bridge.Executable

// clientApp parses the app argument and finds its config file.
func (e *env) clientApp(verb string, pos []string) (*aiapps.App, aiapps.Location, error) {
	return e.clientAppIn(verb, pos, "")
}

// clientAppIn is clientApp for the project in directory project ("": the
// user's config).
func (e *env) clientAppIn(verb string, pos []string, project string) (*aiapps.App, aiapps.Location, error) {
	if len(pos) != 1 {
		return nil, aiapps.Location{}, usagef("clients %s: give one APP (%s)", verb, strings.Join(appIDs(), ", "))
	}
	app, err := aiapps.Lookup(pos[0])
	if err != nil {
		return nil, aiapps.Location{}, usageError{err.Error()}
	}
	if project != "" {
		if app, err = e.projectApp(app, project); err != nil {
			return nil, aiapps.Location{}, err
		}
	}
	loc, err := app.Locate(e.clientsEnv(), pathExists)
	return app, loc, err
}

func appIDs() []string {
	var ids []string
	for _, a := range aiapps.Apps() {
		ids = append(ids, a.ID)
	}
	return ids
}

// projectDir is the absolute path of the --project directory, which must
// exist.
func projectDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", usagef("--project: %s is not a directory: give the project's folder", dir)
	}
	return abs, nil
}

// projectApp is app for the project in directory dir.
func (e *env) projectApp(app *aiapps.App, dir string) (*aiapps.App, error) {
	abs, err := projectDir(dir)
	if err != nil {
		return nil, err
	}
	p, err := app.Project(e.clientsEnv(), abs)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	return p, nil
}

// readClient reads and parses an app's config file.
func readClient(app *aiapps.App, loc aiapps.Location) (before []byte, doc *aiapps.Doc, err error) {
	before, _, err = aiapps.ReadFile(loc.Path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading %s's config: %w", app.Name, err)
	}
	doc, err = app.Parse(before)
	if err != nil {
		return nil, nil, fmt.Errorf("%s's config %s: %w", app.Name, loc.Path, err)
	}
	return before, doc, nil
}

// clientStatus is one line of `clients list`.
type clientStatus struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	Config       string   `json:"config"`
	ConfigExists bool     `json:"configExists"`
	Installed    bool     `json:"installed"`
	InstalledBy  string   `json:"installedBy,omitempty"` // the path that showed it
	Connected    bool     `json:"connected"`
	Command      string   `json:"command,omitempty"` // what the entry runs
	Args         []string `json:"args,omitempty"`
	Stale        bool     `json:"stale,omitempty"`   // the entry runs another binary than this one
	Servers      []string `json:"servers,omitempty"` // the app's other entries
	// Foreign are the entries Switchboard did not write in a config it
	// connected (aiapps.Written.Check).
	Foreign []aiapps.Foreign `json:"foreign,omitempty"`
	Error   string           `json:"error,omitempty"`
}

func (e *env) clientsList(a *argv) error {
	project := a.str("project")
	list := aiapps.Apps()
	if project != "" {
		// The apps with a project scope, with the project's file.
		dir, err := projectDir(project)
		if err != nil {
			return err
		}
		var in []*aiapps.App
		for _, app := range list {
			if p, err := app.Project(e.clientsEnv(), dir); err == nil {
				in = append(in, p)
			}
		}
		list = in
	}
	exe, _ := bridgeExecutable()
	written, _, werr := e.written()
	if werr != nil { // the list still lists; nothing is checked
		written = &aiapps.Written{}
	}
	var out []clientStatus
	for _, app := range list {
		st := clientStatus{ID: app.ID, Name: app.Name}
		loc, err := app.Locate(e.clientsEnv(), pathExists)
		if err != nil {
			st.Error = err.Error()
			out = append(out, st)
			continue
		}
		st.Config, st.ConfigExists, st.Installed = loc.Path, loc.Exists, loc.Installed
		if loc.Installed {
			st.InstalledBy = loc.Marker
		}
		if loc.Exists {
			if _, doc, err := readClient(app, loc); err != nil {
				st.Error = err.Error()
			} else {
				b, args, ok := doc.Connected()
				st.Connected, st.Command, st.Args = ok, b.Command, args
				st.Stale = ok && exe != "" && !samePath(b.Command, exe)
				for _, s := range doc.Servers() {
					if !s.IsBridge() {
						st.Servers = append(st.Servers, s.Name)
					}
				}
				st.Foreign = written.Check(app, loc.Path, doc)
			}
		}
		out = append(out, st)
	}
	if e.json {
		return e.printJSON(out)
	}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "APP\tNAME\tINSTALLED\tCONNECTED\tSERVERS\tCONFIG")
	var notes []string
	for _, st := range out {
		connected := yes(st.Connected)
		if st.Stale {
			connected = "yes (stale)"
		}
		if st.Error != "" {
			connected = "?"
			notes = append(notes, fmt.Sprintf("%s: %s", st.ID, st.Error))
		}
		config := st.Config
		if !st.ConfigExists && config != "" {
			config += " (no file yet)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", st.ID, st.Name, yes(st.Installed), connected, len(st.Servers), config)
		if st.Stale {
			notes = append(notes, fmt.Sprintf("%s: its entry runs %s, not this switchboard (%s): run 'switchboard clients connect %s' to update it", st.ID, st.Command, exe, st.ID))
		}
		for _, f := range st.Foreign {
			notes = append(notes, "WARNING: "+f.String())
		}
		if len(st.Servers) > 0 {
			notes = append(notes, fmt.Sprintf("%s has its own servers (%s): 'switchboard clients import %s' moves them into Switchboard", st.ID, strings.Join(st.Servers, ", "), st.ID))
		}
	}
	tw.Flush()
	if werr != nil {
		notes = append(notes, "note: the apps' configs cannot be checked for entries Switchboard did not write: "+werr.Error())
	}
	if len(notes) > 0 {
		fmt.Fprintln(e.stdout)
		for _, n := range notes {
			fmt.Fprintln(e.stdout, n)
		}
	}
	return nil
}

// samePath compares two paths of this OS (without case on Windows and
// macOS, whose file systems usually ignore it).
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

func (e *env) clientsConnect(a *argv) error {
	dry, servers, project, pos := a.flag("dry-run"), a.list("servers"), a.str("project"), a.pos
	profile, mode := a.str("profile"), a.str("tool-mode")
	if profile != "" && !config.ValidServerName(profile) {
		return usagef("clients connect: --profile: %q is not a profile name ('switchboard profiles' lists them)", profile)
	}
	if !config.ValidToolMode(mode) {
		return usagef("clients connect: --tool-mode %q: use all (every tool) or search (find_tools and call_tool)", mode)
	}
	app, loc, err := e.clientAppIn("connect", pos, project)
	if err != nil {
		return err
	}
	if err := e.knownProfile("clients connect", profile); err != nil {
		return err
	}
	var names []string
	for _, s := range servers {
		for _, n := range strings.Split(s, ",") {
			if n = strings.TrimSpace(n); n == "" {
				continue
			}
			if !config.ValidServerName(n) {
				return usagef("clients connect: --servers: %q is not a server name ('switchboard status' lists them)", n)
			}
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if len(servers) > 0 && len(names) == 0 {
		return usagef("clients connect: --servers needs server names, like --servers github,files")
	}
	exe, err := bridgeExecutable()
	if err != nil {
		return err
	}
	before, doc, err := readClient(app, loc)
	if err != nil {
		return err
	}
	// An app with its own tool search keeps every tool unless asked:
	// a profile in search mode is overridden (written as --tool-mode all).
	forced := false
	if app.ToolSearch != "" && mode == "" && e.profileMode(profile) == config.ToolModeSearch {
		mode, forced = config.ToolModeAll, true
	}
	bridge := aiapps.Bridge{Command: exe, Servers: names, Profile: profile, ToolMode: mode}
	secrets := doc.SecretValues()
	if !doc.SetBridge(bridge) {
		if !dry {
			e.recordWritten(app, loc.Path, doc, true)
		}
		fmt.Fprintf(e.stdout, "%s is already connected: %s runs %s\n", app.Name, loc.Path, strings.Join(append([]string{exe}, bridge.Args()...), " "))
		e.noteToolSearch(app, profile, mode, forced)
		e.noteBundle(app, exe)
		return nil
	}
	e.noteToolSearch(app, profile, mode, forced)
	e.noteServers(names)
	e.noteProfile(profile)
	e.noteExecutable(exe)
	if err := e.writeClient(app, loc, before, doc.Bytes(), dry, secrets); err != nil || dry {
		return err
	}
	e.recordWritten(app, loc.Path, doc, false)
	fmt.Fprintf(e.stdout, "connected %s: the %q entry in %s runs %s\n", app.Name, aiapps.EntryName, loc.Path, strings.Join(append([]string{exe}, bridge.Args()...), " "))
	if !loc.Installed {
		fmt.Fprintf(e.stdout, "note: %s does not look installed (none of its folders exists); the entry is ready for when it is\n", app.Name)
	}
	fmt.Fprintln(e.stdout, app.Restart)
	e.noteBundle(app, exe)
	return nil
}

// profileMode is the tool mode of the config's profile name ("": none,
// or no config).
func (e *env) profileMode(name string) string {
	if name == "" {
		return ""
	}
	path, _, err := e.configPath()
	if err != nil {
		return ""
	}
	f, err := config.Load(path)
	if err != nil || f.Profile(name) == nil {
		return ""
	}
	return f.Profile(name).Mode()
}

// noteToolSearch says, for an app with its own tool search
// (aiapps.App.ToolSearch), what it gets: every tool by default, so that
// its own search finds them; Switchboard's search mode only when asked.
func (e *env) noteToolSearch(app *aiapps.App, profile, mode string, forced bool) {
	switch {
	case app.ToolSearch == "":
	case mode == config.ToolModeSearch:
		fmt.Fprintf(e.stdout, "note: %s; with --tool-mode search it sees only find_tools and call_tool, so its own search has nothing to search: Switchboard's replaces it\n", app.ToolSearch)
	case forced:
		fmt.Fprintf(e.stdout, "note: %s, so it keeps every tool: the profile %q is in search mode, and the entry says --tool-mode all (--tool-mode search to use Switchboard's search instead)\n", app.ToolSearch, profile)
	default:
		fmt.Fprintf(e.stdout, "note: %s, so it gets every tool and no find_tools of Switchboard's (--tool-mode search to use Switchboard's search instead)\n", app.ToolSearch)
	}
}

// noteServers warns about names given to --servers that are not in the
// config (yet).
func (e *env) noteServers(names []string) {
	if len(names) == 0 {
		return
	}
	path, _, err := e.configPath()
	if err != nil {
		return
	}
	f, err := config.Load(path)
	if err != nil {
		return
	}
	for _, n := range names {
		if f.Servers[n] == nil {
			fmt.Fprintf(e.stdout, "note: server %q is not in the config %s (yet): the app sees no tools of it until it is\n", n, path)
		}
	}
}

// noteProfile warns about a --profile that is not in the config (yet),
// and about the servers the profile names that the config lacks.
// knownProfile refuses a profile the config does not have: an app's entry
// that names it would see no tools. A near name is guessed ("codng":
// coding); the remedy is to add the profile first.
func (e *env) knownProfile(cmd, name string) error {
	if name == "" {
		return nil
	}
	path, _, err := e.configPath()
	if err != nil {
		return err
	}
	f, err := config.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		f, err = config.New(), nil
	}
	if err != nil {
		return err
	}
	if f.Profile(name) != nil {
		return nil
	}
	if near := english.Nearest(name, f.ProfileNames()); near != "" {
		return usagef("%s: --profile: no profile is named %q: did you mean %q? (an app whose entry names a missing profile sees no tools; 'switchboard profiles' lists them)", cmd, name, near)
	}
	return usagef("%s: --profile: no profile is named %q in %s: an app whose entry names it would see no tools; add it first ('switchboard profiles set %s --servers ...'; 'switchboard profiles' lists them)", cmd, name, path, name)
}

// noteProfile warns about the servers a profile names that the config
// lacks (knownProfile has refused a missing profile).
func (e *env) noteProfile(name string) {
	if name == "" {
		return
	}
	path, _, err := e.configPath()
	if err != nil {
		return
	}
	f, err := config.Load(path)
	if err != nil || f.Profile(name) == nil {
		return
	}
	for _, s := range f.MissingServers(name) {
		fmt.Fprintf(e.stdout, "note: profile %q names the server %q, which is not in the config (yet): the app sees the profile's other servers\n", name, s)
	}
}

// noteExecutable warns when the binary is a temporary build.
func (e *env) noteExecutable(exe string) {
	if strings.Contains(exe, string(filepath.Separator)+"go-build") {
		fmt.Fprintf(e.stdout, "note: this switchboard is a temporary build (%s, from 'go run'?): the app cannot start it once it is gone; install switchboard and connect again\n", exe)
	}
}

// writeClient shows the change with --dry-run, else backs the file up and
// writes it.
// secrets are the literal secrets of the app's file, hidden in the diff.
func (e *env) writeClient(app *aiapps.App, loc aiapps.Location, before, after []byte, dry bool, secrets []string) error {
	if dry {
		old := loc.Path
		if before == nil {
			old = "/dev/null"
		}
		fmt.Fprint(e.stdout, aiapps.Redact(aiapps.Diff(old, loc.Path, before, after), secrets))
		fmt.Fprintf(e.stdout, "dry run: %s was not changed\n", loc.Path)
		return nil
	}
	backup, err := aiapps.WriteFile(loc.Path, before, after, time.Now())
	if err != nil {
		if errors.Is(err, aiapps.ErrChanged) {
			return fmt.Errorf("%s: %w", loc.Path, err)
		}
		return fmt.Errorf("writing %s's config %s: %w", app.Name, loc.Path, err)
	}
	if backup != "" {
		fmt.Fprintf(e.stdout, "backed up %s to %s\n", loc.Path, backup)
	}
	return nil
}

func (e *env) clientsDisconnect(a *argv) error {
	dry, project, pos := a.flag("dry-run"), a.str("project"), a.pos
	app, loc, err := e.clientAppIn("disconnect", pos, project)
	if err != nil {
		return err
	}
	if !loc.Exists {
		fmt.Fprintf(e.stdout, "%s is not connected: %s does not exist\n", app.Name, loc.Path)
		return nil
	}
	before, doc, err := readClient(app, loc)
	if err != nil {
		return err
	}
	secrets := doc.SecretValues()
	if !doc.Disconnect() {
		fmt.Fprintf(e.stdout, "%s is not connected: %s has no %q entry\n", app.Name, loc.Path, aiapps.EntryName)
		return nil
	}
	if err := e.writeClient(app, loc, before, doc.Bytes(), dry, secrets); err != nil || dry {
		return err
	}
	if w, dir, err := e.written(); err == nil && w.Files[loc.Path] != nil {
		w.Forget(loc.Path)
		_ = w.Save(dir)
	}
	fmt.Fprintf(e.stdout, "disconnected %s: removed the %q entry from %s\n", app.Name, aiapps.EntryName, loc.Path)
	fmt.Fprintln(e.stdout, app.Restart)
	return nil
}

// sameCommand reports whether a stored entry runs the same command and
// arguments as an imported server.
func sameCommand(stored json.RawMessage, s *config.Server) bool {
	var a struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
		URL     string   `json:"url"`
	}
	if json.Unmarshal(stored, &a) != nil {
		return false
	}
	return a.Command == s.Command && slices.Equal(a.Args, s.Args) && a.URL == s.URL
}

func (e *env) clientsTrust(a *argv) error {
	if len(a.pos) < 2 {
		return usagef("clients trust: give APP and the NAME of each entry to accept ('switchboard clients list' shows them)")
	}
	app, loc, err := e.clientAppIn("trust", a.pos[:1], a.str("project"))
	if err != nil {
		return err
	}
	if !loc.Exists {
		return fmt.Errorf("%s's config %s does not exist", app.Name, loc.Path)
	}
	_, doc, err := readClient(app, loc)
	if err != nil {
		return err
	}
	w, dir, err := e.written()
	if err != nil {
		return err
	}
	if w.Files[loc.Path] == nil {
		return fmt.Errorf("%s is not connected through Switchboard (%s): 'switchboard clients connect %s' connects it, and takes the entries there now as known", app.Name, loc.Path, app.ID)
	}
	for _, name := range a.pos[1:] {
		if !w.Trust(app, loc.Path, doc, name) {
			return fmt.Errorf("%s's config %s has no entry %q ('switchboard clients list' shows the ones Switchboard did not write)", app.Name, loc.Path, name)
		}
	}
	if err := w.Save(dir); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "trusted %s in %s: they are no longer reported unless they change\n", english.List(quoted(a.pos[1:])), loc.Path)
	return nil
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

// doctorApps reports the entries of the connected apps' configs that
// Switchboard did not write (aiapps.CheckAll).
func (e *env) doctorApps(ok, bad func(string, ...any)) {
	w, _, err := e.written()
	if err != nil {
		bad("AI apps: %v", err)
		return
	}
	if len(w.Files) == 0 {
		return
	}
	found, err := aiapps.CheckAll(e.clientsEnv(), config.StateDir(e.getenv))
	if err != nil {
		bad("AI apps: %v", err)
		return
	}
	for _, f := range found {
		bad("%s", f.String())
	}
	if len(found) == 0 {
		ok("AI apps: the configs of %s hold only what Switchboard wrote or you trusted", english.Plural(len(w.Files), "connected app"))
	}
}
