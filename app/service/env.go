package service

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/api"
)

// Names shared by every OS.
const (
	// Name is the service's name: the systemd unit is Name+".service".
	Name = "switchboard"
	// DisplayName is what a person sees in a service list or a log.
	DisplayName = "Switchboard"
	// Description says what the service is.
	Description = "Switchboard: the host of your local MCP servers"
	// LaunchdLabel labels the service's LaunchAgent on macOS.
	LaunchdLabel = "io.github.switchboard-mcp.switchboard.host"
	// AutostartLabel labels the tray's LaunchAgent on macOS.
	AutostartLabel = "io.github.switchboard-mcp.switchboard.tray"
	// RunValue names the tray's value under the Windows Run key.
	RunValue = "Switchboard"
	// RunKey is the Windows Run key (under HKEY_CURRENT_USER).
	RunKey = `Software\Microsoft\Windows\CurrentVersion\Run`
	// DesktopFile is the XDG autostart entry's file name.
	DesktopFile = "switchboard.desktop"
)

// Env is everything the paths and the definitions depend on, so that they
// are pure functions that every OS's test can compute anywhere.
type Env struct {
	// GOOS is a runtime.GOOS value.
	GOOS string
	// Getenv reads the environment (HOME, XDG_CONFIG_HOME, USERPROFILE,
	// LOCALAPPDATA, USERNAME...).
	Getenv func(string) string
	// Executable is the absolute path of the switchboard binary that the
	// service and the autostart entry run.
	Executable string
	// User is the Windows account (its SID) whose logon starts the task
	// and as whom it runs; unused elsewhere.
	User string
	// Args are extra arguments for `serve --service`, such as
	// ["--config", "/abs/config.json"] when the user chose a config.
	Args []string
}

// OSEnv is the Env of this process: its environment, its executable
// (os.Executable: a symlink such as Homebrew's stays a symlink on macOS,
// so that an upgrade does not break the service) and, on Windows, the
// current user's SID.
func OSEnv() (Env, error) {
	exe, err := os.Executable()
	if err != nil {
		return Env{}, fmt.Errorf("cannot find the switchboard executable: %w", err)
	}
	exists := func(p string) bool { _, err := os.Stat(p); return err == nil }
	e := Env{GOOS: runtime.GOOS, Getenv: os.Getenv, Executable: PreferGUI(runtime.GOOS, exe, exists)}
	if runtime.GOOS == "windows" {
		if e.User, err = currentUser(); err != nil {
			return Env{}, err
		}
	}
	return e, nil
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// Home is the user's home directory: HOME, or USERPROFILE on Windows.
func (e Env) Home() (string, error) {
	k := "HOME"
	if e.GOOS == "windows" {
		k = "USERPROFILE"
	}
	h := e.getenv(k)
	if !isAbs(e.GOOS, h) {
		return "", fmt.Errorf("%s is %q, not an absolute path: the user's home directory is unknown", k, h)
	}
	return clean(e.GOOS, h), nil
}

// localAppData is %LOCALAPPDATA% on Windows.
func (e Env) localAppData() (string, error) {
	if d := e.getenv("LOCALAPPDATA"); isAbs(e.GOOS, d) {
		return clean(e.GOOS, d), nil
	}
	h, err := e.Home()
	if err != nil {
		return "", errors.New("neither LOCALAPPDATA nor USERPROFILE is an absolute path")
	}
	return join(e.GOOS, h, `AppData\Local`), nil
}

// configHome is $XDG_CONFIG_HOME, or ~/.config.
func (e Env) configHome() (string, error) {
	if d := e.getenv("XDG_CONFIG_HOME"); isAbs(e.GOOS, d) {
		return clean(e.GOOS, d), nil
	}
	h, err := e.Home()
	if err != nil {
		return "", err
	}
	return join(e.GOOS, h, ".config"), nil
}

// DefinitionPath is the file that defines the service: the systemd user
// unit on Linux, the LaunchAgent on macOS. A Windows logon task lives in
// Task Scheduler's store, so it is "" there (see [TaskName]).
//
// The unit is where kardianos/service writes it, ~/.config/systemd/user,
// whatever $XDG_CONFIG_HOME says.
func (e Env) DefinitionPath() (string, error) {
	switch e.GOOS {
	case "windows":
		return "", nil
	case "darwin":
		h, err := e.Home()
		if err != nil {
			return "", err
		}
		return join(e.GOOS, h, "Library/LaunchAgents/"+LaunchdLabel+".plist"), nil
	default:
		h, err := e.Home()
		if err != nil {
			return "", err
		}
		return join(e.GOOS, h, ".config/systemd/user/"+Name+".service"), nil
	}
}

// LogDir is the directory of the service's log files: ~/Library/Logs/Switchboard
// on macOS, %LOCALAPPDATA%\Switchboard\Logs on Windows, and "" on Linux,
// where the journal keeps the unit's stdout and stderr.
func (e Env) LogDir() (string, error) {
	switch e.GOOS {
	case "darwin":
		h, err := e.Home()
		if err != nil {
			return "", err
		}
		return join(e.GOOS, h, "Library/Logs/Switchboard"), nil
	case "windows":
		d, err := e.localAppData()
		if err != nil {
			return "", err
		}
		return join(e.GOOS, d, `Switchboard\Logs`), nil
	default:
		return "", nil
	}
}

// HostLogPath is the host.log of a host run by the service ("" on Linux:
// the journal).
func (e Env) HostLogPath() (string, error) {
	d, err := e.LogDir()
	if err != nil || d == "" {
		return "", err
	}
	return join(e.GOOS, d, "host.log"), nil
}

// launchdLogPath is where launchd sends the service's stdout and stderr
// (what the host itself does not log: a crash's stack trace).
func (e Env) launchdLogPath() (string, error) {
	d, err := e.LogDir()
	if err != nil {
		return "", err
	}
	return join(e.GOOS, d, "service.log"), nil
}

// LogLocation says, for a person, where the service's logs are.
func (e Env) LogLocation() string {
	switch e.GOOS {
	case "darwin":
		d, err := e.LogDir()
		if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("%s (host.log; service.log has what launchd caught on stdout and stderr)", d)
	case "windows":
		p, err := e.HostLogPath()
		if err != nil {
			return err.Error()
		}
		return p
	default:
		return "the user journal: journalctl --user -u " + Name + ".service"
	}
}

// TaskName is the Windows logon task's name: one per user, since a task's
// name is unique on the machine.
func (e Env) TaskName() string {
	u := e.getenv("USERNAME")
	if u == "" {
		u = e.User
	}
	u = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`\/:*?"<>|`, r) || r < 32 {
			return '_'
		}
		return r
	}, u)
	if u == "" {
		return "Switchboard host"
	}
	return "Switchboard host (" + u + ")"
}

// ServeArgs are the arguments the service runs the executable with.
func (e Env) ServeArgs() []string {
	return append([]string{"serve", "--service"}, e.Args...)
}

// isAbs, clean and join treat p as a path of goos, whatever OS runs them:
// the rules of api's paths.
func isAbs(goos, p string) bool          { return api.IsAbsFor(goos, p) }
func clean(goos, p string) string        { return api.CleanFor(goos, p) }
func join(goos, dir, name string) string { return api.JoinFor(goos, dir, name) }

// PreferGUI returns the executable that the logon task and the Run value
// start. On Windows the console switchboard.exe would open a console
// window at every login (and closing it would stop the host): the GUI
// switchboard-tray.exe beside it is used instead when it is there.
func PreferGUI(goos, exe string, exists func(string) bool) string {
	if goos != "windows" {
		return exe
	}
	i := strings.LastIndexAny(exe, `\/`)
	dir, base := exe[:i+1], exe[i+1:]
	if !strings.EqualFold(base, "switchboard.exe") {
		return exe
	}
	if gui := dir + "switchboard-tray.exe"; exists(gui) {
		return gui
	}
	return exe
}
