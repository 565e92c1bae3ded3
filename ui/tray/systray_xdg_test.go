//go:build linux && cgo && !ci

package tray

// TestRealTraySystrayMenus drives a [Systray] in a process of its own on a
// private D-Bus session bus with menus of its choosing, and reads them back
// over com.canonical.dbusmenu as a panel does: which updates keep the
// items (their ids), what a click runs after one, and how many
// LayoutUpdated signals an update costs.
//
//	go test -run TestRealTraySystrayMenus -v ./ui/tray/
//
// It needs dbus-daemon (no X): it skips without it, but fails under
// CI=true.

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/godbus/dbus/v5"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

func init() { helpers["systray-menus"] = runSystrayMenus }

// runSystrayMenus shows, for each line read on stdin, the menu of that
// name ([systrayTestMenu]), then says "set NAME" on stdout; an action says
// "ran WHAT" there. End of input closes the tray.
func runSystrayMenus() int {
	st, err := StartSystray("menutest")
	if err != nil {
		fmt.Fprintln(os.Stderr, "systray-menus:", err)
		return 1
	}
	var mu sync.Mutex
	say := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", args...)
	}
	ran := func(what string) { say("ran %s", what) }
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		name := in.Text()
		st.SetSystemTrayMenu(systrayTestMenu(name, ran))
		say("set %s", name)
	}
	st.Close()
	return 0
}

// systrayTestMenu is the menu called name; its actions call ran with what
// they are.
func systrayTestMenu(name string, ran func(string)) *fyne.Menu {
	item := func(label, what string, on bool) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, func() { ran(what) })
		it.Disabled = !on
		return it
	}
	server := func(label string, sub ...*fyne.MenuItem) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, nil)
		it.ChildMenu = fyne.NewMenu("", sub...)
		return it
	}
	checked := func(it *fyne.MenuItem, on bool) *fyne.MenuItem {
		it.Checked = on
		return it
	}
	sep := fyne.NewMenuItemSeparator
	switch name {
	case "alpha": // alpha runs
		return fyne.NewMenu("", server("alpha — running", item("Start", "start alpha", false), item("Stop", "stop alpha", true)),
			sep(), checked(item("Option", "option 1", true), true), item("Quit", "quit 1", true))
	case "beta": // the shape of alpha: beta, stopped, in its place
		return fyne.NewMenu("", server("beta — stopped", item("Start", "start beta", true), item("Stop", "stop beta", false)),
			sep(), checked(item("Option", "option 2", true), true), item("Quit", "quit 2", true))
	case "beta, new actions": // beta with the same labels, other actions
		return fyne.NewMenu("", server("beta — stopped", item("Start", "start beta 3", true), item("Stop", "stop beta 3", false)),
			sep(), checked(item("Option", "option 3", true), true), item("Quit", "quit 3", true))
	case "beta unchecked": // beta but for Option (a checkbox or not: another shape)
		return fyne.NewMenu("", server("beta — stopped", item("Start", "start beta 4", true), item("Stop", "stop beta 4", false)),
			sep(), item("Option", "option 4", true), item("Quit", "quit 4", true))
	case "gamma": // another shape: an item more
		return fyne.NewMenu("", server("beta — stopped", item("Start", "start beta 5", true), item("Stop", "stop beta 5", false)),
			item("gamma", "gamma", true), sep(), item("Quit", "quit 5", true))
	}
	panic("no test menu " + name)
}

func TestRealTraySystrayMenus(t *testing.T) {
	bus := testkit.SessionBus(t)
	registered := startWatcher(t, bus)

	cmd := exec.Command(testExe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=systray-menus", "DBUS_SESSION_BUS_ADDRESS="+bus)
	var out, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("the tray process's stdout:\n%s\nits stderr:\n%s", out.String(), stderr.String())
		}
	})
	var item string
	select {
	case item = <-registered:
	case err := <-exited:
		t.Fatalf("the tray process exited before it registered: %v", err)
	case <-time.After(wait):
		t.Fatal("the tray did not register its item")
	}

	conn, err := dbus.Connect(bus)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	v, err := conn.Object(item, "/StatusNotifierItem").GetProperty("org.kde.StatusNotifierItem.Menu")
	if err != nil {
		t.Fatalf("the item's Menu property: %v", err)
	}
	menuPath, _ := v.Value().(dbus.ObjectPath)
	menu := conn.Object(item, menuPath)
	// The menu's LayoutUpdated signals, as a panel follows them.
	if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(menuPath), dbus.WithMatchInterface("com.canonical.dbusmenu"),
		dbus.WithMatchMember("LayoutUpdated")); err != nil {
		t.Fatal(err)
	}
	signals := make(chan *dbus.Signal, 1000)
	conn.Signal(signals)

	layout := func() menuNode {
		t.Helper()
		call := menu.Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{})
		if call.Err != nil || len(call.Body) != 2 {
			t.Fatalf("GetLayout: %v (%d values)", call.Err, len(call.Body))
		}
		n, err := toNode(call.Body[1])
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// set shows the menu called name and returns it as read once it is
	// set, with the number of LayoutUpdated signals its setting emitted.
	set := func(name string) (menuNode, int) {
		t.Helper()
		for len(signals) > 0 {
			<-signals
		}
		done := "set " + name + "\n"
		before := strings.Count(out.String(), done)
		if _, err := fmt.Fprintln(stdin, name); err != nil {
			t.Fatal(err)
		}
		testkit.Eventually(t, "the menu "+name+" set", func() bool { return strings.Count(out.String(), done) > before })
		// The signals were sent before the reply to this call, on the
		// same connection, and the channel has room for them: all are in.
		m := layout()
		return m, len(signals)
	}
	// want checks m's items: "label" (enabled), "label -" (disabled),
	// "label x" (checked), "---" (a separator), indented by submenu.
	want := func(what string, m menuNode, lines ...string) {
		t.Helper()
		var got []string
		var walk func(menuNode, string)
		walk = func(n menuNode, indent string) {
			for _, c := range n.Children {
				l := indent + c.Label
				if !c.Enabled {
					l += " -"
				}
				if c.Checked {
					l += " x"
				}
				got = append(got, l)
				walk(c, indent+"  ")
			}
		}
		walk(m, "")
		if !slices.Equal(got, lines) {
			t.Fatalf("%s: the menu is\n%s\nnot\n%s", what, strings.Join(got, "\n"), strings.Join(lines, "\n"))
		}
	}
	click := func(n menuNode) {
		t.Helper()
		if call := menu.Call("com.canonical.dbusmenu.Event", 0, n.ID, "clicked", dbus.MakeVariant(""), uint32(0)); call.Err != nil {
			t.Fatalf("clicking %q: %v", n.Label, call.Err)
		}
	}
	ran := func(what string) {
		t.Helper()
		testkit.Eventually(t, "the action "+what+" to run", func() bool { return strings.Contains(out.String(), "ran "+what+"\n") })
	}
	sub := func(m menuNode, server, label string) menuNode {
		t.Helper()
		s, _ := m.find(server)
		c, ok := s.find(label)
		if !ok {
			t.Fatalf("no %s / %s in\n%s", server, label, m)
		}
		return c
	}

	alpha, n := set("alpha")
	want("alpha", alpha, "alpha — running", "  Start -", "  Stop", "---", "Option x", "Quit")
	if n == 0 {
		t.Fatal("the first menu was not announced")
	}

	// Same shape: the items stay, updated in place; each change is one
	// signal at most (fyne.io/systray has no batch), here three: the
	// server's label, Start enabled, Stop disabled.
	beta, n := set("beta")
	want("beta", beta, "beta — stopped", "  Start", "  Stop -", "---", "Option x", "Quit")
	if !slices.Equal(alpha.ids(), beta.ids()) {
		t.Fatalf("alpha then beta: not updated in place: ids %v, then %v", alpha.ids(), beta.ids())
	}
	t.Logf("alpha then beta, in place: %d LayoutUpdated signals", n)
	if n < 1 || n > 3 {
		t.Fatalf("alpha then beta (3 changes): %d LayoutUpdated signals", n)
	}
	// A click on the Start read in alpha (disabled then) runs beta's.
	click(sub(alpha, "alpha — running", "Start"))
	ran("start beta")
	// A disabled item runs nothing: Stop; then Quit, which runs.
	click(sub(beta, "beta — stopped", "Stop"))
	quit, _ := beta.find("Quit")
	click(quit)
	ran("quit 2")

	// Same labels, new actions: nothing to announce, and clicks run the
	// new actions.
	beta3, n := set("beta, new actions")
	if !slices.Equal(alpha.ids(), beta3.ids()) {
		t.Fatalf("beta, new actions: not updated in place: ids %v, then %v", alpha.ids(), beta3.ids())
	}
	if n != 0 {
		t.Fatalf("an update that changes no label or state emitted %d LayoutUpdated signals", n)
	}
	click(sub(alpha, "alpha — running", "Start"))
	ran("start beta 3")
	option, _ := alpha.find("Option")
	click(option)
	ran("option 3")

	// Another shape: a new menu, new items.
	gamma, n := set("gamma")
	want("gamma", gamma, "beta — stopped", "  Start", "  Stop -", "gamma", "---", "Quit")
	for _, id := range gamma.ids() {
		if slices.Contains(beta3.ids(), id) {
			t.Fatalf("gamma: item %d of the menu before is still there: ids %v, then %v", id, beta3.ids(), gamma.ids())
		}
	}
	t.Logf("beta then gamma, rebuilt: %d LayoutUpdated signals", n)
	if n == 0 {
		t.Fatal("gamma was not announced")
	}
	g, _ := gamma.find("gamma")
	click(g)
	ran("gamma")

	// A checkbox unchecked is another shape too (an item is one or not
	// from the start): rebuilt, not in place.
	beta5, _ := set("beta")
	unchecked, _ := set("beta unchecked")
	want("beta unchecked", unchecked, "beta — stopped", "  Start", "  Stop -", "---", "Option", "Quit")
	if slices.Equal(beta5.ids(), unchecked.ids()) {
		t.Fatal("beta unchecked: updated in place, with Option still a checkbox")
	}
	click(sub(unchecked, "beta — stopped", "Start"))
	ran("start beta 4")

	// What ran: each click once; never a disabled item's action, nor a
	// replaced one.
	for _, what := range []string{"start alpha", "stop alpha", "stop beta", "start beta", "quit 1", "option 2"} {
		if c := strings.Count(out.String(), "ran "+what+"\n"); c != map[string]int{"start beta": 1}[what] {
			t.Errorf("%q ran %d times", what, c)
		}
	}

	stdin.Close()
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("the tray process: %v (stderr: %s)", err, stderr.String())
		}
	case <-time.After(wait):
		t.Fatal("the tray process did not end")
	}
}

// TestSystrayShape: a state change keeps the shape (the menu is updated in
// place); another set of servers does not, even with as many items (a
// click in flight on a reused id would reach another server).
func TestSystrayShape(t *testing.T) {
	var r recorder
	a := r.actions()
	running := connected(srv("a", "running", 3), srv("b", "running", 1))
	stopped := connected(srv("a", "stopped", 0), srv("b", "running", 1))
	renamed := connected(srv("a", "running", 3), srv("c", "running", 1))
	if systrayShape(BuildMenu(running, nil, a)) != systrayShape(BuildMenu(stopped, nil, a)) {
		t.Error("a state change changed the shape")
	}
	if systrayShape(BuildMenu(running, nil, a)) == systrayShape(BuildMenu(renamed, nil, a)) {
		t.Error("another server in the same place kept the shape")
	}
}
