package bundle

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

var testDirs = Dirs{Home: "/home/u", Desktop: "/home/u/Desktop", Documents: "/home/u/Documents", Downloads: "/home/u/Downloads"}

func mustParse(t *testing.T, s string) *Manifest {
	t.Helper()
	m, ps := ParseManifest([]byte(s))
	if ps.Refusing() {
		t.Fatal(ps)
	}
	return m
}

// TestExpand: variables, defaults (with their own variables), a multiple
// value as several arguments and as a path list in env, number and boolean
// text, an optional value not given dropping its whole argument, the
// sensitive value only as the caller's reference, and each platform's
// override.
func TestExpand(t *testing.T) {
	m := mustParse(t, full)
	in := Inputs{Values: map[string]any{"max_mb": "42"}, Secrets: map[string]string{"api_key": "${keyring:files.api_key}"}}
	l, ps := m.Expand("/store/files/2.1.0", testDirs, "linux", in)
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	wantArgs := []string{"/store/files/2.1.0/server/index.js", "--dirs", "/home/u/Desktop", "/home/u/Documents", "--max=42", "--verbose=false"}
	if l.Command != "node" || !slices.Equal(l.Args, wantArgs) {
		t.Errorf("linux: %q %q\nwant args %q", l.Command, l.Args, wantArgs)
	}
	wantEnv := map[string]string{
		"API_KEY": "${keyring:files.api_key}", "AUTH": "Bearer ${keyring:files.api_key}",
		"ALLOWED": "/home/u/Desktop:/home/u/Documents", "OUT": "/home/u/Downloads",
	}
	if !maps.Equal(l.Env, wantEnv) {
		t.Errorf("linux env %v\nwant %v", l.Env, wantEnv)
	}

	in.Values["dirs"] = []string{`C:\data`}
	in.Values["label"] = "x y"
	l, ps = m.Expand(`C:\store\files`, testDirs, "windows", in)
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	if l.Command != "node.exe" || l.Args[0] != `C:\store\files\server\index.js` || l.Args[2] != `C:\data` || l.Args[len(l.Args)-1] != "x y" {
		t.Errorf("windows: %q %q", l.Command, l.Args)
	}
	if !maps.Equal(l.Env, map[string]string{"OUT": "/home/u/Documents"}) {
		t.Errorf("windows env (replaced by the override) = %v", l.Env)
	}

	l, _ = m.Expand("/b", testDirs, "darwin", in)
	if l.Command != "node" || !slices.Equal(l.Args, []string{"/b/mac.js"}) || l.Env["LABEL"] != "x y" {
		t.Errorf("darwin: %q %q %v", l.Command, l.Args, l.Env)
	}
}

// TestExpandProblems: each wrong input is named at once and nothing is
// returned; a sensitive value given in plain is refused, so it cannot
// reach a file.
func TestExpandProblems(t *testing.T) {
	m := mustParse(t, full)
	l, ps := m.Expand("/b", testDirs, "linux", Inputs{Values: map[string]any{
		"api_key": "sk-plain-secret", "max_mb": "500", "verbose": "maybe", "nope": "1",
	}})
	want := []string{
		`user_config.nope: is not an option of this bundle: use none, api_key, dirs, max_mb, verbose or label`,
		`user_config.api_key: is sensitive: store it in the keyring and pass its reference, never the plain value`,
		`user_config.api_key: is required (API key): give a value; it is kept in the keyring`,
		`user_config.max_mb: 500 is above max 100: use a value up to 100`,
		`user_config.verbose: "maybe" is not true or false: give true or false`,
	}
	var got []string
	for _, p := range ps {
		got = append(got, p.Error())
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}
	if l.Command != "" || strings.Contains(strings.Join(l.Args, " "), "sk-plain-secret") {
		t.Errorf("a refused expansion returned %+v", l)
	}

	leak := strings.Replace(full, `"--dirs"`, `"--key=${user_config.api_key}"`, 1)
	leak = strings.Replace(leak, `"${user_config.label}"]`, `"${user_config.dirs}x"]`, 1)
	_, ps = mustParse(t, leak).Expand("/b", testDirs, "linux", Inputs{Secrets: map[string]string{"api_key": "${keyring:k}"}})
	got = nil
	for _, p := range ps {
		got = append(got, p.Error())
	}
	want = []string{
		`server.mcp_config.args[5]: ${user_config.dirs} has several values and is part of a longer argument: make it a whole argument`,
		`server.mcp_config.args[1]: uses the sensitive ${user_config.api_key}: a secret can only be passed in env (Switchboard keeps it in the keyring); move it to an environment variable`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n got %q\nwant %q", got, want)
	}
}

// TestExpandUnknownVariable: an unknown variable is a problem at expansion
// too (a manifest built in code, or read despite its problems), never kept
// as text.
func TestExpandUnknownVariable(t *testing.T) {
	m := &Manifest{Server: Server{Type: "binary", MCPConfig: &MCPConfig{Command: Command{Command: "${__dirname}/bin", Args: []string{"--home=${HOMEDIR}"}}}}}
	l, ps := m.Expand("/b", testDirs, "linux", Inputs{})
	if len(ps) != 1 || !strings.HasPrefix(ps[0].Error(), "server.mcp_config.args[0]: ${HOMEDIR} is not a variable: use ${__dirname}") || len(l.Args) != 0 {
		t.Errorf("got %+v, %v", l, ps)
	}
}
