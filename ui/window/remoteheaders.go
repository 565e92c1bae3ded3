package window

// A remote server's headers in its Settings tab (docs/remote.md,
// docs/window.md): one row per header, its name and either a plain value
// or a secret. A secret's value goes to the keyring through the host
// (secrets.set, as `switchboard secret set` stores what `servers set
// --secret-header NAME=SECRET` refers to); the entry holds only
// ${keyring:NAME}. A secret is never on the screen: a header whose value
// refers to the keyring shows the secret's name, and a literal secret
// that the config file holds (the config's literal-secret problem) is
// masked, with the remedy "use a secret header" as a button.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// remedyKeyringRef is the config's remedy of a literal secret: move it
// into the keyring and refer to it (app/config/remote.go).
const remedyKeyringRef = "keyring_ref"

// headerTable is a remote entry's "headers".
type headerTable struct {
	rows    []*headerRow
	box     *fyne.Container
	server  func() string          // the server's name, for suggested secret names
	known   func() map[string]bool // the keyring's secrets, nil while unknown
	changed func()                 // after any change the user makes
	// was is the entry's "headers" as the host has it (nil: none), shown
	// what the rows made of it when they were filled: rows as they were
	// filled write was as it is (its order, its spelling).
	was   json.RawMessage
	shown []header
	// own are the problems only the table sees, found by the last apply.
	own []headerProblem
	// addPlain and addSecret add a row (the layout's buttons).
	addPlain, addSecret *widget.Button
}

// header is a header's name and its value as the entry writes it.
type header struct{ name, value string }

// headerProblem is a problem of a row that only the table sees.
type headerProblem struct {
	row *headerRow
	msg string
}

type headerRow struct {
	*secretRow               // its value is masked for a literal secret the entry had
	sentAs     *widget.Label // the value sent, with the reference, when there is text around it
	fixed      *widget.Label // a value with several references: kept as written
	useSecret  *widget.Button
	useBox     *fyne.Container // useSecret, shown with the literal-secret problem
	err        *widget.Label
	// prefix and suffix are the text around the reference ("Bearer "),
	// as written in the config.
	prefix, suffix string
	ref            string // the secret the value referred to when the form opened
	whole          string // a value with several references, written as it was
	auto           string // the keyring name last suggested (not typed)
	suggest        string // the keyring name the config's literal-secret problem suggests
	obj            fyne.CanvasObject
}

// newHeaderTable returns the rows of an entry's headers (s parsed from
// base), in the entry's order.
func newHeaderTable(s *config.Server, base map[string]json.RawMessage, server func() string, known func() map[string]bool) *headerTable {
	t := &headerTable{box: container.NewVBox(), server: server, known: known, was: base["headers"]}
	literal := map[string]bool{}
	for _, p := range s.Problems() {
		if p.Remedy != nil && p.Remedy.Kind == remedyKeyringRef && strings.HasPrefix(p.Key, "headers.") {
			literal[strings.TrimPrefix(p.Key, "headers.")] = true
		}
	}
	for _, name := range objectOrder(base["headers"]) {
		if v, ok := s.Headers[name]; ok {
			t.addFrom(name, v, literal[name])
		}
	}
	t.shown, _, _ = t.collect()
	return t
}

// field is a form's Headers field: the rows, the buttons that add one, a
// hint, and the error line of the key "headers" (set in errs).
func (t *headerTable) field(w *Window, errs map[string]*widget.Label) fyne.CanvasObject {
	errLabel, errLine := reservedError()
	errs["headers"] = errLabel
	t.addPlain = widget.NewButtonWithIcon("Add header", theme.ContentAddIcon(), func() {
		w.focus(t.add(kindValue).name)
	})
	t.addSecret = widget.NewButtonWithIcon("Add secret header", theme.ContentAddIcon(), func() {
		w.focus(t.add(kindSecret).name)
	})
	return container.NewVBox(t.box, container.NewHBox(t.addPlain, t.addSecret),
		hintLabel("Sent with every request, such as an API key; a secret header's value goes to the keyring"), errLine)
}

// objectOrder returns the keys of a JSON object in their order, nil for
// anything else.
func objectOrder(raw json.RawMessage) []string {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil
		}
		k, _ := tok.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return nil
		}
	}
	return keys
}

// addFrom adds the row of a header the entry has: a value that refers to
// one keyring secret is a secret row (the text around the reference
// kept), one that refers to several is kept as written; a literal secret
// (masked) is a plain row, with the config's problem under it.
func (t *headerTable) addFrom(name, value string, literal bool) *headerRow {
	r := t.newRow(literal)
	r.name.SetText(name)
	ev, err := config.ParseEnvValue(value)
	switch refs := ev.Secrets(); {
	case err == nil && len(refs) == 1:
		// The text around the reference, written back as the config
		// reads it ("${" as "$${").
		lit := func(from, to int) string {
			var b strings.Builder
			for _, p := range ev[from:to] {
				b.WriteString(strings.ReplaceAll(p.Text, "${", "$${"))
			}
			return b.String()
		}
		i := 0
		for ev[i].Secret == "" {
			i++
		}
		r.prefix, r.suffix = lit(0, i), lit(i+1, len(ev))
		r.ref = refs[0]
		r.secretName.SetText(r.ref)
		r.secret.SetPlaceHolder("type a new value to replace it")
		r.kind.SetSelected(kindSecret)
	case err == nil && len(refs) > 1:
		r.whole = value
		r.kind.SetSelected(kindSecret)
		r.kind.Disable()
		r.secretBox.Hide()
		setText(r.fixed, fmt.Sprintf("Sent as %s, with the keyring's secrets %s (kept as written)", value, strings.Join(refs, ", ")))
	default:
		r.value.SetText(value)
	}
	t.updateSentAs(r)
	return r
}

// add appends an empty row of a kind (kindValue or kindSecret).
func (t *headerTable) add(kind string) *headerRow {
	r := t.newRow(false)
	r.kind.SetSelected(kind)
	t.notify()
	return r
}

// newRow appends an empty plain row; masked, its value is a password
// entry.
func (t *headerTable) newRow(masked bool) *headerRow {
	r := &headerRow{sentAs: hintLabel(""), fixed: hintLabel("")}
	value := widget.NewEntry()
	if masked {
		value = widget.NewPasswordEntry()
	}
	r.secretRow = newSecretRow("X-Api-Key", value, rowHooks{
		toSecret: func() { t.toSecret(r) },
		suggest:  func() { t.suggestFor(r) },
		secretNamed: func() {
			t.updateBadge(r)
			t.updateSentAs(r)
		},
		changed: t.notify,
		remove:  func() { t.remove(r) },
	}, r.sentAs)
	r.useSecret = widget.NewButtonWithIcon("Use a secret header", theme.VisibilityOffIcon(), func() {
		r.kind.SetSelected(kindSecret)
	})
	r.useBox = container.NewHBox(r.useSecret)
	r.useBox.Hide()
	var errLine fyne.CanvasObject
	r.err, errLine = reservedError()
	values := container.NewStack(r.value, r.secretBox, r.fixed)
	r.obj = container.NewBorder(nil, container.NewVBox(errLine, r.useBox), nil,
		container.NewVBox(container.NewHBox(r.kind, r.del)),
		container.NewGridWithColumns(2, container.NewVBox(r.name), values))
	t.rows = append(t.rows, r)
	t.box.Objects = append(t.box.Objects, r.obj)
	t.box.Refresh()
	return r
}

// toSecret shows a row as a secret: a plain value typed before moves into
// the password entry (of "Authorization: Bearer abc", "abc": the scheme
// stays in the header, as the config's remedy writes it), and the keyring
// name is suggested.
func (t *headerTable) toSecret(r *headerRow) {
	if v := r.value.Text; v != "" && r.secret.Text == "" && r.whole == "" {
		name := strings.TrimSpace(r.name.Text)
		r.prefix, r.suffix = "", ""
		if scheme, tok, ok := strings.Cut(v, " "); ok && strings.EqualFold(name, "Authorization") {
			r.prefix, v = scheme+" ", tok
		}
		r.secret.SetText(v)
		r.value.SetText("")
	}
	r.value.Hide()
	r.useBox.Hide()
	if r.whole == "" {
		r.secretBox.Show()
	}
	if r.suggest != "" && r.ref == "" && (r.secretName.Text == "" || r.secretName.Text == r.auto) {
		r.auto = r.suggest
		r.secretName.SetText(r.auto)
	}
	t.suggestFor(r)
	t.updateSentAs(r)
}

func (t *headerTable) remove(r *headerRow) {
	for i, x := range t.rows {
		if x == r {
			t.rows = append(t.rows[:i], t.rows[i+1:]...)
			t.box.Objects = append(t.box.Objects[:i], t.box.Objects[i+1:]...)
			t.box.Refresh()
			t.notify()
			return
		}
	}
}

func (t *headerTable) notify() {
	if t.changed != nil {
		t.changed()
	}
}

// suggestFor fills a secret row's keyring name with the suggested one
// (config.SuggestSecretName of the server and the header: the name the
// config's literal-secret remedy and an import give), unless a name was
// typed or the row refers to a secret the entry has.
func (t *headerTable) suggestFor(r *headerRow) {
	v := strings.TrimSpace(r.name.Text)
	if r.ref != "" || v == "" || r.secretName.Text != "" && r.secretName.Text != r.auto {
		return
	}
	r.auto = config.SuggestSecretName(t.server(), v)
	r.secretName.SetText(r.auto)
}

// suggest suggests the keyring names of new secret rows again after the
// server's name changed.
func (t *headerTable) suggest() {
	for _, r := range t.rows {
		if r.kind.Selected == kindSecret {
			t.suggestFor(r)
		}
	}
}

// updateBadge shows a secret row's "stored" badge when the keyring has a
// secret of its name.
func (t *headerTable) updateBadge(r *headerRow) {
	var known map[string]bool
	if t.known != nil {
		known = t.known()
	}
	show(r.stored, known[strings.TrimSpace(r.secretName.Text)])
}

// updateBadges updates every row's badge (the keyring's list came).
func (t *headerTable) updateBadges() {
	for _, r := range t.rows {
		t.updateBadge(r)
	}
}

// updateSentAs says what a secret row sends when there is text around
// the reference ("Sent as Bearer ${keyring:gh}"): the secret's name, never
// its value.
func (t *headerTable) updateSentAs(r *headerRow) {
	if r.prefix == "" && r.suffix == "" {
		setText(r.sentAs, "")
		return
	}
	setText(r.sentAs, "Sent as "+r.prefix+config.KeyringRef(t.secretOf(r))+r.suffix)
}

// secretOf is a secret row's keyring name: as typed, or the suggested one.
func (t *headerTable) secretOf(r *headerRow) string {
	if s := strings.TrimSpace(r.secretName.Text); s != "" {
		return s
	}
	return config.SuggestSecretName(t.server(), strings.TrimSpace(r.name.Text))
}

// collect returns the headers the rows say, in order, the secrets to
// store, and the problems only the table sees (a header named twice in
// different cases, a new secret with no value; known lists the keyring's
// secrets, nil when unknown, and then any name is accepted). Rows left
// wholly empty are skipped.
func (t *headerTable) collect() (hs []header, secrets []pendingSecret, ps []headerProblem) {
	var known map[string]bool
	if t.known != nil {
		known = t.known()
	}
	for _, r := range t.rows {
		name := strings.TrimSpace(r.name.Text)
		var value string
		switch {
		case r.whole != "":
			value = r.whole
		case r.kind.Selected != kindSecret:
			if name == "" && r.value.Text == "" {
				continue
			}
			value = r.value.Text
		default:
			secret := strings.TrimSpace(r.secretName.Text)
			if name == "" && secret == "" && r.secret.Text == "" {
				continue
			}
			secret = t.secretOf(r)
			value = r.prefix + config.KeyringRef(secret) + r.suffix
			switch {
			case r.secret.Text != "":
				secrets = append(secrets, pendingSecret{Var: "headers." + name, Name: secret, Value: r.secret.Text})
			case secret != r.ref && known != nil && !known[secret]:
				ps = append(ps, headerProblem{r, fmt.Sprintf("type the secret's value: the keyring has no secret %q yet (the value goes to the keyring, never to the config file)", secret)})
			}
		}
		for _, h := range hs {
			if h.name != name && strings.EqualFold(h.name, name) {
				ps = append(ps, headerProblem{r, fmt.Sprintf("is %s again (header names are the same in any case): keep one", h.name)})
				break
			}
		}
		hs = append(hs, header{name, value})
	}
	return hs, secrets, ps
}

// apply writes the headers in an entry: as the entry had them while the
// rows say what they said when filled, else in the rows' order ("headers"
// goes with the last one). It returns the secrets to store, and keeps the
// problems only the table sees for showOwn.
func (t *headerTable) apply(e map[string]json.RawMessage) []pendingSecret {
	hs, secrets, ps := t.collect()
	t.own = ps
	switch {
	case sameHeaders(hs, t.shown) && t.was != nil:
		e["headers"] = t.was
	case len(hs) == 0:
		delete(e, "headers")
	default:
		var b bytes.Buffer
		b.WriteByte('{')
		for i, h := range hs {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(marshal(h.name))
			b.WriteByte(':')
			b.Write(marshal(h.value))
		}
		b.WriteByte('}')
		e["headers"] = b.Bytes()
	}
	return secrets
}

func sameHeaders(a, b []header) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// showOwn shows the problems only the table sees under their rows.
func (t *headerTable) showOwn() {
	for _, p := range t.own {
		p.row.showError(p.msg)
	}
}

// showProblem shows a problem of the config's check under the rows of the
// header it names (headers.NAME); the literal-secret problem says its
// remedy as the button "Use a secret header". It reports whether a row
// showed it.
func (t *headerTable) showProblem(p config.Problem) bool {
	name, ok := strings.CutPrefix(p.Key, "headers.")
	if !ok {
		return false
	}
	shown := false
	for _, r := range t.rows {
		if strings.TrimSpace(r.name.Text) != name {
			continue
		}
		shown = true
		if p.Remedy != nil && p.Remedy.Kind == remedyKeyringRef && p.Fact != "" {
			r.suggest = p.Remedy.To
			r.showError(p.Fact + "; use a secret header")
			r.useBox.Show()
			continue
		}
		r.showError(p.Message)
	}
	return shown
}

// rowOf returns the row of a header by its key (headers.NAME: a
// pendingSecret's Var), nil for none (or no table).
func (t *headerTable) rowOf(key string) *headerRow {
	name, ok := strings.CutPrefix(key, "headers.")
	if t == nil || !ok {
		return nil
	}
	for _, r := range t.rows {
		if strings.TrimSpace(r.name.Text) == name {
			return r
		}
	}
	return nil
}

func (r *headerRow) showError(msg string) {
	if r.err.Text != "" {
		msg = r.err.Text + "\n" + msg
	}
	setText(r.err, msg)
}

func (t *headerTable) clearErrors() {
	for _, r := range t.rows {
		setText(r.err, "")
		r.useBox.Hide()
	}
}

// clearSecrets forgets the typed secret values once they are stored.
func (t *headerTable) clearSecrets() {
	for _, r := range t.rows {
		r.secret.SetText("")
	}
}
