// Package approvals is the host's approval stage (issue 14): a
// [relay.Hook] that decides, for every tools/call on every path, whether
// the call goes to its server, is refused, or waits for a person.
//
// What a call gets comes from its server's policy (config.Policy: allow,
// ask or deny, by the tool's name or a pattern) and from the top-level
// approvals.askDestructive switch (on by default): a tool that no policy
// entry names and whose annotations say destructiveHint true (and not
// readOnlyHint) asks. A call that asks is held ([relay.Info.Hold]): the
// relay sends it once someone allows it, from the window, the tray or the
// command line (approvals.decide). It is denied when no one decides
// within the server's approvalTimeout, and at once when no approver is
// attached (a headless host: no connection subscribed to the approvals
// event). A call its app withdraws (notifications/cancelled, a closed
// connection) withdraws its request.
//
// The stage records nothing itself: the activity log's hook, before it in
// the chain, records every call with the decision (Info.Approval), the
// refused ones included.
package approvals

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// The reasons a refused call's tool error gives the model (after "tool
// X was not run: "): each says whose decision it was (the policy's, the
// user's, or no one's in time), so that neither the model nor the user
// reading its answer takes a rule for a decision about this call.
const (
	ReasonPolicy     = "Switchboard's policy for this server denies it (a standing rule, not a decision about this request)"
	ReasonDenied     = "the user denied this request in Switchboard"
	ReasonNoApprover = "it needs the user's approval, and no Switchboard window, tray or 'switchboard approvals -f' is open to ask"
	ReasonGone       = "it needed the user's approval, and the last Switchboard window, tray or 'switchboard approvals -f' that could ask went away"
)

// ReasonTimedOut is the reason of a call whose approval request no one
// answered within timeout.
func ReasonTimedOut(timeout time.Duration) string {
	return fmt.Sprintf("its approval request in Switchboard timed out: no one answered within %v", timeout)
}

// The decisions in words, for the activity log (relay.Info.Approval).
const (
	WordsDeniedByPolicy = "denied by policy"
	WordsNoApprover     = "denied: no window, tray or command line was attached to ask the user"
	WordsTimedOut       = "denied: the user did not answer in time"
	WordsDenied         = "denied by the user"
	WordsOnce           = "allowed once by the user"
	WordsForApp         = "allowed for this app by the user"
	WordsAlways         = "always allowed by the user"
)

// Rules are what decides the calls of one server.
type Rules struct {
	Policy  *config.Policy
	Timeout time.Duration // approvalTimeout; <= 0: its default (DefaultTimeout)
}

// DefaultTimeout is how long a request waits when its server's rules give
// no timeout: approvalTimeout's default in the option table.
var DefaultTimeout = config.DefaultDuration("approvalTimeout")

// Options connect a [Stage] to its host.
type Options struct {
	// Destructive reports whether a tool of a server says it is
	// destructive (destructiveHint true, readOnlyHint not true), from the
	// host's view of the server's tools.
	Destructive func(server, tool string) bool
	// Approvers counts the approvers attached now.
	Approvers func() int
	// Changed is told that the set of waiting requests changed; it must
	// not block (the host publishes the approvals event).
	Changed func()
	// Always makes "always allow" last: it sets the tool's policy to
	// allow in the config (configedit.SetToolPolicy through the host).
	Always func(server, tool string) error
}

type table struct {
	rules          map[string]Rules
	askDestructive bool
}

// Stage is the approval stage: a relay.Hook, and the waiting requests.
type Stage struct {
	o   Options
	cfg atomic.Pointer[table]

	mu      sync.Mutex
	seq     uint64
	pending map[string]*request // by ID
	// grants are the tools allowed for an app's connection ("allow for
	// this app until it disconnects"), by the connection's number, which
	// the host never gives again: a grant dies with its connection.
	grants map[grant]bool
}

type grant struct {
	conn         uint64
	server, tool string
}

// New returns a stage with no rules: every call goes until SetRules.
func New(o Options) *Stage {
	if o.Changed == nil {
		o.Changed = func() {}
	}
	if o.Approvers == nil {
		o.Approvers = func() int { return 0 }
	}
	s := &Stage{o: o, pending: map[string]*request{}, grants: map[grant]bool{}}
	s.cfg.Store(&table{askDestructive: true})
	return s
}

// SetRules sets every server's rules and the askDestructive switch (the
// host calls it whenever the config is applied). Waiting requests keep
// the rules they were made under.
func (s *Stage) SetRules(rules map[string]Rules, askDestructive bool) {
	s.cfg.Store(&table{rules: rules, askDestructive: askDestructive})
}

// action is what the rules say of a call, and why it asks.
func (s *Stage) action(server, tool string) (action, why string, timeout time.Duration) {
	t := s.cfg.Load()
	r := t.rules[server]
	timeout = r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if r.Policy.Plain() && !t.askDestructive {
		return config.PolicyAllow, "", timeout // the fast path: nothing to look at
	}
	a, explicit := r.Policy.Action(tool)
	if a == "" {
		a = config.PolicyAllow
	}
	if explicit {
		return a, "the policy of the tool is ask", timeout
	}
	why = "the policy of the server is ask"
	if a != config.PolicyDeny && t.askDestructive && s.o.Destructive != nil && s.o.Destructive(server, tool) {
		if a == config.PolicyAllow {
			why = "the tool says it is destructive"
		}
		a = config.PolicyAsk
	}
	return a, why, timeout
}

// requestAction is what the rules say of a request other than a
// tools/call (a resources/read, prompts/get or completion/complete): its
// server's default policy, which the tools entries (tool names) and
// askDestructive (a tool's annotation) say nothing about. A default of
// deny refuses it, ask asks.
func (s *Stage) requestAction(server string) (action, why string, timeout time.Duration) {
	r := s.cfg.Load().rules[server]
	timeout = r.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	if r.Policy == nil || (r.Policy.Default != config.PolicyDeny && r.Policy.Default != config.PolicyAsk) {
		return config.PolicyAllow, "", timeout
	}
	return r.Policy.Default, "the policy of the server is ask", timeout
}

// Before implements relay.Hook: it lets the call go, refuses it with a
// *relay.DeniedError, or holds it (c.Hold). A tools/call gets what its
// tool's policy says; another request (c.Kind) its server's default.
func (s *Stage) Before(c *relay.Info) error {
	var a, why string
	var timeout time.Duration
	if c.Kind == "" || c.Kind == relay.KindToolCall {
		a, why, timeout = s.action(c.Server, c.Tool)
	} else {
		a, why, timeout = s.requestAction(c.Server)
	}
	switch a {
	case config.PolicyAllow:
		return nil
	case config.PolicyDeny:
		c.Approval = WordsDeniedByPolicy
		return &relay.DeniedError{Server: c.Server, Tool: c.Tool, Kind: c.Kind, Reason: ReasonPolicy}
	}
	g := grant{c.Caller.ID, c.Server, c.Tool}
	s.mu.Lock()
	if c.Caller.ID != 0 && s.grants[g] {
		s.mu.Unlock()
		c.Approval = WordsForApp
		return nil
	}
	s.mu.Unlock()
	if s.o.Approvers() == 0 {
		c.Approval = WordsNoApprover
		return &relay.DeniedError{Server: c.Server, Tool: c.Tool, Kind: c.Kind, Reason: ReasonNoApprover}
	}
	now := time.Now()
	r := &request{s: s, grant: g, decided: make(chan struct{}), a: hostapi.Approval{
		Server: c.Server, Tool: c.Tool, Kind: kindOf(c.Kind), App: c.Caller.App, Conn: c.Caller.Conn,
		ArgumentBytes: len(c.Arguments), Why: why, Since: now, Deadline: now.Add(timeout)}}
	if len(c.Arguments) <= hostapi.MaxApprovalArguments {
		r.a.Arguments = bytes.Clone(c.Arguments) // valid during Before only
	}
	server, tool, kind := c.Server, c.Tool, c.Kind
	s.mu.Lock()
	s.seq++
	r.a.ID = strconv.FormatUint(s.seq, 10)
	s.pending[r.a.ID] = r
	r.timer = time.AfterFunc(timeout, func() {
		r.decide(WordsTimedOut, &relay.DeniedError{Server: server, Tool: tool, Kind: kind,
			Reason: ReasonTimedOut(timeout)})
	})
	s.mu.Unlock()
	c.Hold = r
	s.o.Changed()
	return nil
}

// kindOf is an approval request's Kind: "" for a tools/call.
func kindOf(kind string) string {
	if kind == relay.KindToolCall {
		return ""
	}
	return kind
}

// After implements relay.Hook; the stage has nothing to do then.
func (s *Stage) After(*relay.Info, *relay.Result, error) {}

// List returns the waiting requests, oldest first.
func (s *Stage) List() []hostapi.Approval {
	s.mu.Lock()
	out := make([]hostapi.Approval, 0, len(s.pending))
	for _, r := range s.pending {
		out = append(out, r.a)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b hostapi.Approval) int {
		if c := a.Since.Compare(b.Since); c != 0 {
			return c
		}
		x, _ := strconv.ParseUint(a.ID, 10, 64)
		y, _ := strconv.ParseUint(b.ID, 10, 64)
		return int(x) - int(y)
	})
	return out
}

// Decide decides the waiting request id (decision: one of hostapi's
// Decide* constants). Its errors are *hostapi.Error: not_found for an id
// that is not waiting (decided, withdrawn, timed out), bad_request for a
// decision that is none.
func (s *Stage) Decide(id, decision string) error {
	s.mu.Lock()
	r := s.pending[id]
	s.mu.Unlock()
	if r == nil {
		return &hostapi.Error{Code: hostapi.CodeNotFound, Message: fmt.Sprintf(
			"approval request %q is not waiting: it was decided, withdrawn by its app, or timed out; 'switchboard approvals' lists the waiting ones", id)}
	}
	switch decision {
	case hostapi.DecideOnce:
		r.decide(WordsOnce, nil)
	case hostapi.DecideApp:
		if r.grant.conn != 0 {
			s.mu.Lock()
			s.grants[r.grant] = true
			s.mu.Unlock()
		}
		r.decide(WordsForApp, nil)
	case hostapi.DecideAlways:
		if s.o.Always == nil {
			return &hostapi.Error{Code: hostapi.CodeBadRequest, Message: "this host cannot save an always allow"}
		}
		if r.a.Kind != "" {
			return &hostapi.Error{Code: hostapi.CodeBadRequest, Message: fmt.Sprintf(
				"%q cannot be always allowed: a policy names tools, and this is a %s request; allow it once or for this app", r.a.Tool, r.a.Kind)}
		}
		if err := s.o.Always(r.a.Server, r.a.Tool); err != nil {
			return err // still waiting: the user may allow it once
		}
		r.decide(WordsAlways, nil)
	case hostapi.DecideDeny:
		r.decide(WordsDenied, &relay.DeniedError{Server: r.a.Server, Tool: r.a.Tool, Kind: r.a.Kind, Reason: ReasonDenied})
	default:
		return &hostapi.Error{Code: hostapi.CodeBadRequest, Message: fmt.Sprintf(
			"%q is not a decision: use %q, %q, %q or %q", decision, hostapi.DecideOnce, hostapi.DecideApp, hostapi.DecideAlways, hostapi.DecideDeny)}
	}
	return nil
}

// ApproversChanged denies every waiting call when no approver is attached
// any more (the last window, tray or 'approvals -f' went away): no one is
// left to ask. The host calls it when its API connections change.
func (s *Stage) ApproversChanged() {
	if s.o.Approvers() > 0 {
		return
	}
	s.mu.Lock()
	rs := make([]*request, 0, len(s.pending))
	for _, r := range s.pending {
		rs = append(rs, r)
	}
	s.mu.Unlock()
	for _, r := range rs {
		r.decide(WordsNoApprover, &relay.DeniedError{Server: r.a.Server, Tool: r.a.Tool, Kind: r.a.Kind, Reason: ReasonGone})
	}
}

// request is a waiting call: its relay.Hold.
type request struct {
	s       *Stage
	a       hostapi.Approval
	grant   grant
	timer   *time.Timer
	once    sync.Once
	decided chan struct{}
	words   string
	err     error
}

// decide ends the request, once: it leaves the waiting set, and the relay
// sends or refuses the call.
func (r *request) decide(words string, err error) {
	r.once.Do(func() {
		r.words, r.err = words, err
		r.leave()
		close(r.decided)
	})
}

func (r *request) leave() {
	r.s.mu.Lock()
	r.timer.Stop()
	_, ok := r.s.pending[r.a.ID]
	delete(r.s.pending, r.a.ID)
	r.s.mu.Unlock()
	if ok {
		r.s.o.Changed()
	}
}

func (r *request) Decided() <-chan struct{}  { return r.decided }
func (r *request) Decision() (string, error) { return r.words, r.err }

// Withdraw: the app withdrew the call; the request goes away.
func (r *request) Withdraw() { r.once.Do(r.leave) }
