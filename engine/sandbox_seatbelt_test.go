//go:build unix

package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
)

// seatbeltSupport is what sandbox.Probe says on a Mac.
var seatbeltSupport = sandbox.Support{Mechanism: sandbox.MechanismSeatbelt, NetNone: sandbox.MechanismSeatbelt}

// seatbeltCase is a server as the engine resolves it, in a temp HOME.
func seatbeltCase(t *testing.T) (spec Spec, launch *Launch, opts StartOptions, env []string, home, dir string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home = filepath.Join(dir, "home")
	exe := filepath.Join(dir, "opt", "bin", "server")
	for _, d := range []string{home, filepath.Dir(exe)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(exe, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	spec = Spec{Name: "fs", Command: exe, Args: []string{"--root", "-p"},
		Sandbox: sandbox.Policy{Enabled: true, Preset: "strict", Net: sandbox.NetNone, Unix: []string{"/run/pg/.s.PGSQL.5432"}, Required: true}}
	launch = &Launch{Path: exe, Args: []string{"server", "--root", "-p"}, Resolved: exe}
	opts = StartOptions{SandboxTemp: filepath.Join(dir, "runtime", "sandbox"), Protected: []string{filepath.Join(home, "state", "config.json")}}
	env = []string{"HOME=" + home, "TMPDIR=/elsewhere", "PATH=/usr/bin", "DYLD_INSERT_LIBRARIES=/x/evil.dylib", "DYLD_LIBRARY_PATH=/x"}
	return spec, launch, opts, env, home, dir
}

// mac is p as the profile writes it (/tmp is /private/tmp on a Mac).
func mac(p string) string {
	for _, top := range []string{"/tmp", "/var", "/etc"} {
		if p == top || strings.HasPrefix(p, top+"/") {
			return "/private" + p
		}
	}
	return p
}

// On macOS the server runs under sandbox-exec with the generated profile:
// the exact argv, the private temp as TMPDIR and the one place for its own
// Unix sockets, the entry's listed socket, the protected paths denied, no
// policy in the environment, and a status that says Seatbelt.
func TestSeatbeltLaunch(t *testing.T) {
	spec, launch, opts, env, home, dir := seatbeltCase(t)
	run, env, st, err := seatbeltLaunch(&spec, launch, spec.Args, opts, env, "/usr/bin", seatbeltSupport, home, serverspec.Protected(home, opts.Protected...))
	if err != nil {
		t.Fatal(err)
	}
	if run.Path != "/usr/bin/sandbox-exec" || len(run.Args) < 3 {
		t.Fatalf("launch %s %q", run.Path, run.Args)
	}
	prof := run.Args[2]
	want := []string{"/usr/bin/sandbox-exec", "-p", prof, "--", launch.Path, "--root", "-p"}
	if !slices.Equal(run.Args, want) {
		t.Errorf("argv %q\nwant %q", run.Args, want)
	}
	tmp := filepath.Join(dir, "runtime", "sandbox", "fs")
	if fi, err := os.Stat(tmp); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Errorf("private temp %s: %v %v", tmp, fi, err)
	}
	for _, w := range []string{
		`(literal "` + mac(launch.Path) + `")`,
		`(allow network-bind (local unix-socket (subpath "` + mac(tmp) + `")))`,
		`(remote unix-socket (subpath "` + mac(tmp) + `"))`,
		`(remote unix-socket (path-literal "/run/pg/.s.PGSQL.5432"))`,
		`(subpath "` + mac(filepath.Join(home, ".ssh")) + `")`,
		`(subpath "` + mac(filepath.Join(home, "state", "config.json")) + `")`,
		"; Switchboard: one MCP server's sandbox (docs/sandbox.md), generated; preset strict",
	} {
		if !strings.Contains(prof, w) {
			t.Errorf("the profile lacks %s:\n%s", w, prof)
		}
	}
	if i, j := strings.Index(prof, "(deny file-read*"), strings.LastIndex(prof, "(allow "); i < j {
		t.Error("the protected paths are not denied after every allow")
	}
	for _, k := range []string{"TMPDIR", "TMP", "TEMP"} {
		if v, _ := lookupEnv(env, k, goosName); v != tmp {
			t.Errorf("%s = %q, want %q", k, v, tmp)
		}
	}
	if _, ok := lookupEnv(env, sandbox.PolicyEnv, goosName); ok {
		t.Error("the policy is in the environment: the profile is an argument")
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "DYLD_") {
			t.Errorf("%s reaches sandbox-exec: dyld would act on it before the profile applies", kv)
		}
	}
	if _, ok := lookupEnv(env, sandbox.CarryEnv, goosName); ok {
		t.Error("the environment carries variables for an exec shim: macOS has none")
	}
	if st.Mechanism != "seatbelt" || st.Unconfined || !slices.ContainsFunc(st.Enforced, func(s string) bool { return strings.HasPrefix(s, "Unix sockets: connect only to the 1 listed") }) {
		t.Errorf("status %+v", st)
	}
}

// sandboxLaunch takes the Seatbelt path when the probe says so, with no
// exec shim (the Linux path refuses to start without one).
func TestSandboxLaunchSeatbelt(t *testing.T) {
	old := probeSandbox
	probeSandbox = func() sandbox.Support { return seatbeltSupport }
	t.Cleanup(func() { probeSandbox = old })
	spec, launch, opts, env, _, _ := seatbeltCase(t)
	opts.Shim = ""
	run, _, st, _, err := sandboxLaunch(&spec, launch, opts, env, "/usr/bin")
	if err != nil {
		t.Fatal(err)
	}
	if run.Path != sandbox.SeatbeltExec || st.Mechanism != "seatbelt" {
		t.Errorf("launch %s, status %+v", run.Path, st)
	}
}
