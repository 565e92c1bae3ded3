package bridge

import (
	"strings"
)

// The environment of a host that a bridge starts on demand ([HostEnv]).
// That host serves every AI app until it stops, so one app's environment
// must not decide how it runs for the others: it gets the variables that
// say who the user is and where the user's files, session and host are,
// and nothing else. Not the switches that change what the host enforces
// (SWITCHBOARD_LANDLOCK_ABI: test builds' only, and never from a bridge), not SWITCHBOARD_CPUPROFILE (a file the
// host would overwrite), SWITCHBOARD_IDLE_TIMEOUT, the engine's own
// SWITCHBOARD_SANDBOX_POLICY and SWITCHBOARD_SERVER_TOKEN, nor what would
// change the host's code (LD_PRELOAD, DYLD_*, GODEBUG) or its servers'
// (through "inheritEnv": proxies, NODE_OPTIONS). docs/environment.md has
// the table.
var (
	// hostEnvNames are kept on every OS (upper case: Windows matches
	// names case-insensitively).
	hostEnvNames = []string{
		// The rendezvous and the config: the bridge and the host it
		// starts must meet at the same socket, and an app's entry may
		// name the config (ErrConfigFlag says so).
		"SWITCHBOARD_RUNTIME_DIR", "SWITCHBOARD_CONFIG",
		// Internal: which of HOME USER... the bridge took from the user
		// database (app/api.FillUserEnv), for the host's status.
		"SWITCHBOARD_USER_ENV_FILLED",
	}
	hostEnvUnix = []string{
		// The MCP SDKs' default environment of a stdio server.
		"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER",
		"LANG", "LANGUAGE", "TZ", "TMPDIR",
		// The desktop session: the keyring (D-Bus), a browser for a
		// sign-in.
		"DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
	}
	hostEnvUnixPrefixes = []string{"LC_", "XDG_"}
	hostEnvWindows      = []string{
		"PATH", "PATHEXT", "SYSTEMROOT", "WINDIR", "SYSTEMDRIVE", "COMSPEC",
		"TEMP", "TMP", "USERPROFILE", "USERNAME", "USERDOMAIN", "COMPUTERNAME",
		"APPDATA", "LOCALAPPDATA", "HOMEDRIVE", "HOMEPATH", "PUBLIC", "ALLUSERSPROFILE",
		"PROGRAMDATA", "PROGRAMFILES", "PROGRAMFILES(X86)", "PROGRAMW6432",
		"COMMONPROGRAMFILES", "COMMONPROGRAMFILES(X86)", "COMMONPROGRAMW6432",
		"PROCESSOR_ARCHITECTURE", "NUMBER_OF_PROCESSORS", "OS",
	}
)

// HostEnv is the environment of a host that a bridge starts on demand:
// environ's variables (as os.Environ lists them) that hostEnvNames and
// the OS's list allow, in their order; goos is a runtime.GOOS value.
func HostEnv(environ []string, goos string) []string {
	names, prefixes := hostEnvUnix, hostEnvUnixPrefixes
	fold := func(s string) string { return s }
	if goos == "windows" {
		names, prefixes, fold = hostEnvWindows, nil, strings.ToUpper
	}
	allowed := map[string]bool{}
	for _, n := range append(append([]string(nil), hostEnvNames...), names...) {
		allowed[n] = true
	}
	out := []string{}
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		k = fold(k)
		keep := allowed[k]
		for _, p := range prefixes {
			keep = keep || strings.HasPrefix(k, p)
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}
