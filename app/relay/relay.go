// Package relay owns a request relayed to a server's connection ([Conn]:
// a local server's stdio connection, or a remote server's go-sdk session
// behind the same interface), end to end: the ids it gets on the
// server's connection (and the caller's that come back), the tap that
// takes the answers, the timeout, the cancellation in both directions,
// the error wording, and the hook that sees every call. Every production
// path that sends a server a request for an app or a person goes through
// it: the gateway's lean path (a bridge's tools/call), the gateway's
// go-sdk server (HTTP, a socket request the lean path leaves to the
// go-sdk, and every resources/read, prompts/get and completion/complete:
// [Call.Method]) and the host API's servers.call. There is no other.
//
// # Ids
//
// A call gets the id "sbgw-N" on the server's connection; the caller's own
// id never leaves the caller, which puts it back on the answer (the
// gateway splices it into the response line as the client wrote it). The
// go-sdk's client of the same connection uses numbers, so the two never
// meet. The connection's line tap ([Conn.SetLineTap]) takes the
// answers to those ids before anything decodes them, in one pass over
// their bytes ([Result]); progress notifications about them come through
// the message tap ([Conn.SetTap]).
//
// # Timeout and cancellation
//
// Every call is bounded by the timeout its caller gives: the entry's
// callTimeout, whose one default is the option table's (config.Options).
// Past it the server gets notifications/cancelled and the caller a
// [*TimeoutError]. The calls of a relay share one timer, armed for the
// earliest deadline (a timer per call woke a second thread of the Go
// runtime on every call). A caller that withdraws a call (the app's
// notifications/cancelled, a client that went away, an API caller whose
// context ended) calls the stop function that Start returned: the server
// gets notifications/cancelled and Done is never called. A connection that
// closes under its calls fails them with a [*StoppedError].
//
// # Hook
//
// A [Hook] sees every call: Before, before it is sent (an error refuses
// it), and After, once, when it ends, however it ends. The activity log,
// approvals and profiles plug in there, once for every path.
//
// # Held calls
//
// A Hook's Before may hold a call instead of passing or refusing it: it
// sets [Info.Hold] (approvals: the call waits for the user). Start then
// returns at once, as for any call (the lean path calls it on the
// goroutine that reads the app, which must never wait for a person), and
// the relay waits for the hold's decision on a goroutine of its own: a
// call let through is written to the server then, and its callTimeout
// starts then (the wait for a person is not the server's time; the hold
// bounds its own wait); a call refused gets the hold's error through
// Done, and the server never sees it. A caller that withdraws a held call
// (stop) withdraws the hold ([Hold.Withdraw]: the prompt goes away), and
// the call is never sent. While a call is held and its caller gave a
// progress token, Progress gets a notification every [HoldProgressEvery],
// so that an app whose timeout progress resets does not give up. A call
// no Hook holds costs nothing of this: no goroutine, no allocation.
package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/switchboard-mcp/switchboard/app/config"
)

// IDPrefix starts the ids of relayed calls on a server's connection.
const IDPrefix = "sbgw-"

// DefaultTimeout bounds a call whose caller gives no timeout: the default
// of the entry's callTimeout.
var DefaultTimeout = config.DefaultDuration("callTimeout")

// maxArgsDepth is how deep a call's arguments may nest (encoding/json's
// limit, which the relay kept when it re-encoded them).
const maxArgsDepth = 10000

// maxAnswerDepth is how deep a server's answer may nest (the go-sdk's
// decoder's limit, which engine/stdio applies to every other message).
const maxAnswerDepth = 1000

// KindToolCall is the [Info.Kind] of a relayed call.
const KindToolCall = "tools/call"

// Caller is who made a call: the app and its connection to the host, as
// the activity log records them and approvals ask about them.
type Caller struct {
	// App is the name the app gave in its handshake (clientInfo.name,
	// e.g. "claude-ai"), cleaned for display; "" if it gave none.
	App string
	// Conn is its connection: "bridge pid 1234", "http", "api".
	Conn string
	// ID tells the host's connections apart while the host runs: calls
	// with the same ID came on the same connection (0: unknown).
	ID uint64
	// Modern: the app speaks the 2026-07-28 protocol, so an
	// input_required result goes to it as the server wrote it, and it
	// completes the rounds itself (app/host/rounds.go completes them for
	// the others).
	Modern bool
}

// Call is one request to relay: a tools/call, or (Method set) a
// resources/read, prompts/get or completion/complete.
type Call struct {
	// Method is the request's method: "" is tools/call; else one of
	// [KindResourceRead], [KindPromptGet], [KindComplete].
	Method string
	// Tool is the server's own name of the tool; for another method, what
	// the request names (a resource's URI, a prompt's name, the prompt or
	// resource a completion is for), for the hooks and the errors.
	Tool   string
	Caller Caller // who made it
	// Arguments are the tool's, as the caller has them (nil means {}); for
	// another method, what the hooks see of its arguments (nil: none).
	Arguments json.RawMessage
	// Params are the params of a method other than tools/call: JSON
	// object members without the braces, as the caller made them (never
	// _meta); for tools/call, members after name and arguments (made by
	// the host: a retried round's inputResponses and requestState).
	Params []byte
	// Meta holds the caller's own _meta entries as JSON object members
	// without the braces (`"k":1,"j":"v"`), forwarded as they are; never
	// the protocol's keys nor a progress token. nil: none.
	Meta []byte
	// Progress, if set, receives the params of each progress notification
	// that the server sends about the call, as JSON (valid during the
	// call only). It runs on the goroutine that reads the server.
	Progress func(params json.RawMessage)
	// Done receives the server's result, or an error: the server's
	// *jsonrpc.Error, a [*TimeoutError] or a [*StoppedError]. It is called
	// exactly once, unless the call is withdrawn first (then never). It
	// may run on the goroutine that reads the server: it must not block,
	// and the Result is valid only until it returns.
	Done func(res *Result, err error)
	// Waited is how long the call waited for its server to have a
	// session before it was started (a sleeping server woken, a restart
	// held): 0 when it ran at once. [Info.Waited] carries it to the hooks.
	Waited time.Duration
	// Task is the task-augmentation member of a tools/call (the tasks
	// extension's `{"ttl":...}`), as the caller has it; nil: none. It is
	// sent as the params' "task" member.
	Task json.RawMessage
	// OnHold, if set, is called (before Start returns) when a Hook holds
	// the call for a person: the gateway then answers an app that asked
	// for a task with one at once (app/gateway/tasks.go).
	OnHold func()
	// FollowUp marks a request about a call the hooks already saw (the
	// tasks extension's tasks/get, tasks/result, tasks/cancel,
	// tasks/list): the Hook sees neither its Before nor its After.
	FollowUp bool
}

// Result is a server's answer to a call, as it wrote it, and the spans of
// its top-level members: what the gateway passes on, found in the one
// pass that checked the answer.
type Result struct {
	Raw               json.RawMessage // the result object
	Meta              json.RawMessage // its _meta, or nil
	Content           json.RawMessage // nil when absent
	StructuredContent json.RawMessage
	IsError           bool
	// Round: the result's resultType is "input_required" (the
	// 2026-07-28 protocol's round: app/host/rounds.go).
	Round bool
}

// Info describes a call to a [Hook].
type Info struct {
	Kind    string // the request's method: KindToolCall, KindResourceRead, KindPromptGet, KindComplete
	Server  string
	Tool    string
	Caller  Caller
	Timeout time.Duration
	Started time.Time
	// Waited is the call's [Call.Waited]: how long it waited for its
	// server before Started.
	Waited time.Duration
	// Approval is the approval stage's decision on the call, in words
	// ("allowed once by the user"); "" when no one was asked. Set by a
	// Hook's Before for the Hooks after it and every After.
	Approval string
	// Hold, set by a Hook's Before, holds the call until the hold
	// decides (see the package doc). nil: the call goes on at once.
	Hold Hold
	// Arguments and Meta are the call's (valid during Before only).
	Arguments json.RawMessage
	Meta      []byte
}

// Hook sees every relayed call, on every path. It is where the activity
// log, approvals and profiles (issues 14 and 15) plug in.
//
//   - Before runs on the caller's goroutine before the call is written to
//     the server. An error refuses the call: the caller gets it as Start's
//     error (the gateway makes it a tool error), and the server never sees
//     the call. It must not block for long: a caller that waits for a
//     person (approvals) is to be built as a call that holds, like the
//     hold during a server's restart.
//   - After runs exactly once for every call that Before let through,
//     when it ends: answered (res, nil), failed (nil, err: the server's
//     *jsonrpc.Error, a *TimeoutError, a *StoppedError) or withdrawn by
//     its caller (nil, [ErrWithdrawn]). It runs on the goroutine that
//     reads the server or on a timer's, before the call's Done: it must not block, and res is
//     valid only until it returns.
type Hook interface {
	Before(c *Info) error
	After(c *Info, res *Result, err error)
}

// Hold is a call held by a Hook until someone decides (approvals): set
// in [Info.Hold] by its Before. Its methods must not block.
type Hold interface {
	// Decided is closed once the call is decided.
	Decided() <-chan struct{}
	// Decision is the decision, once Decided is closed: a nil error lets
	// the call through, an error (a [*DeniedError]) refuses it. approval
	// is the decision in words, for [Info.Approval].
	Decision() (approval string, err error)
	// Withdraw tells the hold that the caller withdrew the call (the
	// prompt goes away); the relay no longer waits for Decided.
	Withdraw()
}

// HoldProgressEvery is how often a held call whose caller gave a progress
// token gets a progress notification while it waits (a variable for
// tests).
var HoldProgressEvery = 5 * time.Second

// Chain is the hooks as one, in order: Before runs each in turn until one
// refuses the call; then the After of each hook before it runs with that
// refusal (so a hook that records calls, placed first, records the ones a
// later stage refused). After runs every hook's, in reverse order.
func Chain(hooks ...Hook) Hook {
	var hs chain
	for _, h := range hooks {
		if h != nil {
			hs = append(hs, h)
		}
	}
	switch len(hs) {
	case 0:
		return nil
	case 1:
		return hs[0]
	}
	return hs
}

type chain []Hook

func (hs chain) Before(c *Info) error {
	for i, h := range hs {
		if err := h.Before(c); err != nil {
			if c.Hold != nil { // an earlier hook held it: that prompt goes
				c.Hold.Withdraw()
				c.Hold = nil
			}
			args, meta := c.Arguments, c.Meta
			c.Arguments, c.Meta = nil, nil
			for j := i - 1; j >= 0; j-- {
				hs[j].After(c, nil, err)
			}
			c.Arguments, c.Meta = args, meta
			return err
		}
	}
	return nil
}

func (hs chain) After(c *Info, res *Result, err error) {
	for j := len(hs) - 1; j >= 0; j-- {
		hs[j].After(c, res, err)
	}
}

// DeniedError is a call that a stage refused before the server saw it
// (approvals: a policy's deny, the user's Deny, no answer in time). The
// caller gets it as a tool error whose text tells the model why.
type DeniedError struct {
	Server, Tool string
	// Kind is the request's method ("" or KindToolCall: a tools/call).
	Kind string
	// Reason is the text for the model and the user: "the user did not
	// approve this call".
	Reason string
}

func (e *DeniedError) Error() string {
	if isTool(e.Kind) {
		return fmt.Sprintf("Switchboard server %q: tool %q was not run: %s", e.Server, e.Tool, e.Reason)
	}
	return fmt.Sprintf("Switchboard server %q: %s was not sent to the server: %s", e.Server, What(e.Kind, e.Tool), e.Reason)
}

// isTool reports whether kind is a tools/call's.
func isTool(kind string) bool { return kind == "" || kind == KindToolCall }

// What names a request of kind for target in an error: `tool "x"`,
// `resource "file:///a"`, `prompt "p"`, `a completion of "p"`.
func What(kind, target string) string {
	switch kind {
	case KindResourceRead:
		return fmt.Sprintf("resource %q", target)
	case KindPromptGet:
		return fmt.Sprintf("prompt %q", target)
	case KindComplete:
		if target == "" {
			return "completion/complete"
		}
		return fmt.Sprintf("a completion of %q", target)
	}
	return fmt.Sprintf("tool %q", target)
}

// ErrWithdrawn is what a Hook's After gets for a call its caller
// withdrew.
var ErrWithdrawn = errors.New("the call was withdrawn by its caller")

// ErrClosed is Start's error on a connection that has closed.
var ErrClosed = errors.New("the server's connection has closed")

// TimeoutError is a call that passed its callTimeout; the server was told
// to cancel it.
type TimeoutError struct {
	Server, Tool string
	Kind         string // the request's method ("": tools/call)
	Timeout      time.Duration
}

func (e *TimeoutError) Error() string {
	if isTool(e.Kind) {
		return fmt.Sprintf("Switchboard server %q: tool %q did not answer within %v (its callTimeout); the call was cancelled", e.Server, e.Tool, e.Timeout)
	}
	return fmt.Sprintf("Switchboard server %q: %s did not answer within %v (its callTimeout); the request was cancelled", e.Server, What(e.Kind, e.Tool), e.Timeout)
}

// StoppedError is a call whose server stopped (exited, or was stopped or
// restarted) before it answered. The call is not retried: the tool may
// have run.
type StoppedError struct {
	Server, Tool string
	Kind         string // the request's method ("": tools/call)
	Reason       string // why the connection closed
	State        string // the server's state since
}

func (e *StoppedError) Error() string {
	return fmt.Sprintf("Switchboard server %q stopped while %s was running (%s); it is %s now: try again in a moment", e.Server, What(e.Kind, e.Tool), e.Reason, e.State)
}

// SendError is what a [Conn] that sends asynchronously (a remote
// server's: an HTTP request per message) reports of a request it could
// not deliver: it gives its tap a response to the request's id whose
// Error is a *SendError. The call fails as a [*StoppedError].
type SendError struct{ Err error }

func (e *SendError) Error() string { return e.Err.Error() }
func (e *SendError) Unwrap() error { return e.Err }

// ArgumentsError is the error of a call whose arguments cannot be passed
// on: not JSON, or nested too deeply.
func ArgumentsError(server, tool string, err error) *jsonrpc.Error {
	why := "they are not valid JSON"
	if errors.Is(err, errDeep) {
		why = "they are nested more than 10,000 levels deep, more than JSON decoders accept; send flatter arguments"
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
		"the arguments of tool %q cannot be passed on to Switchboard server %q: %s", tool, server, why)}
}

// Options configure a [Relay].
type Options struct {
	// ProtoMeta is the per-request _meta of a 2026-07-28 session (JSON
	// object members without the braces), added to every call; nil for
	// an older session.
	ProtoMeta []byte
	// Hook, if set, sees every call.
	Hook Hook
	// StateAfterClose tells the server's state once its connection has
	// closed (the supervisor's; it may wait a little for it to say), for
	// the error of the calls that the close cut. nil: "restarting".
	StateAfterClose func() string
}

// Relay is the relayed calls of one server connection.
type Relay struct {
	server string
	conn   Conn
	opts   Options
	seq    atomic.Uint64

	mu sync.Mutex
	// pending: the calls in flight, by the number N of their id sbgw-N
	pending map[uint64]*pending
	closed  bool
	// One timer for every call's timeout, armed for the earliest
	// deadline when it is not armed already (at, zero when it is not):
	// a timer of its own per call woke another thread of the Go runtime
	// on every call (adding a timer wakes the network poller's thread,
	// or starts one), which cost more than the rest of the host's own
	// work on a call. It fires at the earliest deadline, fails the calls
	// past theirs, and is armed again for the next one, if any.
	timer *time.Timer
	at    time.Time
	// paused counts the Pauses on (inflight.go): no call times out then.
	paused int

	answers *answerScanner // the line tap's (the connection's reader)
}

type pending struct {
	c        *Call
	info     Info
	deadline time.Time
	r        *Relay
	n        uint64 // the id's number
}

// stop withdraws the call (Start's stop).
func (p *pending) stop() {
	if p.r.take(p.n) != nil {
		p.r.cancelUpstream(p.n, "cancelled by the client")
		p.r.after(p, nil, ErrWithdrawn)
	}
}

// New makes the relay of a server's connection: it installs the
// connection's taps and fails the calls in flight when the connection
// closes. One relay per connection.
func New(server string, conn Conn, opts Options) *Relay {
	r := &Relay{server: server, conn: conn, opts: opts, pending: map[uint64]*pending{}, answers: newAnswerScanner()}
	conn.SetLineTap(r.lineTap)
	conn.SetTap(r.tap)
	go func() {
		<-conn.Done()
		r.closeAll()
	}()
	return r
}

// Start sends c and returns at once; Done gets the answer. timeout bounds
// the call (<= 0: [DefaultTimeout]). stop withdraws the call: the server
// gets notifications/cancelled, and Done is not called. Errors: the
// Hook's refusal, an [ArgumentsError], [ErrClosed], or the connection's
// error when the write fails; Done is not called then.
func (r *Relay) Start(c *Call, timeout time.Duration) (stop func(), err error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	kind := KindToolCall
	args := bytes.TrimSpace(c.Arguments)
	switch {
	case c.Method != "" && c.Method != KindToolCall:
		kind = c.Method // made by the host: its Params are valid JSON
	case len(args) == 0:
		args = []byte("{}")
	default:
		if err := validValue(args, maxArgsDepth); err != nil {
			return nil, ArgumentsError(r.server, c.Tool, err)
		}
	}
	p := &pending{c: c, r: r, info: Info{Kind: kind, Server: r.server, Tool: c.Tool, Caller: c.Caller, Timeout: timeout, Started: time.Now(), Waited: c.Waited, Arguments: args, Meta: c.Meta}}
	p.deadline = p.info.Started.Add(timeout)
	if h := r.opts.Hook; h != nil && !c.FollowUp {
		if err := h.Before(&p.info); err != nil {
			return nil, err
		}
		if p.info.Hold != nil {
			if c.OnHold != nil {
				c.OnHold()
			}
			return r.startHeld(p, args), nil
		}
	}
	p.n = r.seq.Add(1)
	line := r.requestLine(c, p.n, args)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		r.after(p, nil, ErrClosed)
		return nil, ErrClosed
	}
	r.pending[p.n] = p
	r.armLocked(p.deadline)
	r.mu.Unlock()
	if err := r.conn.WriteLine(line); err != nil {
		if r.take(p.n) != nil {
			r.after(p, nil, err)
			return nil, err
		}
		return func() {}, nil // answered or failed already
	}
	return p.stop, nil
}

// held is a call that a Hook holds: its stop until it is sent.
type held struct {
	mu        sync.Mutex
	withdrawn chan struct{} // closed by stop while it is held
	sent      bool          // written to the server: stop is p.stop
	p         *pending
}

func (h *held) stop() {
	h.mu.Lock()
	if h.sent {
		h.mu.Unlock()
		h.p.stop()
		return
	}
	select {
	case <-h.withdrawn:
		h.mu.Unlock()
		return
	default:
	}
	close(h.withdrawn)
	h.mu.Unlock()
	h.p.info.Hold.Withdraw()
}

// startHeld waits for the decision on a held call on a goroutine of its
// own, then sends the call or refuses it (see the package doc).
func (r *Relay) startHeld(p *pending, args []byte) func() {
	h := &held{withdrawn: make(chan struct{}), p: p}
	go r.waitHeld(h, args)
	return h.stop
}

// AwaitDecision waits until hold is decided (true) or withdrawn closes
// (false), sending c's caller a progress notification every
// [HoldProgressEvery] if it gave a progress token, so that an app whose
// timeout progress resets does not give up. The relay's held calls and
// those of a remote server's session (app/host) wait through it.
func AwaitDecision(c *Call, hold Hold, withdrawn <-chan struct{}) bool {
	var tick <-chan time.Time
	if c.Progress != nil && HoldProgressEvery > 0 {
		t := time.NewTicker(HoldProgressEvery)
		defer t.Stop()
		tick = t.C
	}
	for n := 1; ; n++ {
		select {
		case <-withdrawn:
			return false
		case <-tick:
			msg := append([]byte(`{"progressToken":"`+IDPrefix+`0","progress":`), strconv.Itoa(n)...)
			c.Progress(append(msg, `,"message":"waiting for the user to approve this call in Switchboard"}`...))
		case <-hold.Decided():
			return true
		}
	}
}

func (r *Relay) waitHeld(h *held, args []byte) {
	p, c, hold := h.p, h.p.c, h.p.info.Hold
	if !AwaitDecision(c, hold, h.withdrawn) {
		r.after(p, nil, ErrWithdrawn)
		return
	}
	approval, err := hold.Decision()
	p.info.Approval = approval
	h.mu.Lock()
	defer h.mu.Unlock()
	select {
	case <-h.withdrawn: // withdrawn as it was decided
		r.after(p, nil, ErrWithdrawn)
		return
	default:
	}
	if err != nil {
		h.sent = true // no stop from now on: Done has its answer
		r.finish(p, nil, err)
		return
	}
	// The callTimeout starts now.
	p.info.Started = time.Now()
	p.deadline = p.info.Started.Add(p.info.Timeout)
	p.n = r.seq.Add(1)
	line := r.requestLine(c, p.n, args)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		h.sent = true
		state := "restarting"
		if r.opts.StateAfterClose != nil {
			state = r.opts.StateAfterClose()
		}
		r.finish(p, nil, &StoppedError{Server: r.server, Tool: c.Tool, Kind: c.Method, Reason: "it stopped while the call waited for approval", State: state})
		return
	}
	r.pending[p.n] = p
	r.armLocked(p.deadline)
	r.mu.Unlock()
	h.sent = true
	if err := r.conn.WriteLine(line); err != nil {
		if r.take(p.n) != nil {
			r.finish(p, nil, err)
		}
	}
}

// appendID appends the id sbgw-n, quoted.
func appendID(b []byte, n uint64) []byte {
	b = append(b, '"')
	b = append(b, IDPrefix...)
	b = strconv.AppendUint(b, n, 10)
	return append(b, '"')
}

// idNumber returns N of a JSON string "sbgw-N" (quotes included, no
// escapes, N a canonical decimal), or false.
func idNumber(id []byte) (uint64, bool) {
	if len(id) < len(IDPrefix)+3 || id[0] != '"' || id[len(id)-1] != '"' || !bytes.HasPrefix(id[1:], []byte(IDPrefix)) {
		return 0, false
	}
	digits := id[1+len(IDPrefix) : len(id)-1]
	if len(digits) > 19 || (digits[0] == '0' && len(digits) > 1) {
		return 0, false
	}
	var n uint64
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + uint64(d-'0')
	}
	return n, true
}

// requestLine is the call's line on the server's connection: what the
// go-sdk's client would send for it.
func (r *Relay) requestLine(c *Call, id uint64, args []byte) []byte {
	out := make([]byte, 0, len(args)+len(c.Tool)+len(c.Meta)+len(r.opts.ProtoMeta)+len(c.Params)+128)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = appendID(out, id)
	if c.Method != "" && c.Method != KindToolCall {
		return r.otherLine(out, c, id)
	}
	out = append(out, `,"method":"tools/call","params":{`...)
	n := 0
	sep := func() {
		if n == 0 {
			out = append(out, `"_meta":{`...)
		} else {
			out = append(out, ',')
		}
		n++
	}
	if len(c.Meta) > 0 {
		sep()
		out = append(out, c.Meta...)
	}
	if c.Progress != nil {
		sep()
		out = append(out, `"progressToken":`...)
		out = appendID(out, id)
	}
	if len(r.opts.ProtoMeta) > 0 {
		sep()
		out = append(out, r.opts.ProtoMeta...)
	}
	if n > 0 {
		out = append(out, "},"...)
	}
	out = append(out, `"name":`...)
	out = appendString(out, c.Tool)
	out = append(out, `,"arguments":`...)
	out = append(out, args...)
	if len(c.Task) > 0 {
		out = append(out, `,"task":`...)
		out = append(out, c.Task...)
	}
	if len(c.Params) > 0 { // a retried round's inputResponses and requestState
		out = append(out, ',')
		out = append(out, c.Params...)
	}
	return append(out, "}}\n"...)
}

// otherLine ends the line of a request other than tools/call: its
// method, then params with the _meta members and c.Params.
func (r *Relay) otherLine(out []byte, c *Call, id uint64) []byte {
	out = append(out, `,"method":`...)
	out = appendString(out, c.Method)
	out = append(out, `,"params":{`...)
	n := 0
	for _, m := range [][]byte{c.Meta, r.opts.ProtoMeta} {
		if len(m) == 0 {
			continue
		}
		if n == 0 {
			out = append(out, `"_meta":{`...)
		} else {
			out = append(out, ',')
		}
		n++
		out = append(out, m...)
	}
	if n > 0 {
		out = append(out, '}')
		if len(c.Params) > 0 {
			out = append(out, ',')
		}
	}
	out = append(out, c.Params...)
	return append(out, "}}\n"...)
}

// take removes a pending call, reporting it; nil if it is no longer
// pending (answered, timed out, withdrawn). The timer stays armed: when
// it fires it finds no call past its deadline and is armed again for the
// earliest one left, if any.
func (r *Relay) take(n uint64) *pending {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := r.pending[n]
	if p != nil {
		delete(r.pending, n)
	}
	return p
}

// armLocked makes the timer fire by deadline: it arms it if it is not
// armed, or armed for later. A call whose deadline comes after the one
// the timer waits for (the usual case: the calls of one server share
// their timeout) costs no timer operation.
func (r *Relay) armLocked(deadline time.Time) {
	if !r.at.IsZero() && !deadline.Before(r.at) {
		return
	}
	r.at = deadline
	d := time.Until(deadline)
	if r.timer == nil {
		r.timer = time.AfterFunc(d, r.expire)
	} else {
		r.timer.Reset(d)
	}
}

// expire is the timer's: it fails the calls past their deadline (the
// server gets notifications/cancelled, the caller a *TimeoutError) and
// arms the timer for the earliest deadline left.
func (r *Relay) expire() {
	now := time.Now()
	var late []*pending
	r.mu.Lock()
	r.at = time.Time{}
	if r.paused > 0 { // armed again when the last pause ends
		r.mu.Unlock()
		return
	}
	var next time.Time
	for n, p := range r.pending {
		if !p.deadline.After(now) {
			delete(r.pending, n)
			late = append(late, p)
		} else if next.IsZero() || p.deadline.Before(next) {
			next = p.deadline
		}
	}
	if !next.IsZero() && !r.closed {
		r.armLocked(next)
	}
	r.mu.Unlock()
	for _, p := range late {
		r.cancelUpstream(p.n, "callTimeout")
		r.finish(p, nil, &TimeoutError{Server: r.server, Tool: p.c.Tool, Kind: p.c.Method, Timeout: p.info.Timeout})
	}
}

// finish ends a call: the Hook's After first, then Done, so that what a
// hook records of the call (the activity log) is there by the time its
// caller has the answer ('switchboard call' then 'switchboard activity').
func (r *Relay) finish(p *pending, res *Result, err error) {
	r.after(p, res, err)
	p.c.Done(res, err)
}

func (r *Relay) after(p *pending, res *Result, err error) {
	if h := r.opts.Hook; h != nil && !p.c.FollowUp {
		p.info.Arguments, p.info.Meta = nil, nil
		h.After(&p.info, res, err)
	}
}

// cancelUpstream tells the server that a call is withdrawn.
func (r *Relay) cancelUpstream(n uint64, reason string) {
	line := make([]byte, 0, 128)
	line = append(line, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":`...)
	line = appendID(line, n)
	line = append(line, `,"reason":`...)
	line = appendString(line, reason)
	_ = r.conn.WriteLine(append(line, "}}\n"...))
}

// lineTap takes the answers to the relay's ids off the server's
// connection, in one pass over each line: it checks the line (as the
// connection's decoder would: valid JSON, nested at most 1,000 deep, a
// JSON-RPC 2.0 response) and finds the result's members. Anything else is
// left to the connection's decoder.
func (r *Relay) lineTap(line []byte) bool {
	if !bytes.Contains(line, []byte(`"`+IDPrefix)) {
		return false
	}
	a, err := r.answers.scan(line)
	if err != nil || !a.version || a.method || len(a.id) < len(IDPrefix)+3 || a.id[0] != '"' ||
		!bytes.HasPrefix(a.id[1:], []byte(IDPrefix)) || bytes.IndexByte(a.id[1:len(a.id)-1], '\\') >= 0 {
		return false
	}
	if (a.res.Raw == nil) == (a.rpcErr == nil) {
		return false // the decoder says what is wrong with it
	}
	n, ok := idNumber(a.id)
	if !ok {
		return true // an id of ours that no call had: dropped, as a late answer
	}
	p := r.take(n)
	if p == nil {
		return true // a late answer is dropped: the go-sdk never asked
	}
	if a.rpcErr != nil {
		r.finish(p, nil, decodeError(a.rpcErr))
		return true
	}
	if !a.object {
		r.finish(p, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"Switchboard server %q answered tool %q with a result that is not a JSON object", r.server, p.c.Tool)})
		return true
	}
	r.finish(p, &a.res, nil)
	return true
}

// answer is what one pass over a response line finds: the envelope's
// members and, when the result is an object, its members.
type answer struct {
	id, rpcErr      []byte
	version, method bool
	res             Result
	object          bool // the result is an object (res's members are set)
}

// answerScanner takes answers apart in one pass each (scan), with its
// callbacks made once: closures made per answer escaped to the heap. It
// is for one goroutine at a time (the connection's reader).
type answerScanner struct {
	a                 answer
	top, resultMember func(key, val []byte) bool
	sub               func(key []byte) func(key, val []byte) bool
}

func newAnswerScanner() *answerScanner {
	as := &answerScanner{}
	a := &as.a
	as.resultMember = func(key, val []byte) bool {
		switch string(key) {
		case `"_meta"`:
			a.res.Meta = val
		case `"content"`:
			a.res.Content = val
		case `"structuredContent"`:
			a.res.StructuredContent = val
		case `"isError"`:
			a.res.IsError = string(val) == "true"
		case `"resultType"`:
			a.res.Round = string(val) == `"input_required"`
		}
		return true
	}
	as.top = func(key, val []byte) bool {
		switch string(key) {
		case `"jsonrpc"`:
			a.version = string(val) == `"2.0"`
		case `"id"`:
			a.id = val
		case `"result"`:
			a.res.Raw = val
			a.object = val[0] == '{'
		case `"error"`:
			a.rpcErr = val
		case `"method"`:
			a.method = true
		}
		return true
	}
	as.sub = func(key []byte) func(key, val []byte) bool {
		if string(key) == `"result"` {
			a.res = Result{} // a repeated key: the last one counts
			return as.resultMember
		}
		return nil
	}
	return as
}

// scan checks a line (valid JSON, nested at most maxAnswerDepth deep, an
// object) and finds its members and its result's, in one pass. The
// answer is valid until the next scan.
func (as *answerScanner) scan(line []byte) (*answer, error) {
	as.a = answer{}
	s := scanner{b: line, max: maxAnswerDepth}
	e, err := s.membersSub(0, as.top, as.sub)
	if err != nil {
		return nil, err
	}
	if s.ws(e) != len(line) {
		return nil, errSyntax
	}
	return &as.a, nil
}

// decodeError is a server's error member as a *jsonrpc.Error.
func decodeError(raw []byte) *jsonrpc.Error {
	var e jsonrpc.Error
	if err := json.Unmarshal(raw, &e); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server answered with an error that does not decode: " + err.Error()}
	}
	return &e
}

// ScanResult checks a tools/call result (one JSON object) and finds its
// members; the Result's slices alias raw.
func ScanResult(raw json.RawMessage) (*Result, error) {
	res, ok := scanResult(raw)
	if !ok {
		return nil, errors.New("the result is not a JSON object")
	}
	return res, nil
}

// scanResult finds the members of a result object (already checked).
func scanResult(raw []byte) (*Result, bool) {
	res := &Result{Raw: raw}
	s := scanner{b: raw, max: maxAnswerDepth}
	i := s.ws(0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	e, err := s.members(i, func(key, val []byte) bool {
		switch string(key) {
		case `"_meta"`:
			res.Meta = val
		case `"content"`:
			res.Content = val
		case `"structuredContent"`:
			res.StructuredContent = val
		case `"isError"`:
			res.IsError = string(val) == "true"
		case `"resultType"`:
			res.Round = string(val) == `"input_required"`
		}
		return true
	})
	return res, err == nil && s.ws(e) == len(raw)
}

// tap takes what the line tap left of the relay's traffic: the progress
// notifications of its calls, and an answer that came in a batch.
func (r *Relay) tap(msg jsonrpc.Message) bool {
	switch m := msg.(type) {
	case *jsonrpc.Response:
		id, ok := m.ID.Raw().(string)
		if !ok || len(id) < len(IDPrefix) || id[:len(IDPrefix)] != IDPrefix {
			return false
		}
		var p *pending
		if n, ok := idNumber([]byte(`"` + id + `"`)); ok {
			p = r.take(n)
		}
		if p != nil {
			var se *SendError
			if m.Error != nil && errors.As(m.Error, &se) {
				// The connection could not send the request (a remote
				// server's HTTP request failed).
				state := "restarting"
				if r.opts.StateAfterClose != nil {
					state = r.opts.StateAfterClose()
				}
				r.finish(p, nil, &StoppedError{Server: r.server, Tool: p.c.Tool, Kind: p.c.Method, Reason: se.Error(), State: state})
			} else if m.Error != nil {
				var rpc *jsonrpc.Error
				if !errors.As(m.Error, &rpc) {
					rpc = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: m.Error.Error()}
				}
				r.finish(p, nil, rpc)
			} else if res, ok := scanResult(m.Result); ok {
				r.finish(p, res, nil)
			} else {
				r.finish(p, nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
					"Switchboard server %q answered tool %q with a result that is not a JSON object", r.server, p.c.Tool)})
			}
		}
		return true
	case *jsonrpc.Request:
		if m.Method != "notifications/progress" || !bytes.Contains(m.Params, []byte(`"`+IDPrefix)) {
			return false
		}
		var tok []byte
		if objectMembers(m.Params, maxAnswerDepth, func(key, val []byte) bool {
			if string(key) == `"progressToken"` {
				tok = val
			}
			return true
		}) != nil || len(tok) < 2 || tok[0] != '"' {
			return false
		}
		if !bytes.HasPrefix(tok[1:], []byte(IDPrefix)) {
			return false
		}
		n, ok := idNumber(tok)
		if !ok {
			return true // a token of ours that no call has
		}
		r.mu.Lock()
		p := r.pending[n]
		r.mu.Unlock()
		if p != nil && p.c.Progress != nil {
			p.c.Progress(m.Params)
		}
		return true
	}
	return false
}

// closeAll fails the calls of a connection that closed: the server exited
// or was stopped.
func (r *Relay) closeAll() {
	r.mu.Lock()
	r.closed = true
	calls := r.pending
	r.pending = map[uint64]*pending{}
	if r.timer != nil {
		r.timer.Stop()
		r.at = time.Time{}
	}
	r.mu.Unlock()
	if len(calls) == 0 {
		return
	}
	reason := "it stopped"
	if err := r.conn.Err(); err != nil {
		reason = err.Error()
	}
	state := "restarting"
	if r.opts.StateAfterClose != nil {
		state = r.opts.StateAfterClose()
	}
	for _, p := range calls {
		r.finish(p, nil, &StoppedError{Server: r.server, Tool: p.c.Tool, Kind: p.c.Method, Reason: reason, State: state})
	}
}

// Starter starts relayed calls: a [Relay], or what finds one for a server
// (the host's gateway backend, which also holds a call while its server
// restarts).
type Starter interface {
	StartToolCall(server string, c *Call) (stop func(), err error)
}

// Do makes a call through s and waits for its answer, or for ctx: the
// synchronous form for callers that have a goroutine to spare (the go-sdk
// server's tool handler, the API's servers.call). The result is the
// server's result object, copied; a call that ctx ends is withdrawn, and
// Do returns ctx's error. c.Done is Do's own.
func Do(ctx context.Context, s Starter, server string, c *Call) (json.RawMessage, *Result, error) {
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	c.Done = func(res *Result, err error) {
		if res != nil {
			// Valid only during Done: a copy, whose members are found
			// again in it.
			res, _ = scanResult(bytes.Clone(res.Raw))
		}
		done <- outcome{res, err}
	}
	stop, err := s.StartToolCall(server, c)
	if err != nil {
		return nil, nil, err
	}
	select {
	case o := <-done:
		if o.err != nil {
			return nil, nil, o.err
		}
		return o.res.Raw, o.res, nil
	case <-ctx.Done():
		stop()
		return nil, nil, ctx.Err()
	}
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// AppendString appends s to b as a JSON string.
func AppendString(b []byte, s string) []byte { return appendString(b, s) }
