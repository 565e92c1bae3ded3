package config

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
)

// TestOptionRows: every row of the table is complete and consistent.
func TestOptionRows(t *testing.T) {
	seen := map[string]bool{}
	for _, o := range Options {
		if seen[o.Key] {
			t.Errorf("%s: declared twice", o.Key)
		}
		seen[o.Key] = true
		if o.Label == "" || o.Help == "" || !strings.HasSuffix(o.Help, ".") {
			t.Errorf("%s: a label and a one-sentence help are needed (label %q, help %q)", o.Key, o.Label, o.Help)
		}
		wantUnit := map[OptionType]string{Duration: "ms", Bytes: "bytes"}[o.Type]
		if o.Type == Count && (o.Unit == "" || o.Unit == "ms" || o.Unit == "bytes") || o.Type != Count && o.Unit != wantUnit {
			t.Errorf("%s: type %q with unit %q", o.Key, o.Type, o.Unit)
		}
		if o.Min < 0 || o.Min > o.Default || o.Default > o.Max {
			t.Errorf("%s: default %d outside its range %d to %d", o.Key, o.Default, o.Min, o.Max)
		}
		if o.Type == Duration && o.Max > 1<<40 {
			t.Errorf("%s: a maximum of %d ms overflows a duration", o.Key, o.Max)
		}
		if !slices.Contains(knownKeys, o.Key) {
			t.Errorf("%s: not a known key", o.Key)
		}
	}
}

// TestMisspelledKeys: a key within two edits of a known one is a problem
// of the entry that names the key it looks like; unknown keys that are not
// near one are kept silently, and every key is kept when the file is
// written back.
func TestMisspelledKeys(t *testing.T) {
	doc := `{"mcpServers": {"s": {"command": "node", "arsg": ["x"], "TermGrace": 5, "envs": {}, "tags": ["a"], "description": "mine", "tpye": "stdio"}}}`
	f, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if s := f.Servers["s"]; s.Valid() {
		t.Errorf("an entry with a misspelled key runs without the option it meant")
	}
	var got []string
	for _, p := range f.Report().Problems() {
		got = append(got, p.Error())
	}
	want := []string{
		`mcpServers.s.arsg: is not a known key: did you mean "args"? Rename it, or remove it`,
		`mcpServers.s.TermGrace: is not a known key: did you mean "termGrace"? Rename it, or remove it`,
		`mcpServers.s.envs: is not a known key: did you mean "env"? Rename it, or remove it`,
		`mcpServers.s.tpye: is not a known key: did you mean "type"? Rename it, or remove it`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s, err := ParseServer("s", []byte(`{"command": "node", "arsg": ["x"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if ps := s.Problems(); s.Valid() || len(ps) != 1 || ps[0].Key != "arsg" || ps[0].Server != "s" {
		t.Errorf("ParseServer: problems %v", ps)
	}
	if s, _ := ParseServer("s", []byte(`{"command": "node", "tags": ["x"], "description": "d"}`)); !s.Valid() {
		t.Errorf("keys near no known one are refused: %v", s.Problems())
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"arsg": [`, `"TermGrace": 5`, `"tags": [`, `"description": "mine"`} {
		if !strings.Contains(string(out), k) {
			t.Errorf("writing the file back lost %s:\n%s", k, out)
		}
	}
	for key, want := range map[string]string{
		"arsg": "args", "comand": "command", "CWD": "cwd", "callTimout": "callTimeout", "termgrace": "termGrace",
		"disable": "disabled", "enviroment": "", "tags": "", "description": "", "header": "headers", "timeout": "", "a": "",
	} {
		if got := nearKey(key); got != want {
			t.Errorf("nearKey(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestCheckEnvName: a variable name with whitespace, '=' or a control
// character is refused, naming it and saying what a name is.
func TestCheckEnvName(t *testing.T) {
	for _, n := range []string{"GITHUB_TOKEN", "a", "npm_config_cache", "ProgramFiles(x86)", "X.Y-Z"} {
		if err := CheckEnvName(n); err != nil {
			t.Errorf("%q: %v", n, err)
		}
	}
	for _, n := range []string{"", "BAD KEY", "A=B", "TAB\tKEY", "NL\n", "NUL\x00", " LEAD", "NBSP\u00a0X"} {
		err := CheckEnvName(n)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", n)) || !strings.Contains(err.Error(), "GITHUB_TOKEN") {
			t.Errorf("%q: %v", n, err)
		}
	}
}

// readmePath is the README whose option table is generated.
const readmePath = "../../README.md"

// TestOptionDocs: README.md's table of numeric options and this package's
// comment are the table's. On a difference it prints the expected text;
// go generate (go test -run TestOptionDocs . -update) rewrites both.
func TestOptionDocs(t *testing.T) {
	for _, d := range []struct {
		path, begin, end, want string
	}{
		{readmePath, "<!-- options: generated from app/config/options.go by go generate ./app/config; a test checks it -->\n",
			"<!-- /options -->\n", optionsMarkdown()},
		{"doc.go", "// The numeric options (generated from [Options]; a test checks it):\n//\n",
			"//\n", optionsComment()},
	} {
		data, err := os.ReadFile(d.path)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.ReplaceAll(string(data), "\r\n", "\n")
		i := strings.Index(text, d.begin)
		if i < 0 {
			t.Errorf("%s: no line %q to put the table after", d.path, d.begin)
			continue
		}
		i += len(d.begin)
		j := strings.Index(text[i:], d.end)
		if j < 0 {
			t.Errorf("%s: no line %q after the table", d.path, d.end)
			continue
		}
		if got := text[i : i+j]; got != d.want {
			if *update_ {
				if err := os.WriteFile(d.path, []byte(text[:i]+d.want+text[i+j:]), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			t.Errorf("%s: the table of options differs from app/config/options.go; run go generate ./app/config, or paste:\n%s", d.path, d.want)
		}
	}
}

// optionsMarkdown is README's table.
func optionsMarkdown() string {
	var b strings.Builder
	b.WriteString("| key | unit | default | range | what it does |\n|---|---|---|---|---|\n")
	for _, o := range Options {
		help := o.Help
		if o.Reserved != "" {
			help = "*Reserved, not yet acted on (" + o.Reserved + ").* " + help
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %d to %d | %s |\n", o.Key, o.Unit, o.docDefault(), o.Min, o.Max, help)
	}
	return b.String()
}

// optionsComment is the package comment's table.
func optionsComment() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "key\tunit\tdefault\trange\t")
	for _, o := range Options {
		note := ""
		if o.Reserved != "" {
			note = "reserved: not acted on yet"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d to %d\t%s\n", o.Key, o.Unit, o.docDefault(), o.Min, o.Max, note)
	}
	_ = tw.Flush()
	var out strings.Builder
	for _, l := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		out.WriteString("//\t" + strings.TrimRight(l, " ") + "\n")
	}
	return out.String()
}

// docDefault is the default as the docs write it: "8388608 (8 MiB)".
func (o Option) docDefault() string {
	s := fmt.Sprint(o.Default)
	if h := o.human(o.Default); h != "" {
		s += " (" + h + ")"
	}
	return s
}

// TestDefaultDuration: a Duration option's default as a duration is the
// table's; another key is a programming error.
func TestDefaultDuration(t *testing.T) {
	for _, o := range Options {
		if o.Type != Duration {
			continue
		}
		if got := DefaultDuration(o.Key); got != time.Duration(o.Default)*time.Millisecond {
			t.Errorf("%s: %v, the table says %d ms", o.Key, got, o.Default)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("DefaultDuration of a count did not panic")
		}
	}()
	DefaultDuration("maxReconnects")
}
