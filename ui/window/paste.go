package window

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/ui/phrase"
)

// pasteView imports servers from another app's config: a Claude-style
// "mcpServers" block is pasted in and previewed (config.ParseImport), the
// literal secrets found in it are offered to move into the keyring, and
// each server is added with servers.put, as `switchboard servers import`
// does.
type pasteView struct {
	w        *Window
	text     *escEntry
	previewB *widget.Button
	importB  *widget.Button
	err      *widget.Label
	preview  *fyne.Container
	secrets  []*secretOffer
	results  *widget.Label   // what the import did, one line each
	refused  *fyne.Container // the servers it did not import, each with the host's problems and their remedies
	obj      fyne.CanvasObject
}

// secretOffer is a literal secret found in the pasted block, with its
// checkbox: checked, it moves into the keyring.
type secretOffer struct {
	c     config.SecretCandidate
	check *widget.Check
}

func (w *Window) openPaste() {
	v := &pasteView{w: w}
	v.text = newEscMultiLineEntry(w)
	v.text.TextStyle = fyne.TextStyle{Monospace: true}
	v.text.SetPlaceHolder(`{"mcpServers": {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me"]}}}`)
	v.text.SetMinRowsVisible(10)
	v.text.Wrapping = fyne.TextWrapWord
	v.text.OnChanged = func(string) { v.importB.Disable() } // preview again first
	v.err = errorLabel()
	v.previewB = widget.NewButtonWithIcon("Preview", theme.SearchIcon(), v.showPreview)
	v.importB = widget.NewButtonWithIcon("Import", theme.DownloadIcon(), v.doImport)
	v.importB.Importance = widget.HighImportance
	v.importB.Disable()
	v.preview = container.NewVBox()
	v.results = hintLabel("")
	v.results.Importance = widget.MediumImportance
	v.refused = container.NewVBox()
	v.refused.Hide()
	help := widget.NewLabel("Paste the \"mcpServers\" block of Claude Desktop, Cursor or VS Code (or a single \"name\": {...} entry), then Preview.")
	help.Wrapping = fyne.TextWrapWord
	v.obj = pageScroll(container.NewVBox(help, v.text, v.err,
		container.NewHBox(v.previewB, v.importB), v.preview, v.results, v.refused))
	w.open(&page{title: "Paste configuration", obj: v.obj})
	w.paste = v
	w.focus(v.text)
}

// showPreview parses the pasted text and shows what would be imported.
func (v *pasteView) showPreview() {
	setText(v.err, "")
	setText(v.results, "")
	v.showRefused(nil)
	v.preview.Objects = nil
	v.secrets = nil
	v.importB.Disable()
	servers, skipped, cands, err := config.ParseImportSkips([]byte(v.text.Text))
	if err != nil {
		setText(v.err, err.Error())
		v.preview.Refresh()
		return
	}
	existing := map[string]bool{}
	for _, st := range v.w.snap.Servers {
		existing[st.Name] = true
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range servers {
			if !yield(n) {
				return
			}
		}
	})
	if len(names) > 0 {
		v.preview.Add(bold("Servers to add"))
	}
	for _, orig := range names {
		s := servers[orig]
		name := config.NormalizeName(orig)
		line := name + ": " + commandLine(s.Command, s.Args)
		if s.IsRemote() {
			line = name + ": " + config.ShownURL(s.URL) + " (remote)"
		}
		if name != orig {
			line += fmt.Sprintf("  (%q is not a valid name: imported as %s)", orig, name)
		}
		if existing[name] {
			line += "  (already exists: it will not be replaced)"
		}
		l := selectableLabel(line)
		l.Wrapping = fyne.TextWrapWord
		v.preview.Add(l)
	}
	if len(skipped) > 0 {
		v.preview.Add(bold("Skipped"))
		for _, s := range skipped {
			l := hintLabel(skipWords(s))
			l.Importance = widget.WarningImportance
			v.preview.Add(l)
		}
	}
	if len(cands) > 0 {
		v.preview.Add(bold("Secrets written in plain text"))
		for _, c := range cands {
			o := &secretOffer{c: c}
			o.check = widget.NewCheck(fmt.Sprintf("Move %s.%s into the keyring as %q", c.Server, c.Key(), c.Secret), nil)
			o.check.SetChecked(true)
			v.secrets = append(v.secrets, o)
			v.preview.Add(o.check)
		}
	}
	v.preview.Refresh()
	if len(names) > 0 {
		v.importB.Enable()
	}
}

// doImport moves the chosen secrets into the keyring and adds each server,
// reporting each outcome in the command line's words.
func (v *pasteView) doImport() {
	servers, _, _, err := config.ParseImport([]byte(v.text.Text))
	if err != nil {
		setText(v.err, err.Error())
		return
	}
	var move, kept []config.SecretCandidate
	for _, o := range v.secrets {
		if o.check.Checked {
			move = append(move, o.c)
		} else {
			kept = append(kept, o.c)
		}
	}
	v.importB.Disable()
	v.previewB.Disable()
	setText(v.results, "Importing…")
	v.showRefused(nil)
	w := v.w
	go func() {
		ctx, cancel := context.WithTimeout(w.ctx, callTimeout)
		defer cancel()
		res := w.importServers(ctx, servers, move, kept)
		w.opts.Do(func() {
			if w.ctx.Err() != nil {
				return
			}
			v.previewB.Enable()
			lines := res.lines
			if res.moved > 0 {
				// The pasted secrets are in the keyring now: they do not
				// stay on the screen (nor does the preview of the text).
				v.text.SetText("")
				v.preview.Objects, v.secrets = nil, nil
				v.preview.Refresh()
				lines = append(lines, "The pasted text was cleared: its secrets are in the keyring now.")
			}
			setText(v.results, strings.Join(lines, "\n"))
			v.showRefused(res.refused)
			w.setStatus(fmt.Sprintf("Imported %d of %s.", len(res.added), english.Plural(len(servers), "server")), len(res.added) < len(servers))
		})
	}()
}

// skipWords says why an entry is left out of an import: its problems as
// ui/phrase words them (a misspelled key with the key it means), or the
// reason.
func skipWords(s config.Skip) string {
	if len(s.Problems) == 0 {
		return s.String()
	}
	return fmt.Sprintf("%q: not imported: %s", s.Name, phrase.Problems(s.Problems))
}

// showRefused shows the servers an import did not take, each with the
// host's problems and their remedies as buttons.
func (v *pasteView) showRefused(rs []importRefusal) {
	showRefusals(v.w, v.refused, rs)
}

// showRefusals puts refusals in c (refusalsBox), hiding it while there is
// none.
func showRefusals(w *Window, c *fyne.Container, rs []importRefusal) {
	if len(rs) == 0 {
		if len(c.Objects) > 0 || c.Visible() {
			c.Objects = nil
			c.Hide()
		}
		return
	}
	c.Objects = []fyne.CanvasObject{w.refusalsBox(rs)}
	c.Show()
	c.Refresh()
}

// importResult is what an import did.
type importResult struct {
	lines   []string          // what happened, one line each ("imported x", "moved ..."), in the command line's words
	refused []importRefusal   // the servers it did not import, and why
	added   map[string]string // each server added, by its name in the block, to its name in Switchboard
	moved   int               // the secrets moved into the keyring
}

// importRefusal is a server an import did not take: what failed, and the
// host's problems (with their keys and remedies) that say why.
type importRefusal struct {
	server   string // its name in the block
	what     string // "", or what failed before the host was asked ("moving x.env.Y into the keyring")
	problems []hostapi.Problem
}

// refusalsBox shows refusals, each as "Not imported: NAME" above its
// problems, phrased by phraseProblems (words and remedy buttons); an empty
// box for none. The paste view and the AI apps' import show it.
func (w *Window) refusalsBox(rs []importRefusal) *fyne.Container {
	box := container.NewVBox()
	for _, r := range rs {
		head := "Not imported: " + r.server
		if r.what != "" {
			head += " (" + r.what + " failed, so nothing of this server was imported)"
		}
		l := bold(head)
		l.Wrapping = fyne.TextWrapWord
		box.Add(l)
		box.Add(w.problemsBox(r.problems))
	}
	return box
}

// importServers moves the chosen literal secrets into the keyring and adds
// each server with servers.put (as a new entry), in name order, through
// the host, as `switchboard servers import` does: the one path by which
// the window imports servers (a pasted block, an AI app's own servers).
// It runs off the UI goroutine. A server the host refuses (or whose
// secret could not move) is in the result's refused, with the host's
// problems as data, for the page to phrase with their remedies.
//
// A server with a literal secret the user chose not to move (kept) is
// not imported: a secret is kept only in the keyring, never as plain text
// in the config, the one rule of `servers import` and `clients import`
// (issue 27 §16).
func (w *Window) importServers(ctx context.Context, servers map[string]*config.Server, move, kept []config.SecretCandidate) importResult {
	res := importResult{added: map[string]string{}}
	failed := map[string]importRefusal{} // server -> its secret could not move, or stays
	keptKeys := map[string][]string{}
	for _, c := range kept {
		if servers[c.Server] != nil {
			keptKeys[c.Server] = append(keptKeys[c.Server], c.Server+"."+c.Key())
		}
	}
	for server, keys := range keptKeys {
		failed[server] = importRefusal{server: server, problems: []hostapi.Problem{{Server: server,
			Message: config.KeptSecrets(keys) + `: tick "Move … into the keyring" and import again`}}}
	}
	moved := map[string]map[string]string{}
	for _, c := range move {
		if _, bad := failed[c.Server]; bad {
			continue
		}
		if _, err := w.live.SetSecret(ctx, c.Secret, c.Value); err != nil {
			failed[c.Server] = importRefusal{server: c.Server, what: fmt.Sprintf("moving %s.%s into the keyring", c.Server, c.Key()), problems: problemsOf(err)}
			continue
		}
		if moved[c.Server] == nil {
			moved[c.Server] = map[string]string{}
		}
		moved[c.Server][c.Var] = c.Secret
		res.moved++
		res.lines = append(res.lines, fmt.Sprintf("moved %s.%s into the keyring as %q", c.Server, c.Key(), c.Secret))
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, orig := range names {
		if r, bad := failed[orig]; bad {
			res.refused = append(res.refused, r)
			continue
		}
		s := servers[orig]
		var err error
		for variable, secret := range moved[orig] {
			if err == nil {
				err = s.ReferenceSecret(variable, secret)
			}
		}
		name := config.NormalizeName(orig)
		if err == nil {
			err = w.live.PutServer(ctx, name, marshal(s), true)
		}
		switch {
		case err != nil:
			res.refused = append(res.refused, importRefusal{server: orig, problems: problemsOf(err)})
			continue
		case name != orig:
			res.lines = append(res.lines, fmt.Sprintf("imported %s as %s", orig, name))
		default:
			res.lines = append(res.lines, "imported "+name)
		}
		res.added[orig] = name
	}
	return res
}

// commandLine writes a command and its arguments for a person, quoting
// the arguments that hold spaces or quotes (display only: nothing splits
// it again).
func commandLine(cmd string, args []string) string {
	parts := []string{cmd}
	for _, a := range args {
		if a == "" || strings.IndexFunc(a, func(r rune) bool { return unicode.IsSpace(r) || r == '"' || r == '\'' }) >= 0 {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
