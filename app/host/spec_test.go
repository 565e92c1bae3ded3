package host

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/engine"
)

var updateSpecs = flag.Bool("update-specs", false, "rewrite app/config/testdata/specs/golden.json")

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestReservedOptionsFeedTheSpec: an option the table marks reserved
// (read, checked and put in the spec, not acted on yet) has a field.
func TestReservedOptionsFeedTheSpec(t *testing.T) {
	for _, o := range config.Options {
		if specFields[o.Key] == nil && o.Reserved != "" {
			t.Errorf("%s: reserved, but feeds nothing", o.Key)
		}
	}
	for k := range specFields {
		if _, ok := config.OptionByKey(k); !ok {
			t.Errorf("specFields: %s is not an option of config.Options", k)
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
	entry := func(key string, v int) *config.Server {
		t.Helper()
		f, err := config.Parse(fmt.Appendf(nil, `{"mcpServers": {"s": {"command": "node", %q: %d}}}`, key, v))
		if err != nil {
			t.Fatal(err)
		}
		return f.Servers["s"]
	}
	// engineAccepts sets the field the option feeds to v, as the
	// config would, and checks the spec.
	engineAccepts := func(o config.Option, v int) (bool, any) {
		spec := engine.Spec{Name: "s", Command: "node"}
		f := specFields[o.Key](&spec)
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
	for _, o := range config.Options {
		t.Run(o.Key, func(t *testing.T) {
			for _, v := range []int{o.Min, o.Max, o.Default} {
				s := entry(o.Key, v)
				if !s.Valid() {
					t.Errorf("%d refused: %v", v, s.Problems())
				}
				if got := s.Number(o.Key); got != v {
					t.Errorf("Number = %d, want %d", got, v)
				}
				if spec, err := specOf(s, "s"); err == nil && specFields[o.Key] != nil && v != 0 {
					want := any(v)
					if o.Type == config.Duration {
						want = time.Duration(v) * time.Millisecond
					}
					if got := deref(specFields[o.Key](&spec)); got != want {
						t.Errorf("%d reaches the spec as %v", v, got)
					}
				}
				if specFields[o.Key] != nil && o.Reserved == "" && v != 0 {
					if ok, _ := engineAccepts(o, v); !ok {
						t.Errorf("%d: the config accepts it, the engine does not", v)
					}
				}
			}
			for _, v := range []int{o.Min - 1, o.Max + 1} {
				s := entry(o.Key, v)
				ps := s.Problems()
				if len(ps) != 1 || ps[0].Key != o.Key || !strings.Contains(ps[0].Message, fmt.Sprint(v)) ||
					!strings.Contains(ps[0].Message, "remove the key for the default") ||
					v > o.Max && !strings.Contains(ps[0].Message, fmt.Sprintf("use %d to %d %s", o.Min, o.Max, o.Unit)) {
					t.Errorf("%d: problems %v, want one naming %s, the value, the range and the remedy", v, ps, o.Key)
				}
				if s.Number(o.Key) != o.Default {
					t.Errorf("%d: Number = %d, want the default", v, s.Number(o.Key))
				}
				if specFields[o.Key] != nil && o.Reserved == "" && v > 0 {
					if ok, _ := engineAccepts(o, v); ok {
						t.Errorf("%d: the config refuses it, the engine does not", v)
					}
				}
			}
			s := entry("unrelated", 1)
			spec, err := specOf(s, "s")
			if err != nil {
				t.Fatal(err)
			}
			if s.Number(o.Key) != o.Default {
				t.Errorf("omitted: Number = %d, want %d", s.Number(o.Key), o.Default)
			}
			if specFields[o.Key] == nil {
				return
			}
			want := any(o.Default)
			if o.Type == config.Duration {
				want = time.Duration(o.Default) * time.Millisecond
			}
			if got := deref(specFields[o.Key](&spec)); got != want {
				t.Errorf("omitted: the spec has %v, want the default %v", got, want)
			}
			if o.Reserved == "" {
				var zero engine.Spec
				_ = zero.Check()
				if got := deref(specFields[o.Key](&zero)); got != want {
					t.Errorf("the engine's default is %v, the table's %v", got, want)
				}
			}
			if o.ZeroIsValue() {
				spec, err := specOf(entry(o.Key, 0), "s")
				if err != nil {
					t.Fatal(err)
				}
				if err := spec.Check(); err != nil {
					t.Fatal(err)
				}
				if got := deref(specFields[o.Key](&spec)); got != any(0) && got != any(time.Duration(0)) {
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

func TestSpec(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name   string
		server string
		want   engine.Spec
		callTO time.Duration
	}{
		{"defaults", `{"command": "npx", "args": ["-y", "pkg"]}`, engine.Spec{
			Name: "s", Command: "npx", Args: []string{"-y", "pkg"}, Stderr: engine.Stderr{Kind: engine.StderrCapture},
			MaxMessageBytes: 8388608, WriteQueueBytes: 16777216, MaxJunkLines: 10, MaxReconnects: 5,
			StdinGrace: 2 * time.Second, TermGrace: 2 * time.Second, ProbeTimeout: 3 * time.Second, HandshakeTimeout: time.Minute,
		}, 300 * time.Second},
		{"everything", `{"command": "/usr/bin/node", "args": [], "env": {"A": "1", "AUTH": "Bearer ${keyring:gh}", "L": "$${x}"},
			"cwd": ` + jsonString(dir) + `, "stderr": {"file": ` + jsonString(filepath.Join(dir, "log")) + `}, "inheritEnv": ["HTTPS_PROXY"],
			"allowBatchFiles": true, "maxMessageBytes": 2048, "writeQueueBytes": 4096, "maxJunkLines": 0, "maxReconnects": 0,
			"stdinGrace": 0, "termGrace": 150, "probeTimeout": 250, "handshakeTimeout": 1000, "callTimeout": 5000}`, engine.Spec{
			Name: "s", Command: "/usr/bin/node",
			Env: map[string]engine.EnvValue{
				"A": {{Text: "1"}}, "AUTH": {{Text: "Bearer "}, {Secret: "gh"}}, "L": {{Text: "${x}"}},
			},
			InheritEnv: []string{"HTTPS_PROXY"}, Cwd: dir,
			Stderr:          engine.Stderr{Kind: engine.StderrFile, Path: filepath.Join(dir, "log")},
			AllowBatchFiles: true, MaxMessageBytes: 2048, WriteQueueBytes: 4096, MaxJunkLines: -1, MaxReconnects: -1,
			StdinGrace: -1, TermGrace: 150 * time.Millisecond, ProbeTimeout: 250 * time.Millisecond, HandshakeTimeout: time.Second,
		}, 5 * time.Second},
		{"stderr inherit", `{"command": "x", "stderr": "inherit", "termGrace": 2000}`, engine.Spec{
			Name: "s", Command: "x", Stderr: engine.Stderr{Kind: engine.StderrInherit},
			MaxMessageBytes: 8388608, WriteQueueBytes: 16777216, MaxJunkLines: 10, MaxReconnects: 5,
			StdinGrace: 2 * time.Second, TermGrace: 2 * time.Second, ProbeTimeout: 3 * time.Second, HandshakeTimeout: time.Minute,
		}, 300 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := config.Parse([]byte(`{"mcpServers": {"s": ` + tt.server + `}}`))
			if err != nil {
				t.Fatal(err)
			}
			s := f.Servers["s"]
			got, err := specOf(s, "s")
			if err != nil {
				t.Fatal(err)
			}
			// What reserved options feed is checked by
			// TestOptionsAgreeWithEngine.
			for _, o := range config.Options {
				if o.Reserved != "" && specFields[o.Key] != nil {
					reflect.ValueOf(specFields[o.Key](&got)).Elem().SetZero()
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Spec:\n got %+v\nwant %+v", got, tt.want)
			}
			if err := got.Check(); err != nil {
				t.Errorf("engine Check of the spec: %v", err)
			}
			if got.TermGrace < 0 || got.StdinGrace < 0 || got.MaxJunkLines < 0 {
				t.Errorf("Check left a -1: %+v", got)
			}
			if s.CallTimeout() != tt.callTO {
				t.Errorf("CallTimeout = %v, want %v", s.CallTimeout(), tt.callTO)
			}
		})
	}
	if d := (&config.Server{Numbers: map[string]int{"callTimeout": 0}}).CallTimeout(); d != config.DefaultDuration("callTimeout") {
		t.Errorf("CallTimeout of an invalid 0 = %v", d)
	}
}

// optionFields returns the names of the engine.Spec fields that numeric
// options feed. One of them missing from the golden file is an option
// added since: it is not compared (TestOptionsAgreeWithEngine checks its
// default).
func optionFields() map[string]bool {
	var spec engine.Spec
	v := reflect.ValueOf(&spec).Elem()
	names := map[string]bool{}
	for _, o := range config.Options {
		if specFields[o.Key] == nil {
			continue
		}
		p := reflect.ValueOf(specFields[o.Key](&spec)).Pointer()
		for i := 0; i < v.NumField(); i++ {
			if v.Field(i).Addr().Pointer() == p {
				names[v.Type().Field(i).Name] = true
			}
		}
	}
	return names
}

// TestSpecsGolden loads every config of testdata (the fixtures of the
// other tests and testdata/specs/options.json, which sets each numeric
// option at its bounds, past them, as null and as the wrong type) and
// compares what each entry becomes (its engine spec, callTimeout,
// validity and problems; the spec of a valid entry only) with testdata/specs/golden.json: a config
// written before loads the same way after a change to how options are
// declared. -update-specs rewrites the golden file; review its diff.
func TestSpecsGolden(t *testing.T) {
	const dir = "../config/" // the fixtures are the config's
	files := []string{
		"testdata/specs/options.json",
		"testdata/roundtrip.json",
		"testdata/claude_desktop_config.json",
		"testdata/migrate/v0.json",
		"testdata/migrate/v1.json",
	}
	type entry struct {
		Valid         bool            `json:"valid"`
		Problems      []string        `json:"problems,omitempty"`
		CallTimeoutMS int64           `json:"callTimeoutMs"`
		Spec          json.RawMessage `json:"spec"`
	}
	got := map[string]map[string]entry{}
	for _, name := range files {
		f, err := config.Load(dir + name)
		if err != nil {
			t.Fatal(err)
		}
		servers := map[string]entry{}
		for _, n := range f.Names() {
			s := f.Servers[n]
			spec, _ := specOf(s, n)
			raw, err := json.Marshal(spec)
			if err != nil {
				t.Fatal(err)
			}
			e := entry{Valid: s.Valid(), CallTimeoutMS: s.CallTimeout().Milliseconds(), Spec: raw}
			for _, p := range s.Problems() {
				e.Problems = append(e.Problems, p.Error())
			}
			servers[n] = e
		}
		got[filepath.ToSlash(name)] = servers
	}
	const goldenPath = dir + "testdata/specs/golden.json"
	if *updateSpecs {
		out, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (go test -run TestSpecsGolden -update-specs writes it)", err)
	}
	var want map[string]map[string]entry
	added := optionFields()
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	for file, servers := range want {
		for n, w := range servers {
			g, ok := got[file][n]
			if !ok {
				t.Errorf("%s: %s: missing", file, n)
				continue
			}
			if g.Valid != w.Valid || g.CallTimeoutMS != w.CallTimeoutMS || !slices.Equal(g.Problems, w.Problems) {
				t.Errorf("%s: %s:\n got valid %v, callTimeout %d ms, problems %q\nwant valid %v, callTimeout %d ms, problems %q",
					file, n, g.Valid, g.CallTimeoutMS, g.Problems, w.Valid, w.CallTimeoutMS, w.Problems)
			}
			if !w.Valid {
				// An entry with problems is never started: its spec
				// holds the table's default for a value out of range.
				continue
			}
			var gs, ws map[string]json.RawMessage
			if err := json.Unmarshal(g.Spec, &gs); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(w.Spec, &ws); err != nil {
				t.Fatal(err)
			}
			for k, gv := range gs {
				wv, ok := ws[k]
				if !ok && added[k] {
					continue
				}
				if !ok || !bytes.Equal(compact(t, gv), compact(t, wv)) {
					t.Errorf("%s: %s: spec.%s = %s, want %s", file, n, k, gv, wv)
				}
			}
			for k := range ws {
				if _, ok := gs[k]; !ok {
					t.Errorf("%s: %s: spec.%s is gone", file, n, k)
				}
			}
		}
	}
	for file, servers := range got {
		for n := range servers {
			if _, ok := want[file][n]; !ok {
				t.Errorf("%s: %s: not in %s (-update-specs adds it)", file, n, goldenPath)
			}
		}
	}
}

func compact(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
