package api_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
)

const rendezvousChild = "rendezvous-child"

// rendezvous is what a child reports: where it finds the host, and the
// user environment it filled in.
type rendezvous struct {
	Dir, Socket, Gateway string
	Filled               []string
	Home, User, Shell    string
	Err                  string
}

func printRendezvous() int {
	var r rendezvous
	id, err := api.CurrentIdentity()
	if err != nil {
		r.Err = err.Error()
	}
	r.Filled = api.FillUserEnv(id, runtime.GOOS)
	r.Home, r.User, r.Shell = os.Getenv("HOME"), os.Getenv("USER"), os.Getenv("SHELL")
	if r.Dir, err = api.DefaultRuntimeDir(); err != nil {
		r.Err += err.Error()
	}
	if r.Socket, err = api.DefaultSocketPath(); err != nil {
		r.Err += err.Error()
	}
	if r.Gateway, err = api.DefaultGatewayPath(); err != nil {
		r.Err += err.Error()
	}
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
	return 0
}

// The environments AI apps start a bridge with.
var (
	// The TypeScript MCP SDK's getDefaultEnvironment() (and the Python SDK's
	// get_default_environment()) on Unix: these six names, nothing else.
	sdkDefaultNames = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
)

func onlyVars(names ...string) []string {
	var env []string
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			env = append(env, n+"="+v)
		}
	}
	return env
}

func runRendezvousChild(t *testing.T, env []string) rendezvous {
	t.Helper()
	cmd := exec.Command(os.Args[0], rendezvousChild)
	cmd.Env = env
	if env == nil {
		cmd.Env = []string{} // exec.Cmd takes nil for "inherit"
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child with env %q: %v", env, err)
	}
	var r rendezvous
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("child said %q: %v", out, err)
	}
	return r
}

// Every process of one user meets at one rendezvous, whatever environment
// an AI app gives it: the SDKs' default environment, an empty one, one
// with another XDG_RUNTIME_DIR, TMPDIR or HOME. Real child processes, as
// the apps start them.
func TestRendezvousIgnoresEnvironment(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows: covered under Wine (TestBridgeWindows)")
	}
	full := os.Environ()
	var clean []string
	for _, kv := range full {
		if !strings.HasPrefix(kv, api.RuntimeDirEnv+"=") {
			clean = append(clean, kv)
		}
	}
	session := append(clean, "XDG_RUNTIME_DIR=/run/user/"+strconv.Itoa(os.Getuid()))
	want := runRendezvousChild(t, session)
	if want.Err != "" || want.Socket == "" {
		t.Fatalf("session child: %+v", want)
	}
	envs := map[string][]string{
		"empty (env -i)":          nil,
		"SDK default":             onlyVars(sdkDefaultNames...),
		"another XDG_RUNTIME_DIR": append(onlyVars(sdkDefaultNames...), "XDG_RUNTIME_DIR="+t.TempDir()),
		"another TMPDIR":          append(onlyVars(sdkDefaultNames...), "TMPDIR="+t.TempDir()),
		"another HOME":            {"HOME=" + t.TempDir(), "XDG_CACHE_HOME=" + t.TempDir()},
	}
	for name, env := range envs {
		t.Run(name, func(t *testing.T) {
			got := runRendezvousChild(t, env)
			if got.Err != "" || got.Dir != want.Dir || got.Socket != want.Socket || got.Gateway != want.Gateway {
				t.Fatalf("with %q the child finds\n  %+v\nthe session finds\n  %+v", env, got, want)
			}
		})
	}
	// The rendezvous is under the home directory of the user database.
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && want.Dir != u.HomeDir+"/.cache/switchboard" {
		t.Fatalf("rendezvous %s is not under the user's home %s", want.Dir, u.HomeDir)
	}
}

// A process started with nothing gets HOME, USER, LOGNAME and SHELL from
// the user database; one that has them keeps its own.
func TestFillUserEnv(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix variables")
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	got := runRendezvousChild(t, nil)
	if got.Home != u.HomeDir || got.User != u.Username || got.Shell == "" {
		t.Fatalf("empty env: HOME=%q USER=%q SHELL=%q; want %q %q and a shell", got.Home, got.User, got.Shell, u.HomeDir, u.Username)
	}
	if strings.Join(got.Filled, " ") != "HOME USER LOGNAME SHELL" {
		t.Fatalf("filled %v", got.Filled)
	}
	mine := t.TempDir()
	got = runRendezvousChild(t, []string{"HOME=" + mine, "USER=someone", "LOGNAME=someone", "SHELL=/bin/false"})
	if got.Home != mine || got.User != "someone" || got.Shell != "/bin/false" || len(got.Filled) != 0 {
		t.Fatalf("set values were replaced: %+v", got)
	}
	got = runRendezvousChild(t, []string{"HOME=relative/home"})
	if got.Home != u.HomeDir || strings.Join(got.Filled, " ") != "HOME USER LOGNAME SHELL" {
		t.Fatalf("a relative HOME was kept: %+v", got)
	}
}

func TestParsePasswd(t *testing.T) {
	text := "root:x:0:0:root:/root:/bin/bash\r\n" +
		"# comment\n" +
		"ann:x:1000:1000:Ann,,,:/home/ann:/usr/bin/zsh\n" +
		"odd:x:1001:1001:gecos:/home/odd\n" + // 6 fields: not an entry
		"bob:x:10000:10000::/home/bob:/bin/sh"
	cases := []struct {
		uid               int
		name, home, shell string
		ok                bool
	}{
		{0, "root", "/root", "/bin/bash", true},
		{1000, "ann", "/home/ann", "/usr/bin/zsh", true},
		{10000, "bob", "/home/bob", "/bin/sh", true},
		{1001, "", "", "", false},
		{100, "", "", "", false},
	}
	for _, c := range cases {
		name, home, shell, ok := api.ParsePasswd(text, c.uid)
		if name != c.name || home != c.home || shell != c.shell || ok != c.ok {
			t.Errorf("uid %d: %q %q %q %v; want %q %q %q %v", c.uid, name, home, shell, ok, c.name, c.home, c.shell, c.ok)
		}
	}
}
