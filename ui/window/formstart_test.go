package window

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// TestFormStartRow: the Settings' Start row shows how the entry starts,
// shows the idle stop only for "On first use", and writes "start" and
// "idleStop" into the entry; an entry that follows the file's defaults
// keeps no "start" of its own until the choice changes (issue 27 item
// 15).
func TestFormStartRow(t *testing.T) {
	entryOf := func(f *serverForm) map[string]any {
		raw, _, _ := f.entry()
		var e map[string]any
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	w, _ := goldenWindow(t)
	s, err := config.ParseServer("time", []byte(`{"command": "uvx", "args": ["mcp-server-time"]}`))
	if err != nil {
		t.Fatal(err)
	}
	f := newServerForm(w, "time", false, s, map[string]json.RawMessage{"command": json.RawMessage(`"uvx"`), "args": json.RawMessage(`["mcp-server-time"]`)}, nil)
	if f.start.Selected != startAlwaysLabel || f.idleBox.Visible() {
		t.Errorf("a plain entry: Start %q, idle stop shown %v", f.start.Selected, f.idleBox.Visible())
	}
	if _, ok := entryOf(f)["start"]; ok {
		t.Errorf("an unchanged Start wrote a start: %v", entryOf(f))
	}
	f.start.SetSelected(startOnDemandLabel)
	if !f.idleBox.Visible() {
		t.Error("On first use does not show the idle stop")
	}
	f.limitEntries[idleStopKey].SetText("90000")
	e := entryOf(f)
	if e["start"] != "on-demand" || e["idleStop"] != float64(90000) {
		t.Errorf("On first use with 90000 ms: %v", e)
	}
	if c := f.check(); len(c.bad) > 0 {
		t.Errorf("the entry does not check: %v %v", c.bad, c.ps)
	}
	f.limitEntries[idleStopKey].SetText("10")
	if c := f.check(); len(c.bad) != 1 || c.bad[0] != "idleStop" {
		t.Errorf("an idle stop of 10 ms: bad %v", c.bad)
	}

	// A sleeping server without "start" of its own follows the file's
	// defaults: it shows as On first use, and keeps following them.
	for i := range w.snap.Servers {
		if w.snap.Servers[i].Name == "time" {
			w.snap.Servers[i].State = "sleeping"
		}
	}
	f = newServerForm(w, "time", false, s, nil, nil)
	if f.start.Selected != startOnDemandLabel {
		t.Errorf("a sleeping server shows Start %q", f.start.Selected)
	}
	if _, ok := entryOf(f)["start"]; ok {
		t.Errorf("a server that follows the defaults got a start: %v", entryOf(f))
	}
	f.start.SetSelected(startAlwaysLabel)
	if entryOf(f)["start"] != "always" {
		t.Errorf("Always on a sleeping server: %v", entryOf(f))
	}
}
