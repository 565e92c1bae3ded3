package stdio

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitSession waits up to d for cs to end and returns ClientSession.Wait's
// error.
func waitSession(t testing.TB, cs *mcp.ClientSession, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cs.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("session still open after %v", d)
		return nil
	}
}

func legacySpec(args ...string) *Transport {
	return &Transport{Spec: HelperSpec("legacy", args...)}
}

// sdkTransport runs the go-sdk server helper. The probe timeout runs from
// the server/discover Write, which comes right after the start: a
// race-enabled helper on a loaded machine can take longer than the 3 s
// default to answer, and would then (correctly) be treated as legacy.
func sdkTransport(args ...string) *Transport {
	tr := &Transport{Spec: HelperSpec("sdk", args...)}
	tr.Spec.ProbeTimeout = 30 * time.Second
	return tr
}

func textOf(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if res == nil || len(res.Content) != 1 {
		t.Fatalf("tool result %+v; want one content", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T; want text", res.Content[0])
	}
	return tc.Text
}

// --- 4. flood ---

// TestFlood: a server that writes notifications/message as fast as it can,
// driven by a real go-sdk client session. Over the rate for longer than
// FloodWindow closes with ReasonFlood; with a long window the server is
// throttled to the rate, so the SDK's unbounded handler queue cannot grow
// and the heap stays bounded.
func TestFlood(t *testing.T) {
	const rate = 2000
	t.Run("closes", func(t *testing.T) {
		// A rate the client surely keeps up with even on a loaded machine:
		// a client slower than the rate lets the bucket refill, which
		// (rightly) resets the window.
		tr := legacySpec("flood")
		tr.FloodRate, tr.FloodWindow = rate/10, time.Second
		var got atomic.Int64
		cs, c := ConnectClient(t, tr, &mcp.ClientOptions{
			//lint:ignore SA1019 the flood is of notifications/message: counting them needs the (deprecated, still functional) logging handler
			LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { got.Add(1) },
		})
		start := time.Now()
		err := waitSession(t, cs, 30*time.Second)
		t.Logf("closed after %v and %d notifications: %v", time.Since(start).Round(time.Millisecond), got.Load(), err)
		RequireClose(t, err, ReasonFlood)
		RequireClose(t, c.Err(), ReasonFlood)
		if got.Load() == 0 {
			t.Error("no notification reached the client: was it a flood?")
		}
		WaitDone(t, c.Process(), 15*time.Second)
	})

	t.Run("bounded", func(t *testing.T) {
		const flood = 3 * time.Second
		tr := legacySpec("flood")
		tr.FloodRate, tr.FloodWindow = rate, time.Hour
		var got atomic.Int64
		h := StartHeapSampler(5 * time.Millisecond)
		cs, c := ConnectClient(t, tr, &mcp.ClientOptions{
			//lint:ignore SA1019 the flood is of notifications/message: counting them needs the (deprecated, still functional) logging handler
			LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { got.Add(1) },
		})
		start := time.Now()
		time.Sleep(flood)
		n, took := got.Load(), time.Since(start)
		st := h.Stop()
		t.Logf("%d notifications in %v (limit %d/s): %v", n, took.Round(time.Millisecond), rate, st)
		if err := c.Err(); err != nil {
			t.Fatalf("closed during the flood: %v", err)
		}
		if st.Growth() > 64<<20 {
			t.Errorf("heap grew by %.1f MiB during a %v flood; want < 64 MiB", MiB(st.Growth()), flood)
		}
		if n < 100 {
			t.Errorf("only %d notifications arrived: the flood did not reach the client", n)
		}
		// The burst plus the rate, with room for a slow clock: anything
		// more means the server was not throttled.
		if limit := int64(rate + float64(rate)*took.Seconds()*1.25); n > limit {
			t.Errorf("%d notifications in %v; the limit allows about %d", n, took, limit)
		}
		cs.Close()
		RequireClose(t, c.Err(), ReasonStopped)
		WaitDone(t, c.Process(), 15*time.Second)
	})
}

// --- 6. typed close reasons all the way up ---

func TestCloseReasonsThroughSDK(t *testing.T) {
	t.Run("exit mid-call", func(t *testing.T) {
		cs, c := ConnectClient(t, legacySpec(), nil)
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "exit"})
		if err == nil {
			t.Fatal("CallTool succeeded; the server exited")
		}
		ce := RequireClose(t, err, ReasonExited)
		if ce.Exit == nil || !ce.Exit.Exited || ce.Exit.Code != 7 {
			t.Fatalf("exit status %v; want exit code 7", ce.Exit)
		}
		ce = RequireClose(t, waitSession(t, cs, 10*time.Second), ReasonExited)
		if ce.Exit == nil || ce.Exit.Code != 7 {
			t.Fatalf("Wait: exit status %v; want exit code 7", ce.Exit)
		}
		t.Logf("CallTool: %v", err)
		WaitDone(t, c.Process(), 10*time.Second)
		if PidExists(c.Process().Pid()) {
			t.Errorf("server %d still exists", c.Process().Pid())
		}
	})
	t.Run("Conn.Close", func(t *testing.T) {
		cs, c := ConnectClient(t, legacySpec(), nil)
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo"}); err != nil {
			t.Fatal(err)
		}
		c.Close()
		RequireClose(t, waitSession(t, cs, 10*time.Second), ReasonStopped)
		_, err := c.Read(context.Background())
		RequireClose(t, err, ReasonStopped)
		if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo"}); err == nil {
			t.Error("CallTool after Close succeeded")
		}
		WaitDone(t, c.Process(), 10*time.Second)
		if PidExists(c.Process().Pid()) {
			t.Errorf("server %d still exists", c.Process().Pid())
		}
	})
}

// --- 7. the probe, end to end ---

// TestLegacyServerConnects: a legacy server that never answers
// server/discover still connects: the probe times out (ProbeTimeout 200 ms)
// and the go-sdk client falls back to initialize.
func TestLegacyServerConnects(t *testing.T) {
	const probe = 200 * time.Millisecond
	for _, discover := range []string{"never", "error"} {
		t.Run("discover "+discover, func(t *testing.T) {
			tr := legacySpec("discover=" + discover)
			tr.Spec.ProbeTimeout = probe
			if discover == "error" {
				// The timeout runs from the probe's Write, and a
				// race-enabled helper may take longer than 200 ms to
				// start: give it room so that its -32601 answer counts.
				tr.Spec.ProbeTimeout = 10 * time.Second
			}
			start := time.Now()
			cs, c := ConnectClient(t, tr, nil)
			took := time.Since(start)
			t.Logf("connected in %v", took.Round(time.Millisecond))
			if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
				t.Errorf("protocol version %q; want the legacy 2025-11-25", v)
			}
			if discover == "never" && took < probe {
				t.Errorf("connected in %v, before the probe timeout", took)
			}
			if n := c.LateProbeAnswers(); n != 0 {
				t.Errorf("LateProbeAnswers = %d", n)
			}
			if text := textOf(t, mustCall(t, cs, "echo", nil)); text != "echo" {
				t.Errorf("echo returned %q", text)
			}
		})
	}
}

func mustCall(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool %s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("CallTool %s: tool error %s", name, textOf(t, res))
	}
	return res
}

// --- 8. modern era ---

// TestModernServer: a real go-sdk server connects through server/discover.
func TestModernServer(t *testing.T) {
	cs, c := ConnectClient(t, sdkTransport(), nil)
	if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
		t.Fatalf("protocol version %q; want 2026-07-28 or later (server/discover)", v)
	}
	if text := textOf(t, mustCall(t, cs, "echo", map[string]any{"text": "hello"})); text != "hello" {
		t.Errorf("echo returned %q", text)
	}
	if n := c.LateProbeAnswers(); n != 0 {
		t.Errorf("LateProbeAnswers = %d", n)
	}
}

// --- 9. cancellation ---

// TestCancellation: cancelling CallTool's context makes the server receive
// notifications/cancelled for that request, in both eras; shown from the
// server's side, through its captured stderr, while the connection stays
// open.
func TestCancellation(t *testing.T) {
	callBlock := func(cs *mcp.ClientSession) (context.CancelFunc, chan error) {
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block"})
			errc <- err
		}()
		return cancel, errc
	}
	waitCall := func(t *testing.T, errc chan error) {
		t.Helper()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("CallTool: %v; want context.Canceled", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("CallTool did not return after its context was cancelled")
		}
	}

	t.Run("modern", func(t *testing.T) {
		cs, c := ConnectClient(t, sdkTransport("log"), nil)
		if v := cs.InitializeResult().ProtocolVersion; v < "2026-07-28" {
			t.Fatalf("protocol version %q; want the modern era", v)
		}
		cancel, errc := callBlock(cs)
		defer cancel()
		p := c.Process()
		// The server logs what it reads ("read: {...}"): find the call's id.
		var callID string
		WaitStderr(t, p, 20*time.Second, func(l string) bool {
			m, ok := loggedRead(l)
			if ok && m.Method == "tools/call" && strings.Contains(string(m.Params), `"block"`) {
				callID = string(m.ID)
			}
			return callID != ""
		})
		WaitStderr(t, p, 20*time.Second, func(l string) bool { return l == "block started" })
		cancel()
		waitCall(t, errc)
		line := WaitStderr(t, p, 20*time.Second, func(l string) bool {
			m, ok := loggedRead(l)
			return ok && m.Method == "notifications/cancelled"
		})
		m, _ := loggedRead(line)
		var params struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if err := json.Unmarshal(m.Params, &params); err != nil || string(params.RequestID) != callID {
			t.Fatalf("the server got %s; want the cancellation of request %s", line, callID)
		}
		WaitStderr(t, p, 20*time.Second, func(l string) bool { return strings.HasPrefix(l, "block done: ") })
		if err := c.Err(); err != nil {
			t.Fatalf("the connection closed: %v", err)
		}
		// The session still works.
		if text := textOf(t, mustCall(t, cs, "echo", map[string]any{"text": "after"})); text != "after" {
			t.Errorf("echo returned %q", text)
		}
	})

	t.Run("legacy", func(t *testing.T) {
		cs, c := ConnectClient(t, legacySpec(), nil)
		if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
			t.Fatalf("protocol version %q; want the legacy era", v)
		}
		cancel, errc := callBlock(cs)
		defer cancel()
		p := c.Process()
		line := WaitStderr(t, p, 20*time.Second, func(l string) bool { return strings.HasPrefix(l, "call ") })
		id := strings.Fields(line)[1]
		cancel()
		waitCall(t, errc)
		WaitStderr(t, p, 20*time.Second, func(l string) bool { return l == "cancelled "+id })
		if err := c.Err(); err != nil {
			t.Fatalf("the connection closed: %v", err)
		}
	})
}

type loggedMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// loggedRead parses a line that mcp.LoggingTransport wrote for a message
// the server read.
func loggedRead(line string) (loggedMsg, bool) {
	rest, ok := strings.CutPrefix(line, "read: ")
	if !ok {
		return loggedMsg{}, false
	}
	var m loggedMsg
	return m, json.Unmarshal([]byte(rest), &m) == nil
}

// --- 10. argv ---

// TestArgv: the command runs without a shell: each argument arrives as it
// is, as one argument.
func TestArgv(t *testing.T) {
	args := []string{"; rm -rf ~", "$(id)", "a b", "'q' \"d\"", "*", "`x`|y&z>w"}
	cs, _ := ConnectClient(t, sdkTransport(args...), nil)
	var got []string
	if err := json.Unmarshal([]byte(textOf(t, mustCall(t, cs, "argv", nil))), &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, args) {
		t.Fatalf("the server got %q; want %q", got, args)
	}
}

// --- 11. a grandchild holds stdout ---

// TestExitWithGrandchild: the server's main process exits while a
// grandchild (ignoring EOF and SIGTERM) keeps stdout open. The Conn still
// closes with ReasonExited soon after, and the stop ladder kills the
// grandchild.
func TestExitWithGrandchild(t *testing.T) {
	c := StartConn(t, &Transport{Spec: HelperSpec("fork-exit")})
	p := c.Process()
	line := WaitStderr(t, p, 20*time.Second, func(l string) bool { return strings.HasPrefix(l, "pids ") })
	var leader, grandchild int
	if _, err := fmt.Sscanf(line, "pids %d %d", &leader, &grandchild); err != nil || leader != p.Pid() {
		t.Fatalf("stderr %q: %v", line, err)
	}
	t.Cleanup(func() { // never leak it, whatever failed
		if alive, _ := PidAlive(grandchild); alive {
			if gp, err := os.FindProcess(grandchild); err == nil {
				gp.Kill()
			}
		}
	})
	select {
	case <-p.Exited():
	case <-time.After(20 * time.Second):
		t.Fatal("the leader did not exit")
	}
	exited := time.Now()
	ce := WaitClosed(t, c, 10*time.Second)
	t.Logf("closed %v after the leader exited: %v", time.Since(exited).Round(time.Millisecond), ce)
	if ce.Reason != ReasonExited || ce.Exit == nil || ce.Exit.Code != 3 {
		t.Fatalf("close %v; want %q with exit code 3", ce, ReasonExited)
	}
	if alive, ok := PidAlive(grandchild); ok && !alive {
		t.Fatal("the grandchild was already gone: the test did not hold stdout open")
	}
	WaitDone(t, p, 20*time.Second)
	if alive, ok := PidAlive(grandchild); ok && alive {
		t.Errorf("grandchild %d survived the stop ladder", grandchild)
	}
	if PidExists(leader) {
		t.Errorf("leader %d was not reaped", leader)
	}
}
