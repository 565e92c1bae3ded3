package bridge

import (
	"slices"
	"testing"
)

// TestHostEnv: a host started on demand gets who the user is and where,
// and none of the app's switches, loader variables or settings.
func TestHostEnv(t *testing.T) {
	app := []string{
		"HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/zsh", "PATH=/usr/bin:/bin", "TERM=xterm",
		"LANG=fr_FR.UTF-8", "LC_ALL=fr_FR.UTF-8", "TMPDIR=/tmp/u", "XDG_RUNTIME_DIR=/run/user/1000",
		"XDG_CONFIG_HOME=/home/u/.config", "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/1000/bus",
		"SWITCHBOARD_RUNTIME_DIR=/run/sb", "SWITCHBOARD_CONFIG=/home/u/sb.json", "SWITCHBOARD_USER_ENV_FILLED=SHELL",
		// Never passed:
		"SWITCHBOARD_LANDLOCK_ABI=0", "SWITCHBOARD_GATEWAY_SDK_ONLY=1", "SWITCHBOARD_CPUPROFILE=/home/u/.bashrc",
		"SWITCHBOARD_IDLE_TIMEOUT=1ns", "SWITCHBOARD_SANDBOX_POLICY={}", "SWITCHBOARD_SERVER_TOKEN=t", "SWITCHBOARD_BRIDGE_RELAY=1",
		"LD_PRELOAD=/tmp/evil.so", "LD_LIBRARY_PATH=/tmp", "DYLD_INSERT_LIBRARIES=/tmp/evil.dylib", "GODEBUG=x509ignoreCN=0",
		"NODE_OPTIONS=--require /tmp/evil.js", "HTTPS_PROXY=http://evil:8080", "GITHUB_TOKEN=ghp_x", "=C:=C:\\",
	}
	want := app[:15]
	if got := HostEnv(app, "linux"); !slices.Equal(got, want) {
		t.Errorf("linux:\n got %q\nwant %q", got, want)
	}
	if got := HostEnv(app, "darwin"); !slices.Equal(got, want) {
		t.Errorf("darwin:\n got %q\nwant %q", got, want)
	}
	if got := HostEnv(nil, "linux"); got == nil || len(got) != 0 {
		t.Errorf("an empty environment gives %#v: want an empty one, not nil (which exec reads as this process's)", got)
	}

	win := []string{"Path=C:\\Windows", "SystemRoot=C:\\Windows", "USERPROFILE=C:\\Users\\u", "LocalAppData=C:\\Users\\u\\AppData\\Local",
		"ProgramFiles(x86)=C:\\Program Files (x86)", "Switchboard_Runtime_Dir=C:\\sb",
		"SWITCHBOARD_LANDLOCK_ABI=0", "switchboard_gateway_sdk_only=1", "HOME=C:\\Users\\u", "XDG_CONFIG_HOME=C:\\x", "=C:=C:\\"}
	if got := HostEnv(win, "windows"); !slices.Equal(got, win[:6]) {
		t.Errorf("windows:\n got %q\nwant %q", got, win[:6])
	}
}
