package window

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
)

// The AI apps place reads the apps' config files again when the window
// gains the focus (the user may have changed an app meanwhile) and when
// one of the files changes (an app rewrote it; `switchboard clients
// connect` ran): there is no Refresh button.

// appsSettle is how long the watch waits after a change before reading
// the files: an app writes its file in several steps (a temporary file,
// a rename), which become one read.
const appsSettle = 300 * time.Millisecond

// openAppsPlace opens the AI apps page as a place, watching the apps'
// files while it shows.
func (w *Window) openAppsPlace() {
	w.openApps()
	v, p := w.apps, w.page
	if v == nil || p == nil {
		return
	}
	stop := w.watchApps(v)
	prev := p.close
	p.close = func() {
		stop()
		if prev != nil {
			prev()
		}
	}
}

// gainedFocus reads what may have changed while the window was in the
// background: the AI apps' files.
func (w *Window) gainedFocus() {
	if w.win == nil {
		return
	}
	if w.apps != nil {
		w.apps.load()
	}
	if w.servers != nil && w.servers.body.Objects[0] == w.servers.empty.obj {
		w.servers.empty.reload()
	}
}

// watchApps follows the directories of the apps' config files (the
// nearest existing one for a file whose folder does not exist yet) and
// reads the files again after a change to one of them. It returns the
// function that stops it.
func (w *Window) watchApps(v *appsView) (stop func()) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return func() {} // focus still rescans
	}
	files := appFilePaths(v.files.env)
	watched := map[string]bool{}
	watch := func() {
		for _, d := range watchDirs(files) {
			if !watched[d] && fw.Add(d) == nil {
				watched[d] = true
			}
		}
	}
	watch()
	done := make(chan struct{})
	go func() {
		var timer *time.Timer
		fire := func() {
			w.opts.Do(func() {
				if w.ctx.Err() == nil && w.apps == v {
					v.load()
				}
			})
		}
		for {
			select {
			case <-done:
				if timer != nil {
					timer.Stop()
				}
				return
			case ev, ok := <-fw.Events:
				if !ok {
					return
				}
				if !concerns(files, ev.Name) {
					continue
				}
				if ev.Op&fsnotify.Create != 0 {
					watch() // a folder on the way to a file may have appeared
				}
				if timer == nil {
					timer = time.AfterFunc(appsSettle, fire)
				} else {
					timer.Reset(appsSettle)
				}
			case _, ok := <-fw.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		fw.Close()
	}
}

// appFilePaths are the config files and markers of every app known.
func appFilePaths(env aiapps.Env) []string {
	var out []string
	for _, app := range aiapps.Apps() {
		p, err := app.Paths(env)
		if err != nil {
			continue
		}
		for _, c := range append(slices.Clone(p.Candidates), p.Markers...) {
			if c != "" && !strings.ContainsAny(c, "*?[") {
				out = append(out, filepath.Clean(c))
			}
		}
	}
	return out
}

// watchDirs are the folders to watch for files: each file's folder, or
// its nearest existing ancestor.
func watchDirs(files []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		d := filepath.Dir(f)
		for {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				break
			}
			up := filepath.Dir(d)
			if up == d {
				break
			}
			d = up
		}
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// concerns says whether a change of path concerns one of the files: the
// file itself, or a folder on its way.
func concerns(files []string, path string) bool {
	path = filepath.Clean(path)
	for _, f := range files {
		if samePath(f, path) || strings.HasPrefix(f, path+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
