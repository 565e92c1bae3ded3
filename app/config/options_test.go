package config

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/switchboard-mcp/switchboard/engine"
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
		if o.Type == Duration && o.Max > maxDurationMS {
			t.Errorf("%s: a maximum of %d ms overflows a duration", o.Key, o.Max)
		}
		if !slices.Contains(knownKeys, o.Key) {
			t.Errorf("%s: not a known key", o.Key)
		}
		if o.spec == nil && o.Reserved != "" {
			t.Errorf("%s: reserved, but feeds nothing", o.Key)
		}
	}
}

// TestOptionsAgreeWithEngine: the table's defaults and ranges are the
// engine's: each bound is accepted by the config and by engine.Spec.Check,
// one past it is refused by both, the config's message naming the key, the
// value, the range and the remedy; an omitted key gives the engine's own
// default; an explicit 0 where the range starts at 0 reaches the engine as
// 0, not as the default.
func TestOptionsAgreeWithEngine(t *testing.T) {
	entry := func(key string, v int) *Server {
		t.Helper()
		f, err := Parse(fmt.Appendf(nil, `{"mcpServers": {"s": {"command": "node", %q: %d}}}`, key, v))
		if err != nil {
			t.Fatal(err)
		}
		return f.Servers["s"]
	}
	// engineAccepts sets the field the option feeds to v, as the
	// config would, and checks the spec.
	engineAccepts := func(o Option, v int) (bool, any) {
		spec := engine.Spec{Name: "s", Command: "node"}
		f := o.spec(&spec)
		switch f := f.(type) {
		case *int:
			*f = v
		case *time.Duration:
			*f = time.Duration(v) * time.Millisecond
		}
		err := spec.Check()
		var se *engine.SpecError
		if err != nil && (!errors.As(err, &se) || se.Key != o.Key) {
			t.Fatalf("%s = %d: the engine names another key: %v", o.Key, v, err)
		}
		return err == nil, f
	}
	for _, o := range Options {
		t.Run(o.Key, func(t *testing.T) {
			for _, v := range []int{o.Min, o.Max, o.Default} {
				s := entry(o.Key, v)
				if !s.Valid() {
					t.Errorf("%d refused: %v", v, s.Problems())
				}
				if got := s.Number(o.Key); got != v {
					t.Errorf("Number = %d, want %d", got, v)
				}
				if spec, err := s.Spec("s"); err == nil && o.spec != nil && v != 0 {
					want := any(v)
					if o.Type == Duration {
						want = time.Duration(v) * time.Millisecond
					}
					if got := deref(o.spec(&spec)); got != want {
						t.Errorf("%d reaches the spec as %v", v, got)
					}
				}
				if o.spec != nil && o.Reserved == "" && v != 0 {
					if ok, _ := engineAccepts(o, v); !ok {
						t.Errorf("%d: the config accepts it, the engine does not", v)
					}
				}
			}
			for _, v := range []int{o.Min - 1, o.Max + 1} {
				s := entry(o.Key, v)
				ps := s.Problems()
				if len(ps) != 1 || ps[0].Key != o.Key || !strings.Contains(ps[0].Msg, fmt.Sprint(v)) ||
					!strings.Contains(ps[0].Msg, "remove the key for the default") ||
					v > o.Max && !strings.Contains(ps[0].Msg, fmt.Sprintf("use %d to %d %s", o.Min, o.Max, o.Unit)) {
					t.Errorf("%d: problems %v, want one naming %s, the value, the range and the remedy", v, ps, o.Key)
				}
				if s.Number(o.Key) != o.Default {
					t.Errorf("%d: Number = %d, want the default", v, s.Number(o.Key))
				}
				if o.spec != nil && o.Reserved == "" && v > 0 {
					if ok, _ := engineAccepts(o, v); ok {
						t.Errorf("%d: the config refuses it, the engine does not", v)
					}
				}
			}
			s := entry("unrelated", 1)
			spec, err := s.Spec("s")
			if err != nil {
				t.Fatal(err)
			}
			if s.Number(o.Key) != o.Default {
				t.Errorf("omitted: Number = %d, want %d", s.Number(o.Key), o.Default)
			}
			if o.spec == nil {
				return
			}
			want := any(o.Default)
			if o.Type == Duration {
				want = time.Duration(o.Default) * time.Millisecond
			}
			if got := deref(o.spec(&spec)); got != want {
				t.Errorf("omitted: the spec has %v, want the default %v", got, want)
			}
			if o.Reserved == "" {
				var zero engine.Spec
				_ = zero.Check()
				if got := deref(o.spec(&zero)); got != want {
					t.Errorf("the engine's default is %v, the table's %v", got, want)
				}
			}
			if o.ZeroIsValue() {
				spec, err := entry(o.Key, 0).Spec("s")
				if err != nil {
					t.Fatal(err)
				}
				if err := spec.Check(); err != nil {
					t.Fatal(err)
				}
				if got := deref(o.spec(&spec)); got != any(0) && got != any(time.Duration(0)) {
					t.Errorf("0 reaches the engine as %v", got)
				}
			}
		})
	}
}

func deref(p any) any {
	switch p := p.(type) {
	case *int:
		return *p
	case *time.Duration:
		return *p
	}
	return nil
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
