package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/api"
)

// Version is set at build time with -ldflags "-X ...bridge.Version=...".
var Version = "0.1.0-dev"

// Name is the small executable's name, without ".exe".
const Name = "switchboard-bridge"

// Usage is switchboard-bridge's help.
const Usage = `Usage:
  switchboard-bridge [bridge] [--profile NAME] [--servers NAME,NAME...] [--tools GLOB]... [--tool-mode all|search]
      an MCP stdio server for an AI app: it relays the app's stdin and stdout
      to the running Switchboard host's MCP gateway, which serves every
      server's tools as SERVER__TOOL. --profile (a profile of the config),
      --servers and --tools (path.Match patterns on SERVER__TOOL,
      repeatable) narrow what the app sees; together, the app sees what
      all of them let through. --tool-mode search lists two tools,
      find_tools and call_tool, in place of every tool (the app finds and
      calls the others through them). It is
      'switchboard bridge' in a small program that starts in a millisecond;
      the leading word "bridge" is optional, so that an app's entry has the
      same arguments whichever of the two it runs. When no host runs it runs
      'switchboard bridge' (the switchboard program next to it) in its place,
      which starts one.
  switchboard-bridge --version
`

// Args is a bridge's command line, parsed.
type Args struct {
	Filter  Filter
	Help    bool
	Version bool
	Config  string // --config: refused, but named in the error
}

// ParseArgs parses switchboard-bridge's arguments (without the program's
// name), with the syntax of switchboard's: --flag value, --flag=value,
// -flag; a first argument "bridge" is skipped.
func ParseArgs(args []string) (Args, error) {
	var a Args
	var servers string
	if len(args) > 0 && args[0] == "bridge" {
		args = args[1:]
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") || arg == "-" || arg == "--" {
			return a, fmt.Errorf("unexpected %q; the bridge takes only --profile, --servers, --tools and --tool-mode", strings.Join(args[i:], " "))
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch name {
		case "help", "h", "version", "json":
			on := !hasVal || val == "true" || val == "1" || val == "yes"
			switch name {
			case "help", "h":
				a.Help = on
			case "version":
				a.Version = on
			}
			continue
		case "servers", "tools", "tool-mode", "config", "profile":
		default:
			return a, fmt.Errorf("unknown flag %s", arg)
		}
		if !hasVal {
			if i+1 >= len(args) {
				return a, fmt.Errorf("flag %s needs a value", arg)
			}
			i++
			val = args[i]
		}
		switch name {
		case "servers":
			servers = val
		case "tools":
			a.Filter.Tools = append(a.Filter.Tools, val)
		case "tool-mode":
			a.Filter.ToolMode = val
		case "config":
			a.Config = val
		case "profile":
			a.Filter.Profile = val
		}
	}
	a.Filter.Servers = SplitServers(servers)
	return a, nil
}

// SplitServers splits a --servers value on commas.
func SplitServers(list string) []string {
	var out []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// ErrConfigFlag is the bridge's answer to --config.
var ErrConfigFlag = errors.New("--config does not apply: the bridge uses the running host (set SWITCHBOARD_CONFIG in the app's entry to start a host with another file)")

// Main is switchboard-bridge: args are its arguments without the
// program's name; it returns the exit status (2: a mistake in the command
// line; 1: no session, with the reason on stderr).
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fail := func(code int, format string, v ...any) int {
		fmt.Fprintf(stderr, Name+": "+format+"\n", v...)
		return code
	}
	a, err := ParseArgs(args)
	switch {
	case err != nil:
		return fail(2, "%v; run '%s --help'", err, Name)
	case a.Help:
		fmt.Fprint(stdout, Usage)
		return 0
	case a.Version:
		fmt.Fprintln(stdout, Name, Version)
		return 0
	case a.Config != "":
		return fail(2, "%v", ErrConfigFlag)
	}
	if err := a.Filter.Check(); err != nil {
		return fail(2, "%v", err)
	}
	gw, err := api.DefaultGatewayPath()
	if err != nil {
		return fail(1, "%v", err)
	}
	nc, err := Dial(context.Background(), gw)
	if errors.Is(err, api.ErrNoHost) {
		// The slow path, once per login: `switchboard bridge` starts a
		// host (the background service, or a detached one) and serves.
		return runSwitchboard(args, stdin, stdout, stderr)
	}
	if err != nil {
		return fail(1, "%v", err)
	}
	err = Serve(nc, Session{Filter: a.Filter, Stdin: stdin, Stdout: stdout, Stderr: stderr, Relay: getenv(RelayEnv) == "1"})
	if err != nil {
		return fail(1, "%v", err)
	}
	return 0
}

// runSwitchboard runs `switchboard bridge ARGS` in this bridge's place,
// with its stdin, stdout and stderr: replacing this process where it can
// (Unix, the process's own streams), else as a child whose exit status it
// returns (Windows: the child inherits the app's pipes, and the app's job
// object if it has one, as this bridge did).
func runSwitchboard(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	exe, err := Switchboard()
	if err != nil {
		fmt.Fprintf(stderr, "%s: no Switchboard host runs, and this bridge cannot start one: %v\n", Name, err)
		return 1
	}
	if len(args) == 0 || args[0] != "bridge" {
		args = append([]string{"bridge"}, args...)
	}
	if canReplace && stdin == io.Reader(os.Stdin) && stdout == io.Writer(os.Stdout) && stderr == io.Writer(os.Stderr) {
		err := replace(exe, append([]string{exe}, args...))
		fmt.Fprintf(stderr, "%s: no Switchboard host runs, and running %s bridge to start one failed: %v\n", Name, exe, err)
		return 1
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() >= 0 {
		return ee.ExitCode()
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s: no Switchboard host runs, and running %s bridge to start one failed: %v\n", Name, exe, err)
		return 1
	}
	return 0
}

// exeSuffix is the executables' suffix on this system.
var exeSuffix = func() string {
	if runtime.GOOS == "windows" {
		return ".exe"
	}
	return ""
}()

// Switchboard returns the switchboard executable installed next to this
// program (next to the path it was started by, or to that path with its
// symbolic links resolved), or, for the bridge of switchboard.mcpb, where
// the packages install it; or an error that says where it looked.
func Switchboard() (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find this program's path (%v), so not the switchboard executable next to it", err)
	}
	return locate(self, runtime.GOOS, os.Getenv, isFile)
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// locate is [Switchboard] for the bridge at self on goos. The bridge of
// switchboard.mcpb (Switchboard as a Claude Desktop extension,
// docs/bundles.md), which Claude Desktop unpacks into its own extensions
// folder as server/switchboard-bridge beside the bundle's manifest.json,
// has no switchboard beside it: it takes the one at the path the .deb, the
// .rpm, the MSI or the macOS app install it. No bridge looks in PATH,
// which might hold another version.
func locate(self, goos string, getenv func(string) string, isFile func(string) bool) (string, error) {
	name := "switchboard"
	if goos == "windows" {
		name += ".exe"
	}
	const remedy = "install Switchboard, or start the host yourself ('switchboard serve', or the tray app)"
	p, err := sibling(self, name)
	if err == nil {
		return p, nil
	}
	ext := filepath.Dir(filepath.Dir(self))
	if filepath.Base(filepath.Dir(self)) != "server" || !isFile(filepath.Join(ext, "manifest.json")) {
		return "", fmt.Errorf("%w: %s", err, remedy)
	}
	var installed []string
	switch goos {
	case "windows":
		for _, v := range []string{"ProgramW6432", "ProgramFiles"} {
			if d := getenv(v); d != "" {
				installed = append(installed, strings.TrimRight(d, `\`)+`\Switchboard\switchboard.exe`)
			}
		}
	case "darwin":
		installed = append(installed, "/Applications/Switchboard.app/Contents/MacOS/switchboard")
		if h := getenv("HOME"); h != "" {
			installed = append(installed, strings.TrimRight(h, "/")+"/Applications/Switchboard.app/Contents/MacOS/switchboard")
		}
	default:
		installed = append(installed, "/usr/bin/switchboard")
	}
	for _, c := range installed {
		if isFile(c) {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w, nor where Switchboard's packages install it (%s): %s", err, strings.Join(installed, ", "), remedy)
}

// sibling finds name in the directory of self, or of self with its
// symbolic links resolved.
func sibling(self, name string) (string, error) {
	dirs := []string{filepath.Dir(self)}
	if r, err := filepath.EvalSymlinks(self); err == nil && filepath.Dir(r) != dirs[0] {
		dirs = append(dirs, filepath.Dir(r))
	}
	var tried []string
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return filepath.Abs(p)
		}
		tried = append(tried, p)
	}
	return "", fmt.Errorf("there is no %s next to it (%s)", name, strings.Join(tried, ", "))
}

// Executable returns the absolute path, symbolic links resolved, of the
// program an AI app's entry runs to reach Switchboard, as `switchboard
// clients connect` and the window's AI apps panel write it: the small
// switchboard-bridge installed next to this program, else this program
// (run as `switchboard bridge`). On Windows the tray may run as the GUI
// switchboard-tray.exe: without switchboard-bridge.exe an app runs the
// console switchboard.exe beside it (the one an AI app can talk to over
// stdio, and that app/aiapps recognizes as the bridge).
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot find the path of the switchboard program: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	if exe, err = filepath.Abs(exe); err != nil {
		return "", err
	}
	if strings.EqualFold(filepath.Base(exe), "switchboard-tray.exe") {
		console := filepath.Join(filepath.Dir(exe), "switchboard.exe")
		if _, err := os.Stat(console); err == nil {
			exe = console
		}
	}
	return beside(exe), nil
}

// beside returns the switchboard-bridge installed next to sb, the
// absolute path of the switchboard executable, else sb itself.
func beside(sb string) string {
	p := filepath.Join(filepath.Dir(sb), Name+exeSuffix)
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return p
	}
	return sb
}
