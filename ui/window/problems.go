package window

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/ui/phrase"
)

// The host's errors are data (hostapi.Error: a code, and problems with
// their keys and remedies): the window puts each problem beside the field
// its key names and offers each remedy it can carry out as a button. It
// never reads an error's words to decide anything; a message is only
// shown.

// hostError returns err's *hostapi.Error, if it has one.
func hostError(err error) (*hostapi.Error, bool) {
	var he *hostapi.Error
	ok := errors.As(err, &he)
	return he, ok
}

// configProblem is a problem of the host's error as the config's checks
// give it, for the forms that place both the same way, in the window's
// words (ui/phrase: its remedy as a person does it, not as a command).
func configProblem(p hostapi.Problem) config.Problem {
	return config.Problem{Server: p.Server, Key: p.Key, Message: phrase.Beside(p)}
}

// remedyAction returns the button's label and what it does, for a remedy
// the window can carry out; ok is false for any other.
func (w *Window) remedyAction(r hostapi.Remedy) (label string, do func(), ok bool) {
	switch r.Kind {
	case hostapi.RemedySetSecret:
		if r.Secret != "" {
			return "Set secret " + r.Secret, func() { w.askSecret(r.Secret) }, true
		}
	case hostapi.RemedyEnable:
		if r.Server != "" {
			return "Enable " + r.Server, func() {
				w.serverAction(func(ctx context.Context, name string) error { return w.live.SetDisabled(ctx, name, false) }, r.Server)
			}, true
		}
	case hostapi.RemedyStart:
		if r.Server != "" {
			return "Start " + r.Server, func() { w.serverAction(w.live.Start, r.Server) }, true
		}
	case hostapi.RemedySignIn:
		if r.Server != "" {
			return "Sign in to " + r.Server, func() { w.signIn(r.Server) }, true
		}
	case hostapi.RemedyEdit:
		if r.Server != "" {
			return "Edit " + r.Server, func() { w.showServer(r.Server, tabSettings) }, true
		}
	case hostapi.RemedyInstall:
		// The install page of the program that provides the command, where
		// the host knows one; the words say the rest (or the host's PATH).
		if u, err := url.Parse(r.URL); err == nil && r.Program != "" && (u.Scheme == "https" || u.Scheme == "http") {
			return "Install " + r.Program + "…", func() {
				if err := w.app.OpenURL(u); err != nil {
					w.setStatus(fmt.Sprintf("Cannot open %s: %v", u, err), true)
				}
			}, true
		}
	}
	return "", nil, false
}

// phraseProblems is the window's phrasing of problems: their words, one a
// line (ui/phrase: what is wrong and what to do, in a person's terms), and
// a button for each remedy the window can carry out, once each. Any page
// that shows a host's problems (an import's outcome, a server's overview)
// shows these.
func (w *Window) phraseProblems(ps []hostapi.Problem) (text string, buttons []*widget.Button) {
	seen := map[string]bool{}
	for _, p := range ps {
		if p.Remedy == nil {
			continue
		}
		label, do, ok := w.remedyAction(*p.Remedy)
		if !ok || seen[label] {
			continue
		}
		seen[label] = true
		buttons = append(buttons, widget.NewButton(label, do))
	}
	return phrase.Problems(ps), buttons
}

// problemsBox shows problems as phraseProblems words them: a wrapped,
// selectable text in the error colour, its remedy buttons below it; an
// empty box for none.
func (w *Window) problemsBox(ps []hostapi.Problem) *fyne.Container {
	box := container.NewVBox()
	if len(ps) == 0 {
		return box
	}
	text, buttons := w.phraseProblems(ps)
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Selectable = true
	l.Importance = widget.DangerImportance
	box.Add(l)
	if len(buttons) > 0 {
		row := container.NewHBox()
		for _, b := range buttons {
			row.Add(b)
		}
		box.Add(row)
	}
	return box
}

// problemsOf are the problems of an error: a host's (with their keys and
// remedies), or any other error as one problem with its message.
func problemsOf(err error) []hostapi.Problem {
	if he, ok := hostError(err); ok && len(he.Problems) > 0 {
		return he.Problems
	}
	return []hostapi.Problem{{Message: err.Error()}}
}

// showRemedies offers the remedies of err (those the window can carry
// out) as buttons beside the status line; none hides the row.
func (w *Window) showRemedies(err error) {
	if w.remedies == nil {
		return
	}
	w.remedies.Objects = nil
	if he, ok := hostError(err); ok {
		seen := map[string]bool{}
		for _, r := range he.Remedies() {
			label, do, ok := w.remedyAction(r)
			if !ok || seen[label] {
				continue
			}
			seen[label] = true
			w.remedies.Objects = append(w.remedies.Objects, widget.NewButton(label, func() {
				w.showRemedies(nil)
				do()
			}))
		}
	}
	if len(w.remedies.Objects) == 0 {
		w.remedies.Hide()
	} else {
		w.remedies.Show()
	}
	w.remedies.Refresh()
	w.fitBottom()
}

// remedyButtons returns the labels of the remedy buttons shown.
func (w *Window) remedyButtons() []string {
	var out []string
	if w.remedies == nil || !w.remedies.Visible() {
		return nil
	}
	for _, o := range w.remedies.Objects {
		if b, ok := o.(*widget.Button); ok {
			out = append(out, b.Text)
		}
	}
	return out
}

// tapRemedy taps the remedy button of label; false if there is none.
func (w *Window) tapRemedy(label string) bool {
	for _, o := range w.remedies.Objects {
		if b, ok := o.(*widget.Button); ok && b.Text == label {
			b.OnTapped()
			return true
		}
	}
	return false
}

// showErr shows a host's error in the status line with its remedies: its
// problems in the window's words (ui/phrase; the message is the command
// line's), any other error as its message.
func (w *Window) showErr(err error) {
	text := err.Error()
	if he, ok := hostError(err); ok && len(he.Problems) > 0 {
		text = phrase.Problems(he.Problems)
	}
	w.setStatus(text, true)
	w.showRemedies(err)
}

// newRemedyRow returns the (hidden) row of remedy buttons.
func newRemedyRow() *fyne.Container {
	c := container.NewHBox()
	c.Hide()
	return c
}

// askSecret asks for a secret's value and stores it through the host
// (secrets.set, which restarts the servers that wait for it).
func (w *Window) askSecret(name string) {
	value := newEscPasswordEntry(w)
	value.SetPlaceHolder("the secret's value")
	store := func() {
		if value.Text == "" {
			return
		}
		var restarted []string
		w.setStatus("Storing secret "+name+"…", false)
		v := value.Text
		w.call(func(ctx context.Context) (err error) {
			restarted, err = w.live.SetSecret(ctx, name, v)
			return err
		}, func(err error) {
			if err != nil {
				w.showErr(err)
				return
			}
			msg := fmt.Sprintf("Secret %s stored in the keyring.", name)
			if len(restarted) > 0 {
				msg += fmt.Sprintf(" Restarted: %s.", strings.Join(restarted, ", "))
			}
			w.setStatus(msg, false)
		})
	}
	w.secretDlg = &secretDialog{name: name, value: value, store: store}
	if w.win != nil {
		d := dialog.NewForm("Set secret "+name, "Store", "Cancel",
			[]*widget.FormItem{widget.NewFormItem("Value", value)}, func(ok bool) {
				if ok {
					store()
				}
			}, w.win)
		w.secretDlg.d = d
		// Enter stores, as Store does; the value has the keyboard, and
		// room for its placeholder (the form gave it a few letters).
		value.OnSubmitted = func(string) { d.Submit() }
		w.escapable(d, nil)
		d.Resize(fyne.NewSize(max(secretDialogWidth, d.MinSize().Width), d.MinSize().Height))
		w.focus(value)
	}
}

// secretDialogWidth is the Set secret dialog's width: room for a token's
// first characters and the placeholder.
const secretDialogWidth = 440

// secretDialog is the open "Set secret" dialog.
type secretDialog struct {
	name  string
	value *escEntry
	store func()
	d     dialog.Dialog
}
