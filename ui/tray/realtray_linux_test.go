//go:build linux && cgo && !ci

package tray

// TestRealTray runs the real tray: this test binary re-executed as a Fyne
// app (the GLFW driver, under Xvfb) with the Tray against a real host, on a
// private D-Bus session bus where a fake StatusNotifierWatcher stands in
// for the desktop's tray host. The menu is read back over
// com.canonical.dbusmenu and clicked, as a panel would.
//
//	go test -run TestRealTray -v ./ui/tray/
//
// It needs Xvfb and dbus-daemon: it skips without them, but fails under
// CI=true.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"
	"github.com/godbus/dbus/v5"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const socketEnv = "SWITCHBOARD_TRAY_TEST_SOCKET"

func init() {
	helpers["tray"] = func() int { return runTrayApp(false) }
	helpers["tray-late"] = func() int { return runTrayApp(true) }
	helpers["systray"] = runSystrayApp
}

// runSystrayApp is the tray process as the app runs on Linux: a [Systray]
// and a Fyne app whose driver never runs (the window is never opened), so
// no GL is loaded. Quit ends it; Open says so on stderr.
func runSystrayApp() int {
	a := fyneapp.NewWithID("io.github.switchboard-mcp.traytest")
	st, err := StartSystray("traytest")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tray app:", err)
		return 1
	}
	live := client.New(client.Options{Socket: os.Getenv(socketEnv)})
	ctx, cancel := context.WithCancel(context.Background())
	go live.Run(ctx)
	quit := make(chan struct{})
	var once sync.Once
	tr := &Tray{Host: st} // notifications as the app sends them: on the bus
	actions := HostActions(live, a, HostOptions{
		Open:    func() { fmt.Fprintln(os.Stderr, "OPEN") },
		Detach:  cancel,
		Quit:    func() { once.Do(func() { close(quit) }) },
		Confirm: func(q string, _ func(bool)) { fmt.Fprintln(os.Stderr, "QUESTION:", q) },
		OnError: func(title string, err error) { fmt.Fprintf(os.Stderr, "ERROR: %s: %v\n", title, err) },
	})
	tr.Run(a, live, actions)
	<-quit
	tr.Close()
	st.Close()
	cancel()
	fmt.Fprintln(os.Stderr, "tray app: quit")
	return 0
}

// runTrayApp is the tray process: a Fyne app with the Tray, following the
// host at $SWITCHBOARD_TRAY_TEST_SOCKET. Its notifications go to the
// test's notification daemon on the private bus. With late, Fyne's loop
// (and with it Fyne's tray) starts only after the Tray has the host's
// state, as on a slow start: the Tray's rebuild waits for the loop.
func runTrayApp(late bool) int {
	a := fyneapp.NewWithID("io.github.switchboard-mcp.traytest")
	live := client.New(client.Options{Socket: os.Getenv(socketEnv)})
	ctx, cancel := context.WithCancel(context.Background())
	go live.Run(ctx)
	tr := &Tray{} // notifications as the app sends them: on the bus
	actions := HostActions(live, a, HostOptions{
		Open:   func() {},
		Detach: cancel,
		// The app's question window, and a line the test waits for.
		Confirm: func(q string, answer func(bool)) {
			fmt.Fprintln(os.Stderr, "QUESTION:", q)
			fyne.Do(func() { ConfirmWindow(a, q, answer) })
		},
		OnError: func(title string, err error) { fmt.Fprintf(os.Stderr, "ERROR: %s: %v\n", title, err) },
	})
	tr.Run(a, live, actions)
	if late {
		testkit.Poll(testkit.Deadline, func() bool { return live.Snapshot().Connected })
		// The Tray's rebuild for the connection is queued for the loop
		// meanwhile (no assertion hangs on this wait; the test passes
		// in either order once the Tray is right).
		time.Sleep(20 * DefaultSettle)
	}
	a.Run()
	tr.Close()
	cancel()
	fmt.Fprintln(os.Stderr, "tray app: quit")
	return 0
}

// startWatcher starts a fake StatusNotifierWatcher with a tray host; the
// channel receives the bus name of each item that registers.
func startWatcher(t *testing.T, addr string) <-chan string {
	t.Helper()
	return startWatcherWith(t, addr, true)
}

// menuNode is one dbusmenu item as GetLayout returns it.
type menuNode struct {
	ID       int32
	Label    string
	Enabled  bool
	Checked  bool // a checkbox, checked
	Children []menuNode
}

// toNode converts GetLayout's (ia{sv}av) structure.
func toNode(v any) (menuNode, error) {
	f, ok := v.([]any)
	if !ok || len(f) != 3 {
		return menuNode{}, fmt.Errorf("a layout item is %T %v", v, v)
	}
	n := menuNode{Enabled: true}
	n.ID, _ = f[0].(int32)
	props, _ := f[1].(map[string]dbus.Variant)
	if l, ok := props["label"]; ok {
		n.Label, _ = l.Value().(string)
	}
	if ty, ok := props["type"]; ok && ty.Value() == "separator" {
		n.Label = "---"
	}
	if e, ok := props["enabled"]; ok {
		n.Enabled, _ = e.Value().(bool)
	}
	if ty, ok := props["toggle-type"]; ok && ty.Value() == "checkmark" {
		st, _ := props["toggle-state"].Value().(int32)
		n.Checked = st == 1
	}
	if vis, ok := props["visible"]; ok && vis.Value() == false {
		return menuNode{}, nil
	}
	children, _ := f[2].([]dbus.Variant)
	for _, c := range children {
		cn, err := toNode(c.Value())
		if err != nil {
			return n, err
		}
		n.Children = append(n.Children, cn)
	}
	return n, nil
}

func (n menuNode) find(label string) (menuNode, bool) {
	for _, c := range n.Children {
		if c.Label == label {
			return c, true
		}
	}
	return menuNode{}, false
}

// ids are the ids of n's items (n's own aside), depth first.
func (n menuNode) ids() []int32 {
	var out []int32
	for _, c := range n.Children {
		out = append(out, c.ID)
		out = append(out, c.ids()...)
	}
	return out
}

func (n menuNode) String() string {
	var b strings.Builder
	var walk func(menuNode, int)
	walk = func(n menuNode, depth int) {
		for _, c := range n.Children {
			fmt.Fprintf(&b, "%s%q (id %d, enabled %v)\n", strings.Repeat("  ", depth), c.Label, c.ID, c.Enabled)
			walk(c, depth+1)
		}
	}
	walk(n, 0)
	return b.String()
}

// hostState asks the host for a server's status on a connection of its
// own, closed at once.
func hostState(t *testing.T, socket, name string) hostapi.ServerStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := client.Dial(ctx, socket)
	if err != nil {
		t.Fatalf("dialling the host: %v", err)
	}
	defer c.Close()
	list, err := c.Servers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range list {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("the host has no server %q", name)
	return hostapi.ServerStatus{}
}

// glLibraries returns the Mesa libraries in a /proc/PID/maps text: the
// ones a GL context loads (libGL.so itself is linked at start).
func glLibraries(maps string) []string {
	seen := map[string]bool{}
	var out []string
	for _, line := range strings.Split(maps, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		base := filepath.Base(f[5])
		for _, p := range []string{"libGLX_mesa", "swrast_dri", "libLLVM", "libgallium"} {
			if strings.HasPrefix(base, p) && !seen[base] {
				seen[base] = true
				out = append(out, base)
			}
		}
	}
	return out
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRealTray runs the tray both ways: with Fyne's own tray (macOS and
// Windows use it) and with the [Systray] the app uses on Linux, where the
// tray process must also load no GL while its window is never opened.
//
// fyne-late starts Fyne's loop after the host's state reached the Tray:
// Fyne's tray, once up, shows the first menu it was given again, and a
// Tray that gave it a new menu per rebuild was left showing "Not
// connected" (see fyneTray).
func TestRealTray(t *testing.T) {
	t.Run("fyne", func(t *testing.T) { testRealTray(t, "tray") })
	t.Run("fyne-late", func(t *testing.T) { testRealTray(t, "tray-late") })
	t.Run("systray", func(t *testing.T) { testRealTray(t, "systray") })
}

func testRealTray(t *testing.T, role string) {
	display := testkit.Xvfb(t)
	bus := testkit.SessionBus(t)
	registered := startWatcher(t, bus)
	notices := testkit.StartNotifications(t, bus)

	crash := helperEntry("crash")
	crash["maxReconnects"] = 0
	th := runHost(t, map[string]any{"everything": helperEntry("mcp"), "crash": crash}, onDemand) // as the tray starts one
	// crash's first failure comes before the tray connects, so that the
	// tray takes it as its baseline: shown by the icon, never notified.
	testkit.Eventually(t, "crash failed", func() bool { return hostState(t, th.Opts.SocketPath, "crash").State == hostapi.StateFailed })

	// The tray process, with a fresh home for Fyne's settings.
	home := t.TempDir()
	cmd := exec.Command(testExe, "-test.run=^$")
	cmd.Env = append(os.Environ(),
		helperEnv+"="+role, socketEnv+"="+th.Opts.SocketPath,
		"DISPLAY="+display, "DBUS_SESSION_BUS_ADDRESS="+bus, "LANG=en_US.UTF-8",
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_RUNTIME_DIR="+home)
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		t.Logf("the tray process's output:\n%s", logs.String())
	})

	var item string
	select {
	case item = <-registered:
		t.Logf("the tray registered its item as %s", item)
	case err := <-exited:
		t.Fatalf("the tray process exited before it registered: %v", err)
	case <-time.After(testkit.Deadline):
		t.Fatal("the tray did not register its item")
	}

	conn, err := dbus.Connect(bus)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Find the menu the way a tray host does: the item's Menu property.
	obj := conn.Object(item, "/StatusNotifierItem")
	v, err := obj.GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		t.Fatalf("the item's Menu property: %v", err)
	}
	menuPath, ok := v.Value().(dbus.ObjectPath)
	if !ok {
		t.Fatalf("the Menu property is %T", v.Value())
	}
	menu := conn.Object(item, menuPath)
	layout := func() (menuNode, error) {
		call := menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
		if call.Err != nil {
			return menuNode{}, call.Err
		}
		if len(call.Body) != 2 {
			return menuNode{}, fmt.Errorf("GetLayout returned %d values", len(call.Body))
		}
		return toNode(call.Body[1])
	}
	// waitMenu polls the menu until cond holds.
	waitMenu := func(what string, cond func(menuNode) bool) menuNode {
		t.Helper()
		var m menuNode
		testkit.Eventually(t, what, func() (bool, string) {
			var err error
			m, err = layout()
			return err == nil && cond(m), fmt.Sprintf("last menu (err %v):\n%s", err, m)
		})
		return m
	}
	has := func(labels ...string) func(menuNode) bool {
		return func(m menuNode) bool {
			for _, l := range labels {
				if _, ok := m.find(l); !ok {
					return false
				}
			}
			return true
		}
	}
	m := waitMenu("the servers in the menu", has("1 running, 1 failed", "crash — failed", "everything — running (2 tools)", LabelOpen, LabelStartAll, LabelStopAll, LabelQuitAndStop))
	t.Logf("the menu over D-Bus:\n%s", m)
	// The header: the health in words, first and not clickable.
	if h := m.Children[0]; h.Label != "1 running, 1 failed" || h.Enabled {
		t.Fatalf("the first item is %+v, not the header", h)
	}
	// The tooltip says the same, as a panel reads it (ToolTip's title).
	// The Tray sets it just after the menu: a read between the two has
	// the one before (a panel reads it again on NewToolTip).
	testkit.Eventually(t, "the ToolTip property says it", func() (bool, string) {
		tv, err := obj.GetProperty("org.kde.StatusNotifierItem.ToolTip")
		if err != nil {
			return false, err.Error()
		}
		var tip struct {
			Icon string
			Pix  []struct {
				W, H int32
				Pix  []byte
			}
			Title string
			Text  string
		}
		if err := dbus.Store([]any{tv.Value()}, &tip); err != nil {
			return false, err.Error()
		}
		return tip.Title == "Switchboard — 1 running, 1 failed", fmt.Sprintf("%+v", tv)
	})
	// One Quit only: ours.
	quits := 0
	for _, c := range m.Children {
		if c.Label == LabelQuitAndStop {
			quits++
		}
	}
	if quits != 1 {
		t.Fatalf("%d Quit items", quits)
	}
	// What the tray process has mapped of Mesa (loaded with a GL context).
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	gl := glLibraries(string(maps))
	t.Logf("GL libraries the tray process maps: %v", gl)
	if role == "systray" && len(gl) > 0 {
		t.Fatalf("the tray process loaded GL with its window never opened: %v", gl)
	}
	ev, _ := m.find("everything — running (2 tools)")
	for label, enabled := range map[string]bool{LabelStart: false, LabelStop: true, LabelRestart: true, LabelShowLogs: true} {
		if c, ok := ev.find(label); !ok || c.Enabled != enabled {
			t.Fatalf("everything / %s: %+v (found %v), want enabled %v", label, c, ok, enabled)
		}
	}
	cr, _ := m.find("crash — failed")
	if c, _ := cr.find(LabelStop); c.Enabled {
		t.Fatal("crash / Stop is enabled")
	}
	// Its reason in words, first in its submenu; and Open logs.
	if len(cr.Children) < 2 || cr.Children[0].Label != "It exited: tray test server: cannot open the database /nonexistent/db" ||
		cr.Children[0].Enabled || cr.Children[1].Label != "---" {
		t.Fatalf("crash's submenu does not begin with its reason:\n%s", cr)
	}
	if c, ok := cr.find("Open logs"); !ok || !c.Enabled {
		t.Fatalf("crash / Open logs: %+v (found %v)", c, ok)
	}

	// The icon: the failed one (a red dot), as the item's pixmap.
	pv, err := obj.GetProperty("org.kde.StatusNotifierItem.IconPixmap")
	if err != nil {
		t.Fatal(err)
	}
	var pix []struct {
		W, H int32
		Pix  []byte
	}
	if err := dbus.Store([]any{pv.Value()}, &pix); err != nil || len(pix) != 1 || pix[0].W != 64 {
		t.Fatalf("IconPixmap: %v %+v", err, pv)
	}
	if i := (47*64 + 47) * 4; pix[0].Pix[i] != 0xff || pix[0].Pix[i+1] < 0xc0 || pix[0].Pix[i+2] > 0x60 {
		t.Fatalf("the icon's dot is ARGB %x, not red", pix[0].Pix[i:i+4])
	}

	// Click crash / Start: it fails again, and this failure (not the one
	// that happened before the tray connected) is notified, with its reason.
	click := func(n menuNode) {
		t.Helper()
		if call := menu.Call("com.canonical.dbusmenu.Event", 0, n.ID, "clicked", dbus.MakeVariant(""), uint32(0)); call.Err != nil {
			t.Fatalf("clicking %q: %v", n.Label, call.Err)
		}
	}
	// clickUntil clicks first, then waits until done. Fyne's tray
	// (fyne.io/systray) drops a click on an item that a rebuild replaced
	// (it logs "no menu item with ID"), and one that comes before the
	// goroutine of an item it has just made waits for it (silently),
	// where a panel's user would click again. So with Fyne's tray it
	// clicks again the item that again picks from a fresh read of the
	// menu (if enabled): when the tray logged the click as lost, and
	// for a click whose repeat changes nothing (repeatable: Stop, Start,
	// Quit), every few seconds while not done. (The Systray takes every
	// click: one, so that it shows.)
	clickUntil := func(what string, first menuNode, again func(menuNode) (menuNode, bool), repeatable bool, done func() bool) {
		t.Helper()
		clicked := first.ID
		if call := menu.Call("com.canonical.dbusmenu.Event", 0, clicked, "clicked", dbus.MakeVariant(""), uint32(0)); call.Err != nil &&
			!strings.Contains(call.Err.Error(), "disconnected from message bus without replying") {
			t.Fatalf("clicking %q: %v", first.Label, call.Err) // the tray may be gone before its reply (Quit)
		}
		next := time.Now().Add(5 * time.Second)
		testkit.Eventually(t, what+" (after the click)", func() bool {
			if done() {
				return true
			}
			lost := strings.Contains(logs.String(), fmt.Sprintf("no menu item with ID %d\n", clicked))
			if role != "systray" && (lost || repeatable && time.Now().After(next)) {
				if m, err := layout(); err == nil {
					if n, ok := again(m); ok && n.Enabled && (n.ID != clicked || !lost) {
						t.Logf("%s: not yet (the tray lost the click: %v); clicking %q again", what, lost, n.Label)
						clicked = n.ID
						_ = menu.Call("com.canonical.dbusmenu.Event", 0, clicked, "clicked", dbus.MakeVariant(""), uint32(0)).Err
					}
				}
				next = time.Now().Add(5 * time.Second)
			}
			return false
		})
	}
	if n := notices.Calls(); len(n) != 0 {
		t.Fatalf("the failure from before the tray connected was notified: %+v", n)
	}
	failures := hostState(t, th.Opts.SocketPath, "crash").Failures
	crashStart, _ := cr.find(LabelStart)
	// It reaches the desktop's notification daemon signed "Switchboard",
	// with the app's icon, the reason in words. (Clicked again only if
	// the tray lost the click: a second start would fail again.)
	clickUntil(fmt.Sprintf("a notification of crash's failure (failures %d before)", failures), crashStart, func(m menuNode) (menuNode, bool) {
		cr, _ := m.find("crash — failed")
		return cr.find(LabelStart)
	}, false, func() bool { return len(notices.Calls()) > 0 })
	time.Sleep(500 * time.Millisecond) // a second one would come now
	notes := notices.Calls()
	if len(notes) != 1 {
		t.Fatalf("%d notifications: %+v", len(notes), notes)
	}
	note := notes[0]
	t.Logf("the notification: app %q, icon %q, %q: %q", note.AppName, note.Icon, note.Summary, note.Body)
	if note.AppName != "Switchboard" || note.Summary != `Server "crash" failed` ||
		!strings.HasPrefix(note.Body, "It exited: tray test server: cannot open the database /nonexistent/db.") {
		t.Fatalf("the notification: %+v", note)
	}
	if b, err := os.ReadFile(note.Icon); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Fatalf("the notification's icon %q is not a PNG: %v", note.Icon, err)
	}
	m = waitMenu("the menu settles", has("crash — failed", "everything — running (2 tools)"))
	ev, _ = m.find("everything — running (2 tools)")
	// The states to come keep the menu's shape: the Systray updates its
	// items in place, and they keep their ids (Fyne's tray rebuilds).
	running, runningEv := m, ev
	sameItems := func(what string, m menuNode) {
		t.Helper()
		if role == "systray" && !slices.Equal(running.ids(), m.ids()) {
			t.Fatalf("%s: the items were not updated in place: ids %v, then %v; the menu was:\n%s", what, running.ids(), m.ids(), running)
		}
	}

	// Click everything / Stop, as a panel does: the host stops it.
	pid := hostState(t, th.Opts.SocketPath, "everything").PID
	stop, _ := ev.find(LabelStop)
	clickUntil("clicking Stop stops the server", stop, func(m menuNode) (menuNode, bool) {
		ev, _ := m.find("everything — running (2 tools)")
		return ev.find(LabelStop)
	}, true, func() bool {
		st := hostState(t, th.Opts.SocketPath, "everything")
		return st.State == "stopped" && st.UserStopped
	})
	// "stopped" comes when the session has closed; the process may take
	// its stop ladder's moment longer.
	testkit.Eventually(t, "the stopped server's process gone", func() bool { return processGone(pid) == nil })
	// Start enabled and Quit too: a layout read while the menu changes can
	// be one between two changes (and during a rebuild, a partial one).
	m = waitMenu("the menu shows it stopped, Start enabled", func(m menuNode) bool {
		ev, _ := m.find("everything — stopped")
		c, _ := ev.find(LabelStart)
		return c.Enabled && has(LabelQuitAndStop)(m)
	})
	sameItems("running, then stopped", m)
	ev, _ = m.find("everything — stopped")

	// Click Start: it runs again. With the Systray, click the Start read
	// while the server ran (disabled then): the same item, which now runs
	// its new action.
	start, _ := ev.find(LabelStart)
	if role == "systray" {
		start, _ = runningEv.find(LabelStart)
	}
	clickUntil("clicking Start starts the server", start, func(m menuNode) (menuNode, bool) {
		ev, _ := m.find("everything — stopped")
		return ev.find(LabelStart)
	}, true, func() bool { return hostState(t, th.Opts.SocketPath, "everything").State != "stopped" })
	m = waitMenu("the menu shows it running again", has("everything — running (2 tools)", LabelQuitAndStop))
	sameItems("stopped, then running again", m)

	// Click Quit while an AI app is connected through the gateway: the
	// tray asks first (its question window stays unanswered), so the host
	// and the tray keep running.
	leave := aiApp(t, th.Opts.SocketPath, "cursor-vscode")
	quit, _ := m.find(LabelQuitAndStop)
	asked := func() bool {
		return strings.Contains(logs.String(), "QUESTION: Cursor is connected through Switchboard.")
	}
	clickUntil("Quit asks about Cursor", quit, func(m menuNode) (menuNode, bool) { return m.find(LabelQuitAndStop) }, true, asked)
	// It asked, and did nothing more: the tray and the host still run.
	time.Sleep(time.Second)
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		t.Fatalf("Quit closed the tray without asking while an AI app was connected: %v", err)
	default:
	}
	if b, _ := os.ReadFile(th.Opts.LogPath); strings.Contains(string(b), "host stopping") {
		t.Fatalf("Quit stopped the host without asking while an AI app was connected; the host's log:\n%s", b)
	}
	if role == "systray" {
		// Open Switchboard reaches the app (which would start Fyne's driver).
		open, _ := m.find(LabelOpen)
		click(open)
		testkit.Eventually(t, "Open to reach the app", func() bool { return strings.Contains(logs.String(), "OPEN\n") })
	}
	leave()

	// Click Quit with no AI app, while another client of the host's API
	// stays connected (as a 'switchboard logs --follow' would): no question;
	// the host stops every server and exits, and so does the tray.
	follower, err := client.Dial(context.Background(), th.Opts.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	defer follower.Close()
	testkit.Eventually(t, "the AI app gone", func() bool {
		info, err := follower.Info(context.Background())
		return err == nil && info.AIClients == 0
	})

	pid = hostState(t, th.Opts.SocketPath, "everything").PID
	// Fyne's tray makes new item ids with every change: take Quit's from a
	// whole menu read now.
	m = waitMenu("the menu before Quit", has("everything — running (2 tools)", LabelOpen, LabelQuitAndStop))
	quit, _ = m.find(LabelQuitAndStop)
	// The tray may be gone before its reply to this click is: a panel
	// does not wait for one either.
	clickUntil("Quit stops the host", quit, func(m menuNode) (menuNode, bool) { return m.find(LabelQuitAndStop) }, true, func() bool {
		select {
		case <-th.Done():
			return true
		default:
			return false
		}
	})
	if err := processGone(pid); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("the tray process: %v", err)
		}
	case <-time.After(testkit.Deadline):
		t.Fatal("the tray process did not quit")
	}
}
