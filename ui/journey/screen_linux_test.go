//go:build linux && cgo && !ci

package journey

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/ui/window"
)

// screenRun is the app's window on the virtual screen, driven as a person
// drives it: it finds a widget by what shows on it, moves the pointer
// there and clicks (xdotool), and types on the keyboard. Widgets are only
// read on the UI goroutine (onUI); xdotool runs on the test's.
type screenRun struct {
	t   *testing.T
	w   *window.Window
	win fyne.Window // the window's Fyne window
	xid string      // its X window id
}

// onUI runs f on the UI goroutine and waits for it.
func onUI(f func()) { fyne.DoAndWait(f) }

// openWindow shows the app's window over the host, as the tray's "Open"
// does, and finds it on the screen.
func openWindow(t *testing.T, h *hostRun) *screenRun {
	t.Helper()
	return openWindowOn(t, h, theApp)
}

// openWindowOn is openWindow with the window's app app: theApp, or one
// that wraps it (to record the pages it opens in the browser).
func openWindowOn(t *testing.T, h *hostRun, app fyne.App) *screenRun {
	t.Helper()
	s := &screenRun{t: t}
	onUI(func() {
		s.w = window.New(app, h.live, window.Options{})
		s.w.Show()
		for _, fw := range theApp.Driver().AllWindows() {
			if fw.Title() == "Switchboard" {
				s.win = fw
			}
		}
	})
	t.Cleanup(func() {
		if t.Failed() {
			s.screenshot()
		}
		onUI(s.w.Close)
	})
	if s.win == nil {
		t.Fatal("the window was shown, but the driver has no window titled Switchboard")
	}
	testkit.Eventually(t, "the window on the X screen", func() (bool, string) {
		out, err := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Switchboard$").CombinedOutput()
		ids := strings.Fields(string(out))
		if err != nil || len(ids) != 1 {
			return false, fmt.Sprintf("xdotool search: %v: %q", err, out)
		}
		s.xid = ids[0]
		return true, ""
	})
	return s
}

// match says whether an object is the one looked for; parents are its
// containers and widgets, the window's content first.
type match func(o fyne.CanvasObject, parents []fyne.CanvasObject) bool

// children returns what an object shows inside it: a container's objects,
// a widget's renderer's.
func children(o fyne.CanvasObject) []fyne.CanvasObject {
	switch x := o.(type) {
	case *fyne.Container:
		return x.Objects
	case fyne.Widget:
		return test.WidgetRenderer(x).Objects()
	}
	return nil
}

// all returns the visible objects under root that m matches, in the
// order they are drawn (on the UI goroutine).
func all(root fyne.CanvasObject, parents []fyne.CanvasObject, m match) []fyne.CanvasObject {
	var out []fyne.CanvasObject
	var walk func(o fyne.CanvasObject, parents []fyne.CanvasObject)
	walk = func(o fyne.CanvasObject, parents []fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		if m(o, parents) {
			out = append(out, o)
		}
		ps := append(parents[:len(parents):len(parents)], o)
		for _, c := range children(o) {
			walk(c, ps)
		}
	}
	walk(root, parents)
	return out
}

// roots are what the window shows: its content, then its overlays (the
// dialogs and pop-ups above it).
func (s *screenRun) roots() []fyne.CanvasObject {
	c := s.win.Canvas()
	return append([]fyne.CanvasObject{c.Content()}, c.Overlays().List()...)
}

// find waits until exactly one visible object matches and returns it.
func (s *screenRun) find(what string, m match) fyne.CanvasObject {
	s.t.Helper()
	var got fyne.CanvasObject
	testkit.Eventually(s.t, what+" on the screen", func() (bool, string) {
		var found []fyne.CanvasObject
		onUI(func() {
			for _, r := range s.roots() {
				found = append(found, all(r, nil, m)...)
			}
		})
		if len(found) != 1 {
			return false, fmt.Sprintf("%d match", len(found))
		}
		got = found[0]
		return true, ""
	})
	return got
}

// gone waits until no visible object matches.
func (s *screenRun) gone(what string, m match) {
	s.t.Helper()
	testkit.Eventually(s.t, what+" gone from the screen", func() (bool, string) {
		var n int
		onUI(func() {
			for _, r := range s.roots() {
				n += len(all(r, nil, m))
			}
		})
		return n == 0, fmt.Sprintf("%d still there", n)
	})
}

// key presses keys (xdotool key names: ctrl+a, Return).
func (s *screenRun) key(keys ...string) {
	s.t.Helper()
	s.xdo(append([]string{"key"}, keys...)...)
}

// onlyOne waits until exactly one visible object matches (find, for a
// check rather than a lookup).
func (s *screenRun) onlyOne(what string, m match) {
	s.t.Helper()
	s.find(what, m)
}

// screenshot saves the screen, for a journey that failed, and says where.
func (s *screenRun) screenshot() {
	f, err := os.CreateTemp("", "journey-*.png")
	if err != nil {
		s.t.Logf("no screenshot: %v", err)
		return
	}
	f.Close()
	if out, err := exec.Command("import", "-window", "root", f.Name()).CombinedOutput(); err != nil {
		s.t.Logf("no screenshot (import: %v: %s)", err, out)
		return
	}
	s.t.Logf("the screen when the journey failed: %s", f.Name())
}

// click moves the pointer to the middle of the object and clicks the
// left button, once the object can be clicked (not disabled).
func (s *screenRun) click(what string, o fyne.CanvasObject) {
	s.t.Helper()
	if d, ok := o.(fyne.Disableable); ok {
		testkit.Eventually(s.t, what+" enabled", func() bool {
			var off bool
			onUI(func() { off = d.Disabled() })
			return !off
		})
	}
	var x, y int
	var where string
	onUI(func() {
		pos := theApp.Driver().AbsolutePositionForObject(o)
		size, scale, canvas := o.Size(), s.win.Canvas().Scale(), s.win.Canvas().Size()
		cx, cy := pos.X+size.Width/2, pos.Y+size.Height/2
		if cx < 0 || cy < 0 || cx > canvas.Width || cy > canvas.Height {
			where = fmt.Sprintf("its middle (%v,%v) is outside the window (%v): scrolled away?", cx, cy, canvas)
		}
		x, y = int(cx*scale), int(cy*scale)
	})
	if where != "" {
		s.t.Fatalf("cannot click %s: %s", what, where)
	}
	s.xdo("mousemove", "--window", s.xid, "--sync", fmt.Sprint(x), fmt.Sprint(y))
	s.xdo("click", "1")
}

// typeText types text on the keyboard, into what has the focus.
func (s *screenRun) typeText(text string) {
	s.t.Helper()
	s.xdo("type", "--delay", "20", text)
}

// xdo runs xdotool.
func (s *screenRun) xdo(args ...string) {
	s.t.Helper()
	if out, err := exec.Command("xdotool", args...).CombinedOutput(); err != nil {
		s.t.Fatalf("xdotool %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

// text returns a label's or an entry's text, read on the UI goroutine.
func text(o fyne.CanvasObject) string {
	var t string
	onUI(func() {
		switch x := o.(type) {
		case *widget.Label:
			t = x.Text
		case *widget.Entry:
			t = x.Text
		case interface{ BaseEntry() *widget.Entry }:
			t = x.BaseEntry().Text
		case *widget.Button:
			t = x.Text
		}
	})
	return t
}

// asEntry is o's Entry: o itself, or the Entry of the window's own kind
// of field (one that takes Escape), which has it as BaseEntry.
func asEntry(o fyne.CanvasObject) (*widget.Entry, bool) {
	switch x := o.(type) {
	case *widget.Entry:
		return x, true
	case interface{ BaseEntry() *widget.Entry }:
		return x.BaseEntry(), true
	}
	return nil, false
}

// The matchers the lookups are made of.

func buttonText(text string) match {
	return func(o fyne.CanvasObject, _ []fyne.CanvasObject) bool {
		b, ok := o.(*widget.Button)
		return ok && b.Text == text
	}
}

func labelText(text string) match {
	return func(o fyne.CanvasObject, _ []fyne.CanvasObject) bool {
		l, ok := o.(*widget.Label)
		return ok && l.Text == text
	}
}

func labelContaining(text string) match {
	return func(o fyne.CanvasObject, _ []fyne.CanvasObject) bool {
		l, ok := o.(*widget.Label)
		return ok && strings.Contains(l.Text, text)
	}
}

func entryPlaceholder(text string) match {
	return func(o fyne.CanvasObject, _ []fyne.CanvasObject) bool {
		e, ok := asEntry(o)
		return ok && e.PlaceHolder == text
	}
}

// nearest matches what target matches in the nearest block around an
// object that anchor matches: the innermost container or widget that
// holds the anchor and exactly one target (a row's button beside the
// row's name).
func (s *screenRun) nearest(anchor, target match) match {
	return func(o fyne.CanvasObject, parents []fyne.CanvasObject) bool {
		if !target(o, parents) {
			return false
		}
		for i := len(parents) - 1; i >= 0; i-- {
			p := parents[i]
			if len(all(p, nil, anchor)) == 0 {
				continue
			}
			ts := all(p, nil, target)
			return len(ts) == 1 && ts[0] == o
		}
		return false
	}
}

// formField matches the first entry of the form row whose label reads
// label (a form lays out its label and its field side by side, the field
// next after its label).
func formField(label string) match {
	return func(o fyne.CanvasObject, parents []fyne.CanvasObject) bool {
		if _, ok := asEntry(o); !ok {
			return false
		}
		for i := len(parents) - 1; i > 0; i-- {
			grid, ok := parents[i-1].(*fyne.Container)
			if !ok {
				continue
			}
			for k, c := range grid.Objects {
				if c == parents[i] && k > 0 {
					if l, ok := grid.Objects[k-1].(*widget.Label); ok && l.Text == label {
						first := all(parents[i], nil, func(o fyne.CanvasObject, _ []fyne.CanvasObject) bool {
							_, ok := asEntry(o)
							return ok
						})
						return len(first) > 0 && first[0] == o
					}
				}
			}
		}
		return false
	}
}

// importance matches a button of an importance (the page's main action
// is HighImportance).
func importance(m match, imp widget.Importance) match {
	return func(o fyne.CanvasObject, parents []fyne.CanvasObject) bool {
		b, ok := o.(*widget.Button)
		return ok && b.Importance == imp && m(o, parents)
	}
}

// headingText matches a page's title that reads text (a label in the
// sub-heading size: the chosen server's name above its tabs, not its name
// in the list).
func headingText(text string) match {
	return func(o fyne.CanvasObject, _ []fyne.CanvasObject) bool {
		l, ok := o.(*widget.Label)
		return ok && l.Text == text && l.SizeName == theme.SizeNameSubHeadingText
	}
}

// inList matches what m matches inside a list's row (widget.List).
func inList(m match) match {
	return func(o fyne.CanvasObject, parents []fyne.CanvasObject) bool {
		if !m(o, parents) {
			return false
		}
		for _, p := range parents {
			if _, ok := p.(*widget.List); ok {
				return true
			}
		}
		return false
	}
}

// tabText matches the tab of tabs (container.AppTabs) whose title reads
// text: the tab's button, a widget that draws the title as a text.
func tabText(text string) match {
	return func(o fyne.CanvasObject, parents []fyne.CanvasObject) bool {
		if _, ok := o.(fyne.Widget); !ok || len(parents) == 0 {
			return false
		}
		inTabs := false
		for _, p := range parents {
			if _, ok := p.(*container.AppTabs); ok {
				inTabs = true
			}
		}
		if !inTabs {
			return false
		}
		for _, c := range children(o) {
			if t, ok := c.(*canvas.Text); ok && t.Text == text && c.Visible() {
				return true
			}
		}
		return false
	}
}

// after matches what target matches right after (the next visible object
// in the same container) an object that anchor matches: the value beside
// its label in a grid, the text below its heading.
func after(anchor, target match) match {
	return func(o fyne.CanvasObject, parents []fyne.CanvasObject) bool {
		if len(parents) == 0 || !target(o, parents) {
			return false
		}
		box, ok := parents[len(parents)-1].(*fyne.Container)
		if !ok {
			return false
		}
		var prev fyne.CanvasObject
		for _, c := range box.Objects {
			if c == o {
				return prev != nil && anchor(prev, parents)
			}
			if c.Visible() {
				prev = c
			}
		}
		return false
	}
}
