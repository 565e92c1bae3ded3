//go:build linux && cgo && !ci

package journey

import (
	"context"
	"fmt"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/host/hosttest"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/ui/window"
)

// TestJourneySleepAndPolicy is issue 27 item 15 in the window: a person
// makes a server start on first use, with its idle stop, in its Settings,
// and makes one of its tools ask first in its Tools tab, without the
// JSON; the config file on disk says so (the window changed it through
// the host).
func TestJourneySleepAndPolicy(t *testing.T) {
	need(t)
	bin := testkit.NpmServer(t, "mcp-server-filesystem")
	allowed, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := startHost(t, map[string]any{"files": map[string]any{"command": bin, "args": []string{allowed}}})
	h.waitState("files", hostapi.StateRunning)
	s := openWindow(t, h)

	s.click("files in the list", s.serverRow("files"))
	s.click("the Settings tab of files", s.serverTab("files", "Settings"))
	s.click("Start: Always", s.reveal("Start", s.selectShowing("Always: from the host's start")))
	s.click("On first use", s.popupItem("On first use: sleeps until an app calls it"))
	idle := s.find("the idle stop", s.nearest(labelText("Stop when idle (ms)"), entryPlaceholder("default 600000 ms (10 min)")))
	s.click("the idle stop", s.reveal("the idle stop", idle))
	s.typeText("60000")
	testkit.Eventually(t, "the idle stop typed", func() (bool, string) {
		got := text(idle)
		return got == "60000", got
	})
	s.shots("settings-start")
	s.click("Save", s.settingsSave())
	testkit.Eventually(t, "the entry on disk starts on demand, idle stop 60 s", func() (bool, string) {
		e := h.entry("files")
		return e["start"] == "on-demand" && e["idleStop"] == float64(60000), fmt.Sprint(e)
	})

	// The Tools tab: write_file says it is destructive, so it asks first
	// by default; create_directory is allowed until the person denies it.
	s.click("the Tools tab of files", s.serverTab("files", "Tools"))
	s.click("write_file", s.toolButton("write_file (asks first)"))
	s.onlyOne("why write_file asks", labelContaining("It says it is destructive"))
	s.click("create_directory", s.toolButton("create_directory"))
	s.click("create_directory's policy", s.selectShowing("Allow"))
	s.click("Deny", s.popupItem("Deny"))
	testkit.Eventually(t, "the entry on disk denies create_directory", func() (bool, string) {
		e := h.entry("files")
		p, _ := e["policy"].(map[string]any)
		tools, _ := p["tools"].(map[string]any)
		return tools["create_directory"] == "deny", fmt.Sprint(e)
	})
	s.toolButton("create_directory (denied)")
	s.onlyOne("the policy's source", labelText("Set for this tool."))
	if e := h.entry("files"); e["start"] != "on-demand" {
		t.Errorf("the policy's save lost the start: %v", e)
	}
}

// TestJourneyToolsHiddenAndHeld is issue 27 item 18: the Tools tab marks a
// tool that the server's filter hides from apps and the tools held for
// review (a server that came back with other tools than the ones pinned);
// Try it is off for a held tool, with the reason and a way to the review,
// and needs a tick for a hidden one.
func TestJourneyToolsHiddenAndHeld(t *testing.T) {
	need(t)
	files := testkit.NpmServer(t, "mcp-server-filesystem")
	everything := testkit.NpmServer(t, "mcp-server-everything")
	allowed, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := startPinnedHost(t, map[string]any{
		"files": map[string]any{"command": files, "args": []string{allowed}, "tools": map[string]any{"deny": []string{"write_file"}}},
		"demo":  map[string]any{"command": files, "args": []string{allowed}},
	}, filepath.Join(t.TempDir(), "pins.json"))
	// The gateway pins a server's tools as it exposes them: once it
	// exposes demo's, they are its pinned tools.
	ctx, cancel := context.WithTimeout(context.Background(), testkit.Deadline)
	defer cancel()
	testkit.Eventually(t, "demo's tools exposed (and so pinned)", func() (bool, string) {
		gi, err := h.live.Gateway(ctx)
		if err != nil {
			return false, err.Error()
		}
		for _, m := range gi.Mapping.Tools {
			if m.Server == "demo" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", gi.Mapping.Tools)
	})
	// demo comes back as another server: its tools are new on a known
	// server, held until reviewed.
	if err := h.live.PutServer(ctx, "demo", []byte(fmt.Sprintf(`{"command": %q}`, everything)), false); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "demo's tools held for review", func() (bool, string) {
		st, _ := h.server("demo")
		return st.State == hostapi.StateRunning && st.Held > 0, fmt.Sprintf("%+v", st)
	})
	s := openWindow(t, h)

	s.click("demo in the list", s.serverRow("demo"))
	s.click("the Tools tab of demo", s.serverTab("demo", "Tools"))
	s.click("echo, held", s.toolButton("echo (held for review)"))
	s.onlyOne("why echo is held", labelContaining("Held for review: it is new on this server"))
	s.onlyOne("why Try it is off", labelContaining("Review the tool first"))
	call := s.callButton("echo")
	var off bool
	onUI(func() { off = call.(fyne.Disableable).Disabled() })
	if !off {
		t.Fatal("Call echo is enabled on a tool held for review")
	}
	s.shots("tools-held")
	s.click("Review", s.find("Review", buttonText("Review")))
	s.onlyOne("the review page", labelText("Review the tools of demo"))
	s.click("Back", s.find("Back", buttonText("Back")))

	s.click("files in the list", s.serverRow("files"))
	s.click("the Tools tab of files", s.serverTab("files", "Tools"))
	s.click("write_file, hidden", s.toolButton("write_file (hidden from apps)"))
	s.onlyOne("why write_file is hidden", labelContaining("Hidden from AI apps: the server's tool filter"))
	call = s.callButton("write_file")
	onUI(func() { off = call.(fyne.Disableable).Disabled() })
	if !off {
		t.Fatal("Call write_file is enabled before the person said they mean it")
	}
	s.click("call it anyway", s.find("the tick", checkText("Call it here although AI apps do not see it")))
	testkit.Eventually(t, "Call write_file enabled by the tick", func() bool {
		onUI(func() { off = call.(fyne.Disableable).Disabled() })
		return !off
	})
	s.shots("tools-hidden")
	// The others are as they were.
	s.click("read_file", s.toolButton("read_file"))
	call = s.callButton("read_file")
	onUI(func() { off = call.(fyne.Disableable).Disabled() })
	if off {
		t.Error("Call read_file is disabled on a tool apps see")
	}
}

// startPinnedHost is startHost with a pin file: the tools a server first
// lists are pinned, and new or changed ones held for review.
func startPinnedHost(t *testing.T, cfg map[string]any, pins string) *hostRun {
	t.Helper()
	return followHost(t, hosttest.Start(t, cfg, func(o *host.Options) { o.Version = "journey"; o.PinsPath = pins }))
}

// shots saves the window in the light and the dark theme as
// $SWITCHBOARD_SHOTS/NAME-VARIANT-1120.png, when that is set (the
// screenshots of docs/screenshots; the journey checks nothing by them).
func (s *screenRun) shots(name string) {
	s.t.Helper()
	dir := os.Getenv("SWITCHBOARD_SHOTS")
	if dir == "" {
		return
	}
	var prev fyne.Theme
	onUI(func() { prev = theApp.Settings().Theme() })
	for _, v := range []struct {
		name string
		v    fyne.ThemeVariant
	}{{"light", theme.VariantLight}, {"dark", theme.VariantDark}} {
		onUI(func() { theApp.Settings().SetTheme(variantTheme{window.Theme(), v.v}) })
		// Drawn in the new colours: a pixel of the window's corner is the
		// theme's background (at most testkit.Deadline; then shot as is).
		r, g, b, _ := window.Theme().Color(theme.ColorNameBackground, v.v).RGBA()
		want := fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
		testkit.Poll(testkit.Deadline, func() bool {
			px, _ := exec.Command("import", "-window", s.xid, "-crop", "1x1+2+2", "-depth", "8", "txt:-").Output()
			return strings.Contains(strings.ToUpper(string(px)), want)
		})
		out := filepath.Join(dir, name+"-"+v.name+"-1120.png")
		if b, err := exec.Command("import", "-window", s.xid, out).CombinedOutput(); err != nil {
			s.t.Fatalf("import: %v: %s", err, b)
		}
	}
	onUI(func() { theApp.Settings().SetTheme(prev) })
}

// variantTheme is the window's theme in one variant.
type variantTheme struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.v)
}

// The lookups of these journeys (see lookups_linux_test.go).

// selectShowing is a choice (widget.Select) that shows text.
func (s *screenRun) selectShowing(text string) fyne.CanvasObject {
	return s.find("the choice showing "+text, func(o fyne.CanvasObject, _ []fyne.CanvasObject) bool {
		sel, ok := o.(*widget.Select)
		return ok && sel.Selected == text
	})
}

// popupItem is an item of the open pop-up menu (a choice's options).
func (s *screenRun) popupItem(text string) fyne.CanvasObject {
	return s.find("the menu item "+text, func(o fyne.CanvasObject, parents []fyne.CanvasObject) bool {
		if _, ok := o.(fyne.Widget); !ok {
			return false
		}
		inMenu := false
		for _, p := range parents {
			if _, ok := p.(*widget.PopUpMenu); ok {
				inMenu = true
			}
		}
		if !inMenu {
			return false
		}
		for _, c := range children(o) {
			if t, ok := c.(*canvas.Text); ok && t.Text == text {
				return true
			}
		}
		return false
	})
}

// checkText matches a check box whose label reads text.
func checkText(text string) match {
	return func(o fyne.CanvasObject, _ []fyne.CanvasObject) bool {
		c, ok := o.(*widget.Check)
		return ok && c.Text == text
	}
}

// reveal scrolls, with the mouse wheel over the scrolling pane that
// holds o, until o's middle shows in the pane (a person scrolls down to
// a field below the fold).
func (s *screenRun) reveal(what string, o fyne.CanvasObject) fyne.CanvasObject {
	s.t.Helper()
	for range 40 {
		var scroll *container.Scroll
		var in bool
		var x, y int
		var down bool
		onUI(func() {
			var path []fyne.CanvasObject
			for _, r := range s.roots() {
				all(r, nil, func(c fyne.CanvasObject, parents []fyne.CanvasObject) bool {
					if c == o {
						path = parents
					}
					return false
				})
			}
			for _, p := range path {
				if sc, ok := p.(*container.Scroll); ok {
					scroll = sc
				}
			}
			if scroll == nil {
				in = true
				return
			}
			d := theApp.Driver()
			op, sp := d.AbsolutePositionForObject(o), d.AbsolutePositionForObject(scroll)
			mid := op.Y + o.Size().Height/2
			in = mid > sp.Y && mid < sp.Y+scroll.Size().Height
			down = mid >= sp.Y+scroll.Size().Height
			scale := s.win.Canvas().Scale()
			x, y = int((sp.X+scroll.Size().Width/2)*scale), int((sp.Y+scroll.Size().Height/2)*scale)
		})
		if in {
			return o
		}
		button := "4"
		if down {
			button = "5"
		}
		s.xdo("mousemove", "--window", s.xid, "--sync", fmt.Sprint(x), fmt.Sprint(y))
		s.xdo("click", "--repeat", "3", button)
	}
	s.t.Fatalf("%s: not shown after scrolling", what)
	return nil
}
