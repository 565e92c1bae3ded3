package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestActivitySettings: both forms of the "activity" key, and every bad
// value as a problem naming the key and the remedy that leaves the log on.
func TestActivitySettings(t *testing.T) {
	for doc, want := range map[string]ActivitySettings{
		`{}`:                  {},
		`{"activity": null}`:  {},
		`{"activity": true}`:  {},
		`{"activity": false}`: {Off: true},
		`{"activity": {}}`:    {},
		`{"activity": {"retainDays": 7, "maxBytes": 100000000}}`: {RetainDays: 7, MaxBytes: 100000000},
		`{"activity": {"retainDays": 365}}`:                      {RetainDays: 365},
	} {
		f, err := Parse([]byte(doc))
		if err != nil {
			t.Fatalf("Parse(%s): %v", doc, err)
		}
		got, err := f.Activity()
		if err != nil || got != want {
			t.Errorf("%s: %+v, %v; want %+v", doc, got, err, want)
		}
		if r := f.Report().Error(); r != "" {
			t.Errorf("%s: report %q", doc, r)
		}
	}
	for doc, want := range map[string]string{
		`{"activity": "off"}`:               `activity: "off" is neither a switch nor an object: write false to turn the activity log off`,
		`{"activity": 0}`:                   `activity: 0 is neither a switch nor an object`,
		`{"activity": {"retainDays": 0}}`:   `activity.retainDays: 0 is not a number of days: write a whole number from 1 to 36500`,
		`{"activity": {"retainDays": "7"}}`: `activity.retainDays: "7" is not a number of days`,
		`{"activity": {"retainDays": 1.5}}`: `activity.retainDays: 1.5 is not a number of days`,
		`{"activity": {"maxBytes": 1000}}`:  `activity.maxBytes: 1000 is not a size the log can keep: write a whole number of bytes, at least 1048576`,
		`{"activity": {"maxBytes": -1}}`:    `activity.maxBytes: -1 is not a size`,
		`{"activity": {"retaindays": 7}}`:   `activity.retaindays: is not a known key: the activity log's settings are "retainDays", "maxBytes"`,
	} {
		f, err := Parse([]byte(doc))
		if err != nil {
			t.Fatalf("Parse(%s): %v", doc, err)
		}
		if got := f.Report().Error(); !strings.Contains(got, want) {
			t.Errorf("%s: report %q, want %q", doc, got, want)
		}
		if a, _ := f.Activity(); a.Off {
			t.Errorf("%s: a bad value turned the log off", doc)
		}
	}
}

// TestActivityKeptByUpdate: a change to the servers writes the "activity"
// key back as it was, in either form.
func TestActivityKeptByUpdate(t *testing.T) {
	for _, v := range []string{`false`, `{"retainDays": 7, "maxBytes": 100000000}`, `{"retainDays": "bad"}`} {
		path := filepath.Join(t.TempDir(), "config.json")
		doc := `{"activity": ` + v + `, "mcpServers": {"a": {"command": "a"}}}`
		if err := os.WriteFile(path, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := Update(path, func(f *File) error { delete(f.Servers, "a"); return nil }); err != nil {
			t.Fatalf("Update with activity %s: %v", v, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var top map[string]json.RawMessage
		if err := json.Unmarshal(b, &top); err != nil {
			t.Fatal(err)
		}
		var want, got any
		_ = json.Unmarshal([]byte(v), &want)
		if err := json.Unmarshal(top["activity"], &got); err != nil || !jsonEqual(want, got) {
			t.Errorf("activity %s came back as %s", v, top["activity"])
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
