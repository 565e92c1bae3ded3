package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/engine"
)

// optionFields returns the names of the engine.Spec fields that numeric
// options feed. One of them missing from the golden file is an option
// added since: it is not compared (TestOptionsAgreeWithEngine checks its
// default).
func optionFields() map[string]bool {
	var spec engine.Spec
	v := reflect.ValueOf(&spec).Elem()
	names := map[string]bool{}
	for _, o := range Options {
		if o.spec == nil {
			continue
		}
		p := reflect.ValueOf(o.spec(&spec)).Pointer()
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
// validity and problems) with testdata/specs/golden.json: a config
// written before loads the same way after a change to how options are
// declared. -update rewrites the golden file; review its diff.
func TestSpecsGolden(t *testing.T) {
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
		f, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		servers := map[string]entry{}
		for _, n := range f.Names() {
			s := f.Servers[n]
			spec, _ := s.Spec(n)
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
	const goldenPath = "testdata/specs/golden.json"
	if *update_ {
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
		t.Fatalf("%v (go test -run TestSpecsGolden -update writes it)", err)
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
				t.Errorf("%s: %s: not in %s (-update adds it)", file, n, goldenPath)
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
