//go:build linux

package cli

import (
	"fmt"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestSleepThroughBridge: end to end, as an AI app runs it: an on-demand
// server of a real host learns its lists and sleeps (no process); a real
// `switchboard bridge` started with the SDKs' stripped environment lists
// its tools from the cache while no process runs; its call wakes the
// server and succeeds; 'switchboard activity' has the wait; after
// idleStop no process is left and the server sleeps again.
func TestSleepThroughBridge(t *testing.T) {
	sb := newSessionSandbox(t)
	sb.cli(t, sb.helperArgs("srv", "modern")...)
	cfg := readConfig(t, sb.configPath())
	for _, e := range servers(cfg) {
		m := e.(map[string]any)
		m["start"], m["idleStop"], m["stdinGrace"], m["termGrace"] = "on-demand", 1000, 300, 300
	}
	writeRename(t, sb.configPath(), mustJSON(t, cfg))
	sb.serve(t)

	asleep := func(what string) {
		t.Helper()
		sb.waitServer(t, "srv", what, func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateSleeping && s.PID == 0 })
		testkit.Eventually(t, what+": no server process", func() (bool, string) {
			n := sb.helperCount()
			return n == 0, fmt.Sprint(n, " processes")
		})
	}
	asleep("asleep after learning its lists")

	b := sb.bridgeEnv(t, only(sb.env, sdkDefaultEnvNames...), "")
	if got := b.tools(t); !slices.Equal(got, []string{"srv__echo"}) {
		t.Fatalf("tools from the cache: %v, want [srv__echo]", got)
	}
	if n := sb.helperCount(); n != 0 {
		t.Fatalf("listing started %d server processes", n)
	}
	if got := b.call(t, "srv__echo", map[string]any{"message": "wake"}); got != "echo: wake" {
		t.Fatalf("the waking call: %q", got)
	}
	rs := sb.activityRecords(t)
	if len(rs) != 1 || rs[0].Target != "echo" || rs[0].Outcome != "ok" || rs[0].WaitMs <= 0 {
		t.Fatalf("activity: %+v, want the call with its wait", rs)
	}
	asleep("asleep again after idleStop")
}
