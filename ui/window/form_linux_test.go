//go:build linux

package window

import (
	"os"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestFormRename renames a running server from its edit form: the form
// says what renaming does first; then the host has the new name (the
// entry's fields kept), the old process stops, the new one runs and
// still resolves its keyring secret.
func TestFormRename(t *testing.T) {
	e := helperEntry()
	e["env"] = map[string]string{helperEnv: "server", tokenEnv: "${keyring:shared-token}"}
	e["x-note"] = "kept"
	h := start(t, map[string]any{"old": e, "other": helperEntry()})
	if err := h.store.Set("shared-token", secrets.New("tok-1")); err != nil {
		t.Fatal(err)
	}
	h.state("old", hostapi.StateRunning)
	var oldPID int
	for _, s := range h.w.snap.Servers {
		if s.Name == "old" {
			oldPID = s.PID
		}
	}
	w := h.w
	w.openEdit("old")
	h.until("the edit form", func() bool { return w.form != nil })
	f := w.form
	if f.renameHint.Visible() {
		t.Error("the rename note shows before the name changed")
	}
	f.name.SetText("new")
	if !f.renameHint.Visible() || !strings.Contains(f.renameHint.Text, "new__TOOL instead of old__TOOL") {
		t.Errorf("the rename note: %q", f.renameHint.Text)
	}
	f.limitEntries["callTimeout"].SetText("60000")
	h.until("Save enabled", func() bool { return !f.save.Disabled() })
	test.Tap(f.save)
	h.until("saved", func() bool { return w.form == nil })
	if !strings.Contains(w.statusLine.Text, "Saved new") {
		t.Errorf("status line %q", w.statusLine.Text)
	}
	got := h.entry("new")
	if got["x-note"] != "kept" || got["callTimeout"] != 60000.0 || got["env"].(map[string]any)[tokenEnv] != "${keyring:shared-token}" {
		t.Errorf("the renamed entry: %v", got)
	}
	h.state("new", hostapi.StateRunning)
	testkit.Eventually(t, "old's process is gone", func() (bool, string) { return oldPID != 0 && testkit.Gone(oldPID), "" })
	h.until("old leaves the list", func() bool { return h.w.servers.index("old") < 0 })
	disk, _ := os.ReadFile(h.opts.ConfigPath)
	if strings.Contains(string(disk), `"old"`) {
		t.Errorf("the file still has old:\n%s", disk)
	}
	// The renamed server still resolves its secret.
	var pid int
	for _, s := range h.live.Snapshot().Servers {
		if s.Name == "new" {
			pid = s.PID
		}
	}
	if pid == 0 || !slices.Contains(testkit.Environ(t, pid), tokenEnv+"=tok-1") {
		t.Errorf("the renamed server (pid %d) lacks its secret", pid)
	}

	// A name another server has: said under the name, Save disabled.
	w.openEdit("new")
	h.until("the edit form", func() bool { return w.form != nil })
	f = w.form
	f.name.SetText("other")
	h.until("the name's message", func() bool { return f.errs["name"].Visible() })
	if !strings.Contains(f.errs["name"].Text, `a server named "other" already exists`) || !f.save.Disabled() || f.reason.Text != "Fix the name to save" {
		t.Errorf("a taken name: %q, Save disabled %v, reason %q", f.errs["name"].Text, f.save.Disabled(), f.reason.Text)
	}
}

// TestRenameKeepsSelection renames a server that is not the first in the
// list from its Settings tab: once saved, the window still shows the
// renamed server, at its Settings tab (issue 27 §3: the selection jumped
// to the first server while the status line said "Saved NEW", and the
// next edit landed on the wrong server).
func TestRenameKeepsSelection(t *testing.T) {
	h := start(t, map[string]any{"alpha": helperEntry(), "mid": helperEntry()})
	h.state("alpha", hostapi.StateRunning)
	d := h.state("mid", hostapi.StateRunning)
	w := h.w
	h.tab(d, tabSettings)
	h.until("mid's settings", func() bool { return w.form != nil && w.form.orig == "mid" })
	f := w.form
	f.name.SetText("zed")
	h.until("Save enabled", func() bool { return !f.save.Disabled() })
	test.Tap(f.save)
	h.until("mid renamed zed", func() bool {
		return w.servers.index("mid") < 0 && w.servers.index("zed") >= 0 && strings.Contains(w.statusLine.Text, "Saved zed")
	})
	h.until("the settings of zed", func() bool { return w.form != nil && w.form.orig == "zed" })
	sp := w.servers
	if sp.selected != "zed" || sp.detail == nil || sp.detail.name != "zed" || sp.detail.tabs.SelectedIndex() != tabSettings {
		t.Fatalf("after the rename the window shows %q (detail %v) at tab %d; want zed at its Settings", sp.selected, sp.detail != nil && sp.detail.name == "zed", sp.tab)
	}
	if got := sp.list.Length(); got != 2 {
		t.Errorf("the list has %d rows", got)
	}
	// The next edit lands on zed.
	w.form.limitEntries["callTimeout"].SetText("61000")
	h.until("Save enabled", func() bool { return !w.form.save.Disabled() })
	test.Tap(w.form.save)
	h.until("saved again", func() bool { return h.entry("zed")["callTimeout"] == 61000.0 })
	if _, ok := h.entry("alpha")["callTimeout"]; ok {
		t.Errorf("the next edit changed alpha: %v", h.entry("alpha"))
	}
}
