//go:build linux

package host

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestGatewayHoldsCallsDuringRestart: a call that arrives while a server
// restarts waits for it (up to holdFor) and gets the new process's answer,
// on the lean path and the go-sdk's; a restart longer than holdFor gets
// "is restarting (or starting), try again", never "is stopped: start it".
func TestGatewayHoldsCallsDuringRestart(t *testing.T) {
	for _, path := range []string{"lean", "sdk"} {
		t.Run(path, func(t *testing.T) {
			setGatewayPath(t, path)
			// The server sleeps 1.5 s before it serves: each restart has
			// a window in which it has no session.
			th := runHost(t, nil, map[string]any{"m": gwEntry("gwmodern", gwDelayEnv, "1500ms")})
			st := th.waitRunning(t, "m")
			cs := gwClient(t, th, gateway.Filter{}, "", nil)
			if got := gwText(gwCall(t, cs, "m__pid", nil)); got != fmt.Sprint(st.PID) {
				t.Fatalf("pid %s, want %d", got, st.PID)
			}

			th.must(t, hostapi.MethodRestart, hostapi.NameParams{Name: "m"}, nil)
			during := th.waitServer(t, "m", "between its two runs", func(s hostapi.ServerStatus) bool { return s.State != "running" })
			r := gwCall(t, cs, "m__pid", nil)
			if r.IsError {
				t.Fatalf("a call during the restart (state %q) was not held: %q", during.State, gwText(r))
			}
			after := th.waitRunning(t, "m")
			if got := gwText(r); got != fmt.Sprint(after.PID) || after.PID == st.PID {
				t.Errorf("the held call answered %s, want the new pid %d (old %d)", got, after.PID, st.PID)
			}
			t.Logf("PROVED (%s): a call made while the server was %q waited and got pid %s", path, during.State, gwText(r))

			// A restart that outlasts the hold.
			old := holdFor.Load()
			holdFor.Store(int64(200 * time.Millisecond))
			t.Cleanup(func() { holdFor.Store(old) })
			th.must(t, hostapi.MethodRestart, hostapi.NameParams{Name: "m"}, nil)
			th.waitServer(t, "m", "between its two runs", func(s hostapi.ServerStatus) bool { return s.State != "running" })
			r = gwCall(t, cs, "m__pid", nil)
			text := gwText(r)
			if !r.IsError || !regexp.MustCompile(`"m" is (restarting|starting|stopping).*: try again in a moment`).MatchString(text) || strings.Contains(text, "servers start") {
				t.Errorf("a call during a restart longer than the hold: %q", text)
			}
			holdFor.Store(old)
			th.waitRunning(t, "m")

			// Stopped by the user: not held, and says how to start it.
			th.must(t, hostapi.MethodStopServer, hostapi.NameParams{Name: "m", Wait: true}, nil)
			r = gwCall(t, cs, "m__pid", nil)
			if !r.IsError || !strings.Contains(gwText(r), "switchboard servers start m") {
				t.Errorf("a call to the stopped server: %q", gwText(r))
			}
		})
	}
}
