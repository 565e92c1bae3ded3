package window

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/client"
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
		// The form knows the names the host has, and says so before the
		// host is asked (the form's own check, as the host would refuse).
		h.until("the refusal", func() bool { return f.errs["name"].Text != "" })
		if got := f.errs["name"].Text; got != `a server named "a" already exists: choose another name, or edit a` || f.errs[""].Text != "" {
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
		w.serverAction(w.live.Start, "off") // as the tray's Start would
		h.until("the error", func() bool { return len(w.remedyButtons()) > 0 })
		if got := w.remedyButtons(); !slices.Equal(got, []string{"Enable off"}) {
			t.Fatalf("remedy buttons %q; want [Enable off]", got)
		}
		// In the window's words, not the command line's.
		if got := w.statusLine.Text; got != `server "off" is disabled. Enable off first.` {
			t.Errorf("status line %q", got)
		}
		w.tapRemedy("Enable off")
		h.until("off enabled", func() bool { return !h.entryDisabled("off") })
		if len(w.remedyButtons()) != 0 {
			t.Errorf("the remedy stays offered after it was taken: %q", w.remedyButtons())
		}
	})

	t.Run("secret missing", func(t *testing.T) {
		if a := h.state("a", hostapi.StateRunning); a.ov.fix.Visible() {
			t.Errorf("a running server's Overview offers %q", a.ov.fix.Text)
		}
		r := h.state("sec", hostapi.StateWaiting)
		// The Overview offers the secret it waits for (its status's Issues).
		h.until("the Overview's Set secret button", func() bool { return r.ov.fix.Visible() })
		if r.ov.fix.Text != "Set secret gh" {
			t.Errorf("the Overview offers %q; want Set secret gh", r.ov.fix.Text)
		}
		if got := summary(r.st); got != "needs the secret gh" {
			t.Errorf("the list's summary of sec: %q", got)
		}
		err := h.call(func(ctx context.Context, c *client.Live) error { _, err := c.Tools(ctx, "sec"); return err })
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
		w.secretDlg = nil
		if test.Tap(r.ov.fix); w.secretDlg == nil || w.secretDlg.name != "gh" {
			t.Fatal("the row's Set secret gh opened no dialog for gh")
		}
		test.Type(w.secretDlg.value, "the-value")
		w.secretDlg.store()
		h.state("sec", hostapi.StateRunning)
		h.until("the row's button gone", func() bool { return !r.ov.fix.Visible() })
		// The servers it restarted, named in words (not "[sec]").
		h.until("the secret stored", func() bool { return strings.HasPrefix(w.statusLine.Text, "Secret gh stored") })
		if want := "Secret gh stored in the keyring. Restarted: sec."; w.statusLine.Text != want {
			t.Errorf("status line %q; want %q", w.statusLine.Text, want)
		}
	})
}

// entryDisabled says whether a server's entry is disabled in the host's
// config.
func (h *harness) entryDisabled(name string) bool {
	d, _ := h.entry(name)["disabled"].(bool)
	return d
}

// errorParsing are the ways of reading an error's words: a string
// function given an error's text (err.Error(), a message, a last error),
// and any regular expression (the window read variable names out of
// messages with one).
var errorParsing = regexp.MustCompile(`strings\.(Contains|HasPrefix|HasSuffix|Cut|CutPrefix|CutSuffix|Split|SplitN|Index|EqualFold|Fields|TrimPrefix)\([^\n]*(\.Error\(\)|[mM]essage\b|[mM]sg\b|LastError|ResolveError|PathError|\.Problems)|"regexp"`)

// errorComparing are the other ways: comparing an error's text with a
// sentence, or switching on it (an emptiness check is fine).
var errorComparing = regexp.MustCompile(`(\.Error\(\)|LastError|ResolveError|PathError|\.Message|\b[mM]sg)\s*(==|!=)\s*"[^"]|` +
	`"[^"]+"\s*(==|!=)\s*[\w.]*(\.Error\(\)|LastError|ResolveError|\.Message)\b|` +
	`switch [\w.]*(\.Error\(\)|LastError|ResolveError|\.Message)\s*\{`)

// TestNoFrontEndParsesErrorStrings is the guard behind the behaviour
// tests: no front end (ui/..., app/cli) reads an error's words to decide
// anything; the host's errors are data (hostapi.Error). Test files are
// exempt: a test may check what a person reads.
func TestNoFrontEndParsesErrorStrings(t *testing.T) {
	var found []string
	scanned := 0
	for _, root := range []string{"..", filepath.Join("..", "..", "app", "cli")} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			scanned++
			for i, line := range strings.Split(string(b), "\n") {
				if errorParsing.MatchString(line) || errorComparing.MatchString(line) {
					found = append(found, fmt.Sprintf("%s:%d: %s", path, i+1, strings.TrimSpace(line)))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if scanned < 20 {
		t.Fatalf("scanned %d files: the roots are wrong", scanned)
	}
	if len(found) > 0 {
		t.Errorf("a front end parses error strings (use the error's code and problems, hostapi.Error):\n%s", strings.Join(found, "\n"))
	}
	// The guard catches what it is for.
	for _, line := range []string{
		`if strings.Contains(err.Error(), "already exists") {`,
		`rest, ok := strings.CutPrefix(msg, fmt.Sprintf("server %q was not saved: ", name))`,
		`	"regexp"`,
	} {
		if !errorParsing.MatchString(line) {
			t.Errorf("the guard misses %s", line)
		}
	}
	for _, line := range []string{
		`if err.Error() == "no such server" {`,
		`case st.LastError == "command not found":`,
		`if "exit status 1" != st.LastError {`,
		`switch he.Message {`,
	} {
		if !errorComparing.MatchString(line) {
			t.Errorf("the guard misses %s", line)
		}
	}
	for _, line := range []string{
		`if st.LastError != "" && st.State != hostapi.StateRunning {`,
		`if he.Code == hostapi.CodeAlreadyExists {`,
	} {
		if errorParsing.MatchString(line) || errorComparing.MatchString(line) {
			t.Errorf("the guard refuses %s, which reads no words", line)
		}
	}
}
