package window

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
)

// TestBrokenFromRealHost (issue 27 §13): a server whose command is not
// found, against a real host: from its first attempt the Overview says
// "broken — restarting" in the danger colour and what is wrong names the
// command and the PATH the host gives servers, and the list's line says
// the same; the screenshots of docs/screenshots (broken-*) are of this
// state.
func TestBrokenFromRealHost(t *testing.T) {
	h := start(t, map[string]any{"nosuch": map[string]any{"command": "no-such-server-b27"}})
	d := h.row("nosuch")
	ov := d.ov
	h.until("broken — restarting", func() bool { return strings.HasPrefix(ov.state.Text, "broken — ") })
	h.until("what is wrong", func() bool { return ov.problem.Visible() && strings.Contains(ov.problem.Text, "no-such-server-b27") })
	if !strings.Contains(ov.problem.Text, "PATH the host gives servers") {
		t.Errorf("what is wrong: %q", ov.problem.Text)
	}
	for _, st := range h.w.snap.Servers {
		if got := summary(st); st.Name == "nosuch" && (!strings.HasPrefix(got, "broken — ") || !strings.Contains(got, "no-such-server-b27")) {
			t.Errorf("the list's line: %q", got)
		}
	}
	for _, size := range []fyne.Size{{Width: 1120, Height: 720}, {Width: 800, Height: 600}} {
		shoot(t, h.w, "broken", size, func() {})
	}
}
