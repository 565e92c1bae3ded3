package config

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// StatePaths are where Switchboard keeps its own state (issue 25,
// docs/sandbox.md): what a sandboxed server must never read or change. A
// server that could write the config file turns its own sandbox off; one
// that could reach host.sock drives the host; activity.db and host.log
// hold what other servers were sent; pins.json decides what apps see.
// Empty fields are skipped.
type StatePaths struct {
	Config  string // the config file (its folder is protected: the host replaces the file by a rename there)
	Runtime string // the runtime folder: host.lock, host.pid, servers.json, and host.sock and mcp.sock
	Socket  string // the host's API socket (its folder: /tmp/switchboard-UID when the runtime folder's path is too long)
	Gateway string // the gateway's socket (its folder, as Socket)
	State   string // the state folder: activity.db, pins.json, lists/, warm.json
	Pins    string // the tool pin file
	Secrets string // the index of secret names (secrets.json; its folder)
	Log     string // host.log (its folder)
	// Keyring is where the OS keeps the keyring that holds the secrets and
	// the OAuth tokens (~/Library/Keychains on macOS; on Linux
	// ~/.local/share/keyrings, which sandbox.Protected lists already).
	Keyring string
}

// List returns the folders and files to protect, each once, cleaned.
func (p StatePaths) List() []string {
	var out []string
	add := func(path string) {
		if path == "" || !filepath.IsAbs(path) {
			return
		}
		path = filepath.Clean(path)
		if !slices.Contains(out, path) {
			out = append(out, path)
		}
	}
	dir := func(path string) {
		if path != "" && filepath.IsAbs(path) {
			add(filepath.Dir(path))
		}
	}
	dir(p.Config)
	add(p.Runtime)
	dir(p.Socket)
	dir(p.Gateway)
	add(p.State)
	add(p.Pins)
	dir(p.Secrets)
	dir(p.Log)
	add(p.Keyring)
	return out
}

// DefaultStatePaths are the paths a `switchboard serve` of this user
// uses without flags: the config file of [DefaultPath], the runtime
// folder and sockets of app/api, the state folder of [StateDir], host.log
// of [LogPath], the secrets' index in the config directory.
func DefaultStatePaths() StatePaths {
	var p StatePaths
	p.Config, _ = DefaultPath(os.Getenv, os.UserConfigDir)
	p.Runtime, _ = api.DefaultRuntimeDir()
	p.Socket, _ = api.DefaultSocketPath()
	p.Gateway, _ = api.DefaultGatewayPath()
	p.State = StateDir(os.Getenv)
	if p.State != "" {
		p.Pins = filepath.Join(p.State, "pins.json")
	}
	if d, err := os.UserConfigDir(); err == nil {
		p.Secrets = filepath.Join(d, "switchboard", "secrets.json") // secrets.DefaultIndexPath
	}
	p.Log = LogPath()
	if runtime.GOOS == "darwin" {
		if home, err := os.UserHomeDir(); err == nil {
			p.Keyring = filepath.Join(home, "Library", "Keychains")
		}
	}
	return p
}

// LogPath is where a host writes host.log: the user's cache directory.
func LogPath() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "switchboard", "host.log")
}

// StateDir is where a host keeps its state (the activity log, the tool
// pins): the user's state directory, $XDG_STATE_HOME/switchboard
// (~/.local/state/switchboard) on Linux and the BSDs, the user's
// application data on macOS and Windows; "" when there is none (the host
// then keeps no activity log, and status says so).
func StateDir(getenv func(string) string) string {
	switch runtime.GOOS {
	case "darwin", "windows":
		dir, err := os.UserConfigDir()
		if runtime.GOOS == "windows" {
			dir, err = os.UserCacheDir() // %LocalAppData%: not roamed
		}
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "switchboard")
	}
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "switchboard")
	}
	if home := getenv("HOME"); filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state", "switchboard")
	}
	return ""
}

// SandboxTempRoot is the folder under which each sandboxed server gets
// its private temp directory (engine.StartOptions.SandboxTemp): the
// user's cache directory's switchboard-sandbox (~/.cache/switchboard-
// sandbox on Linux, ~/Library/Caches/switchboard-sandbox on macOS,
// %LocalAppData%\switchboard-sandbox on Windows). Not the runtime folder,
// nor inside it (a server's TMPDIR would name the folder of host.sock and
// mcp.sock), and not the system's /tmp (shared with every user, and
// emptied at boot while a server's entry stays). "" when the user has no
// cache directory.
func SandboxTempRoot() string {
	dir, err := os.UserCacheDir()
	if err != nil || !filepath.IsAbs(dir) {
		return ""
	}
	return filepath.Join(dir, "switchboard-sandbox")
}

var ownState struct {
	sync.Mutex
	n    int
	sets map[int][]string
}

// RegisterOwnState adds paths to Switchboard's own state that the
// sandbox checks of this process use ([WideGrants]) beside
// [DefaultStatePaths]: a host registers the paths it runs with (its
// --config, its runtime folder), and calls the function returned when it
// stops.
func RegisterOwnState(paths []string) (unregister func()) {
	ownState.Lock()
	defer ownState.Unlock()
	if ownState.sets == nil {
		ownState.sets = map[int][]string{}
	}
	ownState.n++
	id := ownState.n
	ownState.sets[id] = slices.Clone(paths)
	return func() {
		ownState.Lock()
		delete(ownState.sets, id)
		ownState.Unlock()
	}
}

// OwnState is Switchboard's own state as this process knows it: the
// default paths, and those registered by a host running in it.
func OwnState() []string {
	out := DefaultStatePaths().List()
	ownState.Lock()
	defer ownState.Unlock()
	for _, set := range ownState.sets {
		for _, p := range set {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// ProtectedPaths are the paths a sandboxed server is never given under
// home: the credential files of sandbox.Protected and Switchboard's own
// state ([OwnState]), symbolic links resolved beside their names.
func ProtectedPaths(home string) []string {
	return serverspec.Protected(home, OwnState()...)
}
