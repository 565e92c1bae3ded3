package approvals

import (
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const wait = 10 * time.Second

type fixture struct {
	*Stage
	approvers atomic.Int32
	changes   chan []hostapi.Approval
	always    []string
}

func newFixture(t *testing.T, rules map[string]Rules, askDestructive bool) *fixture {
	f := &fixture{changes: make(chan []hostapi.Approval, 100)}
	f.approvers.Store(1)
	f.Stage = New(Options{
		Destructive: func(server, tool string) bool { return tool == "rm" },
		Approvers:   func() int { return int(f.approvers.Load()) },
		Changed:     func() { f.changes <- f.List() },
		Always: func(server, tool string) error {
			if server == "readonly" {
				return errors.New("the config cannot be written")
			}
			f.always = append(f.always, server+"/"+tool)
			return nil
		},
	})
	f.SetRules(rules, askDestructive)
	return f
}

func (f *fixture) changed(t *testing.T) []hostapi.Approval {
	t.Helper()
	select {
	case l := <-f.changes:
		return l
	case <-time.After(wait):
		t.Fatal("the pending set did not change")
		return nil
	}
}

func info(server, tool string, conn uint64) *relay.Info {
	return &relay.Info{Kind: relay.KindToolCall, Server: server, Tool: tool, Arguments: json.RawMessage(`{"path":"/tmp/x"}`),
		Caller: relay.Caller{App: "claude-ai", Conn: "bridge pid 42", ID: conn}}
}

// decided waits for the hold's decision.
func decided(t *testing.T, h relay.Hold) (string, error) {
	t.Helper()
	select {
	case <-h.Decided():
		return h.Decision()
	case <-time.After(wait):
		t.Fatal("the request was not decided")
		return "", nil
	}
}

func TestPolicyDecidesWithoutAsking(t *testing.T) {
	f := newFixture(t, map[string]Rules{
		"fs": {Policy: &config.Policy{Default: config.PolicyAllow, Tools: map[string]string{"drop_*": config.PolicyDeny, "rm": config.PolicyAllow}}},
	}, true)
	for _, c := range []struct {
		server, tool string
		denied       bool
	}{{"fs", "read", false}, {"fs", "rm", false}, {"other", "read", false}, {"fs", "drop_table", true}} {
		i := info(c.server, c.tool, 1)
		err := f.Before(i)
		var de *relay.DeniedError
		if got := errors.As(err, &de); got != c.denied || i.Hold != nil {
			t.Errorf("%s/%s: %v (hold %v)", c.server, c.tool, err, i.Hold)
		}
		// A policy's refusal is the policy's: never worded as the user's.
		if c.denied && (i.Approval != WordsDeniedByPolicy || !strings.Contains(err.Error(), "policy") || strings.Contains(err.Error(), "user")) {
			t.Errorf("%s/%s: approval %q, error %v", c.server, c.tool, i.Approval, err)
		}
	}
}

func TestDestructiveAsks(t *testing.T) {
	f := newFixture(t, nil, true)
	i := info("fs", "rm", 1)
	if err := f.Before(i); err != nil || i.Hold == nil {
		t.Fatalf("a destructive tool did not ask: %v", err)
	}
	l := f.changed(t)
	if len(l) != 1 || l[0].Why != "the tool says it is destructive" || l[0].App != "claude-ai" || string(l[0].Arguments) != `{"path":"/tmp/x"}` {
		t.Fatalf("pending: %+v", l)
	}
	if err := f.Decide(l[0].ID, hostapi.DecideOnce); err != nil {
		t.Fatal(err)
	}
	if w, err := decided(t, i.Hold); w != WordsOnce || err != nil {
		t.Fatalf("decision %q %v", w, err)
	}
	if l := f.changed(t); len(l) != 0 {
		t.Fatalf("still pending: %+v", l)
	}
	// Off: it goes.
	f.SetRules(nil, false)
	i = info("fs", "rm", 1)
	if err := f.Before(i); err != nil || i.Hold != nil {
		t.Fatalf("askDestructive off: %v %v", err, i.Hold)
	}
}

func TestDecisions(t *testing.T) {
	ask := map[string]Rules{"fs": {Policy: &config.Policy{Default: config.PolicyAsk}}, "readonly": {Policy: &config.Policy{Default: config.PolicyAsk}}}
	f := newFixture(t, ask, false)

	// Deny.
	i := info("fs", "write", 1)
	if err := f.Before(i); err != nil || i.Hold == nil {
		t.Fatal(err)
	}
	id := f.changed(t)[0].ID
	if err := f.Decide(id, "maybe"); err == nil {
		t.Fatal("a decision that is none was taken")
	}
	if err := f.Decide(id, hostapi.DecideDeny); err != nil {
		t.Fatal(err)
	}
	w, err := decided(t, i.Hold)
	var de *relay.DeniedError
	if w != WordsDenied || !errors.As(err, &de) || !strings.Contains(de.Reason, "the user denied this request") {
		t.Fatalf("deny: %q %v", w, err)
	}
	f.changed(t)
	if err := f.Decide(id, hostapi.DecideOnce); err == nil || !strings.Contains(err.Error(), "not waiting") {
		t.Fatalf("deciding twice: %v", err)
	}

	// For this app: the next call of the same connection goes, another
	// connection's asks.
	i = info("fs", "write", 7)
	_ = f.Before(i)
	id = f.changed(t)[0].ID
	if err := f.Decide(id, hostapi.DecideApp); err != nil {
		t.Fatal(err)
	}
	if w, err := decided(t, i.Hold); w != WordsForApp || err != nil {
		t.Fatalf("for app: %q %v", w, err)
	}
	f.changed(t)
	i = info("fs", "write", 7)
	if err := f.Before(i); err != nil || i.Hold != nil || i.Approval != WordsForApp {
		t.Fatalf("the same app's next call: %v %v %q", err, i.Hold, i.Approval)
	}
	i = info("fs", "write", 8)
	if err := f.Before(i); err != nil || i.Hold == nil {
		t.Fatalf("another connection's call did not ask: %v", err)
	}
	i.Hold.Withdraw()
	f.changed(t)
	f.changed(t)

	// Always: saved; a failed save leaves the request waiting.
	i = info("readonly", "write", 1)
	_ = f.Before(i)
	id = f.changed(t)[0].ID
	if err := f.Decide(id, hostapi.DecideAlways); err == nil {
		t.Fatal("always allow with a failed save was taken")
	}
	if len(f.List()) != 1 {
		t.Fatal("the request left after a failed always allow")
	}
	i.Hold.Withdraw()
	f.changed(t)
	i = info("fs", "delete", 1)
	_ = f.Before(i)
	id = f.changed(t)[0].ID
	if err := f.Decide(id, hostapi.DecideAlways); err != nil {
		t.Fatal(err)
	}
	if w, err := decided(t, i.Hold); w != WordsAlways || err != nil || len(f.always) != 1 || f.always[0] != "fs/delete" {
		t.Fatalf("always: %q %v %v", w, err, f.always)
	}
}

// TestTimeoutDenies: a request no one answers is denied at its timeout,
// not a moment sooner, and leaves the list; the list gives its deadline.
// On the fake clock of a synctest bubble, with a timeout of two minutes.
func TestTimeoutDenies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const timeout = 2 * time.Minute
		f := newFixture(t, map[string]Rules{"fs": {Policy: &config.Policy{Default: config.PolicyAsk}, Timeout: timeout}}, false)
		i := info("fs", "write", 1)
		start := time.Now()
		if err := f.Before(i); err != nil {
			t.Fatal(err)
		}
		if l := f.List(); len(l) != 1 || !l[0].Since.Equal(start) || !l[0].Deadline.Equal(start.Add(timeout)) {
			t.Fatalf("the waiting request: %+v, want since %v, deadline %v", l, start, start.Add(timeout))
		}
		testkit.Advance(timeout - time.Millisecond)
		select {
		case <-i.Hold.Decided():
			w, err := i.Hold.Decision()
			t.Fatalf("decided %v after the request, before its timeout of %v: %q %v", time.Since(start), timeout, w, err)
		default:
		}
		testkit.Advance(time.Millisecond)
		w, err := decided(t, i.Hold)
		var de *relay.DeniedError
		if w != WordsTimedOut || !errors.As(err, &de) || !strings.Contains(de.Reason, "within 2m0s") ||
			!strings.Contains(de.Reason, "timed out") || strings.Contains(de.Reason, "user denied") || strings.Contains(de.Reason, "did not approve") {
			t.Fatalf("timeout: %q %v", w, err)
		}
		if len(f.List()) != 0 {
			t.Fatal("a timed-out request is still waiting")
		}
	})
}

func TestNoApproverDeniesAtOnce(t *testing.T) {
	f := newFixture(t, map[string]Rules{"fs": {Policy: &config.Policy{Default: config.PolicyAsk}}}, false)
	f.approvers.Store(0)
	i := info("fs", "write", 1)
	err := f.Before(i)
	var de *relay.DeniedError
	if !errors.As(err, &de) || i.Hold != nil || i.Approval != WordsNoApprover || !strings.Contains(err.Error(), "switchboard approvals -f") {
		t.Fatalf("no approver: %v %q", err, i.Approval)
	}
	if len(f.List()) != 0 {
		t.Fatal("a request waits with no approver")
	}
}

func TestWithdrawLeaves(t *testing.T) {
	f := newFixture(t, map[string]Rules{"fs": {Policy: &config.Policy{Default: config.PolicyAsk}}}, false)
	i := info("fs", "write", 1)
	_ = f.Before(i)
	id := f.changed(t)[0].ID
	i.Hold.Withdraw()
	if l := f.changed(t); len(l) != 0 {
		t.Fatalf("a withdrawn request is listed: %+v", l)
	}
	if err := f.Decide(id, hostapi.DecideOnce); err == nil {
		t.Fatal("a withdrawn request was decided")
	}
}

func TestLargeArgumentsAreNotCarried(t *testing.T) {
	f := newFixture(t, map[string]Rules{"fs": {Policy: &config.Policy{Default: config.PolicyAsk}}}, false)
	i := info("fs", "write", 1)
	big := `{"x":"` + strings.Repeat("a", hostapi.MaxApprovalArguments) + `"}`
	i.Arguments = json.RawMessage(big)
	_ = f.Before(i)
	l := f.changed(t)
	if l[0].Arguments != nil || l[0].ArgumentBytes != len(big) {
		t.Fatalf("large arguments: %d bytes carried, size %d", len(l[0].Arguments), l[0].ArgumentBytes)
	}
	i.Hold.Withdraw()
}

func TestLastApproverGoneDenies(t *testing.T) {
	f := newFixture(t, map[string]Rules{"fs": {Policy: &config.Policy{Default: config.PolicyAsk}}}, false)
	i := info("fs", "write", 1)
	_ = f.Before(i)
	f.changed(t)
	f.ApproversChanged() // one is still attached: nothing happens
	if len(f.List()) != 1 {
		t.Fatal("a request left while an approver is attached")
	}
	f.approvers.Store(0)
	f.ApproversChanged()
	w, err := decided(t, i.Hold)
	var de *relay.DeniedError
	if w != WordsNoApprover || !errors.As(err, &de) || !strings.Contains(de.Reason, "went away") {
		t.Fatalf("the last approver gone: %q %v", w, err)
	}
}

// TestRequestKinds: a resources/read, prompts/get or completion/complete
// gets its server's default policy: deny refuses it, ask holds it (the
// approval names its kind, and cannot be always allowed: a policy names
// tools), allow or none lets it go; a tools entry named like its target
// and askDestructive say nothing of it.
func TestRequestKinds(t *testing.T) {
	f := newFixture(t, map[string]Rules{
		"deny":  {Policy: &config.Policy{Default: config.PolicyDeny, Tools: map[string]string{"file:///a": config.PolicyAllow}}},
		"ask":   {Policy: &config.Policy{Default: config.PolicyAsk}},
		"allow": {Policy: &config.Policy{Tools: map[string]string{"*": config.PolicyDeny}}},
	}, true)
	for _, kind := range []string{relay.KindResourceRead, relay.KindPromptGet, relay.KindComplete} {
		c := info("deny", "file:///a", 1)
		c.Kind = kind
		var de *relay.DeniedError
		if err := f.Before(c); !errors.As(err, &de) || de.Kind != kind || c.Approval != WordsDeniedByPolicy {
			t.Errorf("%s under deny: %v (%q)", kind, err, c.Approval)
		}
		c = info("allow", "rm", 1)
		c.Kind = kind
		if err := f.Before(c); err != nil || c.Hold != nil {
			t.Errorf("%s under a tools entry and askDestructive: %v, held %v", kind, err, c.Hold != nil)
		}
	}
	c := info("ask", "file:///a", 1)
	c.Kind = relay.KindResourceRead
	if err := f.Before(c); err != nil || c.Hold == nil {
		t.Fatalf("a read under ask: %v, held %v", err, c.Hold != nil)
	}
	l := f.changed(t)
	if len(l) != 1 || l[0].Kind != relay.KindResourceRead || l[0].Tool != "file:///a" {
		t.Fatalf("waiting: %+v", l)
	}
	if err := f.Decide(l[0].ID, hostapi.DecideAlways); err == nil || len(f.always) != 0 {
		t.Errorf("a read always allowed: %v %v", err, f.always)
	}
	if err := f.Decide(l[0].ID, hostapi.DecideOnce); err != nil {
		t.Fatal(err)
	}
	<-c.Hold.Decided()
	if words, err := c.Hold.Decision(); err != nil || words != WordsOnce {
		t.Errorf("decision: %q %v", words, err)
	}
}
