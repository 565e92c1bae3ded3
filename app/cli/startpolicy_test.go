//go:build linux

package cli

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestServersStartAndPolicyFlags: servers add and set write "start",
// "idleStop" and "policy" from flags (issue 27 item 15), keep the
// policy's other tools, and refuse a wrong value naming the flag and the
// remedy, changing nothing.
func TestServersStartAndPolicyFlags(t *testing.T) {
	u := newUnit(t)
	u.ok(t, "", "servers", "add", "fs", "--start", "on-demand", "--idle-stop", "90s",
		"--policy", "delete_file=ask", "--policy", "write_*=deny", "--policy-default", "allow", "--", "/bin/cat")
	s := u.load(t, u.configPath()).Servers["fs"]
	if s == nil {
		t.Fatal("fs was not added")
	}
	if s.StartMode(config.Defaults{}) != config.StartOnDemand || s.IdleStop(config.Defaults{}) != 90*time.Second {
		t.Errorf("start %q, idleStop %v; want on-demand, 90s", s.StartMode(config.Defaults{}), s.IdleStop(config.Defaults{}))
	}
	if s.Policy == nil || s.Policy.Default != "allow" || s.Policy.Tools["delete_file"] != "ask" || s.Policy.Tools["write_*"] != "deny" {
		t.Fatalf("policy: %+v", s.Policy)
	}

	// set changes one tool and keeps the others; a bare number is ms.
	u.ok(t, "", "servers", "set", "fs", "--policy", "delete_file=deny", "--policy", "read_file=allow", "--start", "always", "--idle-stop", "120000")
	s = u.load(t, u.configPath()).Servers["fs"]
	want := map[string]string{"delete_file": "deny", "write_*": "deny", "read_file": "allow"}
	for k, v := range want {
		if s.Policy.Tools[k] != v {
			t.Errorf("policy.tools[%s] = %q, want %q (%+v)", k, s.Policy.Tools[k], v, s.Policy.Tools)
		}
	}
	if s.StartMode(config.Defaults{}) != config.StartAlways || s.IdleStop(config.Defaults{}) != 2*time.Minute {
		t.Errorf("after set: start %q, idleStop %v", s.StartMode(config.Defaults{}), s.IdleStop(config.Defaults{}))
	}

	// Wrong values: the flag, the value and the remedy; nothing written.
	before := u.load(t, u.configPath()).Servers["fs"]
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--start", "ondemand"}, []string{`--start "ondemand"`, "always", `did you mean "on-demand"?`}},
		{[]string{"--idle-stop", "soon"}, []string{`--idle-stop "soon"`, "10m"}},
		{[]string{"--idle-stop", "100ms"}, []string{`--idle-stop "100ms"`, "out of range", "1s to 24h0m0s"}},
		{[]string{"--idle-stop", "48h"}, []string{"out of range"}},
		{[]string{"--policy", "delete_file"}, []string{`--policy "delete_file"`, "TOOL=ask"}},
		{[]string{"--policy", "delete_file=never"}, []string{`"never" is not a policy`, "delete_file=deny"}},
		{[]string{"--policy", "delete_file=aks"}, []string{`did you mean "ask"?`}},
		{[]string{"--policy", "[x=ask"}, []string{"not a valid glob"}},
		{[]string{"--policy-default", "block"}, []string{`--policy-default "block"`, "allow, ask"}},
	} {
		r := u.main("", append([]string{"servers", "set", "fs"}, tc.args...)...)
		if r.code == 0 {
			t.Errorf("%q: accepted: %s", tc.args, r)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%q: the error lacks %q: %s", tc.args, w, r.stderr)
			}
		}
	}
	after := u.load(t, u.configPath()).Servers["fs"]
	if after.Start != before.Start || after.Numbers["idleStop"] != before.Numbers["idleStop"] || len(after.Policy.Tools) != len(before.Policy.Tools) {
		t.Errorf("a refused command changed the entry: %+v -> %+v", before, after)
	}

	// idleStop on a server that always runs says it does nothing there.
	if out := u.ok(t, "", "servers", "set", "fs", "--idle-stop", "5m"); !strings.Contains(out, "--start on-demand") {
		t.Errorf("no note that idleStop needs on-demand: %q", out)
	}
}

// TestServersPolicyToolDidYouMean: with a host that runs the server,
// --policy checks the tool's name against the server's tools: a typo is
// refused with the nearest name and the list, and nothing is changed; a
// glob is taken as it is.
func TestServersPolicyToolDidYouMean(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	sb.cli(t, sb.helperArgs("helper", "modern")...)
	sb.serve(t)
	sb.waitRunning(t, "helper")
	r := sb.run(t, "", "servers", "set", "helper", "--policy", "ehco=ask")
	if r.code == 0 || !strings.Contains(r.stderr, `--policy ehco=ask: helper has no tool ehco (did you mean "echo"?)`) ||
		!strings.Contains(r.stderr, "its tools are echo") {
		t.Fatalf("a misspelled tool: %s", r)
	}
	if readConfig(t, sb.configPath())["mcpServers"].(map[string]any)["helper"].(map[string]any)["policy"] != nil {
		t.Fatal("a refused --policy was written")
	}
	sb.cli(t, "servers", "set", "helper", "--policy", "echo=ask", "--policy", "future_*=deny")
	data, err := os.ReadFile(sb.configPath())
	if err != nil {
		t.Fatal(err)
	}
	f, err := config.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Servers["helper"]
	if s.Policy == nil || s.Policy.Tools["echo"] != "ask" || s.Policy.Tools["future_*"] != "deny" {
		t.Fatalf("policy: %+v", s.Policy)
	}
}
