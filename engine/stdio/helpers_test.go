package stdio

// Shared test helpers of package stdio. TestMain lives HERE; other test files
// of the package (bench_test.go, realserver_test.go, ...) must not define
// their own, and may use everything below.
//
// Helper processes: the misbehaving servers are the test binary re-executed
// (as in the go-sdk's mcp/cmd_test.go). TestMain runs Helpers[role] instead of
// the tests when the environment variable HelperEnv names a role. The engine
// passes only allowlisted host variables to a server, so the role travels in
// Spec.Env: HelperSpec does that. A file may add roles in an init func:
//
//	func init() { Helpers["bench-echo"] = func(args []string) int { ...; return 0 } }
//
// Exported names:
//
//	HelperEnv                 the variable that selects a helper role
//	TestExe                   absolute path of the test binary (the helpers' Command),
//	                          set by TestMain before the tests run
//	Helpers                   role name -> func(args) exit code
//	HelperSpec(role, args...) an engine.Spec running a role: stderr captured,
//	                          StdinGrace and TermGrace 250 ms
//	StartConn(t, tr)          tr.Connect as a *Conn; cleanup closes it and waits
//	                          for the process tree to be gone
//	ConnectClient(t, tr, o)   a go-sdk ClientSession over tr, plus our *Conn;
//	                          same cleanup
//	RecordingTransport        an mcp.Transport around *Transport that keeps the *Conn
//	RequireClose(t, err, r)   asserts err is a *CloseError with reason r
//	WaitClosed(t, c, d)       waits for c to close, returns its *CloseError
//	WaitDone(t, p, d)         waits for p's stop ladder to finish
//	WaitStderr(t, p, d, pred) waits for a captured stderr line matching pred
//	PidAlive(pid)             whether pid is a live (non-zombie) process (Linux)
//	PidExists(pid)            whether /proc lists pid at all, even a zombie (Linux)
//	StartHeapSampler(every)   samples runtime/metrics heap figures; Stop returns HeapStats
//	MiB(n)                    n bytes in MiB, for messages
//
// Helper roles (see Helpers): "say", "legacy", "sdk", "bigline", "no-read",
// "fork-exit", "grandchild".

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// HelperEnv selects the helper role of a re-executed test binary.
const HelperEnv = "SWITCHBOARD_STDIO_TEST_HELPER"

// TestExe is the test binary, run as every helper.
var TestExe string

// Helpers are the roles a re-executed test binary can play; each returns
// its exit code.
var Helpers = map[string]func(args []string) int{
	"say":        helperSay,
	"legacy":     helperLegacy,
	"sdk":        helperSDK,
	"bigline":    helperBigLine,
	"no-read":    helperNoRead,
	"fork-exit":  helperForkExit,
	"grandchild": helperGrandchild,
}

func TestMain(m *testing.M) {
	if role := os.Getenv(HelperEnv); role != "" {
		h, ok := Helpers[role]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown helper role %q\n", role)
			os.Exit(99)
		}
		os.Exit(h(os.Args[1:]))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot find the test binary:", err)
		os.Exit(2)
	}
	TestExe = exe
	os.Exit(testkit.Run(m))
}

// HelperSpec returns a spec that runs the helper role with args, its stderr
// captured, with short graces.
func HelperSpec(role string, args ...string) engine.Spec {
	return engine.Spec{
		Name:       role,
		Command:    TestExe,
		Args:       args,
		Env:        map[string]engine.EnvValue{HelperEnv: engine.Literal(role)},
		Stderr:     engine.Stderr{Kind: engine.StderrCapture},
		StdinGrace: 250 * time.Millisecond,
		TermGrace:  250 * time.Millisecond,
	}
}

// StartConn connects tr and returns the *Conn. Cleanup closes it and waits
// for the server's process tree to be gone.
func StartConn(t testing.TB, tr *Transport) *Conn {
	t.Helper()
	mc, err := tr.Connect(context.Background())
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	c := mc.(*Conn)
	t.Cleanup(func() { closeAndWait(t, c) })
	return c
}

func closeAndWait(t testing.TB, c *Conn) {
	c.Close()
	if p := c.Process(); p != nil {
		select {
		case <-p.Done():
		case <-time.After(20 * time.Second):
			t.Errorf("server %d: stop ladder did not finish within 20 s", p.Pid())
		}
	}
}

// RecordingTransport is an mcp.Transport that connects through T and keeps
// the *Conn it returned.
type RecordingTransport struct {
	T    *Transport
	mu   sync.Mutex
	conn *Conn
}

// Connect implements mcp.Transport.
func (r *RecordingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	mc, err := r.T.Connect(ctx)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.conn = mc.(*Conn)
	r.mu.Unlock()
	return mc, nil
}

// Conn returns the connection, or nil before Connect.
func (r *RecordingTransport) Conn() *Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conn
}

// ConnectClient connects a go-sdk client over tr and returns the session and
// our *Conn. Cleanup closes both and waits for the process tree to be gone.
func ConnectClient(t testing.TB, tr *Transport, opts *mcp.ClientOptions) (*mcp.ClientSession, *Conn) {
	t.Helper()
	rt := &RecordingTransport{T: tr}
	client := mcp.NewClient(&mcp.Implementation{Name: "switchboard-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, rt, nil)
	if c := rt.Conn(); c != nil {
		t.Cleanup(func() { closeAndWait(t, c) })
	}
	if err != nil {
		t.Fatalf("client Connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, rt.Conn()
}

// RequireClose fails the test unless err is (or wraps) a *CloseError with
// the reason want, and returns it.
func RequireClose(t testing.TB, err error, want Reason) *CloseError {
	t.Helper()
	var ce *CloseError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *CloseError; want reason %q", err, err, want)
	}
	if ce.Reason != want {
		t.Fatalf("close reason %q (%v); want %q", ce.Reason, ce, want)
	}
	if errors.Is(err, io.EOF) {
		t.Fatalf("close error %v wraps io.EOF", err)
	}
	return ce
}

// WaitClosed waits up to d for c to close and returns its *CloseError.
func WaitClosed(t testing.TB, c *Conn, d time.Duration) *CloseError {
	t.Helper()
	select {
	case <-c.Done():
	case <-time.After(d):
		t.Fatalf("connection still open after %v", d)
	}
	var ce *CloseError
	if !errors.As(c.Err(), &ce) {
		t.Fatalf("Err() = %v (%T); want a *CloseError", c.Err(), c.Err())
	}
	return ce
}

// WaitDone waits up to d for the stop ladder of p to finish.
func WaitDone(t testing.TB, p *engine.Process, d time.Duration) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(d):
		t.Fatalf("server %d: stop ladder not finished after %v", p.Pid(), d)
	}
}

// WaitStderr waits up to d for a captured stderr line of p for which match
// is true (kept lines count) and returns it.
func WaitStderr(t testing.TB, p *engine.Process, d time.Duration, match func(string) bool) string {
	t.Helper()
	ring := p.Stderr()
	if ring == nil {
		t.Fatal("stderr is not captured")
	}
	kept, f := ring.Follow(1024)
	defer f.Close()
	for _, l := range kept {
		if match(l.Text) {
			return l.Text
		}
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case l := <-f.C():
			if match(l.Text) {
				return l.Text
			}
		case <-timer.C:
			t.Fatalf("no matching stderr line within %v; stderr:\n%s", d, strings.Join(ring.Lines(), "\n"))
			return ""
		}
	}
}

// HeapStats are what a HeapSampler measured, in bytes.
type HeapStats struct {
	Base      uint64 // heap objects after the forced GC at start
	Peak      uint64 // highest heap objects sampled
	Allocated uint64 // bytes allocated in between (cumulative)
	Samples   int
}

// Growth is Peak - Base.
func (h HeapStats) Growth() uint64 {
	if h.Peak < h.Base {
		return 0
	}
	return h.Peak - h.Base
}

func (h HeapStats) String() string {
	return fmt.Sprintf("heap base %.1f MiB, peak %.1f MiB (growth %.1f MiB), allocated %.1f MiB, %d samples",
		MiB(h.Base), MiB(h.Peak), MiB(h.Growth()), MiB(h.Allocated), h.Samples)
}

// MiB converts bytes to MiB.
func MiB(n uint64) float64 { return float64(n) / (1 << 20) }

// HeapSampler samples "/memory/classes/heap/objects:bytes" (live and
// not-yet-swept objects) and "/gc/heap/allocs:bytes" from runtime/metrics.
type HeapSampler struct {
	base, allocs0 uint64
	peak          atomic.Uint64
	n             atomic.Int64
	stop, done    chan struct{}
}

const (
	metricHeapObjects = "/memory/classes/heap/objects:bytes"
	metricHeapAllocs  = "/gc/heap/allocs:bytes"
)

func readHeap() (objects, allocs uint64) {
	s := []metrics.Sample{{Name: metricHeapObjects}, {Name: metricHeapAllocs}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// StartHeapSampler forces a GC, records the baseline and samples every
// interval until Stop.
func StartHeapSampler(every time.Duration) *HeapSampler {
	runtime.GC()
	runtime.GC()
	h := &HeapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	h.base, h.allocs0 = readHeap()
	h.peak.Store(h.base)
	go func() {
		defer close(h.done)
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			h.sample()
			select {
			case <-tk.C:
			case <-h.stop:
				h.sample()
				return
			}
		}
	}()
	return h
}

func (h *HeapSampler) sample() {
	obj, _ := readHeap()
	h.n.Add(1)
	for {
		p := h.peak.Load()
		if obj <= p || h.peak.CompareAndSwap(p, obj) {
			return
		}
	}
}

// Stop ends the sampling and returns the figures.
func (h *HeapSampler) Stop() HeapStats {
	close(h.stop)
	<-h.done
	_, allocs := readHeap()
	return HeapStats{Base: h.base, Peak: h.peak.Load(), Allocated: allocs - h.allocs0, Samples: int(h.n.Load())}
}

// ---- the helper roles (they run in the child process) ----

// waitStdinEOF reads stdin to its end (the first step of the stop ladder).
func waitStdinEOF() { _, _ = io.Copy(io.Discard, os.Stdin) }

// helperSay writes each argument as one line to stdout, then exits when
// stdin ends. With SAY_EXIT=<code> as the first argument it exits at once
// with that code instead.
func helperSay(args []string) int {
	exit := -1
	if len(args) > 0 && strings.HasPrefix(args[0], "SAY_EXIT=") {
		exit, _ = strconv.Atoi(strings.TrimPrefix(args[0], "SAY_EXIT="))
		args = args[1:]
	}
	w := bufio.NewWriter(os.Stdout)
	for _, a := range args {
		w.WriteString(a)
		w.WriteByte('\n')
	}
	w.Flush()
	if exit >= 0 {
		return exit
	}
	waitStdinEOF()
	return 0
}

// helperBigLine writes one line of args[0] bytes (not JSON), in 64 KiB
// writes, then waits for the end of stdin.
func helperBigLine(args []string) int {
	n, _ := strconv.Atoi(args[0])
	chunk := bytes.Repeat([]byte{'a'}, 64<<10)
	for n > 0 {
		k := min(n, len(chunk))
		if _, err := os.Stdout.Write(chunk[:k]); err != nil {
			return 3
		}
		n -= k
	}
	os.Stdout.Write([]byte{'\n'})
	waitStdinEOF()
	return 0
}

// helperNoRead never reads stdin; SIGTERM ends it.
func helperNoRead([]string) int {
	fmt.Fprintln(os.Stderr, "ready")
	select {}
}

// helperForkExit starts a grandchild ("grandchild" role) that shares its
// stdin, stdout and stderr and ignores EOF and SIGTERM, writes "pids
// <leader> <grandchild>" to stderr once the grandchild is ready, and exits
// with code 3.
func helperForkExit([]string) int {
	r, w, err := os.Pipe()
	if err != nil {
		return 98
	}
	exe, _ := os.Executable()
	c := exec.Command(exe)
	c.Env = append(os.Environ(), HelperEnv+"=grandchild")
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
	c.ExtraFiles = []*os.File{w}
	if err := c.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fork-exit:", err)
		return 98
	}
	w.Close()
	_, _ = io.ReadAll(r) // the grandchild closes its end when ready
	fmt.Fprintf(os.Stderr, "pids %d %d\n", os.Getpid(), c.Process.Pid)
	return 3
}

func helperGrandchild([]string) int {
	signal.Ignore(syscall.SIGTERM)
	os.NewFile(3, "ready").Close()
	select {}
}

// helperSDK is a real go-sdk server (mcp.NewServer, server.Run over
// mcp.StdioTransport) with the tools "argv" (returns os.Args[1:] as JSON
// text), "echo" and "block" (writes "block started" to stderr, waits for its
// context, writes "block done: <cause>"). With the argument "log" every
// message is logged to stderr by mcp.LoggingTransport ("read: {...}").
func helperSDK(args []string) int {
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-helper", Version: "1"}, nil)
	type empty struct{}
	mcp.AddTool(srv, &mcp.Tool{Name: "argv"}, func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
		b, _ := json.Marshal(os.Args[1:])
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, _ empty) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "block started")
		<-ctx.Done()
		fmt.Fprintf(os.Stderr, "block done: %v\n", context.Cause(ctx))
		return nil, nil, ctx.Err()
	})
	var tr mcp.Transport = &mcp.StdioTransport{}
	if slices.Contains(args, "log") {
		tr = &mcp.LoggingTransport{Transport: tr, Writer: os.Stderr}
	}
	if err := srv.Run(context.Background(), tr); err != nil {
		fmt.Fprintln(os.Stderr, "sdk helper:", err)
	}
	return 0
}

// The legacy helper is a hand-written JSON-RPC server of the 2025-11-25
// era. Its arguments choose its behaviour:
//
//	discover=error    answer server/discover with -32601 (the default)
//	discover=never    never answer server/discover
//	discover=ok       answer server/discover at once with {"marker":"on-time"}
//	discover=late:MS  answer it after MS ms, then send the notification "test/after"
//	flood             after notifications/initialized, write notifications/message
//	                  as fast as it can
//
// It answers initialize, ping and tools/list; tools/call "exit" exits with
// code 7, "block" never answers (stderr "call <id> block"), "echo" answers.
// notifications/cancelled writes "cancelled <requestId>" to stderr. It writes
// "ready" to stderr when it starts reading, and exits when stdin ends.
func helperLegacy(args []string) int {
	discover := "error"
	flood := false
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "discover="):
			discover = strings.TrimPrefix(a, "discover=")
		case a == "flood":
			flood = true
		}
	}
	var mu sync.Mutex
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	send := func(v any) {
		b, _ := json.Marshal(v)
		mu.Lock()
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
		mu.Unlock()
	}
	type msg struct {
		ID     json.RawMessage `json:"id,omitempty"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params,omitempty"`
	}
	result := func(id json.RawMessage, r any) {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": r})
	}
	rpcErr := func(id json.RawMessage, code int, m string) {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": m}})
	}
	fmt.Fprintln(os.Stderr, "ready")
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0 // stdin ended
		}
		var m msg
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch m.Method {
		case "server/discover":
			switch {
			case discover == "never":
			case discover == "ok":
				result(m.ID, map[string]any{"marker": "on-time"})
			case strings.HasPrefix(discover, "late:"):
				ms, _ := strconv.Atoi(strings.TrimPrefix(discover, "late:"))
				go func(id json.RawMessage) {
					time.Sleep(time.Duration(ms) * time.Millisecond)
					result(id, map[string]any{"marker": "late"})
					send(map[string]any{"jsonrpc": "2.0", "method": "test/after"})
				}(m.ID)
			default:
				rpcErr(m.ID, -32601, "method not found")
			}
		case "initialize":
			result(m.ID, map[string]any{
				"protocolVersion": "2025-11-25",
				"capabilities":    map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
				"serverInfo":      map[string]any{"name": "legacy-helper", "version": "1"},
			})
		case "notifications/initialized":
			if flood {
				go func() {
					line := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}` + "\n")
					for {
						mu.Lock()
						_, err := out.Write(line)
						mu.Unlock()
						if err != nil {
							os.Exit(0)
						}
					}
				}()
			}
		case "ping":
			result(m.ID, map[string]any{})
		case "tools/list":
			obj := map[string]any{"type": "object"}
			result(m.ID, map[string]any{"tools": []any{
				map[string]any{"name": "exit", "inputSchema": obj},
				map[string]any{"name": "block", "inputSchema": obj},
				map[string]any{"name": "echo", "inputSchema": obj},
			}})
		case "tools/call":
			var p struct {
				Name string `json:"name"`
			}
			json.Unmarshal(m.Params, &p)
			switch p.Name {
			case "exit":
				os.Exit(7)
			case "block":
				fmt.Fprintf(os.Stderr, "call %s block\n", m.ID)
			default:
				result(m.ID, map[string]any{"content": []any{map[string]any{"type": "text", "text": "echo"}}})
			}
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(m.Params, &p)
			fmt.Fprintf(os.Stderr, "cancelled %s\n", p.RequestID)
		default:
			if len(m.ID) > 0 {
				rpcErr(m.ID, -32601, "method not found")
			}
		}
	}
}
