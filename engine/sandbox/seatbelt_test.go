package sandbox

import (
	"embed"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldens are testdata, built into the test binary: the Windows test
// binary runs under Wine from another directory (scripts/wine-test.sh).
//
//go:embed testdata
var goldens embed.FS

// golden compares got with testdata/NAME, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := goldens.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// A node server started through npx, as the engine resolves it on a Mac.
var nodeNeeds = Needs{
	Exec:  "/opt/homebrew/Cellar/node/22.1.0/bin/node",
	Read:  []string{"/opt/homebrew/Cellar/node/22.1.0", "/Users/ann/.npm/_npx/1a2b"},
	Write: []string{"/var/folders/xy/abc/T/switchboard-sbx-fs"},
}

func TestSeatbeltProfileGolden(t *testing.T) {
	cases := []struct {
		name string
		p    Policy
	}{
		{"strict", Policy{Enabled: true, Preset: "strict", Net: NetNone, Required: true}},
		{"files", Policy{Enabled: true, Preset: "files", Net: NetNone,
			Read:  []string{"/Users/ann/Notes"},
			Write: []string{"/Users/ann/Projects/site", "/tmp/scratch"}}},
		{"network", Policy{Enabled: true, Preset: "network", Net: NetOutbound}},
		{"allowlist", Policy{Enabled: true, Net: NetAllow,
			NetAllow: []string{"api.github.com:443", "localhost:8080", "127.0.0.1:8080", "[::1]:9000", "nonsense"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prof := SeatbeltProfile(c.p, nodeNeeds)
			if err := checkSBPL(prof); err != nil {
				t.Fatalf("%v in\n%s", err, prof)
			}
			golden(t, "seatbelt/"+c.name+".sb", prof)
		})
	}
}

func TestSeatbeltProfileOffIsEmpty(t *testing.T) {
	if got := SeatbeltProfile(Policy{Read: []string{"/x"}}, nodeNeeds); got != "" {
		t.Fatalf("a disabled policy gave a profile:\n%s", got)
	}
}

// The network rules each mode gives, and the ones it must not.
func TestSeatbeltProfileNetwork(t *testing.T) {
	has := func(p Policy, s string) bool { return strings.Contains(SeatbeltProfile(p, nodeNeeds), s) }
	anyOut := "(allow network-outbound)\n"
	none := Policy{Enabled: true, Net: NetNone}
	if has(none, anyOut) || has(none, "(remote tcp") || has(none, "(allow system-socket)\n") {
		t.Error("net none allows TCP")
	}
	if !has(none, `(remote unix-socket (subpath "/private/var/folders/xy/abc/T/switchboard-sbx-fs"))`) {
		t.Error("net none does not allow Unix sockets in the private temp")
	}
	if has(none, `(remote unix-socket (subpath "/usr/lib"))`) {
		t.Error("Unix sockets allowed in the system's read paths")
	}
	if !has(Policy{Enabled: true, Net: NetOutbound}, anyOut) {
		t.Error("net outbound does not allow outbound")
	}
	allow := Policy{Enabled: true, Net: NetAllow, NetAllow: []string{"example.com:443"}}
	if has(allow, anyOut) || !has(allow, `(remote tcp "*:443")`) {
		t.Error("allow-list is not port 443 only")
	}
	if n := SeatbeltNotes(allow); len(n) != 1 || !strings.Contains(n[0], "example.com:443") {
		t.Errorf("notes = %q, want one naming example.com:443", n)
	}
	// An allow-list with nothing valid in it allows nothing (an allow
	// without filters would allow everything).
	bad := Policy{Enabled: true, Net: NetAllow, NetAllow: []string{"no-port"}}
	if has(bad, anyOut) || has(bad, "(remote tcp") {
		t.Error("an invalid allow-list allows something")
	}
}

// A path with `"` or `\` stays one string; a path with a control
// character is left out.
func TestSeatbeltProfileEscaping(t *testing.T) {
	evil := []string{
		`/Users/ann/a"b`,
		`/Users/ann/x") (allow default) ("`,
		`/Users/ann/back\slash\`,
		`/Users/ann/back\") (allow default`,
		"/Users/ann/new\nline) (allow default",
		"/Users/ann/tab\there",
	}
	p := Policy{Enabled: true, Read: evil, Write: evil, Net: NetAllow,
		NetAllow: []string{"x\n(allow default):1", `"):2`}}
	prof := SeatbeltProfile(p, Needs{Exec: "/bin/evil\")(allow default)"})
	if err := checkSBPL(prof); err != nil {
		t.Fatalf("%v in\n%s", err, prof)
	}
	strs := sbplStrings(t, prof)
	for _, e := range evil[:4] {
		if !strs[e] {
			t.Errorf("%q is not one SBPL string of the profile", e)
		}
	}
	for _, e := range evil[4:] {
		if strings.Contains(prof, e) || strs[e] {
			t.Errorf("%q with a control character is in the profile", e)
		}
	}
	if !strings.Contains(prof, "; 4 path(s) with control characters left out: denied") {
		t.Error("the left-out paths are not counted")
	}
	if !strs[`/bin/evil")(allow default)`] {
		t.Error("the executable is not one string")
	}
	// Outside strings and comments, the only "allow default" would be a
	// break-out.
	if strings.Contains(stripStrings(t, prof), "allow default") {
		t.Errorf("a path broke out of its string:\n%s", prof)
	}
}

// /tmp, /var and /etc are the /private directories on macOS.
func TestSeatbeltProfilePrivate(t *testing.T) {
	prof := SeatbeltProfile(Policy{Enabled: true, Write: []string{"/tmp/w", "/var/x/../y", "/etcetera"}}, Needs{})
	for _, want := range []string{`(subpath "/private/tmp/w")`, `(subpath "/private/var/y")`, `(subpath "/etcetera")`} {
		if !strings.Contains(prof, want) {
			t.Errorf("profile lacks %s", want)
		}
	}
}

// checkSBPL parses the profile as SBPL's Scheme reader would: strings
// with escapes, #"regex" literals, ; comments; parentheses must balance,
// every form must be a list, and every path filter (literal, subpath,
// path-literal) must take exactly one string.
func checkSBPL(s string) error {
	toks, err := sbplTokens(s)
	if err != nil {
		return err
	}
	depth := 0
	for i, tk := range toks {
		switch tk {
		case "(":
			depth++
		case ")":
			depth--
			if depth < 0 {
				return errors.New("a ) closes nothing")
			}
		default:
			if depth == 0 {
				return errors.New("an atom outside a form: " + tk)
			}
			switch tk {
			case "literal", "subpath", "path-literal", "global-name":
				if i == 0 || toks[i-1] != "(" || i+2 >= len(toks) || !strings.HasPrefix(toks[i+1], `"`) || toks[i+2] != ")" {
					return errors.New("(" + tk + " ...) does not take exactly one string")
				}
			}
		}
	}
	if depth != 0 {
		return errors.New("unbalanced parentheses")
	}
	return nil
}

// sbplTokens splits SBPL into "(", ")", atoms and strings (kept quoted,
// still escaped); comments are dropped.
func sbplTokens(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ';':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\n' || c == '\t':
			i++
		case c == '(' || c == ')':
			toks = append(toks, string(c))
			i++
		case c == '"' || (c == '#' && i+1 < len(s) && s[i+1] == '"'):
			j := i + 1
			if c == '#' {
				j++
			}
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
				if j < len(s) && s[j] == '\n' {
					return nil, errors.New("a newline inside a string")
				}
			}
			if j >= len(s) {
				return nil, errors.New("an unterminated string")
			}
			toks = append(toks, s[i:j+1])
			i = j + 1
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \n\t()\";", rune(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks, nil
}

// sbplStrings are the profile's string literals, unescaped.
func sbplStrings(t *testing.T, s string) map[string]bool {
	toks, err := sbplTokens(s)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tk := range toks {
		if strings.HasPrefix(tk, `"`) {
			var b strings.Builder
			for i := 1; i < len(tk)-1; i++ {
				if tk[i] == '\\' {
					i++
				}
				b.WriteByte(tk[i])
			}
			out[b.String()] = true
		}
	}
	return out
}

// stripStrings is the profile without its strings and comments.
func stripStrings(t *testing.T, s string) string {
	toks, err := sbplTokens(s)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, tk := range toks {
		if !strings.HasPrefix(tk, `"`) && !strings.HasPrefix(tk, `#"`) {
			keep = append(keep, tk)
		}
	}
	return strings.Join(keep, " ")
}

// The launch: sandbox-exec, the profile, "--", then the server's argv as
// it was (an argument that looks like an option stays the server's).
func TestSeatbeltCommand(t *testing.T) {
	argv := []string{"/usr/local/bin/node", "-e", "1", "--", "-p"}
	path, args := SeatbeltCommand(Policy{Enabled: true}, Needs{}, argv)
	if path != "/usr/bin/sandbox-exec" || len(args) != 4+len(argv) || args[1] != "-p" || args[3] != "--" {
		t.Fatalf("launch %s %q", path, args)
	}
	if !strings.Contains(args[2], `(literal "/usr/local/bin/node")`) {
		t.Errorf("the profile does not allow argv[0]:\n%s", args[2])
	}
	for i, a := range argv {
		if args[4+i] != a {
			t.Errorf("argv[%d] = %q, want %q", i, args[4+i], a)
		}
	}
	if path, args := SeatbeltCommand(Policy{}, Needs{}, argv); path != argv[0] || len(args) != len(argv) {
		t.Errorf("off: %s %q", path, args)
	}
}
