package api_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
)

func env(kv ...string) func(string) string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) string { return m[k] }
}

// macTmp is a real macOS $TMPDIR.
const macTmp = "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/"

func TestRuntimeDirAndSocketPath(t *testing.T) {
	const sid = "S-1-5-21-1004336348-1177238915-682003330-1001"
	long := "/home/" + strings.Repeat("a", 90) // its socket path is over 107 bytes
	cases := []struct {
		name     string
		goos     string
		env      func(string) string
		dir      string
		socket   string
		errorHas string
	}{
		{"linux xdg", "linux", env("XDG_RUNTIME_DIR", "/run/user/1000", "HOME", "/home/ann"),
			"/run/user/1000/switchboard", "/run/user/1000/switchboard/host.sock", ""},
		{"linux override wins", "linux", env(api.RuntimeDirEnv, "/tmp/sb//x/", "XDG_RUNTIME_DIR", "/run/user/1000"),
			"/tmp/sb/x", "/tmp/sb/x/host.sock", ""},
		{"linux relative override", "linux", env(api.RuntimeDirEnv, "sb", "XDG_RUNTIME_DIR", "/run/user/1000"),
			"", "", "SWITCHBOARD_RUNTIME_DIR is \"sb\", not an absolute path"},
		{"linux relative xdg ignored", "linux", env("XDG_RUNTIME_DIR", "run", "HOME", "/home/ann"),
			"/home/ann/.cache/switchboard", "/home/ann/.cache/switchboard/host.sock", ""},
		{"linux no xdg: cache home", "linux", env("XDG_CACHE_HOME", "/c", "HOME", "/home/ann"),
			"/c/switchboard", "/c/switchboard/host.sock", ""},
		{"linux no xdg: ~/.cache", "linux", env("HOME", "/home/ann"),
			"/home/ann/.cache/switchboard", "/home/ann/.cache/switchboard/host.sock", ""},
		{"linux long path: /tmp fallback", "linux", env("HOME", long),
			long + "/.cache/switchboard", "/tmp/switchboard-1000/host.sock", ""},
		{"linux nothing set", "linux", env(),
			"", "", "neither XDG_RUNTIME_DIR nor HOME is set"},
		{"freebsd like linux", "freebsd", env("XDG_RUNTIME_DIR", "/var/run/xdg/ann"),
			"/var/run/xdg/ann/switchboard", "/var/run/xdg/ann/switchboard/host.sock", ""},
		{"darwin tmpdir", "darwin", env("TMPDIR", macTmp, "HOME", "/Users/ann"),
			macTmp + "switchboard", macTmp + "switchboard/host.sock", ""},
		{"darwin xdg wins", "darwin", env("XDG_RUNTIME_DIR", "/Users/ann/.run", "TMPDIR", macTmp),
			"/Users/ann/.run/switchboard", "/Users/ann/.run/switchboard/host.sock", ""},
		{"darwin no tmpdir: caches", "darwin", env("HOME", "/Users/ann"),
			"/Users/ann/Library/Caches/switchboard", "/Users/ann/Library/Caches/switchboard/host.sock", ""},
		// "/var/folders/" + 67 + "/T/switchboard/host.sock" is 104 bytes.
		{"darwin 104-byte limit", "darwin", env("TMPDIR", "/var/folders/"+strings.Repeat("b", 67)+"/T/"),
			"/var/folders/" + strings.Repeat("b", 67) + "/T/switchboard", "/tmp/switchboard-1000/host.sock", ""},
		{"darwin just under the limit", "darwin", env("TMPDIR", "/var/folders/"+strings.Repeat("b", 66)+"/T/"),
			"/var/folders/" + strings.Repeat("b", 66) + "/T/switchboard",
			"/var/folders/" + strings.Repeat("b", 66) + "/T/switchboard/host.sock", ""},
		{"darwin nothing set", "darwin", env(),
			"", "", "neither XDG_RUNTIME_DIR nor HOME is set"},
		{"windows localappdata", "windows", env("LOCALAPPDATA", `C:\Users\ann\AppData\Local`, "XDG_RUNTIME_DIR", "/run/user/1000"),
			`C:\Users\ann\AppData\Local\switchboard`, `\\.\pipe\switchboard-` + sid, ""},
		{"windows userprofile", "windows", env("USERPROFILE", `C:\Users\ann\`),
			`C:\Users\ann\AppData\Local\switchboard`, `\\.\pipe\switchboard-` + sid, ""},
		{"windows override with slashes", "windows", env(api.RuntimeDirEnv, `D:/sb/run/`, "LOCALAPPDATA", `C:\x`),
			`D:\sb\run`, `\\.\pipe\switchboard-` + sid, ""},
		// A pipe's name does not depend on the directory.
		{"windows relative override", "windows", env(api.RuntimeDirEnv, `sb\run`),
			"", `\\.\pipe\switchboard-` + sid, "not an absolute path"},
		{"windows nothing set", "windows", env("HOME", "/home/ann"),
			"", `\\.\pipe\switchboard-` + sid, "neither LOCALAPPDATA nor USERPROFILE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, err := api.RuntimeDir(c.env, c.goos)
			if c.dir == "" {
				if err == nil || !strings.Contains(err.Error(), c.errorHas) {
					t.Fatalf("RuntimeDir = %q, %v; want an error with %q", dir, err, c.errorHas)
				}
			} else if err != nil || dir != c.dir {
				t.Fatalf("RuntimeDir = %q, %v; want %q", dir, err, c.dir)
			}
			sock, err := api.SocketPath(c.env, c.goos, 1000, sid)
			if c.socket == "" {
				if err == nil || !strings.Contains(err.Error(), c.errorHas) {
					t.Fatalf("SocketPath = %q, %v; want an error with %q", sock, err, c.errorHas)
				}
				return
			}
			if err != nil || sock != c.socket {
				t.Fatalf("SocketPath = %q, %v; want %q", sock, err, c.socket)
			}
			if c.goos == "darwin" && len(sock) >= 104 {
				t.Fatalf("darwin socket path %q is %d bytes, not under 104", sock, len(sock))
			}
		})
	}
}

func TestSocketPathWindowsNeedsUser(t *testing.T) {
	_, err := api.SocketPath(env("LOCALAPPDATA", `C:\x`), "windows", 0, "")
	if err == nil || !strings.Contains(err.Error(), "SID is unknown") {
		t.Fatalf("err = %v", err)
	}
	p, err := api.SocketPath(env(), "windows", 0, `CORP\ann`)
	if err != nil || p != `\\.\pipe\switchboard-CORP-ann` {
		t.Fatalf("SocketPath = %q, %v", p, err)
	}
}
