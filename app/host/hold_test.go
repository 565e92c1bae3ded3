//go:build linux

package host

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestGatewayHoldsCallsDuringRestart: a call that arrives while a server
// restarts waits for it (up to holdFor) and gets the new process's answer,
// on the lean path and the go-sdk's; a restart longer than holdFor gets
// "is restarting (or starting), try again", never "is stopped: start it".
//
// Nothing here depends on speed: the new process of each restart waits at
// a gate (a file) that the test opens, so the server is not back before
// the test says so, and a call is seen held (waiting in waitSession)
// before the gate opens.
func TestGatewayHoldsCallsDuringRestart(t *testing.T) {
	for _, path := range []string{"lean", "sdk"} {
		t.Run(path, func(t *testing.T) {
			setGatewayPath(t, path)
			gate := filepath.Join(t.TempDir(), "gate")
			closeGate := func() {
				t.Helper()
				if err := os.WriteFile(gate, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			openGate := func() {
				t.Helper()
				if err := os.Remove(gate); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
			t.Cleanup(openGate)
			// A run held at the gate has not answered the probe: that
			// must not fail the attempt (a guard, far beyond any gate).
			entry := gwEntry("gwmodern", gwGateEnv, gate)
			entry["probeTimeout"] = int(testkit.Deadline / time.Millisecond)
			th := runHost(t, nil, map[string]any{"m": entry})
			st := th.waitRunning(t, "m")
			cs := gwClient(t, th, gateway.Filter{}, "", nil)
			if got := gwText(gwCall(t, cs, "m__pid", nil)); got != fmt.Sprint(st.PID) {
				t.Fatalf("pid %s, want %d", got, st.PID)
			}

			// The hold outlasts any restart here: the test, not the
			// clock, decides when the server is back.
			old := holdFor.Load()
			t.Cleanup(func() { holdFor.Store(old) })
			holdFor.Store(int64(testkit.Deadline))
			closeGate()
			th.must(t, hostapi.MethodServersRestart.Name, hostapi.NameParams{Name: "m"}, nil)
			during := th.waitServer(t, "m", "between its two runs", func(s hostapi.ServerStatus) bool { return s.State != "running" })
			before := heldCalls()
			type answer struct {
				r   *mcp.CallToolResult
				err error
			}
			answered := make(chan answer, 1)
			go func() {
				ctx, cancel := context.WithTimeout(context.Background(), 2*testkit.Deadline)
				defer cancel()
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "m__pid"})
				answered <- answer{r, err}
			}()
			testkit.Eventually(t, "the call held by the host", func() (bool, string) {
				select {
				case a := <-answered:
					answered <- a
					return true, "" // answered without waiting: checked below
				default:
				}
				n := heldCalls()
				return n > before, fmt.Sprintf("%d calls wait in waitSession", n)
			})
			openGate()
			a := <-answered
			if a.err != nil {
				t.Fatalf("the call during the restart: %v", a.err)
			}
			if a.r.IsError {
				t.Fatalf("a call during the restart (state %q) was not held: %q", during.State, gwText(a.r))
			}
			after := th.waitRunning(t, "m")
			if got := gwText(a.r); got != fmt.Sprint(after.PID) || after.PID == st.PID {
				t.Errorf("the held call answered %s, want the new pid %d (old %d)", got, after.PID, st.PID)
			}
			t.Logf("PROVED (%s): a call made while the server was %q waited and got pid %s", path, during.State, gwText(a.r))

			// A restart that outlasts the hold: the gate stays closed
			// until the call has its answer.
			holdFor.Store(int64(200 * time.Millisecond))
			closeGate()
			th.must(t, hostapi.MethodServersRestart.Name, hostapi.NameParams{Name: "m"}, nil)
			th.waitServer(t, "m", "between its two runs", func(s hostapi.ServerStatus) bool { return s.State != "running" })
			r := gwCall(t, cs, "m__pid", nil)
			text := gwText(r)
			if !r.IsError || !regexp.MustCompile(`"m" is (restarting|starting|stopping).*: try again in a moment`).MatchString(text) || strings.Contains(text, "servers start") {
				t.Errorf("a call during a restart longer than the hold: %q", text)
			}
			holdFor.Store(old)
			openGate()
			th.waitRunning(t, "m")

			// Stopped by the user: not held, and says how to start it.
			th.must(t, hostapi.MethodServersStop.Name, hostapi.NameParams{Name: "m", Wait: true}, nil)
			r = gwCall(t, cs, "m__pid", nil)
			if !r.IsError || !strings.Contains(gwText(r), "switchboard servers start m") {
				t.Errorf("a call to the stopped server: %q", gwText(r))
			}
		})
	}
}

// heldCalls counts the goroutines of this process (the test's host runs
// in it) that wait in waitSession: the requests the host holds for a
// server that is on its way back.
func heldCalls() int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			return bytes.Count(buf[:n], []byte("/app/host.waitSession("))
		}
		buf = make([]byte, 2*len(buf))
	}
}
