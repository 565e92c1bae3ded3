package aiapps

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// WrittenFile is the file, in Switchboard's state directory, that records
// what Switchboard saw in each app config it wrote: the entries it wrote
// or left in place, each as a fingerprint of its content. An entry that is
// not there (a server planted straight into the app's config) or whose
// content changed is reported ([Written.Check]) by `clients list`,
// `doctor` and the tray, until the user removes it, imports it or trusts
// it (`clients trust`).
const WrittenFile = "apps-written.json"

// Written is the record of [WrittenFile].
type Written struct {
	// Files are the app configs Switchboard wrote, by path.
	Files map[string]*WrittenApp `json:"files"`
}

// WrittenApp is what Switchboard saw in one app config when it last
// wrote it (or the user trusted an entry of it).
type WrittenApp struct {
	App     string `json:"app"`               // the app's ID
	Project string `json:"project,omitempty"` // the project directory of a project's file
	// Entries are the fingerprints of the entries, by name.
	Entries map[string]string `json:"entries"`
}

// LoadWritten reads the record from the state directory; a missing file
// is an empty record.
func LoadWritten(stateDir string) (*Written, error) {
	w := &Written{Files: map[string]*WrittenApp{}}
	if stateDir == "" {
		return w, nil
	}
	b, err := os.ReadFile(filepath.Join(stateDir, WrittenFile))
	if errors.Is(err, fs.ErrNotExist) {
		return w, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, w); err != nil {
		return nil, fmt.Errorf("%s: %w (delete it, then run 'switchboard clients connect APP' for each connected app)", filepath.Join(stateDir, WrittenFile), err)
	}
	if w.Files == nil {
		w.Files = map[string]*WrittenApp{}
	}
	return w, nil
}

// Save writes the record to the state directory, atomically.
func (w *Written) Save(stateDir string) error {
	if stateDir == "" {
		return errors.New("no state directory to keep the record of the apps' configs in")
	}
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return err
	}
	return atomicWrite(filepath.Join(stateDir, WrittenFile), append(b, '\n'), 0o600, func() error { return nil })
}

// Record notes every entry of d, the file at path of app, as Switchboard's:
// what it wrote there, or left in place, just now.
func (w *Written) Record(app *App, path string, d *Doc) {
	rec := &WrittenApp{App: app.ID, Project: app.projectDir, Entries: map[string]string{}}
	for _, s := range d.Servers() {
		rec.Entries[s.Name] = Fingerprint(s)
	}
	w.Files[path] = rec
}

// Trust notes the entry name of d (the file at path of app) as it is now;
// false if d has no entry of that name.
func (w *Written) Trust(app *App, path string, d *Doc, name string) bool {
	i := slices.IndexFunc(d.Servers(), func(s Server) bool { return s.Name == name })
	if i < 0 {
		return false
	}
	rec := w.Files[path]
	if rec == nil {
		rec = &WrittenApp{App: app.ID, Project: app.projectDir, Entries: map[string]string{}}
		w.Files[path] = rec
	}
	rec.Entries[name] = Fingerprint(d.Servers()[i])
	return true
}

// Forget drops the record of the file at path (the app was disconnected).
func (w *Written) Forget(path string) { delete(w.Files, path) }

// Fingerprint is a hash of an entry's content as the app means it: its
// JSON with the keys sorted and empty values ({}, [], "", null) left out,
// so that an app that rewrites its file in its own style does not change
// it; the switches the app's own settings turn ([appManaged]) are left out
// too. What it runs (command, args, env, url, headers, cwd) counts.
func Fingerprint(s Server) string {
	var v any
	if json.Unmarshal(s.JSON, &v) != nil {
		v = string(s.JSON)
	}
	if m, ok := v.(map[string]any); ok {
		for _, k := range appManaged {
			delete(m, k)
		}
	}
	b, _ := json.Marshal(pruneEmpty(v))
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

// appManaged are the keys of an entry that the apps change from their own
// settings (Cline's and Cursor's on/off switch and auto-approved tools,
// Goose's enabled): turning a server off or on in the app is not
// reported.
var appManaged = []string{"disabled", "enabled", "autoApprove", "alwaysAllow", "disabledTools", "timeout"}

func pruneEmpty(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if e = pruneEmpty(e); !isEmpty(e) {
				out[k] = e
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = pruneEmpty(e)
		}
		return out
	}
	return v
}

func isEmpty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// Foreign is an entry of a connected app's config that Switchboard did not
// write: one that is not in the record (Changed false), or one whose
// content changed since (Changed true); Bridge says that it is
// Switchboard's own entry, changed.
type Foreign struct {
	AppID   string `json:"app"`
	AppName string `json:"appName"`
	Project string `json:"project,omitempty"`
	Config  string `json:"config"`
	Entry   string `json:"entry"`
	Runs    string `json:"runs,omitempty"` // its command line or URL
	Changed bool   `json:"changed,omitempty"`
	Bridge  bool   `json:"bridge,omitempty"`
}

// Check returns the entries of d, the config file at path of app, that
// Switchboard did not write: nil when the record has no such file (the
// app is not connected through `clients connect` or `clients import`).
// An entry that was removed is not reported.
func (w *Written) Check(app *App, path string, d *Doc) []Foreign {
	rec := w.Files[path]
	if rec == nil {
		return nil
	}
	var out []Foreign
	for _, s := range d.Servers() {
		fp, known := rec.Entries[s.Name]
		if known && fp == Fingerprint(s) {
			continue
		}
		out = append(out, Foreign{AppID: app.ID, AppName: app.Name, Project: app.projectDir, Config: path,
			Entry: s.Name, Runs: runs(s), Changed: known, Bridge: s.Name == EntryName && known})
	}
	return out
}

// CheckAll checks every config file the record in stateDir names, each
// read from where it is; a file that is gone or does not parse is
// skipped (`clients list` says why).
func CheckAll(env Env, stateDir string) ([]Foreign, error) {
	w, err := LoadWritten(stateDir)
	if err != nil {
		return nil, err
	}
	paths := make([]string, 0, len(w.Files))
	for p := range w.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []Foreign
	for _, p := range paths {
		rec := w.Files[p]
		app, err := Lookup(rec.App)
		if err != nil {
			continue
		}
		if rec.Project != "" {
			if app, err = app.Project(env, rec.Project); err != nil {
				continue
			}
		}
		data, exists, err := ReadFile(p)
		if err != nil || !exists {
			continue
		}
		d, err := app.Parse(data)
		if err != nil {
			continue
		}
		out = append(out, w.Check(app, p, d)...)
	}
	return out, nil
}

// runs is an entry's command line, or its URL.
func runs(s Server) string {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
		URL     string   `json:"url"`
	}
	_ = json.Unmarshal(s.JSON, &e)
	if e.Command == "" {
		return e.URL
	}
	line := strings.Join(append([]string{e.Command}, e.Args...), " ")
	if len(line) > 120 {
		line = line[:119] + "…"
	}
	return line
}

// String is the report, with what to do.
func (f Foreign) String() string {
	runs := ""
	if f.Runs != "" {
		runs = " (it runs " + f.Runs + ")"
	}
	id := f.AppID
	if f.Project != "" {
		id += " --project " + f.Project
	}
	where := fmt.Sprintf("%s's config (%s)", f.AppName, f.Config)
	switch {
	case f.Bridge:
		return fmt.Sprintf("%s: Switchboard's %q entry was changed%s: run 'switchboard clients connect %s' to write it again; if you changed it on purpose, 'switchboard clients trust %s %s'",
			where, f.Entry, runs, id, id, f.Entry)
	case f.Changed:
		return fmt.Sprintf("%s: the MCP server %q changed since Switchboard wrote the file%s: if you changed it, 'switchboard clients trust %s %s' accepts it; if not, restore or remove it",
			where, f.Entry, runs, id, f.Entry)
	}
	return fmt.Sprintf("%s has an MCP server Switchboard did not put there: %q%s: if you added it, 'switchboard clients trust %s %s' accepts it (or 'switchboard clients import %s' moves it into Switchboard); if not, remove it",
		where, f.Entry, runs, id, f.Entry, f.AppID)
}

// Short is the report in a few words, for a menu line.
func (f Foreign) Short() string {
	if f.Changed {
		return fmt.Sprintf("%s: entry %q changed outside Switchboard", f.AppName, f.Entry)
	}
	return fmt.Sprintf("%s: MCP server %q not added by Switchboard", f.AppName, f.Entry)
}
