//go:build linux

package tray

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/host/hosttest"
	"github.com/switchboard-mcp/switchboard/app/hostapi"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const wait = 30 * time.Second

// testHost is a host run in this process by host.Run.
type testHost = hosttest.Host

// helperEntry is a config entry that runs this test binary as a helper.
// GORACE: a binary built with -race sleeps a second at exit by default.
func helperEntry(role string) map[string]any {
	return map[string]any{
		"command":    testExe,
		"env":        map[string]string{helperEnv: role, "GORACE": "atexit_sleep_ms=0"},
		"stdinGrace": 1000,
		"termGrace":  1000,
	}
}

// runHost runs a host on fresh directories with the given servers; it is
// stopped at the end of the test. The socket's path must fit in 107 bytes,
// hence a short root.
func runHost(t *testing.T, servers map[string]any, opts ...func(*host.Options)) *testHost {
	t.Helper()
	t.Setenv("SHELL", "/bin/sh") // the host reads the login shell's PATH
	th := hosttest.Start(t, servers, append([]func(*host.Options){func(o *host.Options) {
		o.Policy.Initial = 50 * time.Millisecond
		o.Policy.Max = 500 * time.Millisecond
	}}, opts...)...)
	return th
}

// crashGate listens on loopback for crash helpers (gateEnv): each waits
// until open is called (those that connect after it, not at all). It
// returns the address for gateEnv.
func crashGate(t *testing.T) (addr string, open func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opened := make(chan struct{})
	var once sync.Once
	open = func() { once.Do(func() { close(opened) }) }
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { <-opened; c.Close() }()
		}
	}()
	t.Cleanup(func() { open(); ln.Close() })
	return ln.Addr().String(), open
}

// live connects a client.Live to the host; it ends with the test or
// when cancel is called.
func live(t *testing.T, socket string) (*client.Live, context.CancelFunc) {
	t.Helper()
	l := client.New(client.Options{Socket: socket})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return l, cancel
}

// waitSnap waits until the view's snapshot satisfies cond.
func waitSnap(t *testing.T, l *client.Live, what string, cond func(client.Snapshot) bool) client.Snapshot {
	t.Helper()
	var s client.Snapshot
	testkit.Eventually(t, what, func() (bool, string) {
		s = l.Snapshot()
		if cond(s) {
			return true, ""
		}
		b, _ := json.Marshal(s)
		return false, "snapshot " + string(b)
	})
	return s
}

func server(s client.Snapshot, name string) hostapi.ServerStatus {
	for _, st := range s.Servers {
		if st.Name == name {
			return st
		}
	}
	return hostapi.ServerStatus{}
}

func state(name string, want hostapi.State) func(client.Snapshot) bool {
	return func(s client.Snapshot) bool { return s.Connected && server(s, name).State == want }
}

// errors records HostOptions.OnError's reports.
type errorLog struct {
	mu   sync.Mutex
	msgs []string
}

func (e *errorLog) add(title string, err error) {
	e.mu.Lock()
	e.msgs = append(e.msgs, title+": "+err.Error())
	e.mu.Unlock()
}

func (e *errorLog) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	m := e.msgs
	e.msgs = nil
	return m
}

// TestMenuDrivesRealHost runs a real host with a real MCP server (this
// binary), follows it with a client.Live and the Tray, and fires the menu's
// items: each one's effect shows in the host's next snapshots.
func TestMenuDrivesRealHost(t *testing.T) {
	crash := helperEntry("crash")
	crash["maxReconnects"] = 0
	gateAddr, openGate := crashGate(t)
	crash["env"].(map[string]string)[gateEnv] = gateAddr
	off := helperEntry("mcp")
	off["disabled"] = true
	missing := map[string]any{"command": "switchboard-test-no-such-command", "maxReconnects": 0}
	// Started on demand, as this app starts a host when none runs: Quit
	// stops it (TestQuitLeavesUsersHost has one the user started).
	th := runHost(t, map[string]any{"everything": helperEntry("mcp"), "crash": crash, "off": off, "missing": missing}, onDemand)
	l, detach := live(t, th.Opts.SocketPath)

	app := test.NewTempApp(t)
	var mu sync.Mutex
	var notes []*fyne.Notification
	var rb rebuilds
	tr := &Tray{OnRebuild: rb.hook, Notify: func(n *fyne.Notification) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	}}
	var errs errorLog
	var qmu sync.Mutex
	var questions []string
	asked := func() []string { qmu.Lock(); defer qmu.Unlock(); return slices.Clone(questions) }
	detached := make(chan struct{})
	actions := HostActions(l, app, HostOptions{
		Open:    func() {},
		OnError: errs.add,
		Confirm: func(q string, reply func(bool)) {
			qmu.Lock()
			questions = append(questions, q)
			qmu.Unlock()
			reply(false)
		},
		Detach: func() { detach(); close(detached) },
	})
	tr.Run(app, l, actions)
	defer tr.Close()
	// crash fails once the tray has its first snapshot of the host (the
	// baseline, which is never notified), so that its failure is a change
	// the tray sees: without the gate it could fail before the tray had
	// connected.
	testkit.Eventually(t, "the tray connected, crash not yet failed", func() bool {
		_, last := rb.get()
		return last.Connected && server(last, "crash").Name == "crash"
	})
	openGate()

	s := waitSnap(t, l, "everything running with its tools, crash and missing failed", func(s client.Snapshot) bool {
		return s.Connected && server(s, "everything").State == "running" && server(s, "everything").Tools == 2 &&
			server(s, "crash").State == "failed" && server(s, "missing").State == "failed"
	})
	m := BuildMenu(s, nil, actions)
	for _, label := range []string{"crash — failed", "everything — running (2 tools)", "off — disabled", "missing — failed"} {
		find(t, m, label)
	}
	// The header and each failed server's reason, in words, from what the
	// host reports.
	if got := m.Items[0]; got.Label != "1 running, 2 failed, 1 stopped" || !got.Disabled {
		t.Fatalf("the header: %+v", got)
	}
	for name, want := range map[string]string{
		"crash":   "It exited: tray test server: cannot open the database /nonexistent/db",
		"missing": "Command not found: switchboard-test-no-such-command",
	} {
		sub := find(t, m, name+" — failed").ChildMenu
		if got := sub.Items[0]; got.Label != want || !got.Disabled {
			t.Errorf("%s's reason: %q (from lastError %q), want %q", name, got.Label, server(s, name).LastError, want)
		}
	}
	if Health(s) != LevelFailed {
		t.Fatalf("health %v", Health(s))
	}
	// The tray showed it, and notified crash's failure with its reason.
	testkit.Eventually(t, "the tray shows the failure", func() bool {
		_, last := rb.get()
		return server(last, "crash").State == "failed" && server(last, "everything").Tools == 2
	})

	mu.Lock()
	// missing may have failed before the tray's first snapshot (the
	// baseline, not notified) or after it: only crash's is counted.
	var crashNotes []*fyne.Notification
	for _, n := range notes {
		if strings.Contains(n.Title, `"crash"`) {
			crashNotes = append(crashNotes, n)
		} else if n.Title != `Server "missing" failed` {
			t.Errorf("a notification: %+v", n)
		}
	}
	if len(crashNotes) != 1 {
		t.Fatalf("notifications: %+v", notes)
	}
	t.Logf("notification: %s / %s", crashNotes[0].Title, crashNotes[0].Content)
	mu.Unlock()

	// Stop from the menu: the host stops it.
	pid := server(s, "everything").PID
	find(t, m, "everything — running (2 tools)", LabelStop).Action()
	s = waitSnap(t, l, "everything stopped", state("everything", "stopped"))
	if st := server(s, "everything"); !st.UserStopped || st.PID != 0 {
		t.Fatalf("after Stop: %+v", st)
	}
	list, err := l.Servers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(list, func(st hostapi.ServerStatus) bool { return st.Name == "everything" }); list[i].State != "stopped" {
		t.Fatalf("servers.list after Stop: %+v", list[i])
	}
	_ = pid

	// Start, Restart, Stop all, Start all.
	m = BuildMenu(s, nil, actions)
	find(t, m, "everything — stopped", LabelStart).Action()
	s = waitSnap(t, l, "everything running again", state("everything", "running"))
	pid = server(s, "everything").PID
	serverItemOf(t, BuildMenu(s, nil, actions), "everything", LabelRestart).Action()
	s = waitSnap(t, l, "everything restarted", func(s client.Snapshot) bool {
		st := server(s, "everything")
		return st.State == "running" && st.PID != 0 && st.PID != pid
	})
	find(t, BuildMenu(s, nil, actions), LabelStopAll).Action()
	s = waitSnap(t, l, "everything stopped by Stop all", state("everything", "stopped"))
	find(t, BuildMenu(s, nil, actions), LabelStartAll).Action()
	waitSnap(t, l, "everything and crash started by Start all", func(s client.Snapshot) bool {
		return server(s, "everything").State == "running" && server(s, "crash").State == "failed" && server(s, "crash").Failures > 0
	})
	// Starting a disabled server is refused by the host; the menu does not
	// offer it, and the action reports the host's words.
	actions.Start("off")
	testkit.Eventually(t, "the refusal reported", func() bool {
		e := errs.take()
		if len(e) == 0 {
			return false
		}
		if !strings.Contains(e[0], `could not start "off"`) || !strings.Contains(e[0], "enable it first") {
			t.Fatalf("error report: %q", e)
		}
		return true
	})

	// Another client of the host's API (a window, a logs follower): it is
	// no AI app, and stays connected through both Quits below.
	other, _ := live(t, th.Opts.SocketPath)
	waitSnap(t, other, "the other client connected", func(s client.Snapshot) bool { return s.Connected })

	// Quit while an AI app is connected through the gateway: asked, naming
	// the app, and no means no.
	leave := aiApp(t, th.Opts.SocketPath, "claude-ai")
	find(t, BuildMenu(l.Snapshot(), nil, actions), LabelQuitAndStop).Action()
	testkit.Eventually(t, "the question", func() bool { return len(asked()) == 1 })
	if q := asked()[0]; !strings.HasPrefix(q, "Claude Desktop is connected through Switchboard.") {
		t.Fatalf("question: %q", q)
	}
	time.Sleep(200 * time.Millisecond)
	select {
	case <-th.Done():
		t.Fatalf("the host stopped after the user said no: %v", th.Err())
	default:
	}
	leave()

	// Quit with no AI app (the other API client still connected): no
	// question; the host stops every server, then the view is detached.
	testkit.Eventually(t, "the AI app gone", func() bool {
		info, err := l.Info(context.Background())
		return err == nil && info.AIClients == 0 && info.Clients == 2
	})

	pid = server(l.Snapshot(), "everything").PID
	find(t, BuildMenu(l.Snapshot(), nil, actions), LabelQuitAndStop).Action()
	select {
	case <-th.Done():
	case <-time.After(wait):
		t.Fatal("Quit did not stop the host")
	}
	select {
	case <-detached:
	case <-time.After(wait):
		t.Fatal("Quit did not detach the view")
	}
	if q := asked(); len(q) != 1 {
		t.Fatalf("asked again: %q", q)
	}
	if err := processGone(pid); err != nil {
		t.Fatal(err)
	}
}

// aiApp connects an AI app named name (its MCP clientInfo name) to the
// host's gateway, as a bridge that relays does, and waits until its
// session has begun. It returns a func that disconnects it (also run at
// the end of the test).
func aiApp(t *testing.T, socket, name string) (leave func()) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	nc, err := api.DialGateway(ctx, api.GatewayPathFor(socket))
	if err != nil {
		t.Fatalf("dialling the gateway: %v", err)
	}
	br, _, err := gateway.Handshake(nc, gateway.Hello{Client: "tray test"})
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: struct {
		io.Reader
		io.Closer
	}{br, nc}, Writer: nc}, nil)
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	// In the 2026-07-28 era the app gives its name with its first request.
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	leave = func() { _ = cs.Close() }
	t.Cleanup(leave)
	return leave
}

// serverItemOf returns a server's submenu item, whatever its state.
func serverItemOf(t *testing.T, m *fyne.Menu, name, verb string) *fyne.MenuItem {
	t.Helper()
	for _, it := range m.Items {
		if strings.HasPrefix(it.Label, name+" — ") {
			return find(t, it.ChildMenu, verb)
		}
	}
	t.Fatalf("no item for %q in\n%s", name, signature(m))
	return nil
}

// processGone says whether pid no longer runs (or is a zombie).
func processGone(pid int) error {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i > 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X') {
		return nil
	}
	return fmt.Errorf("server pid %d outlived the host", pid)
}

// TestBrokenServerFromRealHost (issue 27 §13): a real host with a server
// whose command is not found, retrying (its backoff long enough to watch
// it): from its first attempt the host marks it broken, and the menu says
// why and what to do rather than "restarting".
func TestBrokenServerFromRealHost(t *testing.T) {
	th := runHost(t, map[string]any{"missing": map[string]any{"command": "switchboard-test-no-such-command"}},
		func(o *host.Options) { o.Policy.Initial, o.Policy.Max = time.Minute, time.Minute })
	l, _ := live(t, th.Opts.SocketPath)
	s := waitSnap(t, l, "missing on its way", func(s client.Snapshot) bool {
		st := server(s, "missing").State
		return s.Connected && (st == hostapi.StateRestarting || st == hostapi.StateStarting)
	})
	st := server(s, "missing")
	if !st.Broken {
		t.Fatalf("a server whose command is not found is %s, not broken: %+v", st.State, st)
	}
	if got, want := Summary(s), "1 broken"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	var r recorder
	m := BuildMenu(s, nil, r.actions())
	want := "missing — broken — " + string(st.State)
	for _, it := range m.Items {
		if it.Label != want {
			continue
		}
		sub := labels(it.ChildMenu)
		if len(sub) < 2 || sub[0] != short(`"switchboard-test-no-such-command" was not found in the PATH the host gives servers`) ||
			!strings.HasPrefix(sub[1], "Install switchboard-test-no-such-command, or add the folder") {
			t.Fatalf("the submenu %q: want why, then what to do", sub)
		}
		return
	}
	t.Fatalf("no line %q in\n%s", want, signature(m))
}

// onDemand runs the host as `serve --on-demand`, as this app (or a
// bridge) starts one when none runs.
func onDemand(o *host.Options) { o.OnDemand = true }

// TestQuitLeavesUsersHost: a host the user started (`switchboard serve` in
// a terminal, as doctor advises without systemd) is theirs. The menu says
// plain Quit, and Quit with no AI app connected closes the tray and
// leaves the host and its servers running.
func TestQuitLeavesUsersHost(t *testing.T) {
	th := runHost(t, map[string]any{"a": helperEntry("mcp")})
	l, detach := live(t, th.Opts.SocketPath)
	s := waitSnap(t, l, "a running", state("a", "running"))
	pid := server(s, "a").PID
	detached := make(chan struct{})
	var errs errorLog
	var asked atomic.Int32
	actions := HostActions(l, test.NewTempApp(t), HostOptions{
		OnError: errs.add,
		Confirm: func(string, func(bool)) { asked.Add(1) },
		Detach:  func() { detach(); close(detached) },
	})
	m := BuildMenu(l.Snapshot(), nil, actions)
	if last := m.Items[len(m.Items)-1]; last.Label != LabelQuit {
		t.Fatalf("the quit item for the user's host is %q, want %q", last.Label, LabelQuit)
	}
	find(t, m, LabelQuit).Action()
	select {
	case <-detached:
	case <-time.After(wait):
		t.Fatal("Quit did not close the tray")
	}
	select {
	case <-th.Done():
		t.Fatalf("Quit stopped a host the tray did not start: %v", th.Err())
	case <-time.After(300 * time.Millisecond):
	}
	// The host still serves, with its server running as before.
	l2, _ := live(t, th.Opts.SocketPath)
	s = waitSnap(t, l2, "connected", func(s client.Snapshot) bool { return s.Connected })
	if st := server(s, "a"); st.State != hostapi.StateRunning || st.PID != pid {
		t.Fatalf("after Quit the server is %s (pid %d), want running (pid %d)", st.State, st.PID, pid)
	}
	if asked.Load() != 0 || len(errs.take()) != 0 {
		t.Fatal("Quit asked or reported an error")
	}
}

// TestQuitAsServiceLeavesHost: under a service manager, Quit closes the
// tray and leaves the host and its servers running.
// TestQuitAsServiceLeavesHost: the host says it runs under the service
// manager (host.info's service); the tray learns it from the host alone.
func TestQuitAsServiceLeavesHost(t *testing.T) {
	th := runHost(t, map[string]any{"a": helperEntry("mcp")}, func(o *host.Options) { o.Service = true })
	l, detach := live(t, th.Opts.SocketPath)
	waitSnap(t, l, "a running", state("a", "running"))
	detached := make(chan struct{})
	actions := HostActions(l, test.NewTempApp(t), HostOptions{Detach: func() { detach(); close(detached) }})
	m := BuildMenu(l.Snapshot(), nil, actions)
	find(t, m, LabelStopService) // shown for a service's host
	find(t, m, LabelQuit).Action()
	select {
	case <-detached:
	case <-time.After(wait):
		t.Fatal("Quit did not close the tray")
	}
	select {
	case <-th.Done():
		t.Fatalf("Quit stopped the service's host: %v", th.Err())
	case <-time.After(300 * time.Millisecond):
	}
	// The other item stops it.
	l2, _ := live(t, th.Opts.SocketPath)
	waitSnap(t, l2, "connected", func(s client.Snapshot) bool { return s.Connected })
	// The other item stops it, through the service manager when the app
	// gives one (here a stand-in that stops the host as the manager would).
	var viaManager atomic.Bool
	actions = HostActions(l2, test.NewTempApp(t), HostOptions{StopService: func() error {
		viaManager.Store(true)
		return l2.StopHost(context.Background())
	}})
	find(t, BuildMenu(l2.Snapshot(), nil, actions), LabelStopService).Action()
	select {
	case <-th.Done():
	case <-time.After(wait):
		t.Fatal("Stop background service did not stop the host")
	}
	if !viaManager.Load() {
		t.Fatal("Stop background service did not go through the service manager")
	}
}

// TestTrayBurstFromHostStream: 1000 state events from a real API server,
// through a client.Live, cost one rebuild (or very few).
func TestTrayBurstFromHostStream(t *testing.T) {
	dir, err := os.MkdirTemp("", "sbb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	lock, err := api.AcquireInstanceLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	sock := filepath.Join(dir, "host.sock")
	ln, err := lock.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	var lastMu sync.Mutex
	last := srv("a", "running", 1)
	as := api.NewServer(api.Methods{
		hostapi.MethodHostInfo.Name: func(ctx context.Context, _ *api.ConnInfo, _ json.RawMessage) (any, error) {
			return hostapi.Info{PID: 7, Clients: 1, Config: hostapi.ConfigStatus{OK: true}}, nil
		},
		// The list is the state as of now, as a real host's is: a client
		// dropped as slow during the burst resynchronises from it.
		hostapi.MethodServersList.Name: func(ctx context.Context, _ *api.ConnInfo, _ json.RawMessage) (any, error) {
			lastMu.Lock()
			defer lastMu.Unlock()
			return []hostapi.ServerStatus{last}, nil
		},
	}, api.Options{})
	go as.Serve(ln)
	defer as.Close()

	l, _ := live(t, sock)
	var rb rebuilds
	tr := &Tray{OnRebuild: rb.hook, Notify: func(*fyne.Notification) {}}
	var r recorder
	tr.Run(test.NewTempApp(t), l, r.actions())
	defer tr.Close()
	testkit.Eventually(t, "the first connected rebuild", func() bool { _, s := rb.get(); return s.Connected })
	time.Sleep(5 * DefaultSettle)
	before, _ := rb.get()

	states := []hostapi.State{"starting", "running", "restarting", "failed", "stopping", "stopped"}
	start := time.Now()
	for i := range 1000 {
		st := srv("a", states[i%len(states)], i)
		lastMu.Lock()
		last = st
		lastMu.Unlock()
		if err := as.Publish(hostapi.TopicState, st); err != nil {
			t.Fatal(err)
		}
	}
	// The last event reaches the view, and the tray shows what it shows
	// of it: a menu that does not show a count (a failed server's) is not
	// rebuilt for it, so the rebuilt snapshot may be an earlier one with
	// the same menu.
	testkit.Eventually(t, "the tray shows the last event", func() bool {
		final := l.Snapshot()
		if server(final, "a").Tools != 999 {
			return false
		}
		_, s := rb.get()
		return signature(BuildMenu(s, nil, r.actions())) == signature(BuildMenu(final, nil, r.actions()))
	})
	elapsed := time.Since(start)
	time.Sleep(10 * DefaultSettle)
	after, _ := rb.get()
	checkBurst(t, after-before, elapsed)
}

// checkBurst: a burst costs one rebuild per settle window it spans, plus
// one. Here (2 cores) 1000 changes arrive within one or two windows, or
// three under the race detector: 1000 rebuilds would be the failure.
func checkBurst(t *testing.T, rebuilds int, elapsed time.Duration) {
	t.Helper()
	limit := 2 + int(elapsed/DefaultSettle)
	t.Logf("the burst: %d rebuilds in %v (limit %d)", rebuilds, elapsed.Round(time.Millisecond), limit)
	if rebuilds < 1 || rebuilds > limit {
		t.Fatalf("the burst cost %d rebuilds in %v; want 1 to %d", rebuilds, elapsed, limit)
	}
}
