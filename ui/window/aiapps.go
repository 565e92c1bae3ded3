package window

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The "AI apps" panel: the desktop AI apps that app/aiapps knows (Claude
// Desktop, Claude Code, Cursor, VS Code, ...), whether each is on this
// machine, its MCP config file, the Switchboard servers it reaches through
// the bridge entry and the servers it runs by itself; per app, Connect and
// Disconnect (the change is shown, as app/aiapps' diff, before
// app/aiapps writes it: backup first, atomic write) and Import (the app's
// own servers into Switchboard, through the host like every change of the
// window, see importServers). It is the window's `switchboard clients`:
// every decision about an app's file is app/aiapps'.

// appFiles is where the panel finds the apps' config files and how it
// writes them: this machine ([localAppFiles]), or fixed data in the tests.
type appFiles struct {
	env    aiapps.Env
	exists func(path string) bool
	read   func(path string) (data []byte, exists bool, err error)
	write  func(path string, before, after []byte, now time.Time) (backup string, err error)
	// exe is the switchboard binary that an app's entry runs.
	exe func() (string, error)
}

// localAppFiles returns this machine's apps' files; the golden test
// replaces it with fixed ones.
var localAppFiles = func() appFiles {
	return appFiles{
		env:    aiapps.OSEnv(nil),
		exists: func(p string) bool { _, err := os.Stat(p); return err == nil },
		read:   aiapps.ReadFile,
		write:  aiapps.WriteFile,
		exe:    bridge.Executable,
	}
}

// samePath compares two paths of this OS (without case on Windows and
// macOS, whose file systems usually ignore it).
func samePath(a, b string) bool {
	a, b = filepath.Clean(a), filepath.Clean(b)
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// appState is what the panel knows of one app, read from its file.
type appState struct {
	app        *aiapps.App
	loc        aiapps.Location // loc.Path is "" when the app's paths are unknown
	problem    string          // the file cannot be used: what, and the remedy
	connected  bool
	bridge     aiapps.Bridge // the entry's command and --servers (none: every server)
	own        []string      // the app's own entries, in file order
	importable []string      // of those, the ones Switchboard can run
	stays      []string      // why the others stay in the app, one line each
}

// loadApps reads every known app's config file.
func loadApps(f appFiles) []appState {
	var out []appState
	for _, app := range aiapps.Apps() {
		out = append(out, loadApp(f, app))
	}
	return out
}

func loadApp(f appFiles, app *aiapps.App) appState {
	st := appState{app: app}
	loc, err := app.Locate(f.env, f.exists)
	if err != nil {
		st.problem = err.Error()
		return st
	}
	st.loc = loc
	_, doc, problem := readApp(f, app, loc.Path)
	if problem != "" {
		st.problem = problem
		return st
	}
	b, _, ok := doc.Connected()
	st.connected, st.bridge = ok, b
	for _, s := range doc.Servers() {
		if !s.IsBridge() {
			st.own = append(st.own, s.Name)
		}
	}
	plan := aiapps.PlanImport(app, f.env, importSources(app, loc.Path, doc))
	st.stays = plan.Skipped()
	for _, i := range plan.Importable() {
		st.importable = append(st.importable, plan.Entries[i].Name)
	}
	return st
}

// importSources are what the window imports from an app: its own servers;
// Claude Code's projects' servers are listed as staying, with the command
// that imports them ('switchboard clients import claude-code --project
// DIR').
func importSources(app *aiapps.App, path string, doc *aiapps.Doc) []aiapps.ImportSource {
	out := []aiapps.ImportSource{{Doc: doc, Path: path}}
	if app.ID == "claude-code" {
		for _, dir := range doc.ClaudeProjects() {
			sub := doc.ClaudeProject(dir)
			if sub == nil || len(sub.Servers()) == 0 {
				continue
			}
			out = append(out, aiapps.ImportSource{Doc: sub, Path: path, Project: dir,
				Hold: fmt.Sprintf("a server of the project %s: 'switchboard clients import claude-code --project %s' imports it", dir, dir)})
		}
	}
	return out
}

// readApp reads and parses an app's config file; problem says, for a
// person, why it cannot be used and what to do.
func readApp(f appFiles, app *aiapps.App, path string) (before []byte, doc *aiapps.Doc, problem string) {
	before, _, err := f.read(path)
	if err != nil {
		return nil, nil, fileProblem("read", path, err)
	}
	doc, err = app.Parse(before)
	if err != nil {
		return nil, nil, fmt.Sprintf("The config file %s cannot be used: %v. Switchboard writes nothing to it until then.", path, err)
	}
	return before, doc, ""
}

// fileProblem words the failure to read or write an app's file, with the
// remedy; nothing was written in either case (app/aiapps.WriteFile
// replaces the file only by a rename, after its checks).
func fileProblem(verb, path string, err error) string {
	if errors.Is(err, aiapps.ErrChanged) {
		return fmt.Sprintf("%s changed after Switchboard read it (is the app running and writing it?): nothing was written. Try again.", path)
	}
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error() // the path is named once, below
	}
	remedy := ""
	if errors.Is(err, fs.ErrPermission) {
		remedy = ": give your user read and write access to the file and to its folder (where the backup and the new file are made)"
	}
	return fmt.Sprintf("Cannot %s the config file %s: %s%s. Nothing was written to it.", verb, path, msg, remedy)
}

// appsView is the "AI apps" page.
type appsView struct {
	w      *Window
	files  appFiles
	exe    string // what an entry runs; "" until known (exeErr says why)
	exeErr string
	states []appState // the last load
	seq    int        // the current load: an older one's result is dropped
	tbl    *table
	rows   map[string]*appRow // by app ID
	notes  map[string]string  // the outcome of the last action, by app ID
	errs   map[string]string  // the failure of the last action, by app ID
	// refused are the servers the last import did not take, with the
	// host's problems, by app ID.
	refused map[string][]importRefusal
	loaded  bool
	head    *widget.Label // "reading…", or why the binary is unknown
	live    *widget.Label // the apps connected now and what each pays (cost.go)
	box     *fyne.Container
	change  *changeDialog // the change shown for confirmation, while it shows
	imp     *importDialog // the import asked about, while it shows
	then    func()        // runs once after the next load shows (the empty state's Import)
	obj     fyne.CanvasObject
}

// appRow is one app's block: a row of the table (name, found, connected,
// actions) and its details below.
type appRow struct {
	v                            *appsView
	st                           *appState
	name, found, conn            *widget.Label
	connect, disconnect, importB *widget.Button
	path, pathNote               *widget.Label
	through, own, stays          *widget.Label
	cost                         *widget.Label // what its entry pays in tokens (cost.go)
	err, note                    *widget.Label
	refused                      *fyne.Container // the last import's refusals (refusalsBox)
	obj                          fyne.CanvasObject
}

func (w *Window) openApps() {
	v := &appsView{w: w, files: localAppFiles(), rows: map[string]*appRow{}, notes: map[string]string{}, errs: map[string]string{},
		refused: map[string][]importRefusal{}}
	intro := widget.NewLabel(`Connect an AI app and it reaches Switchboard's servers through one entry in its own MCP config file, named "switchboard", that runs 'switchboard bridge'. ` +
		"Each change is shown before it is written; the file is backed up first, and nothing else in it changes.")
	intro.Wrapping = fyne.TextWrapWord
	v.head = hintLabel("Reading the apps' config files…")
	v.live = hintLabel(w.costs.sessionsText())
	v.box = container.NewVBox()
	v.obj = pageScroll(container.NewVBox(intro, v.head, v.live, v.box))
	w.open(&page{title: "AI apps", obj: v.obj, reload: v.load})
	w.apps = v
	v.load()
	if w.snap.Connected {
		v.loadProfiles() // aiapps_profile.go
	}
}

// load reads the apps' files off the UI goroutine and shows them.
func (v *appsView) load() {
	v.seq++
	seq, f, w := v.seq, v.files, v.w
	go func() {
		exe, err := f.exe()
		states := loadApps(f)
		w.opts.Do(func() {
			if w.ctx.Err() == nil && v.seq == seq {
				v.show(states, exe, err)
			}
		})
	}()
}

// show builds the rows of a load: the apps' states, and the binary an
// entry runs (or why it is unknown).
func (v *appsView) show(states []appState, exe string, exeErr error) {
	v.exe, v.exeErr = exe, ""
	if exeErr != nil {
		v.exe, v.exeErr = "", exeErr.Error()+": Connect needs it"
	}
	v.states = states
	v.loaded = true
	if v.exeErr != "" {
		setText(v.head, v.exeErr)
		v.head.Importance = widget.DangerImportance
	} else {
		setText(v.head, "")
	}
	v.tbl = &table{}
	v.rows = map[string]*appRow{}
	objs := []fyne.CanvasObject{
		v.tbl.row(bold("App"), bold("Installed"), bold("Switchboard"), bold("Actions")),
		widget.NewSeparator(),
	}
	for i := range v.states {
		r := v.newRow(&v.states[i])
		v.rows[r.st.app.ID] = r
		objs = append(objs, r.obj, widget.NewSeparator())
	}
	v.box.Objects = objs
	v.box.Refresh()
	v.w.fetchCosts() // the connected entries' selections (cost.go)
	if f := v.then; f != nil {
		v.then = nil
		f()
	}
}

// stateChanged shows the host's current servers in the rows.
func (v *appsView) stateChanged() {
	setText(v.live, v.w.costs.sessionsText()) // cost.go
	for _, r := range v.rows {
		r.update()
	}
	if v.tbl != nil {
		v.tbl.invalidate()
	}
	v.box.Refresh()
}

func (v *appsView) newRow(st *appState) *appRow {
	r := &appRow{v: v, st: st}
	r.name = bold(st.app.Name)
	r.found = widget.NewLabel("")
	r.conn = widget.NewLabel("")
	r.connect = widget.NewButton("Connect…", func() { v.askConnect(r) })
	r.disconnect = widget.NewButton("Disconnect…", func() { v.askDisconnect(r) })
	r.importB = widget.NewButton("Import…", func() { v.askImport(r) })
	row := v.tbl.row(r.name, r.found, r.conn, container.NewHBox(r.connect, r.disconnect, r.importB))
	r.path = selectableLabel(st.loc.Path)
	// A long home folder's path breaks across lines rather than widen the
	// window beyond 800 pixels (TestAppsFitSmallScreen).
	r.path.Wrapping = fyne.TextWrapBreak
	if st.loc.Path == "" {
		r.path.SetText("–")
	}
	r.pathNote = widget.NewLabel("")
	r.pathNote.Importance = widget.LowImportance
	r.through = selectableLabel("")
	r.through.Wrapping = fyne.TextWrapWord
	r.own = selectableLabel("")
	r.own.Wrapping = fyne.TextWrapWord
	r.cost = selectableLabel("")
	r.cost.Wrapping = fyne.TextWrapWord
	r.stays = hintLabel("")
	r.err = errorLabel()
	r.note = hintLabel("")
	r.note.Importance = widget.MediumImportance
	r.refused = container.NewVBox()
	r.refused.Hide()
	// The details are rows of the table too, so that their values start
	// at its second column.
	r.obj = container.NewVBox(row,
		v.tbl.detail(widget.NewLabel("Config file"), container.NewVBox(r.path, r.pathNote)),
		v.tbl.detail(widget.NewLabel("Through Switchboard"), r.through),
		v.tbl.detail(widget.NewLabel("Tokens"), r.cost),
		v.tbl.detail(widget.NewLabel("Its own servers"), container.NewVBox(r.own, r.stays)),
		r.err, r.note, r.refused)
	r.update()
	return r
}

// stale reports whether the app's entry runs another switchboard binary
// than this one (after a move or an upgrade).
func (r *appRow) stale() bool {
	return r.st.connected && r.v.exe != "" && !samePath(r.st.bridge.Command, r.v.exe)
}

// update shows the row's state with the host's current servers.
func (r *appRow) update() {
	st, v := r.st, r.v
	id := st.app.ID
	switch {
	case st.loc.Path == "":
		r.found.SetText("–")
		r.found.Importance = widget.LowImportance
	case st.loc.Installed:
		r.found.SetText("Found")
		r.found.Importance = widget.SuccessImportance
	default:
		r.found.SetText("Not found")
		r.found.Importance = widget.LowImportance
	}
	r.found.Refresh()
	note := ""
	if st.loc.Path != "" && !st.loc.Exists {
		note = "(no file yet)"
	}
	setText(r.pathNote, note)
	switch {
	case st.problem != "":
		r.conn.SetText("Unknown")
		r.conn.Importance = widget.DangerImportance
	case r.stale():
		r.conn.SetText("Connected (stale)")
		r.conn.Importance = widget.WarningImportance
	case st.connected:
		r.conn.SetText("Connected")
		r.conn.Importance = widget.SuccessImportance
	default:
		r.conn.SetText("Not connected")
		r.conn.Importance = widget.LowImportance
	}
	r.conn.Refresh()
	r.through.SetText(r.throughText())
	r.cost.SetText(r.costText()) // cost.go
	r.own.SetText(r.ownText())
	setText(r.stays, strings.Join(st.stays, "\n"))
	var problems []string
	for _, p := range []string{st.problem, v.errs[id]} {
		if p != "" {
			problems = append(problems, p)
		}
	}
	setText(r.err, strings.Join(problems, "\n"))
	setText(r.note, v.notes[id])
	showRefusals(v.w, r.refused, v.refused[id])

	// Connect stands out where it is the thing to do. On an app already
	// connected it changes the servers it reaches (or updates a stale
	// entry): it says so.
	label := "Connect…"
	if st.connected && st.problem == "" {
		label = "Change…"
	}
	r.connect.SetText(label)
	r.connect.Importance = widget.MediumImportance
	if st.loc.Installed && st.problem == "" && (!st.connected || r.stale()) {
		r.connect.Importance = widget.HighImportance
	}
	r.connect.Refresh()
	usable := st.problem == "" && st.loc.Path != ""
	enable(r.connect, usable && v.exe != "")
	enable(r.disconnect, usable && st.connected)
	enable(r.importB, usable && len(st.importable) > 0 && v.w.snap.Connected)
}

// throughText says which of Switchboard's servers the app reaches.
func (r *appRow) throughText() string {
	st, snap := r.st, r.v.w.snap
	switch {
	case st.problem != "":
		return "–"
	case !st.connected:
		return "Nothing: not connected"
	}
	known := map[string]hostapi.ServerStatus{}
	var all []string
	for _, s := range snap.Servers {
		known[s.Name] = s
		all = append(all, s.Name)
	}
	mark := func(names []string) string {
		out := make([]string, len(names))
		for i, n := range names {
			s, ok := known[n]
			switch {
			case snap.Connected && !ok:
				n += " (not in Switchboard)"
			case s.Disabled:
				n += " (disabled)"
			case !ok, s.State == "", s.State == hostapi.StateRunning, s.State == hostapi.StateStarting, s.State == hostapi.StateRestarting:
				// serving, or about to (or the state is unknown)
			case s.State == hostapi.StateSleeping:
				n += " (sleeping, starts on first use)" // its Label has parentheses already
			default: // failed, stopped, invalid, waiting for a secret, stopping
				n += " (" + s.State.Label() + ")"
			}
			out[i] = n
		}
		return strings.Join(out, ", ")
	}
	var text string
	switch {
	case len(st.bridge.Servers) > 0:
		text = mark(st.bridge.Servers)
		if st.bridge.Profile != "" {
			text += profileNote(st.bridge.Profile, r.v.w.profileNames) // aiapps_profile.go
		}
	case st.bridge.Profile != "":
		// The profile says which servers it reaches (aiapps_profile.go).
		text = r.profileThrough(st.bridge.Profile, mark, all)
	case !snap.Connected:
		text = "Every server"
	case len(all) == 0:
		text = "Every server (Switchboard has none yet)"
	default:
		text = "Every server: " + mark(all)
	}
	if r.stale() {
		text += fmt.Sprintf("\nIts entry runs %s, not this Switchboard (%s): Change… updates it.", st.bridge.Command, r.v.exe)
	}
	return text
}

// ownText lists the servers the app runs by itself.
func (r *appRow) ownText() string {
	st := r.st
	switch {
	case st.problem != "":
		return "–"
	case len(st.own) == 0:
		return "None"
	}
	text := strings.Join(st.own, ", ")
	switch n := len(st.importable); {
	case n == 1 && len(st.own) == 1:
		text += ": Import… moves it into Switchboard"
	case n == len(st.own):
		text += ": Import… moves them into Switchboard"
	case n > 0:
		text += fmt.Sprintf(": Import… moves %s into Switchboard", strings.Join(st.importable, ", "))
	}
	return text
}

// fail shows the failure of an action on an app in its row.
func (v *appsView) fail(r *appRow, problem string) {
	v.errs[r.st.app.ID] = problem
	v.updateRow(r.st.app.ID)
	v.w.setStatus(fmt.Sprintf("%s: nothing was changed (see its row).", r.st.app.Name), true)
}

// clearOutcome forgets the outcome of the last action on an app, as a new
// one starts.
func (v *appsView) clearOutcome(r *appRow) {
	delete(v.errs, r.st.app.ID)
	delete(v.notes, r.st.app.ID)
	delete(v.refused, r.st.app.ID)
	v.updateRow(r.st.app.ID)
}

// updateRow shows the app's row again (the current one: a load since an
// action started made new rows).
func (v *appsView) updateRow(id string) {
	if r := v.rows[id]; r != nil {
		r.update()
		v.tbl.invalidate()
		v.box.Refresh()
	}
}
