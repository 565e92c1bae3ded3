package window

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestHostErrorsAsData: the window places a real host's refusals by their
// codes and problems' keys, and offers their remedies as buttons that do
// what they say: Edit an existing entry, Enable a disabled server, Set a
// secret a server waits for.
func TestHostErrorsAsData(t *testing.T) {
	sec := helperEntry()
	sec["env"] = map[string]string{helperEnv: "server", "TOKEN": "${keyring:gh}"}
	off := helperEntry()
	off["disabled"] = true
	h := start(t, map[string]any{"a": helperEntry(), "sec": sec, "off": off})
	w := h.w

	t.Run("already exists", func(t *testing.T) {
		test.Tap(w.addBtn)
		f := w.form
		test.Type(f.name, "a")
		test.Type(f.command, testExe)
		test.Tap(f.save)
		h.until("the host's refusal", func() bool { return f.errs["name"].Text != "" })
		if got := f.errs["name"].Text; !strings.Contains(got, `"a" already exists`) || f.errs[""].Text != "" {
			t.Errorf("name error %q, top error %q", got, f.errs[""].Text)
		}
		if got := w.remedyButtons(); !slices.Equal(got, []string{"Edit a"}) {
			t.Fatalf("remedy buttons %q; want [Edit a]", got)
		}
		w.tapRemedy("Edit a")
		h.until("the form of a", func() bool { return w.form != nil && w.form != f && !w.form.create })
		if w.form.serverName() != "a" {
			t.Errorf("Edit a opened %q", w.form.serverName())
		}
		w.home()
	})

	t.Run("disabled", func(t *testing.T) {
		h.state("off", hostapi.StateDisabled)
		w.serverAction(hostapi.MethodStart, "off", "started") // as the tray's Start would
		h.until("the error", func() bool { return len(w.remedyButtons()) > 0 })
		if got := w.remedyButtons(); !slices.Equal(got, []string{"Enable off"}) {
			t.Fatalf("remedy buttons %q; want [Enable off]", got)
		}
		w.tapRemedy("Enable off")
		h.until("off enabled", func() bool { return !h.entryDisabled("off") })
		if len(w.remedyButtons()) != 0 {
			t.Errorf("the remedy stays offered after it was taken: %q", w.remedyButtons())
		}
	})

	t.Run("secret missing", func(t *testing.T) {
		h.state("sec", hostapi.StateWaiting)
		err := h.call(hostapi.MethodTools, hostapi.NameParams{Name: "sec"}, nil)
		if he, ok := hostError(err); !ok || he.Code != hostapi.CodeSecretMissing {
			t.Fatalf("tools of a server waiting for its secret: %v", err)
		}
		w.showErr(err)
		if got := w.remedyButtons(); !slices.Equal(got, []string{"Set secret gh"}) {
			t.Fatalf("remedy buttons %q; want [Set secret gh]", got)
		}
		w.tapRemedy("Set secret gh")
		if w.secretDlg == nil || w.secretDlg.name != "gh" {
			t.Fatal("Set secret gh opened no dialog for gh")
		}
		test.Type(w.secretDlg.value, "the-value")
		w.secretDlg.store()
		h.state("sec", hostapi.StateRunning)
	})
}

// entryDisabled says whether a server's entry is disabled in the host's
// config.
func (h *harness) entryDisabled(name string) bool {
	d, _ := h.entry(name)["disabled"].(bool)
	return d
}
