package window

// Remote servers in the window (issue 17, docs/remote.md): the "Remote
// (URL)" form beside the command form when adding a server, and a remote
// server's address, state in words and Sign in / Sign out on its
// Overview.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The add page's two kinds of server.
const (
	kindCommand = "Command"
	kindRemote  = "Remote (URL)"
)

// remoteTypes are the type select's options, as the config writes them.
var remoteTypes = []string{config.RemoteHTTP, config.RemoteSSE}

// remoteFields are a remote entry's own fields: its address, its
// transport and its OAuth sign-in (client ID, scopes), each with its error
// line. The add page's remote form and a remote server's Settings tab
// (remotesettings.go) show them.
type remoteFields struct {
	url              *widget.Entry
	typ              *widget.Select
	oauth            *widget.Check
	clientID, scopes *widget.Entry
	oauthBox         *fyne.Container
	rows             []fyne.CanvasObject // the Address, Transport and Sign-in rows of a formGrid
	// was holds the entry's url, type and oauth as the host has them
	// (nil for a new entry), shown what the fields made of them when they
	// were filled: a key whose field is as it was filled is written as
	// the entry has it (its spelling, its members in their order).
	was, shown map[string]json.RawMessage
	// oauthWas are the members of the entry's oauth: those the fields do
	// not show (clientSecret, clientMetadataUrl) are kept.
	oauthWas map[string]json.RawMessage
}

// remoteKeys are the keys of an entry the remote fields write.
var remoteKeys = []string{"url", "type", "oauth"}

// newRemoteFields returns the fields, filled from an entry the host has
// (s and base, its keys) or empty (s nil). Their error lines are put in
// errs under "url", "type" and "oauth"; changed is called with a field's
// key after each change the user makes.
func newRemoteFields(errs map[string]*widget.Label, s *config.Server, base map[string]json.RawMessage, changed func(key string)) *remoteFields {
	r := &remoteFields{}
	errFor := func(key string) fyne.CanvasObject {
		l, obj := reservedError()
		errs[key] = l
		return obj
	}
	r.url = widget.NewEntry()
	r.url.SetPlaceHolder("https://mcp.example.com/mcp")
	r.typ = widget.NewSelect(remoteTypes, nil)
	r.typ.SetSelected(config.RemoteHTTP)
	r.clientID = widget.NewEntry()
	r.clientID.SetPlaceHolder("empty: the host registers itself with the server")
	r.scopes = widget.NewEntry()
	r.scopes.SetPlaceHolder("empty: the scopes the server asks for")
	r.oauthBox = container.NewVBox(
		formGrid(widget.NewLabel("Client ID"), r.clientID, widget.NewLabel("Scopes"), r.scopes))
	r.oauthBox.Hide()
	r.oauth = widget.NewCheck("Sign in with OAuth (in the browser)", nil)
	if s != nil {
		r.fill(s, base)
	}
	onChange := func(key string) func(string) { return func(string) { changed(key) } }
	r.url.OnChanged = onChange("url")
	r.typ.OnChanged = onChange("type")
	r.clientID.OnChanged = onChange("oauth")
	r.scopes.OnChanged = onChange("oauth")
	r.oauth.OnChanged = func(on bool) {
		show(r.oauthBox, on)
		changed("oauth")
	}
	r.rows = []fyne.CanvasObject{
		widget.NewLabel("Address"), container.NewVBox(r.url,
			hintLabel("https://, or http:// for this machine only (localhost, 127.0.0.1, ::1)"), errFor("url")),
		widget.NewLabel("Transport"), container.NewVBox(r.typ,
			hintLabel("http: Streamable HTTP; sse: the older HTTP+SSE transport"), errFor("type")),
		widget.NewLabel("Sign-in"), container.NewVBox(r.oauth, r.oauthBox, errFor("oauth")),
	}
	return r
}

// fill shows an entry's url, type and oauth in the fields.
func (r *remoteFields) fill(s *config.Server, base map[string]json.RawMessage) {
	r.url.SetText(s.URL)
	if s.Type == config.RemoteSSE {
		r.typ.SetSelected(config.RemoteSSE)
	}
	if s.OAuth != nil {
		r.oauth.SetChecked(true)
		r.oauthBox.Show()
		r.clientID.SetText(s.OAuth.ClientID)
		r.scopes.SetText(strings.Join(s.OAuth.Scopes, " "))
		_ = json.Unmarshal(base["oauth"], &r.oauthWas) // s.OAuth: an object
	}
	r.was = map[string]json.RawMessage{}
	for _, k := range remoteKeys {
		if v, ok := base[k]; ok {
			r.was[k] = v
		}
	}
	r.shown = r.values()
}

// values returns what the fields say of each of remoteKeys: its JSON, or
// nil for a key the entry does not have.
func (r *remoteFields) values() map[string]json.RawMessage {
	v := map[string]json.RawMessage{"url": marshal(strings.TrimSpace(r.url.Text))}
	if r.typ.Selected == config.RemoteSSE {
		v["type"] = marshal(config.RemoteSSE)
	} else if was, ok := r.was["type"]; ok && string(was) != `"sse"` {
		// An entry's explicit "type": "http" (Streamable HTTP only) stays;
		// without one, the host tries Streamable HTTP, then SSE.
		v["type"] = was
	}
	if r.oauth.Checked {
		o := maps.Clone(r.oauthWas)
		if o == nil {
			o = map[string]json.RawMessage{}
		}
		delete(o, "clientId")
		delete(o, "scopes")
		if id := strings.TrimSpace(r.clientID.Text); id != "" {
			o["clientId"] = marshal(id)
		}
		if sc := strings.Fields(r.scopes.Text); len(sc) > 0 {
			o["scopes"] = marshal(sc)
		}
		v["oauth"] = marshal(o)
	}
	return v
}

// apply writes the fields' url, type and oauth in an entry. Of an entry
// the host has, a key whose field is as it was filled stays as the entry
// has it ("type": "streamable-http" is kept while the Transport says
// http).
func (r *remoteFields) apply(e map[string]json.RawMessage) {
	v := r.values()
	for _, k := range remoteKeys {
		val := v[k]
		if r.was != nil && bytes.Equal(val, r.shown[k]) {
			val = r.was[k]
		}
		if val == nil {
			delete(e, k)
		} else {
			e[k] = val
		}
	}
}

// remoteForm adds a remote server: its name, its address, its transport,
// its headers (plain, or secret: the value to the keyring, as in the
// Settings tab, remoteheaders.go) and, optionally, the OAuth sign-in. It
// checks the entry as the config checks it (checkEntry), each problem
// under its field, and saves it through the host (the secrets typed,
// then servers.put) as the command form does.
type remoteForm struct {
	w    *Window
	name *widget.Entry
	*remoteFields
	headers      *headerTable
	knownSecrets map[string]bool          // the keyring's secrets (nil until secrets.list answered)
	errs         map[string]*widget.Label // by key: name, url, type, oauth, headers; "" for the rest
	save, cancel *widget.Button
	reason       *widget.Label // why Save is disabled, once it was tapped
	touched      map[string]bool
	all, saving  bool
	obj          fyne.CanvasObject
}

func newRemoteForm(w *Window) *remoteForm {
	f := &remoteForm{w: w, errs: map[string]*widget.Label{}, touched: map[string]bool{}}
	f.headers = newHeaderTable(&config.Server{}, nil, func() string { return strings.TrimSpace(f.name.Text) },
		func() map[string]bool { return f.knownSecrets })
	f.name = widget.NewEntry()
	f.name.SetPlaceHolder("github (lower-case letters, digits and -)")
	f.name.OnChanged = func(string) {
		f.touched["name"] = true
		f.headers.suggest() // a new secret header's keyring name follows the name
		f.validate()
	}
	nameErr, nameErrObj := reservedError()
	f.errs["name"] = nameErr
	f.remoteFields = newRemoteFields(f.errs, nil, nil, func(key string) {
		if key != "type" {
			f.touched[key] = true
		}
		f.validate()
	})
	f.headers.changed = func() { f.touched["headers"] = true; f.validate() }
	headersField := f.headers.field(w, f.errs)
	f.save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), f.submit)
	f.save.Importance = widget.HighImportance
	f.cancel = widget.NewButton("Cancel", w.home)
	barErr := errorLabel()
	f.errs[""] = barErr
	f.reason = widget.NewLabel("")
	f.reason.Importance = widget.WarningImportance
	f.reason.Hide()
	rows := append([]fyne.CanvasObject{
		widget.NewLabel("Name"), container.NewVBox(f.name, nameErrObj)}, f.rows...)
	rows = append(rows, widget.NewLabel("Headers"), headersField)
	grid := formGrid(rows...)
	bar := container.NewBorder(widget.NewSeparator(), nil, nil, container.NewCenter(container.NewHBox(f.cancel, f.save)),
		container.NewVBox(barErr, f.reason))
	f.obj = container.NewBorder(nil, bar, nil, nil, pageScroll(grid))
	f.validate()
	// Which secrets exist: a secret header that names one needs no value.
	w.knownSecrets(func(known map[string]bool) {
		f.knownSecrets = known
		f.headers.updateBadges()
		f.validate()
	})
	return f
}

// entry is the entry the form describes, and the secrets of its headers
// to store before it is saved.
func (f *remoteForm) entry() (json.RawMessage, []pendingSecret) {
	e := map[string]json.RawMessage{}
	f.apply(e)
	secrets := f.headers.apply(e)
	return marshal(e), secrets
}

// validate checks the entry as the host would, shows the problems of the
// fields touched (every one after Save was tapped), and enables Save when
// there is none. It returns the entry, the secrets to store first, and
// whether it can be saved.
func (f *remoteForm) validate() (json.RawMessage, []pendingSecret, bool) {
	for _, l := range f.errs {
		setText(l, "")
	}
	f.headers.clearErrors()
	name := strings.TrimSpace(f.name.Text)
	raw, secrets := f.entry()
	nameMsg, ps := checkEntry(name, raw)
	ok := nameMsg == "" && len(ps) == 0 && len(f.headers.own) == 0
	if f.all || f.touched["headers"] {
		f.headers.showOwn()
	}
	show := func(key, msg string) {
		if !f.all && !f.touched[key] {
			return
		}
		l := f.errs[key]
		if l == nil {
			l = f.errs[""]
		}
		if l.Text != "" {
			msg = l.Text + "\n" + msg
		}
		setText(l, msg)
	}
	var bad []string // the fields with a problem, for the Save bar's reason
	if nameMsg != "" {
		show("name", nameMsg)
		bad = append(bad, "name")
	}
	if len(f.headers.own) > 0 {
		bad = append(bad, "headers")
	}
	for _, p := range ps {
		key := fieldOf(p.Key)
		if !slices.Contains(bad, key) {
			bad = append(bad, key)
		}
		if (f.all || f.touched["headers"]) && f.headers.showProblem(p) {
			continue
		}
		msg := p.Message
		if (f.errs[key] == nil || key == "") && p.Key != "" {
			msg = p.Key + ": " + msg // shown in the bar: say which key
		}
		show(key, msg)
	}
	// Save waits for the problems to go, and the bar says which fields
	// have them, as the command form's does (an empty form too: nothing
	// to save); the fields' own lines wait until they are touched.
	url := strings.TrimSpace(f.url.Text)
	reason := ""
	if !ok {
		bad = remoteOrder(bad)
		reason = saveReason(bad, func(key string) bool {
			return key == "name" && name == "" || key == "url" && url == ""
		})
		if slices.Equal(bad, []string{"name", "url"}) && name == "" && url == "" {
			reason = "Give the server a name and an address to save"
		}
	}
	if !f.saving {
		setText(f.reason, reason)
	}
	enable(f.save, !f.saving && ok)
	return raw, secrets, ok
}

// remoteOrder sorts field keys as the remote form shows them.
func remoteOrder(keys []string) []string {
	rank := func(k string) int {
		if i := slices.Index([]string{"name", "url", "type", "headers", "oauth"}, k); i >= 0 {
			return i
		}
		return 99
	}
	slices.SortStableFunc(keys, func(a, b string) int { return rank(a) - rank(b) })
	return keys
}

// submit saves the entry (servers.put) when it has no problem.
func (f *remoteForm) submit() {
	f.all = true
	raw, secrets, ok := f.validate()
	if !ok {
		return
	}
	name := strings.TrimSpace(f.name.Text)
	f.saving = true
	enable(f.save, false)
	f.w.saveEntry(name, raw, true, secrets, func(err error) {
		f.saving = false
		if err != nil {
			f.validate()
			if key, ok := isSecretError(err); ok {
				if r := f.headers.rowOf(key); r != nil {
					r.showError("Not stored in the keyring: " + err.Error())
					return
				}
			}
			setText(f.errs[""], "Not saved: "+err.Error())
			return
		}
		f.headers.clearSecrets()
		f.w.showServer(name, tabOverview)
		if f.oauth.Checked {
			f.w.setStatus("Saved "+name+": sign in to use it.", false)
		} else {
			f.w.setStatus("Saved "+name+".", false)
		}
	})
}

// addPage shows the add page: a choice between the command form and the
// remote form. It returns both forms.
func (w *Window) addPage(remote bool) (*serverForm, *remoteForm) {
	f := newServerForm(w, "", true, &config.Server{}, nil, nil)
	r := newRemoteForm(w)
	kind := widget.NewRadioGroup([]string{kindCommand, kindRemote}, func(k string) {
		if k == kindRemote {
			f.obj.Hide()
			r.obj.Show()
			w.focus(r.name)
		} else {
			r.obj.Hide()
			f.obj.Show()
			w.focus(f.name)
		}
	})
	kind.Horizontal = true
	kind.Required = true
	top := container.NewHBox(widget.NewLabel("The server is"), kind)
	w.open(&page{title: "Add a server", obj: container.NewBorder(top, nil, nil, nil, container.NewStack(f.obj, r.obj))})
	w.form = f
	if remote {
		kind.SetSelected(kindRemote)
	} else {
		kind.SetSelected(kindCommand)
	}
	return f, r
}

// openAddRemote shows the add page on its remote form.
func (w *Window) openAddRemote() *remoteForm {
	_, r := w.addPage(true)
	return r
}

// remoteWords says a remote server's state in plain words, or "".
func remoteWords(st hostapi.ServerStatus) string {
	switch st.State {
	case hostapi.StateUnreachable:
		return "the server cannot be reached; Switchboard tries again"
	case hostapi.StateUnauthorized:
		// Why, in the host's words, is under What is wrong: credentials
		// refused, none sent, or another origin after a redirect.
		return "the server turned the request away (What is wrong says why)"
	case hostapi.StateSigningIn:
		return "waiting for you to sign in, in your browser"
	case hostapi.StateSignInNeeded:
		return "sign in to use it"
	}
	return ""
}

// canSignIn says whether Sign in applies to a server in this state:
// sign-in needed, or unauthorized when its entry has "oauth" (oauth: nil
// while unknown).
func canSignIn(st hostapi.ServerStatus, oauth *bool) bool {
	return st.URL != "" && (st.State == hostapi.StateSignInNeeded ||
		st.State == hostapi.StateUnauthorized && oauth != nil && *oauth)
}

// signIn starts a server's sign-in (servers.login) and opens the page the
// host returns in the browser; the host completes it when the browser
// comes back, and the server's state follows.
func (w *Window) signIn(name string) {
	var page string
	w.setStatus("Signing in to "+name+"…", false)
	w.call(func(ctx context.Context) (err error) {
		page, err = w.live.Login(ctx, name)
		return err
	}, func(err error) {
		if err != nil {
			w.setStatus(err.Error(), true)
			return
		}
		u, err := url.Parse(page)
		if err == nil {
			err = w.app.OpenURL(u)
		}
		if err != nil {
			w.setStatus(fmt.Sprintf("Cannot open the sign-in page for %s: %v; open it yourself: %s", name, err, page), true)
			return
		}
		w.setStatus("Sign in to "+name+" in your browser.", false)
	})
}

// signOut deletes a server's tokens (servers.logout).
func (w *Window) signOut(name string) {
	var revoked bool
	w.call(func(ctx context.Context) (err error) {
		revoked, err = w.live.Logout(ctx, name)
		return err
	}, func(err error) {
		switch {
		case err != nil:
			w.setStatus(err.Error(), true)
		case revoked:
			w.setStatus("Signed out of "+name+"; its tokens are revoked and deleted.", false)
		default:
			w.setStatus("Signed out of "+name+"; its tokens are deleted.", false)
		}
	})
}

// showRemote fills the Overview's rows for a remote server: the address
// where a local one shows its command, and Sign in / Sign out.
func (o *overview) showRemote(st hostapi.ServerStatus, connected bool) {
	if st.URL == "" {
		o.commandHead.SetText("Command")
		o.signIn.Hide()
		o.signOut.Hide()
		return
	}
	o.commandHead.SetText("Address")
	addr := st.URL
	if st.Transport != "" {
		addr += " (" + st.Transport + ")"
	}
	o.command.SetText(addr)
	o.runs.SetText("–")
	if w := remoteWords(st); w != "" {
		o.state.SetText(o.state.Text + ": " + w)
	}
	o.remoteButtons(st, connected)
	if o.oauth == nil && connected && !o.askedOAuth {
		o.askOAuth(st)
	}
}

// remoteButtons shows Sign in and Sign out where they apply.
func (o *overview) remoteButtons(st hostapi.ServerStatus, connected bool) {
	show(o.signIn, connected && canSignIn(st, o.oauth))
	show(o.signOut, connected && o.oauth != nil && *o.oauth &&
		st.State != hostapi.StateSignInNeeded && st.State != hostapi.StateSigningIn)
}

// askOAuth reads the server's entry once (servers.get) to learn whether it
// signs in with OAuth: Sign out, and Sign in for an unauthorized server,
// apply only then.
func (o *overview) askOAuth(st hostapi.ServerStatus) {
	o.askedOAuth = true
	var entry json.RawMessage
	w := o.d.w
	w.call(func(ctx context.Context) (err error) {
		entry, err = w.live.GetServer(ctx, st.Name)
		return err
	}, func(err error) {
		if err != nil {
			return
		}
		s, err := config.ParseServer(st.Name, entry)
		if err != nil {
			return
		}
		has := s.OAuth != nil
		o.oauth = &has
		for _, cur := range w.snap.Servers {
			if cur.Name == st.Name {
				o.remoteButtons(cur, w.snap.Connected)
			}
		}
		o.fixes.Refresh()
	})
}

func show(o fyne.CanvasObject, on bool) {
	if on {
		o.Show()
	} else {
		o.Hide()
	}
}
