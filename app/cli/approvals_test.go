//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// setFollower is a `switchboard approvals|requests -f --json` process:
// attached to the host (an approver, or one who can be asked), printing
// the waiting set at each change.
type setFollower[T any] struct {
	cmd    *exec.Cmd
	stdout *syncBuffer
	done   chan struct{}
}

type approver = setFollower[hostapi.Approval]

func startApprover(t *testing.T, sb *sandbox) *approver {
	t.Helper()
	return startSetFollower[hostapi.Approval](t, sb, "approvals")
}

func startSetFollower[T any](t *testing.T, sb *sandbox, command string) *setFollower[T] {
	t.Helper()
	a := &setFollower[T]{cmd: exec.Command(sbBin, command, "-f", "--json"), stdout: &syncBuffer{}, done: make(chan struct{})}
	a.cmd.Env = sb.env
	a.cmd.Stdout = a.stdout
	a.cmd.Stderr = a.stdout
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.cmd.Wait(); close(a.done) }()
	t.Cleanup(func() {
		_ = a.cmd.Process.Kill()
		<-a.done
	})
	a.waitSet(t, "the "+command+" follower's first list", func([]T) bool { return true })
	return a
}

// waitSet waits until the last set printed satisfies ok, and returns it.
func (a *setFollower[T]) waitSet(t *testing.T, what string, ok func([]T) bool) []T {
	t.Helper()
	var last []T
	testkit.Eventually(t, what, func() (bool, string) {
		out := a.stdout.String()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) == 0 || lines[len(lines)-1] == "" {
			return false, out
		}
		last = nil
		if json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil {
			return false, out
		}
		return ok(last), out
	})
	return last
}

// waiting waits for one waiting call of tool and returns it.
func waiting(t *testing.T, a *approver, server, tool string) hostapi.Approval {
	t.Helper()
	l := a.waitSet(t, "a call of "+server+"/"+tool+" waits", func(l []hostapi.Approval) bool {
		return len(l) == 1 && l[0].Server == server && l[0].Tool == tool
	})
	return l[0]
}

// callAsync calls a tool through the bridge on a goroutine of its own.
func (b *bridgeClient) callAsync(t *testing.T, tool string, args any) <-chan string {
	out := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		res, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			out <- "CALL FAILED: " + err.Error()
			return
		}
		var parts []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				parts = append(parts, tc.Text)
			}
		}
		if res.IsError {
			out <- "ERROR: " + strings.Join(parts, "\n")
			return
		}
		out <- strings.Join(parts, "\n")
	}()
	return out
}

func recv(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(wait):
		t.Fatal("the call did not end")
		return ""
	}
}

// TestApprovals: a tool whose policy says ask, through a real bridge and
// a real host: denied at once with no approver; with `switchboard
// approvals -f` attached it waits until `switchboard approve` (then the
// server's result comes), `deny` and the approvalTimeout give the denial
// as a tool error, the app's cancellation withdraws the request, and
// `approve --always` saves allow in the config.
func TestApprovals(t *testing.T) {
	sb := newSandbox(t)
	sb.cli(t, sb.helperArgs("srv", "modern")...)
	sb.cli(t, sb.helperArgs("slow", "modern")...)
	cfg := readConfig(t, sb.configPath())
	ss := servers(cfg)
	ss["srv"].(map[string]any)["policy"] = map[string]any{"tools": map[string]any{"ech*": "ask"}}
	ss["slow"].(map[string]any)["policy"] = map[string]any{"default": "ask"}
	ss["slow"].(map[string]any)["approvalTimeout"] = 1000
	writeRename(t, sb.configPath(), mustJSON(t, cfg))
	sb.serve(t)
	sb.waitRunning(t, "srv")
	sb.waitRunning(t, "slow")
	b := sb.bridge(t, "")

	// Headless: no approver is attached, the call is denied at once.
	if got := b.call(t, "srv__echo", map[string]any{"message": "alone"}); !strings.HasPrefix(got, "ERROR: ") ||
		!strings.Contains(got, "needs the user's approval") || !strings.Contains(got, "switchboard approvals -f") {
		t.Fatalf("with no approver: %q", got)
	}

	a := startApprover(t, sb)

	// Approved with the CLI: the server's result.
	res := b.callAsync(t, "srv__echo", map[string]any{"message": "hi"})
	w := waiting(t, a, "srv", "echo")
	if w.App != "bridge-test" || !strings.HasPrefix(w.Conn, "bridge pid ") || string(w.Arguments) != `{"message":"hi"}` {
		t.Errorf("the waiting call: %+v", w)
	}
	if out := sb.cli(t, "approvals"); !strings.Contains(out, w.ID+"  bridge-test") || !strings.Contains(out, `"message": "hi"`) {
		t.Errorf("switchboard approvals:\n%s", out)
	}
	if out := sb.cli(t, "approve", w.ID); !strings.Contains(out, "allowed srv's tool echo for bridge-test (bridge pid ") || !strings.Contains(out, "this call only") {
		t.Errorf("approve printed %q", out)
	}
	if got := recv(t, res); got != "echo: hi" {
		t.Fatalf("approved: %q", got)
	}
	a.waitSet(t, "nothing waits", func(l []hostapi.Approval) bool { return len(l) == 0 })
	if r := sb.run(t, "", "approve", w.ID); r.code == 0 || !strings.Contains(r.stderr, "not waiting") {
		t.Errorf("approving twice: %v", r)
	}

	// Denied.
	res = b.callAsync(t, "srv__echo", map[string]any{"message": "no"})
	w = waiting(t, a, "srv", "echo")
	if out := sb.cli(t, "deny", w.ID); !strings.Contains(out, "denied srv's tool echo for bridge-test (bridge pid ") || !strings.Contains(out, "this call only") {
		t.Errorf("deny printed %q", out)
	}
	if got := recv(t, res); !strings.HasPrefix(got, "ERROR: ") || !strings.Contains(got, "the user denied this request") {
		t.Fatalf("denied: %q", got)
	}

	// Unanswered: denied after slow's approvalTimeout.
	res = b.callAsync(t, "slow__echo", map[string]any{"message": "late"})
	waiting(t, a, "slow", "echo")
	if got := recv(t, res); !strings.HasPrefix(got, "ERROR: ") || !strings.Contains(got, "no one answered") {
		t.Fatalf("timed out: %q", got)
	}
	a.waitSet(t, "the timed-out call no longer waits", func(l []hostapi.Approval) bool { return len(l) == 0 })

	// Cancelled by the app: the request is withdrawn.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: "srv__echo", Arguments: map[string]any{"message": "never"}})
		done <- err
	}()
	w = waiting(t, a, "srv", "echo")
	cancel()
	<-done
	a.waitSet(t, "the cancelled call is withdrawn", func(l []hostapi.Approval) bool { return len(l) == 0 })
	if r := sb.run(t, "", "approve", w.ID); r.code == 0 {
		t.Errorf("a withdrawn call was approved: %v", r)
	}

	// Always: saved in the config; the next call goes at once.
	res = b.callAsync(t, "srv__echo", map[string]any{"message": "always"})
	w = waiting(t, a, "srv", "echo")
	if out := sb.cli(t, "approve", "--always", w.ID); !strings.Contains(out, "allowed srv's tool echo for every app, always") {
		t.Errorf("approve --always printed %q", out)
	}
	if got := recv(t, res); got != "echo: always" {
		t.Fatalf("always: %q", got)
	}
	cfg = readConfig(t, sb.configPath())
	p, _ := json.Marshal(servers(cfg)["srv"].(map[string]any)["policy"])
	if string(p) != `{"tools":{"ech*":"ask","echo":"allow"}}` {
		t.Errorf("the policy after always allow: %s", p)
	}
	if got := b.call(t, "srv__echo", map[string]any{"message": "free"}); got != "echo: free" {
		t.Fatalf("after always allow: %q", got)
	}

	// The last approver goes away while a call waits: denied, no one is
	// left to ask.
	res = b.callAsync(t, "slow__echo", map[string]any{"message": "orphan"})
	waiting(t, a, "slow", "echo")
	_ = a.cmd.Process.Kill()
	if got := recv(t, res); !strings.HasPrefix(got, "ERROR: ") || !strings.Contains(got, "went away") {
		t.Fatalf("the approver gone: %q", got)
	}
}
