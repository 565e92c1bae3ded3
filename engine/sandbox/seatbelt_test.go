package sandbox

import (
	"embed"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
		if os.Getenv("CI") != "" {
			t.Fatal("-update rewrites the goldens; never under CI: run it on a laptop and review the diff")
		}
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

// A node server started through npx, as the engine resolves it on a Mac:
// its private temp, and the protected paths it is never given.
var nodeNeeds = Needs{
	Exec:  "/opt/homebrew/Cellar/node/22.1.0/bin/node",
	Read:  []string{"/opt/homebrew/Cellar/node/22.1.0", "/Users/ann/.npm/_npx/1a2b"},
	Write: []string{"/var/folders/xy/abc/T/switchboard-sbx-fs"},
	Temp:  "/var/folders/xy/abc/T/switchboard-sbx-fs",
	Deny:  []string{"/Users/ann/.ssh", "/Users/ann/.npmrc", "/Users/ann/Library/Application Support/Switchboard/config.json"},
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
		{"unix", Policy{Enabled: true, Net: NetNone,
			Read: []string{"/Users/ann/Notes"},
			Unix: []string{"/Users/ann/.colima/default/docker.sock", "/var/run/postgres/.s.PGSQL.5432", "/Users/ann/.colima/default/docker.sock"}}},
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
	none := Policy{Enabled: true, Net: NetNone}
	if has(none, "(remote ip") || has(none, "(remote tcp") || has(none, "(allow system-socket)\n") {
		t.Error("net none allows IP sockets")
	}
	out := Policy{Enabled: true, Net: NetOutbound}
	if !has(out, `(remote ip "*:*")`) || !has(out, "(allow system-socket)\n") {
		t.Error("net outbound does not allow outbound IP")
	}
	allow := Policy{Enabled: true, Net: NetAllow, NetAllow: []string{"example.com:443"}}
	if has(allow, "(remote ip") || !has(allow, `(remote tcp "*:443")`) {
		t.Error("allow-list is not port 443 only")
	}
	if n := seatbeltNotes(allow); len(n) != 1 || !strings.Contains(n[0], "example.com:443") {
		t.Errorf("notes = %q, want one naming example.com:443", n)
	}
	// An allow-list with nothing valid in it allows nothing (an allow
	// without filters would allow everything).
	bad := Policy{Enabled: true, Net: NetAllow, NetAllow: []string{"no-port"}}
	if has(bad, "(remote ip") || has(bad, "(remote tcp") {
		t.Error("an invalid allow-list allows something")
	}
}

// Under every preset, the Unix sockets a server may connect to are the
// ones its policy lists (each its exact path), its private temp, and with
// the network the system's name resolver; it binds only in its private
// temp. No network rule is unfiltered (that would reach every Unix
// socket: host.sock, the SSH agent, docker.sock).
func TestSeatbeltProfileUnixSockets(t *testing.T) {
	temp := "/private/var/folders/xy/abc/T/switchboard-sbx-fs"
	listed := []string{"/Users/ann/.colima/default/docker.sock", "/var/run/pg.sock"}
	for _, net := range []struct {
		p   Policy
		dns bool
	}{
		{Policy{Net: NetNone}, false},
		{Policy{Net: NetOutbound}, true},
		{Policy{Net: NetAllow, NetAllow: []string{"example.com:443"}}, true},
		{Policy{Net: NetAllow, NetAllow: []string{"nonsense"}}, false},
	} {
		for _, unix := range [][]string{nil, listed} {
			p := net.p
			p.Enabled, p.Unix = true, unix
			p.Read = []string{"/Users/ann/Notes", "/private/var/run"}
			p.Write = []string{"/Users/ann/Projects/site", "/tmp"}
			name := fmt.Sprintf("net %s %v, unix %q", p.Net, p.NetAllow, unix)
			connect, bind, other := unixRules(t, SeatbeltProfile(p, nodeNeeds))
			want := []string{"subpath " + temp}
			for _, u := range unix {
				want = append(want, "path-literal "+darwinPath(u))
			}
			if net.dns {
				want = append(want, "path-literal /private/var/run/mDNSResponder")
			}
			slices.Sort(want)
			if !slices.Equal(connect, want) {
				t.Errorf("%s: Unix sockets it may connect to:\n%q\nwant\n%q", name, connect, want)
			}
			if !slices.Equal(bind, []string{"subpath " + temp}) {
				t.Errorf("%s: Unix sockets it may bind: %q, want its private temp only", name, bind)
			}
			if len(other) > 0 {
				t.Errorf("%s: network rules that are neither IP nor a listed Unix socket: %q", name, other)
			}
		}
	}
	// Without a private temp, only the listed ones, and nothing to bind.
	n := nodeNeeds
	n.Temp = ""
	connect, bind, _ := unixRules(t, SeatbeltProfile(Policy{Enabled: true, Unix: listed[:1]}, n))
	if !slices.Equal(connect, []string{"path-literal " + listed[0]}) || len(bind) != 0 {
		t.Errorf("no temp: connect %q, bind %q", connect, bind)
	}
}

// unixRules reads the profile's network rules: the Unix-socket filters of
// network-outbound ("KIND path", sorted) and of network-bind, and every
// network rule or filter that is neither a Unix-socket filter nor an IP
// one (remote ip, remote tcp): an unfiltered (allow network-outbound)
// among them.
func unixRules(t *testing.T, prof string) (connect, bind, other []string) {
	t.Helper()
	forms, err := sbplParse(prof)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range forms {
		if len(f.list) < 2 || f.list[0].atom != "allow" || !strings.HasPrefix(f.list[1].atom, "network") {
			continue
		}
		op := f.list[1].atom
		if len(f.list) == 2 {
			other = append(other, "(allow "+op+") unfiltered")
		}
		for _, flt := range f.list[2:] {
			switch k := flt.head(); {
			case (op == "network-outbound" && k == "remote" || op == "network-bind" && k == "local") &&
				len(flt.list) == 3 && flt.list[1].atom == "unix-socket" && len(flt.list[2].list) == 2:
				target := flt.list[2].head() + " " + unquote(flt.list[2].list[1].atom)
				if op == "network-bind" {
					bind = append(bind, target)
				} else {
					connect = append(connect, target)
				}
			case op == "network-outbound" && k == "remote" && len(flt.list) == 3 && (flt.list[1].atom == "ip" || flt.list[1].atom == "tcp"):
			default:
				other = append(other, op+" "+flt.String())
			}
		}
	}
	slices.Sort(connect)
	slices.Sort(bind)
	return connect, bind, other
}

// sexp is one parsed SBPL form: an atom (strings kept quoted) or a list.
type sexp struct {
	atom string
	list []sexp
}

func (s sexp) head() string {
	if len(s.list) == 0 {
		return ""
	}
	return s.list[0].atom
}

func (s sexp) String() string {
	if s.list == nil {
		return s.atom
	}
	parts := make([]string, len(s.list))
	for i, e := range s.list {
		parts[i] = e.String()
	}
	return "(" + strings.Join(parts, " ") + ")"
}

// sbplParse reads the profile's top-level forms.
func sbplParse(s string) ([]sexp, error) {
	toks, err := sbplTokens(s)
	if err != nil {
		return nil, err
	}
	var stack [][]sexp
	var top []sexp
	for _, tk := range toks {
		switch tk {
		case "(":
			stack = append(stack, []sexp{})
		case ")":
			if len(stack) == 0 {
				return nil, errors.New("a ) closes nothing")
			}
			e := sexp{list: stack[len(stack)-1]}
			if e.list == nil {
				e.list = []sexp{}
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				top = append(top, e)
			} else {
				stack[len(stack)-1] = append(stack[len(stack)-1], e)
			}
		default:
			if len(stack) == 0 {
				return nil, errors.New("an atom outside a form: " + tk)
			}
			stack[len(stack)-1] = append(stack[len(stack)-1], sexp{atom: tk})
		}
	}
	if len(stack) != 0 {
		return nil, errors.New("unbalanced parentheses")
	}
	return top, nil
}

// unquote is an SBPL string token's value.
func unquote(tk string) string {
	var b strings.Builder
	for i := 1; i < len(tk)-1; i++ {
		if tk[i] == '\\' {
			i++
		}
		b.WriteByte(tk[i])
	}
	return b.String()
}

// The protected paths are denied after every allow (the last matching
// rule wins), even where a list grants their folder.
func TestSeatbeltProfileDeny(t *testing.T) {
	p := Policy{Enabled: true, Net: NetOutbound, Read: []string{"/Users/ann"}, Write: []string{"/Users/ann/.ssh"}}
	prof := SeatbeltProfile(p, nodeNeeds)
	forms, err := sbplParse(prof)
	if err != nil {
		t.Fatal(err)
	}
	last := forms[len(forms)-1]
	if last.String() != `(deny file-read* file-write* (subpath "/Users/ann/.npmrc") (subpath "/Users/ann/.ssh") (subpath "/Users/ann/Library/Application Support/Switchboard/config.json"))` {
		t.Errorf("the last rule is not the protected paths' deny: %s", last)
	}
	for _, f := range forms[:len(forms)-1] {
		if f.head() == "deny" && f.String() != "(deny default)" {
			t.Errorf("a deny before the allows it must override: %s", f)
		}
	}
	n := nodeNeeds
	n.Deny = nil
	if strings.Contains(SeatbeltProfile(p, n), "(deny file") {
		t.Error("a deny rule without protected paths")
	}
	if strings.Contains(prof, "opened again") {
		t.Error("the temp is opened again though it lies in no protected folder")
	}

	// The private temp in the host's runtime folder, itself protected: the
	// temp alone is opened again, after the deny.
	n = nodeNeeds
	n.Temp = "/Users/ann/Library/Caches/Switchboard/run/sandbox/fs"
	n.Write = []string{n.Temp}
	n.Deny = []string{"/Users/ann/Library/Caches/Switchboard/run", "/Users/ann/.ssh"}
	forms, err = sbplParse(SeatbeltProfile(p, n))
	if err != nil {
		t.Fatal(err)
	}
	tail := make([]string, 0, 3)
	for _, f := range forms[len(forms)-3:] {
		tail = append(tail, f.String())
	}
	want := []string{
		`(deny file-read* file-write* (subpath "/Users/ann/.ssh") (subpath "/Users/ann/Library/Caches/Switchboard/run"))`,
		`(allow file-read-metadata (literal "/Users/ann/Library/Caches/Switchboard/run") (literal "/Users/ann/Library/Caches/Switchboard/run/sandbox"))`,
		`(allow file-read* file-write* (subpath "/Users/ann/Library/Caches/Switchboard/run/sandbox/fs"))`,
	}
	if !slices.Equal(tail, want) {
		t.Errorf("the profile ends\n%s\nwant\n%s", strings.Join(tail, "\n"), strings.Join(want, "\n"))
	}
	// A protected path that is the temp itself (a caller's mistake): the
	// temp still works.
	n.Deny = []string{n.Temp}
	forms, err = sbplParse(SeatbeltProfile(p, n))
	if err != nil {
		t.Fatal(err)
	}
	if got := forms[len(forms)-1].String(); got != want[2] {
		t.Errorf("the profile ends %s, want %s", got, want[2])
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
	p := Policy{Enabled: true, Read: evil, Write: evil, Unix: evil, Net: NetAllow,
		NetAllow: []string{"x\n(allow default):1", `"):2`}}
	prof := SeatbeltProfile(p, Needs{Exec: "/bin/evil\")(allow default)", Temp: "/tmp/t\")(allow network*)", Deny: evil})
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
	// read 2 (the read and write lists are one list of paths to read),
	// write 2, unix 2; the deny list's 2 are counted on their own line.
	if !strings.Contains(prof, "; 6 path(s) with control characters left out: denied") ||
		!strings.Contains(prof, "; 2 protected path(s) with control characters cannot be written here") {
		t.Errorf("the left-out paths are not counted:\n%s", prof)
	}
	if !strs[`/bin/evil")(allow default)`] {
		t.Error("the executable is not one string")
	}
	// Each listed Unix socket is one path-literal, the temp one subpath.
	connect, bind, other := unixRules(t, prof)
	for _, e := range evil[:4] {
		if !slices.Contains(connect, "path-literal "+e) {
			t.Errorf("the Unix socket %q is not one path-literal: %q", e, connect)
		}
	}
	if !slices.Contains(connect, `subpath /private/tmp/t")(allow network*)`) || !slices.Equal(bind, []string{`subpath /private/tmp/t")(allow network*)`}) {
		t.Errorf("the private temp is not one string: connect %q, bind %q", connect, bind)
	}
	if len(other) > 0 {
		t.Errorf("a path became a network rule: %q", other)
	}
	if strings.Contains(stripStrings(t, prof), "allow network*") {
		t.Errorf("a path broke out of its string:\n%s", prof)
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
	p := Policy{Enabled: true, Unix: []string{"/tmp/a.sock"}}
	path, args := SeatbeltCommand(p, Needs{Temp: "/tmp/t"}, argv)
	prof := SeatbeltProfile(p, Needs{Exec: "/usr/local/bin/node", Temp: "/tmp/t"})
	want := []string{"/usr/bin/sandbox-exec", "-p", prof, "--", "/usr/local/bin/node", "-e", "1", "--", "-p"}
	if path != "/usr/bin/sandbox-exec" || !slices.Equal(args, want) {
		t.Fatalf("launch %s %q\nwant %q", path, args, want)
	}
	if !strings.Contains(args[2], `(literal "/usr/local/bin/node")`) {
		t.Errorf("the profile does not allow argv[0]:\n%s", args[2])
	}
	if path, args := SeatbeltCommand(Policy{}, Needs{}, argv); path != argv[0] || !slices.Equal(args, argv) {
		t.Errorf("off: %s %q", path, args)
	}
}

// Probe on macOS: Seatbelt when sandbox-exec is an executable file; the
// support and the plan say what it enforces, what it does not, and that
// it has not been run on a Mac.
func TestSeatbeltSupportAndPlan(t *testing.T) {
	s := seatbeltSupport(fileInfo{mode: 0o755}, nil)
	if !s.Available() || s.Mechanism != "seatbelt" || s.NetNone == "" {
		t.Fatalf("support %+v", s)
	}
	if str := s.String(); !strings.Contains(str, "Unix sockets by path") || !strings.Contains(str, "not been run on a Mac") || strings.Contains(str, "ABI") {
		t.Errorf("doctor line %q", str)
	}
	if m := seatbeltSupport(nil, fs.ErrNotExist); m.Available() || !strings.Contains(m.Detail, "/usr/bin/sandbox-exec") {
		t.Errorf("missing sandbox-exec: %+v", m)
	}
	if m := seatbeltSupport(fileInfo{mode: 0o644}, nil); m.Available() {
		t.Errorf("not executable: %+v", m)
	}
	if m := seatbeltSupport(fileInfo{mode: fs.ModeDir | 0o755}, nil); m.Available() {
		t.Errorf("a directory: %+v", m)
	}

	st := Plan(Policy{Enabled: true, Preset: "network", Net: NetAllow, NetAllow: []string{"a.com:443"}, Unix: []string{"/x.sock"}}, s)
	all := strings.Join(st.Enforced, "\n") + "\n--\n" + strings.Join(st.NotEnforced, "\n")
	for _, want := range []string{"files: read 0 paths", "ports 443", "Unix sockets: connect only to the 1 listed", "signals and process information only within the sandbox",
		"--\nhosts:", "not been run on a Mac"} {
		if !strings.Contains(all, want) {
			t.Errorf("the plan lacks %q:\n%s", want, all)
		}
	}
	if st.Mechanism != "seatbelt" || st.Net != "seatbelt" || st.Unconfined || st.ABI != 0 || strings.Contains(all, "Landlock") {
		t.Errorf("plan %+v", st)
	}
	if e := seatbeltUnavailable(&UnavailableError{Server: "fs", Reason: "x"}); !strings.Contains(e, `"sandboxRequired": false`) || strings.Contains(e, "Landlock") {
		t.Errorf("unavailable on a Mac: %s", e)
	}
}

// fileInfo is what stat says of sandbox-exec, for seatbeltSupport.
type fileInfo struct {
	fs.FileInfo
	mode fs.FileMode
}

func (f fileInfo) Mode() fs.FileMode { return f.mode }
