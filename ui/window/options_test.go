package window

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// labelsIn returns the text of every label under o, hidden ones
// included (the Advanced section is closed).
func labelsIn(o fyne.CanvasObject) []string {
	switch o := o.(type) {
	case *widget.Label:
		return []string{o.Text}
	case *fyne.Container:
		var out []string
		for _, c := range o.Objects {
			out = append(out, labelsIn(c)...)
		}
		return out
	case *widget.Accordion:
		var out []string
		for _, it := range o.Items {
			out = append(out, labelsIn(it.Detail)...)
		}
		return out
	case fyne.Widget:
		var out []string
		for _, c := range test.WidgetRenderer(o).Objects() {
			out = append(out, labelsIn(c)...)
		}
		return out
	}
	return nil
}

// TestFormOptionsFromTable: the Advanced section's numeric fields are
// the config's option table: each option's label, help and default (the
// form declares none of them), options reserved for later left out; a
// value of the entry shows in its field and goes back as a number.
func TestFormOptionsFromTable(t *testing.T) {
	w, _ := goldenWindow(t)
	s, err := config.ParseServer("files", []byte(`{"command": "node", "termGrace": 150, "maxJunkLines": 0}`))
	if err != nil {
		t.Fatal(err)
	}
	f := newServerForm(w, "files", false, s, nil, nil)
	labels := labelsIn(f.obj)
	shown := 0
	for _, o := range config.Options {
		e, ok := f.limitEntries[o.Key]
		if o.Reserved != "" {
			if ok {
				t.Errorf("%s is reserved, yet the form shows it", o.Key)
			}
			continue
		}
		shown++
		if !ok {
			t.Errorf("%s: no field", o.Key)
			continue
		}
		if want := "default " + o.Format(o.Default); e.PlaceHolder != want {
			t.Errorf("%s: placeholder %q, want %q", o.Key, e.PlaceHolder, want)
		}
		if !slices.Contains(labels, o.Label) || !slices.Contains(labels, o.Help) {
			t.Errorf("%s: the form lacks its label %q or help %q", o.Key, o.Label, o.Help)
		}
	}
	if shown == 0 || len(f.limitEntries) != shown {
		t.Errorf("%d fields for %d options", len(f.limitEntries), shown)
	}
	if f.limitEntries["termGrace"].Text != "150" || f.limitEntries["maxJunkLines"].Text != "0" || f.limitEntries["callTimeout"].Text != "" {
		t.Errorf("values: termGrace %q, maxJunkLines %q, callTimeout %q",
			f.limitEntries["termGrace"].Text, f.limitEntries["maxJunkLines"].Text, f.limitEntries["callTimeout"].Text)
	}
	f.limitEntries["callTimeout"].SetText("60000")
	raw, _, _ := f.entry()
	var e map[string]any
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	if e["termGrace"] != 150.0 || e["maxJunkLines"] != 0.0 || e["callTimeout"] != 60000.0 {
		t.Errorf("entry: %s", raw)
	}
}

// TestFormEnvName: a variable name with a space is refused next to its
// row, in the config's words.
func TestFormEnvName(t *testing.T) {
	w, _ := goldenWindow(t)
	w.openAdd()
	f := w.form
	f.name.SetText("files")
	f.command.SetText("/bin/true")
	r := f.env.add()
	r.name.SetText("BAD KEY")
	r.value.SetText("1")
	f.submit()
	want := config.CheckEnvName("BAD KEY").Error()
	if !strings.Contains(r.err.Text, want) {
		t.Errorf("row error %q, want %q", r.err.Text, want)
	}
	if w.form != f {
		t.Error("the form was saved")
	}
}
