//go:build unix

package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fakeSecrets is an in-memory SecretResolver (the OS keyring lives in
// another package); a name it lacks fails.
type fakeSecrets map[string]string

func (f fakeSecrets) Resolve(_ context.Context, name string) ([]byte, error) {
	if v, ok := f[name]; ok {
		return []byte(v), nil
	}
	return nil, fmt.Errorf("the keyring is locked")
}

// keptSecrets hands out values and keeps the slices, to see what BuildEnv
// does with them.
type keptSecrets struct {
	vals  map[string]string
	given [][]byte
}

func (k *keptSecrets) Resolve(_ context.Context, name string) ([]byte, error) {
	v, ok := k.vals[name]
	if !ok {
		return nil, fmt.Errorf("the keyring is locked")
	}
	b := []byte(v)
	k.given = append(k.given, b)
	return b, nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// BuildEnv zeroes every slice a resolver gave it, on success and on error,
// and wipe zeroes the entries that held a secret (the strings of env share
// that memory) and leaves the others alone.
func TestBuildEnvZeroesSecrets(t *testing.T) {
	r := &keptSecrets{vals: map[string]string{"github": "ghp_s3cr3t", "db": "pa55"}}
	spec := &Spec{Name: "z", Command: "x", Env: map[string]EnvValue{
		"AUTHORIZATION": {{Text: "Bearer "}, {Secret: "github"}},
		"DSN":           {{Text: "postgres://u:"}, {Secret: "db"}, {Text: "@localhost/x"}},
		"PLAIN":         Literal("kept"),
	}}
	env, wipe, err := BuildEnv(context.Background(), spec, []string{"HOME=/h"}, "", "linux", r)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.given) != 2 {
		t.Fatalf("resolver called %d times, want 2", len(r.given))
	}
	for i, b := range r.given {
		if !allZero(b) {
			t.Errorf("the resolver's slice %d was not zeroed: %q", i, b)
		}
	}
	want := []string{"AUTHORIZATION=Bearer ghp_s3cr3t", "DSN=postgres://u:pa55@localhost/x", "HOME=/h", "PLAIN=kept"}
	if !reflect.DeepEqual(env, want) {
		t.Fatalf("env = %q\nwant  %q", env, want)
	}
	wipe()
	if !allZero([]byte(env[0])) || !allZero([]byte(env[1])) {
		t.Errorf("wipe left the secret entries: %q", env[:2])
	}
	if env[2] != "HOME=/h" || env[3] != "PLAIN=kept" {
		t.Errorf("wipe touched entries without a secret: %q", env[2:])
	}

	// An error after a secret was resolved: that slice is zeroed too.
	r = &keptSecrets{vals: map[string]string{"github": "ghp_s3cr3t"}}
	spec.Env["ZZZ"] = SecretRef("missing")
	if _, _, err := BuildEnv(context.Background(), spec, nil, "", "linux", r); err == nil {
		t.Fatal("a missing secret is not an error")
	}
	for i, b := range r.given {
		if !allZero(b) {
			t.Errorf("after an error, the resolver's slice %d was not zeroed: %q", i, b)
		}
	}
}

// A secret holding a NUL byte (stored before 'secret set' refused them)
// is an error that names the variable and the secret, never the value.
func TestBuildEnvSecretWithNUL(t *testing.T) {
	r := fakeSecrets{"tok": "abc\x00def"}
	spec := &Spec{Name: "srv", Command: "x", Env: map[string]EnvValue{"API_TOKEN": {{Text: "k="}, {Secret: "tok"}}}}
	_, _, err := BuildEnv(context.Background(), spec, nil, "", "linux", r)
	var se *SecretError
	if !errors.As(err, &se) || se.Var != "API_TOKEN" || se.Secret != "tok" {
		t.Fatalf("err = %v, want a *SecretError for API_TOKEN/tok", err)
	}
	for _, w := range []string{"env.API_TOKEN", `secret "tok"`, "NUL", "switchboard secret set tok", `server "srv"`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message %q lacks %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "abc") || strings.Contains(err.Error(), "def") {
		t.Errorf("message %q holds the value", err)
	}
	// A literal with a NUL: a SpecError naming the variable.
	spec.Env = map[string]EnvValue{"LIT": Literal("a\x00b")}
	_, _, err = BuildEnv(context.Background(), spec, nil, "", "linux", r)
	var spe *SpecError
	if !errors.As(err, &spe) || spe.Key != "env.LIT" {
		t.Fatalf("literal NUL: err = %v, want a *SpecError for env.LIT", err)
	}
}

var hostPOSIX = []string{
	"HOME=/home/ada", "LOGNAME=ada", "PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/bash",
	"TERM=xterm-256color", "USER=ada",
	"LD_PRELOAD=/tmp/evil.so", "SSH_AUTH_SOCK=/tmp/agent", "AWS_SECRET_ACCESS_KEY=hunter2",
	"GITHUB_TOKEN=ghp_host", "home=/lower", "Path=/mixed", "HTTPS_PROXY=http://proxy:3128",
	"NO_PROXY=localhost", "BASH_FUNC_f%%=() {  echo pwned; }", "noequals", "=weird",
}

func TestBuildEnvPOSIXAllowlist(t *testing.T) {
	env, _, err := BuildEnv(context.Background(), &Spec{Command: "x"}, hostPOSIX, "", "linux", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"HOME=/home/ada", "LOGNAME=ada", "PATH=/usr/local/bin:/usr/bin:/bin", "SHELL=/bin/bash",
		"TERM=xterm-256color", "USER=ada"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("env = %q\nwant  %q", env, want)
	}
	if got := Allowlist("darwin"); !reflect.DeepEqual(got, []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}) {
		t.Errorf("Allowlist(darwin) = %v", got)
	}
}

func TestBuildEnvDropsShellFunctions(t *testing.T) {
	host := []string{"HOME=/home/ada", "TERM=() { :; }; echo pwned", "SHELL=()", "HTTPS_PROXY=() { x; }", "USER= () not at start"}
	spec := &Spec{Command: "x", InheritEnv: []string{"HTTPS_PROXY"}}
	env, _, err := BuildEnv(context.Background(), spec, host, "", "linux", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"HOME=/home/ada", "USER= () not at start"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("env = %q, want %q", env, want)
	}
}

func TestBuildEnvInheritAndOverride(t *testing.T) {
	spec := &Spec{Command: "x", InheritEnv: []string{"HTTPS_PROXY", "NODE_EXTRA_CA_CERTS"},
		Env: map[string]EnvValue{"HOME": Literal("/srv/home"), "DEBUG": Literal("1"), "EMPTY": Literal("")}}
	env, _, err := BuildEnv(context.Background(), spec, hostPOSIX, "/opt/node/bin:/usr/bin", "linux", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"DEBUG=1", "EMPTY=", "HOME=/srv/home", "HTTPS_PROXY=http://proxy:3128", "LOGNAME=ada",
		"PATH=/opt/node/bin:/usr/bin", "SHELL=/bin/bash", "TERM=xterm-256color", "USER=ada"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("env = %q\nwant  %q", env, want)
	}
	// spec.Env wins over the PATH given too.
	spec.Env["PATH"] = Literal("/only/mine")
	env, _, _ = BuildEnv(context.Background(), spec, hostPOSIX, "/opt/node/bin", "linux", nil)
	if v, _ := lookupEnv(env, "PATH", "linux"); v != "/only/mine" || strings.Count(strings.Join(env, "\n"), "PATH=") != 1 {
		t.Errorf("env = %q, want one PATH=/only/mine", env)
	}
}

func TestBuildEnvWindows(t *testing.T) {
	host := []string{
		`Path=C:\Windows\system32;C:\Program Files\nodejs`, `SystemRoot=C:\Windows`, `PATHEXT=.COM;.EXE;.BAT;.CMD`,
		`ComSpec=C:\Windows\system32\cmd.exe`, `temp=C:\Users\ada\AppData\Local\Temp`, `USERPROFILE=C:\Users\ada`,
		`ProgramFiles=C:\Program Files`, `APPDATA=C:\Users\ada\AppData\Roaming`, `GITHUB_TOKEN=ghp_host`,
		`=C:=C:\Users\ada`, `https_proxy=http://proxy:3128`, `HOME=C:\msys\home`,
	}
	spec := &Spec{Command: "x", InheritEnv: []string{"HTTPS_PROXY"}}
	env, _, err := BuildEnv(context.Background(), spec, host, "", "windows", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`APPDATA=C:\Users\ada\AppData\Roaming`, `PATHEXT=.COM;.EXE;.BAT;.CMD`,
		`Path=C:\Windows\system32;C:\Program Files\nodejs`, `ProgramFiles=C:\Program Files`, `SystemRoot=C:\Windows`,
		`USERPROFILE=C:\Users\ada`, `https_proxy=http://proxy:3128`, `temp=C:\Users\ada\AppData\Local\Temp`}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("env = %q\nwant  %q", env, want)
	}
	// A PATH given replaces Path and keeps its spelling; spec.Env's "path"
	// replaces it whatever the case.
	env, _, _ = BuildEnv(context.Background(), spec, host, `C:\node`, "windows", nil)
	if !containsStr(env, `Path=C:\node`) || countPrefixFold(env, "PATH=") != 1 {
		t.Errorf("with a PATH given: %q", env)
	}
	spec.Env = map[string]EnvValue{"path": Literal(`D:\bin`), "SYSTEMROOT": Literal(`D:\Win`)}
	env, _, _ = BuildEnv(context.Background(), spec, host, `C:\node`, "windows", nil)
	if !containsStr(env, `path=D:\bin`) || countPrefixFold(env, "PATH=") != 1 ||
		!containsStr(env, `SYSTEMROOT=D:\Win`) || countPrefixFold(env, "SYSTEMROOT=") != 1 {
		t.Errorf("with spec.Env path and SYSTEMROOT: %q", env)
	}
	// On POSIX, names are case-sensitive: Path and SystemRoot are not PATH.
	env, _, _ = BuildEnv(context.Background(), &Spec{Command: "x"}, host, "", "linux", nil)
	if !reflect.DeepEqual(env, []string{`HOME=C:\msys\home`}) {
		t.Errorf("the Windows host env on linux gave %q, want only HOME", env)
	}
}

func containsStr(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func countPrefixFold(list []string, prefix string) int {
	n := 0
	for _, x := range list {
		if len(x) >= len(prefix) && strings.EqualFold(x[:len(prefix)], prefix) {
			n++
		}
	}
	return n
}

func TestBuildEnvSecrets(t *testing.T) {
	r := fakeSecrets{"github": "ghp_s3cr3t", "db": "pa55"}
	spec := &Spec{Command: "x", Env: map[string]EnvValue{
		"GITHUB_TOKEN":  SecretRef("github"),
		"AUTHORIZATION": {{Text: "Bearer "}, {Secret: "github"}},
		"DSN":           {{Text: "postgres://u:"}, {Secret: "db"}, {Text: "@localhost/x"}},
	}}
	env, _, err := BuildEnv(context.Background(), spec, []string{"HOME=/h"}, "", "linux", r)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"AUTHORIZATION=Bearer ghp_s3cr3t", "DSN=postgres://u:pa55@localhost/x", "GITHUB_TOKEN=ghp_s3cr3t", "HOME=/h"}
	if !reflect.DeepEqual(env, want) {
		t.Errorf("env = %q\nwant  %q", env, want)
	}
}

func TestBuildEnvSecretError(t *testing.T) {
	r := fakeSecrets{"github": "ghp_s3cr3t"}
	spec := &Spec{Name: "gh", Command: "x", Env: map[string]EnvValue{
		"A_TOKEN": SecretRef("github"), // resolved first (sorted), its value must not leak
		"B_KEY":   {{Text: "k="}, {Secret: "missing"}},
		"C_TOKEN": SecretRef("github"),
	}}
	env, _, err := BuildEnv(context.Background(), spec, nil, "", "linux", r)
	var se *SecretError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v (%T), want *SecretError", err, err)
	}
	if env != nil {
		t.Errorf("env = %q on error, want nil", env)
	}
	if se.Var != "B_KEY" || se.Secret != "missing" || se.Server != "gh" {
		t.Errorf("SecretError = %+v, want Var B_KEY, Secret missing, Server gh", se)
	}
	msg := err.Error()
	for _, w := range []string{"B_KEY", `"missing"`, `"gh"`, "keyring is locked"} {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q does not contain %q", msg, w)
		}
	}
	if strings.Contains(msg, "ghp_s3cr3t") || strings.Contains(msg, "s3cr3t") {
		t.Errorf("message %q contains a secret's value", msg)
	}
	if errors.Unwrap(err) == nil {
		t.Error("SecretError does not unwrap to the resolver's error")
	}

	// No resolver at all.
	_, _, err = BuildEnv(context.Background(), &Spec{Command: "x", Env: map[string]EnvValue{"T": SecretRef("s")}}, nil, "", "linux", nil)
	if !errors.As(err, &se) || se.Var != "T" || se.Secret != "s" {
		t.Errorf("nil resolver: err = %v, want *SecretError for T/s", err)
	}
}
