//go:build unix

package supervisor_test

// The servers of these tests are helper processes: the test binary
// re-executed, its role chosen by helperEnv and checked in TestMain (as in
// the go-sdk's mcp/cmd_test.go). The engine passes only allowlisted host
// variables to a server, so a test puts helperEnv (and the helper's other
// settings) in the spec's Env.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const (
	helperEnv = "SWITCHBOARD_SUPERVISOR_TEST_HELPER" // the helper's role
	eventsEnv = "SWITCHBOARD_SUPERVISOR_TEST_EVENTS" // a file the helper appends its events to
	stayEnv   = "SWITCHBOARD_SUPERVISOR_TEST_STAY"   // "eof": ignore EOF; "term": ignore EOF and SIGTERM
	markEnv   = "SWITCHBOARD_SUPERVISOR_TEST_MARK"   // a value the helper reports (which spec started it)
	slowEnv   = "SWITCHBOARD_SUPERVISOR_TEST_SLOW"   // modern: a delay before it serves (a slow start)
)

// crashLine is what the crash helper writes to stderr before it exits.
const crashLine = "crash-helper: giving up on purpose"

var testExe string

func TestMain(m *testing.M) {
	testkit.HelperMain(&testExe, helperEnv, helpers)
	os.Exit(testkit.Run(m))
}

var helpers = map[string]func() int{
	"modern": runModern,
	"legacy": runLegacy,
	// crash writes a line to stderr and exits at once.
	"crash": func() int {
		event("start")
		fmt.Fprintln(os.Stderr, crashLine)
		return 3
	},
	// mute reads its stdin and never answers anything.
	"mute": func() int {
		event("start")
		_, _ = io.Copy(io.Discard, os.Stdin)
		stay()
		event("exit")
		return 0
	},
}

// event appends "WHAT PID STARTTIME MARK" to the events file, if any. On
// "start" it first checks that no process recorded earlier is still there
// (not even a zombie): two instances of a server must never overlap.
func event(what string) {
	path := os.Getenv(eventsEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper: events file:", err)
		os.Exit(97)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		os.Exit(97)
	}
	me := os.Getpid()
	var b strings.Builder
	if what == "start" {
		for _, e := range parseEvents(f) {
			if e.What == "start" && e.PID != me && procStart(e.PID) == e.Start {
				fmt.Fprintf(&b, "overlap %d %d %s\n", e.PID, e.Start, os.Getenv(markEnv))
			}
		}
	}
	fmt.Fprintf(&b, "%s %d %d %s\n", what, me, procStart(me), os.Getenv(markEnv))
	_, _ = f.WriteString(b.String())
}

// stay keeps a helper alive after its stdin ended, as stayEnv says.
func stay() {
	switch os.Getenv(stayEnv) {
	case "term":
		signal.Ignore(syscall.SIGTERM)
		fallthrough
	case "eof":
		event("stay")
		testkit.Hang()
	}
}

// runModern is a go-sdk server: it answers server/discover (the modern
// era). Its tools: echo (returns "echo: MESSAGE MARK") and block (never
// returns, whatever happens).
func runModern() int {
	if os.Getenv(stayEnv) == "term" {
		signal.Ignore(syscall.SIGTERM)
	}
	event("start")
	var t mcp.Transport = &mcp.StdioTransport{}
	if d, err := time.ParseDuration(os.Getenv(slowEnv)); err == nil {
		time.Sleep(d)
		t = slowStart()
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "modern-helper", Version: "1"}, nil)
	type echoArgs struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Message + " " + os.Getenv(markEnv)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		event("block")
		testkit.Hang() // a hung handler: not even its context ends it
		return nil, nil, nil
	})
	err := s.Run(context.Background(), t)
	stay()
	event("exit")
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "modern helper:", err)
	}
	return 0
}

// slowStart returns the transport of a server that was slow to start: it
// finds the client's server/discover and initialize waiting in its stdin,
// and answers the discover before it reads the initialize (the go-sdk
// handles the two concurrently, and would otherwise answer either first).
func slowStart() mcp.Transport {
	pr, pw := io.Pipe()
	answered := make(chan struct{}, 1)
	out := &signalWriter{answered: answered}
	go func() {
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(make([]byte, 1<<20), 1<<20)
		for in.Scan() {
			line := append(in.Bytes(), '\n')
			if _, err := pw.Write(line); err != nil {
				break
			}
			if strings.Contains(string(line), `"server/discover"`) {
				select {
				case <-answered:
				case <-time.After(10 * time.Second):
				}
			}
		}
		pw.Close()
	}()
	return &mcp.IOTransport{Reader: pr, Writer: out}
}

// signalWriter writes to stdout and signals each write.
type signalWriter struct{ answered chan struct{} }

func (w *signalWriter) Write(b []byte) (int, error) {
	n, err := os.Stdout.Write(b)
	select {
	case w.answered <- struct{}{}:
	default:
	}
	return n, err
}

func (w *signalWriter) Close() error { return os.Stdout.Close() }

// runLegacy is a hand-written JSON-RPC server of the 2025-11-25 era: it
// answers initialize, tools/list and tools/call (echo), and -32601 to
// everything else, server/discover included.
func runLegacy() int {
	event("start")
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Arguments struct {
					Message string `json:"message"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil || req.Method == "" {
			continue // a response or junk
		}
		if len(req.ID) == 0 {
			continue // a notification
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		switch req.Method {
		case "initialize":
			reply["result"] = map[string]any{
				"protocolVersion": "2025-11-25",
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "legacy-helper", "version": "1"},
			}
		case "ping":
			reply["result"] = map[string]any{}
		case "tools/list":
			reply["result"] = map[string]any{"tools": []any{map[string]any{
				"name": "echo", "inputSchema": map[string]any{"type": "object"}}}}
		case "tools/call":
			reply["result"] = map[string]any{"content": []any{map[string]any{
				"type": "text", "text": "echo: " + req.Params.Arguments.Message + " " + os.Getenv(markEnv)}}}
		default:
			reply["error"] = map[string]any{"code": -32601, "message": "method not found: " + req.Method}
		}
		if err := out.Encode(reply); err != nil {
			return 1
		}
	}
	stay()
	event("exit")
	return 0
}

// ev is one line of an events file.
type ev struct {
	What  string
	PID   int
	Start uint64
	Mark  string
}

func parseEvents(r io.Reader) []ev {
	var out []ev
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		e := ev{What: f[0]}
		e.PID, _ = strconv.Atoi(f[1])
		e.Start, _ = strconv.ParseUint(f[2], 10, 64)
		if len(f) > 3 {
			e.Mark = f[3]
		}
		out = append(out, e)
	}
	return out
}

func readEvents(t *testing.T, path string) []ev {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return parseEvents(f)
}

func countEvents(evs []ev, what string) int {
	n := 0
	for _, e := range evs {
		if e.What == what {
			n++
		}
	}
	return n
}

// procStat reads the state, process group and start time of pid from
// /proc; ok is false if there is no such process (not even a zombie).
func procStat(pid int) (state byte, pgrp int, start uint64, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, 0, false
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, 0, 0, false
	}
	pgrp, _ = strconv.Atoi(f[2])
	start, _ = strconv.ParseUint(f[19], 10, 64)
	return f[0][0], pgrp, start, true
}

// procStart returns a process's start time (0 if there is none): with the
// pid, it names one process.
func procStart(pid int) uint64 {
	_, _, st, _ := procStat(pid)
	return st
}

// groupMembers lists every process, zombies included, of process group
// pgid.
func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, pg, _, ok := procStat(pid); ok && pg == pgid {
			out = append(out, pid)
		}
	}
	return out
}

// requireGone fails unless pid and its whole process group are gone.
func requireGone(t *testing.T, pid int) {
	t.Helper()
	if _, _, _, ok := procStat(pid); ok {
		t.Errorf("process %d is still there after the stop ladder finished", pid)
	}
	if m := groupMembers(pid); len(m) > 0 {
		t.Errorf("process group %d still has members %v after the stop ladder finished", pid, m)
	}
}

// recorder records every status OnChange publishes.
type recorder struct {
	mu   sync.Mutex
	all  []change
	wake chan struct{}
}

type change struct {
	St   supervisor.Status
	Sess *mcp.ClientSession
	At   time.Time
}

func newRecorder() *recorder { return &recorder{wake: make(chan struct{}, 1)} }

func (r *recorder) onChange(st supervisor.Status, cs *mcp.ClientSession) {
	r.mu.Lock()
	r.all = append(r.all, change{st, cs, time.Now()})
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *recorder) changes() []change {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]change(nil), r.all...)
}

// waitFor waits for the first change from index from on that satisfies ok,
// and returns it and its index.
func (r *recorder) waitFor(t *testing.T, from int, what string, ok func(supervisor.Status) bool) (change, int) {
	t.Helper()
	deadline := time.After(testkit.Deadline) // on a synctest bubble's clock too: longer than its backoffs
	for {
		all := r.changes()
		for i := from; i < len(all); i++ {
			if ok(all[i].St) {
				return all[i], i
			}
		}
		select {
		case <-r.wake:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			t.Fatalf("timed out waiting for %s; changes so far:\n%s", what, r.dump())
		}
	}
}

// dump lists the changes, for a failure message.
func (r *recorder) dump() string {
	var b strings.Builder
	for _, c := range r.changes() {
		fmt.Fprintf(&b, "  %s %s: pid %d, failures %d, reason %q, error %q, stderr %q\n",
			c.At.Format("15:04:05.000"), c.St.State, c.St.PID, c.St.Failures, c.St.LastReason, c.St.LastError, c.St.Stderr)
	}
	return b.String()
}

// waitState waits for a change to state from index from on.
func (r *recorder) waitState(t *testing.T, from int, s supervisor.State) (change, int) {
	t.Helper()
	return r.waitFor(t, from, string(s), func(st supervisor.Status) bool { return st.State == s })
}

// fixture is one supervised helper.
type fixture struct {
	sup    *supervisor.Supervisor
	rec    *recorder
	events string
}

type setup struct {
	role    string
	env     map[string]engine.EnvValue
	spec    func(*engine.Spec)
	policy  supervisor.Policy
	secrets engine.SecretResolver
}

// helperSpec is the spec of a helper with short ladder steps. Its probe
// timeout is long: a helper built with -race can take seconds to start on
// a loaded machine, and a modern server that misses the probe fails its
// handshake (TestSlowModernServer).
func helperSpec(t *testing.T, role, events string) engine.Spec {
	return engine.Spec{
		ProbeTimeout: 10 * time.Second,
		Name:         t.Name(),
		Command:      testExe,
		Env: map[string]engine.EnvValue{
			helperEnv: engine.Literal(role),
			eventsEnv: engine.Literal(events),
		},
		Stderr:     engine.Stderr{Kind: engine.StderrCapture},
		StdinGrace: 200 * time.Millisecond,
		TermGrace:  200 * time.Millisecond,
	}
}

func testClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "switchboard-test", Version: "1"}, nil)
}

// start builds a supervisor of a helper, starts it, and stops it (waiting
// for its ladder) when the test ends.
func start(t *testing.T, s setup) *fixture {
	t.Helper()
	events := filepath.Join(t.TempDir(), "events")
	spec := helperSpec(t, s.role, events)
	for k, v := range s.env {
		spec.Env[k] = v
	}
	if s.spec != nil {
		s.spec(&spec)
	}
	pol := s.policy
	if pol.Initial == 0 {
		pol.Initial = 20 * time.Millisecond
	}
	if pol.Max == 0 {
		pol.Max = 100 * time.Millisecond
	}
	if pol.StableAfter == 0 {
		pol.StableAfter = time.Minute
	}
	rec := newRecorder()
	sup := supervisor.New(supervisor.Options{
		Spec:     spec,
		Start:    engine.StartOptions{Secrets: s.secrets},
		Client:   testClient(),
		Policy:   pol,
		OnChange: rec.onChange,
	})
	f := &fixture{sup: sup, rec: rec, events: events}
	t.Cleanup(func() { f.stop(t) })
	sup.Start()
	return f
}

// stop stops the supervisor and waits for its ladder, bounded.
func (f *fixture) stop(t *testing.T) {
	t.Helper()
	select {
	case <-f.sup.Stop():
	case <-time.After(15 * time.Second):
		t.Errorf("Stop's channel did not close within 15 s")
	}
}

func (f *fixture) evs(t *testing.T) []ev { return readEvents(t, f.events) }

// waitEvent waits until the events file has at least n events of kind what.
func (f *fixture) waitEvent(t *testing.T, what string, n int) []ev {
	t.Helper()
	var evs []ev
	testkit.Eventually(t, fmt.Sprintf("%d %q events", n, what), func() (bool, string) {
		evs = f.evs(t)
		return countEvents(evs, what) >= n, fmt.Sprint(evs)
	})
	return evs
}

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil {
		t.Fatal("no result")
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// echo calls the echo tool and checks its answer.
func echo(t *testing.T, cs *mcp.ClientSession, msg string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": msg}})
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	got := textOf(t, res)
	if !strings.Contains(got, msg) {
		t.Fatalf("echo %q answered %q", msg, got)
	}
	return got
}
