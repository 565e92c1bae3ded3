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
	ann := api.Identity{UID: 1000, Name: "ann", Home: "/home/ann", Shell: "/bin/bash"}
	mac := api.Identity{UID: 501, Name: "ann", Home: "/Users/ann", TempDir: macTmp}
	win := api.Identity{Name: `CORP\ann`, Home: `C:\Users\ann`, SID: sid, LocalAppData: `C:\Users\ann\AppData\Local`}
	// What a desktop session sets, and what an AI app may set instead:
	// none of it moves the rendezvous.
	session := env("XDG_RUNTIME_DIR", "/run/user/1000", "HOME", "/home/ann", "TMPDIR", "/tmp/x",
		"XDG_CACHE_HOME", "/c", "LOCALAPPDATA", `D:\other`, "USERPROFILE", `D:\u`)
	other := env("HOME", "/tmp/fakehome", "XDG_RUNTIME_DIR", "/run/user/1000/.flatpak/app", "TMPDIR", "/var/folders/zz/other/T/")
	cases := []struct {
		name     string
		goos     string
		env      func(string) string
		id       api.Identity
		dir      string
		socket   string
		errorHas string
	}{
		{"linux empty env", "linux", env(), ann,
			"/home/ann/.cache/switchboard", "/home/ann/.cache/switchboard/host.sock", ""},
		{"linux session env", "linux", session, ann,
			"/home/ann/.cache/switchboard", "/home/ann/.cache/switchboard/host.sock", ""},
		{"linux another env", "linux", other, ann,
			"/home/ann/.cache/switchboard", "/home/ann/.cache/switchboard/host.sock", ""},
		{"linux override wins", "linux", env(api.RuntimeDirEnv, "/tmp/sb//x/", "XDG_RUNTIME_DIR", "/run/user/1000"), ann,
			"/tmp/sb/x", "/tmp/sb/x/host.sock", ""},
		{"linux relative override", "linux", env(api.RuntimeDirEnv, "sb", "XDG_RUNTIME_DIR", "/run/user/1000"), ann,
			"", "", "SWITCHBOARD_RUNTIME_DIR is \"sb\", not an absolute path"},
		{"linux long home: /tmp fallback", "linux", env(), api.Identity{UID: 1000, Home: long},
			long + "/.cache/switchboard", "/tmp/switchboard-1000/host.sock", ""},
		{"linux no home in the user database", "linux", session, api.Identity{UID: 1000},
			"", "", "no home directory for uid 1000"},
		{"linux relative home ignored", "linux", env(), api.Identity{UID: 7, Home: "home/ann"},
			"", "", "no home directory for uid 7"},
		{"freebsd like linux", "freebsd", env("XDG_RUNTIME_DIR", "/var/run/xdg/ann"), ann,
			"/home/ann/.cache/switchboard", "/home/ann/.cache/switchboard/host.sock", ""},
		{"darwin user temp dir, whatever TMPDIR says", "darwin", other, mac,
			macTmp + "switchboard", macTmp + "switchboard/host.sock", ""},
		{"darwin empty env", "darwin", env(), mac,
			macTmp + "switchboard", macTmp + "switchboard/host.sock", ""},
		{"darwin no temp dir: caches", "darwin", env("TMPDIR", macTmp), api.Identity{UID: 501, Home: "/Users/ann"},
			"/Users/ann/Library/Caches/switchboard", "/Users/ann/Library/Caches/switchboard/host.sock", ""},
		// "/var/folders/" + 67 + "/T/switchboard/host.sock" is 104 bytes.
		{"darwin 104-byte limit", "darwin", env(), api.Identity{UID: 1000, TempDir: "/var/folders/" + strings.Repeat("b", 67) + "/T/"},
			"/var/folders/" + strings.Repeat("b", 67) + "/T/switchboard", "/tmp/switchboard-1000/host.sock", ""},
		{"darwin just under the limit", "darwin", env(), api.Identity{UID: 1000, TempDir: "/var/folders/" + strings.Repeat("b", 66) + "/T/"},
			"/var/folders/" + strings.Repeat("b", 66) + "/T/switchboard",
			"/var/folders/" + strings.Repeat("b", 66) + "/T/switchboard/host.sock", ""},
		{"darwin nothing known", "darwin", session, api.Identity{UID: 501},
			"", "", "no home directory for uid 501"},
		{"windows known folder, whatever LOCALAPPDATA says", "windows", session, win,
			`C:\Users\ann\AppData\Local\switchboard`, `\\.\pipe\switchboard-` + sid, ""},
		{"windows empty env", "windows", env(), win,
			`C:\Users\ann\AppData\Local\switchboard`, `\\.\pipe\switchboard-` + sid, ""},
		{"windows override with slashes", "windows", env(api.RuntimeDirEnv, `D:/sb/run/`), win,
			`D:\sb\run`, `\\.\pipe\switchboard-` + sid, ""},
		// A pipe's name does not depend on the directory.
		{"windows relative override", "windows", env(api.RuntimeDirEnv, `sb\run`), win,
			"", `\\.\pipe\switchboard-` + sid, "not an absolute path"},
		{"windows no known folder", "windows", session, api.Identity{SID: sid},
			"", `\\.\pipe\switchboard-` + sid, "local application data folder is unknown"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, err := api.RuntimeDir(c.env, c.goos, c.id)
			if c.dir == "" {
				if err == nil || !strings.Contains(err.Error(), c.errorHas) {
					t.Fatalf("RuntimeDir = %q, %v; want an error with %q", dir, err, c.errorHas)
				}
			} else if err != nil || dir != c.dir {
				t.Fatalf("RuntimeDir = %q, %v; want %q", dir, err, c.dir)
			}
			sock, err := api.SocketPath(c.env, c.goos, c.id)
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
			gw, err := api.GatewayPath(c.env, c.goos, c.id)
			if err != nil || gw != api.GatewayPathFor(sock) {
				t.Fatalf("GatewayPath = %q, %v; want %q", gw, err, api.GatewayPathFor(sock))
			}
		})
	}
}

func TestSocketPathWindowsNeedsUser(t *testing.T) {
	_, err := api.SocketPath(env("LOCALAPPDATA", `C:\x`), "windows", api.Identity{LocalAppData: `C:\x`})
	if err == nil || !strings.Contains(err.Error(), "SID is unknown") {
		t.Fatalf("err = %v", err)
	}
	p, err := api.SocketPath(env(), "windows", api.Identity{SID: `CORP\ann`})
	if err != nil || p != `\\.\pipe\switchboard-CORP-ann` {
		t.Fatalf("SocketPath = %q, %v", p, err)
	}
}
