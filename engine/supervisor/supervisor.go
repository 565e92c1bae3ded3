// Package supervisor keeps one MCP server running: it connects the go-sdk
// client over a fresh [stdio.Transport] for each attempt, restarts the
// server after it exits with exponential backoff up to a limit, and
// publishes each new [*mcp.ClientSession] and every change of state.
//
// A session never outlives its process: when the process ends, the
// session's in-flight requests fail with the [*stdio.CloseError] that says
// why, and they are not retried.
package supervisor

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/engine/stdio"
)

// State is where a supervised server is in its life.
type State string

// The states of a supervised server.
const (
	Stopped       State = "stopped"            // not running, and not meant to
	Starting      State = "starting"           // process started, handshake under way
	Running       State = "running"            // the session is up
	Backoff       State = "restarting"         // waiting before the next attempt
	WaitingSecret State = "waiting for secret" // a secret could not be read; Retry when it can
	WaitingUser   State = "waiting for user"   // only the user can cure the failure (a *UserError); Retry then
	Failed        State = "failed"             // gave up after MaxReconnects consecutive failures
	Stopping      State = "stopping"           // the stop ladder is running
)

// States lists every state a supervisor can report, in the order of a
// server's life. A new state goes here too: the host's tests iterate
// this list, so a state the host does not map fails them.
func States() []State {
	return []State{Stopped, Starting, Running, Backoff, WaitingSecret, WaitingUser, Failed, Stopping}
}

// Eras of the MCP protocol, as a server speaks it.
const (
	EraModern = "modern" // 2026-07-28 and later: server/discover
	EraLegacy = "legacy" // initialize handshake
)

const modernVersion = "2026-07-28"

// Status is a snapshot of a supervised server.
type Status struct {
	Name            string
	State           State
	Era             string    // EraModern or EraLegacy, once a session was up
	ProtocolVersion string    // as negotiated
	PID             int       // the current process, or 0
	StartedAt       time.Time // when the current session came up
	Restarts        int       // restarts since the last user start
	Failures        int       // consecutive failed attempts
	LastError       string    // the last failure, for a person
	LastReason      stdio.Reason
	Stderr          []string  // the last stderr lines when the server failed
	NextAttempt     time.Time // in Backoff: when the next attempt starts
	FailedAt        time.Time // when the server last came to Failed (each time anew: two failures for good in a row differ by it)
	// SecretError, in WaitingSecret, is the secret that could not be read
	// and why (read it only in that state).
	SecretError *engine.SecretError
	// Sandbox is what confines the current (or last) process, nil when
	// its spec has none (docs/sandbox.md).
	Sandbox *sandbox.Status
	// SandboxUnavailable, in Failed: the spec requires a sandbox this
	// machine cannot enforce; no retry can help (LastError says why).
	SandboxUnavailable bool
}

// Policy is the restart policy. The zero value means the defaults.
type Policy struct {
	Initial     time.Duration // first backoff, default 500 ms
	Max         time.Duration // backoff cap, default 30 s
	StableAfter time.Duration // uptime that resets the failure count, default 60 s
	Jitter      float64       // +- fraction of each delay, default 0.2
	// SecretRetry and SecretRetryMax pace the retries of a server that
	// waits for a secret (a locked keyring that may be unlocked by other
	// means, such as a login): SecretRetry first, doubling up to
	// SecretRetryMax; defaults 15 s and 5 min. A Start, a Retry (the secret
	// was set) or a Restart retries at once.
	SecretRetry    time.Duration
	SecretRetryMax time.Duration
}

func (p *Policy) fill() {
	if p.Initial <= 0 {
		p.Initial = 500 * time.Millisecond
	}
	if p.Max <= 0 {
		p.Max = 30 * time.Second
	}
	if p.StableAfter <= 0 {
		p.StableAfter = 60 * time.Second
	}
	if p.SecretRetry <= 0 {
		p.SecretRetry = 15 * time.Second
	}
	if p.SecretRetryMax <= 0 {
		p.SecretRetryMax = 5 * time.Minute
	}
	p.SecretRetryMax = max(p.SecretRetryMax, p.SecretRetry)
	if p.Jitter < 0 || p.Jitter >= 1 {
		p.Jitter = 0
	} else if p.Jitter == 0 {
		p.Jitter = 0.2
	}
}

// delay returns the backoff before attempt n+1 after n consecutive
// failures: Initial doubling up to Max, with jitter.
func (p *Policy) delay(n int) time.Duration {
	d := p.Initial
	for i := 1; i < n && d < p.Max; i++ {
		d *= 2
	}
	d = min(d, p.Max)
	j := 1 + p.Jitter*(2*rand.Float64()-1)
	return time.Duration(float64(d) * j)
}

// secretDelay returns the wait before the n+1st try of a secret after n
// consecutive failed tries: SecretRetry doubling up to SecretRetryMax.
func (p *Policy) secretDelay(n int) time.Duration {
	d := p.SecretRetry
	for i := 1; i < n && d < p.SecretRetryMax; i++ {
		d *= 2
	}
	return min(d, p.SecretRetryMax)
}

// Options configure a [Supervisor].
type Options struct {
	Spec   engine.Spec
	Start  engine.StartOptions
	Client *mcp.Client // connects each attempt; required
	Policy Policy
	// FloodRate and FloodWindow override the transport's flood limit.
	FloodRate   int
	FloodWindow time.Duration
	// Transport, if set, replaces the process: each attempt connects the
	// client over the transport it returns (a remote server, which the
	// app reaches over HTTP; see transport.go). Spec then holds only the
	// name and the numeric options the supervisor reads (MaxReconnects,
	// HandshakeTimeout). An error that wraps an [*engine.SecretError]
	// waits for the secret, as a process's does.
	Transport func(ctx context.Context) (mcp.Transport, error)
	// OnChange is called after every change of state, in order, with the
	// new status and the current session (nil unless Running). It must not
	// block for long, nor call Stop and wait on its result.
	OnChange func(Status, *mcp.ClientSession)
}

// Supervisor runs one server. Its methods are safe for concurrent use.
type Supervisor struct {
	opts Options

	notify sync.Mutex // serializes OnChange calls

	mu      sync.Mutex
	spec    engine.Spec
	st      Status
	session *mcp.ClientSession
	proc    *engine.Process
	conn    *stdio.Conn
	cancel  context.CancelFunc // stops the current run
	runDone chan struct{}      // closed when the current run has ended and its ladder finished
	retry   chan struct{}
	// probe, if set, replaces the spec's ProbeTimeout: it grows when a
	// server answered server/discover after the probe had timed out.
	probe time.Duration
}

// New returns a stopped supervisor.
func New(opts Options) *Supervisor {
	opts.Policy.fill()
	s := &Supervisor{opts: opts, spec: opts.Spec, retry: make(chan struct{}, 1)}
	s.st = Status{Name: opts.Spec.Name, State: Stopped}
	closed := make(chan struct{})
	close(closed)
	s.runDone = closed
	return s
}

// Status returns a snapshot of the server's state.
func (s *Supervisor) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.clone()
}

// Session returns the current session, or nil unless the server is
// running.
func (s *Supervisor) Session() *mcp.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.session
}

// Process returns the current process, or nil.
func (s *Supervisor) Process() *engine.Process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc
}

// Conn returns the current process's connection, or nil.
func (s *Supervisor) Conn() *stdio.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn
}

// Spec returns the spec the next attempt will use.
func (s *Supervisor) Spec() engine.Spec {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spec
}

func (s Status) clone() Status {
	s.Stderr = append([]string(nil), s.Stderr...)
	return s
}

func (s *Supervisor) update(f func(*Status)) {
	s.notify.Lock()
	defer s.notify.Unlock()
	s.mu.Lock()
	f(&s.st)
	st, sess := s.st.clone(), s.session
	s.mu.Unlock()
	if s.opts.OnChange != nil {
		s.opts.OnChange(st, sess)
	}
}

// Start starts the server if it is not running (a user's start: the
// failure count is reset, and a failed server gets a new chance). A server
// that waits for a secret or for the user tries again at once.
func (s *Supervisor) Start() {
	s.mu.Lock()
	if s.cancel != nil {
		waiting := s.st.State == WaitingSecret || s.st.State == WaitingUser
		s.mu.Unlock()
		if waiting {
			s.Retry()
		}
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	// The new run waits for the whole previous run, which may still be
	// ending (Restart: Stop, then Start at once), and its last ladder.
	prev := s.runDone
	done := make(chan struct{})
	s.runDone = done
	s.mu.Unlock()
	s.update(func(st *Status) {
		st.Failures, st.Restarts, st.LastError, st.LastReason, st.Stderr = 0, 0, "", "", nil
	})
	go s.run(ctx, prev, done)
}

// Stop stops the server and returns a channel closed when its stop ladder
// has finished (nothing of it is left). It does not wait itself.
func (s *Supervisor) Stop() <-chan struct{} {
	s.mu.Lock()
	cancel, done := s.cancel, s.runDone
	s.cancel = nil
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return done
}

// Restart stops the server and starts it again once its stop ladder has
// finished, so that two instances never overlap.
func (s *Supervisor) Restart() {
	s.Stop()
	s.Start()
}

// Update replaces the spec. A running server is restarted with it (a
// change of the entry resets the failure count).
func (s *Supervisor) Update(spec engine.Spec) {
	s.mu.Lock()
	s.spec = spec
	s.probe = 0
	running := s.cancel != nil
	s.mu.Unlock()
	if running {
		s.Restart()
	}
}

// Retry wakes a server that waits for a secret or for the user. A Retry
// during an attempt's start is kept for the wait that may follow it (the
// attempt may have read the state before the change that Retry
// announces); one that comes while the server runs is forgotten.
func (s *Supervisor) Retry() {
	select {
	case s.retry <- struct{}{}:
	default:
	}
}

// forgetRetry drops a Retry that no wait needs any more: at an attempt's
// start (the attempt sees the change) and once the server runs.
func (s *Supervisor) forgetRetry() {
	select {
	case <-s.retry:
	default:
	}
}

// UserError is an attempt's failure that only the user can cure (a remote
// server that is not signed in, or whose sign-in was refused): trying
// again cannot help, so the supervisor waits in WaitingUser, using up no
// attempts and trying nothing, until Start, Retry or Restart.
type UserError struct{ Err error }

func (e *UserError) Error() string { return e.Err.Error() }
func (e *UserError) Unwrap() error { return e.Err }

// handshakeRemedy is what to do about a handshake that timed out: a
// program that is not an MCP server over stdio (or waits for something)
// never answers, and a first start that downloads packages may need
// longer.
const handshakeRemedy = "check that the command runs an MCP server over stdio, or raise handshakeTimeout if its first start is slow"

// errStopped ends a run.
var errStopped = errors.New("stopped")

func (s *Supervisor) run(ctx context.Context, prev <-chan struct{}, done chan struct{}) {
	var last <-chan struct{} = prev
	secretTries := 0 // consecutive attempts that could not read a secret
	defer func() {
		// The run is over. done, which Stop returns and the next run
		// waits for, closes when its last ladder ends.
		s.mu.Lock()
		s.session, s.proc, s.conn = nil, nil, nil
		s.mu.Unlock()
		go func() {
			<-last
			close(done)
		}()
	}()
	for {
		// Two instances never overlap: wait for the previous ladder.
		select {
		case <-last:
		case <-ctx.Done():
			s.stopped()
			return
		}
		s.forgetRetry()
		err := s.attempt(ctx, &last)
		if errors.Is(err, errStopped) {
			s.stopped()
			return
		}
		var se *engine.SecretError
		if errors.As(err, &se) {
			// A locked keyring does not use up attempts: wait until asked
			// (a secret set, a start), or retry with a slow backoff in case
			// the keyring was unlocked by other means.
			secretTries++
			wait := s.opts.Policy.secretDelay(secretTries)
			s.update(func(st *Status) {
				st.State, st.PID, st.LastError, st.LastReason = WaitingSecret, 0, err.Error(), ""
				st.SecretError = se
				st.NextAttempt = time.Now().Add(wait)
			})
			t := time.NewTimer(wait)
			select {
			case <-s.retry:
				t.Stop()
				secretTries = 0
				continue
			case <-t.C:
				continue
			case <-ctx.Done():
				t.Stop()
				s.stopped()
				return
			}
		}
		secretTries = 0
		var user *UserError
		if errors.As(err, &user) {
			s.update(func(st *Status) {
				st.State, st.PID, st.StartedAt, st.LastError, st.LastReason = WaitingUser, 0, time.Time{}, err.Error(), ""
				st.NextAttempt = time.Time{}
			})
			select {
			case <-s.retry:
				continue
			case <-ctx.Done():
				s.stopped()
				return
			}
		}
		var ue *sandbox.UnavailableError
		if errors.As(err, &ue) {
			// Retrying cannot help: the kernel will not grow Landlock.
			s.update(func(st *Status) {
				st.State, st.PID, st.StartedAt, st.LastError, st.LastReason = Failed, 0, time.Time{}, err.Error(), ""
				st.FailedAt = time.Now()
				st.Failures++
				st.SandboxUnavailable = true
				st.Sandbox = nil
				if s.runDone == done {
					s.cancel = nil
				}
			})
			return
		}
		var failed bool
		var wait time.Duration
		checked := s.Spec()
		_ = checked.Check() // fills in the default MaxReconnects
		max := checked.MaxReconnects
		s.update(func(st *Status) {
			st.Failures++
			n := st.Failures
			st.PID, st.StartedAt, st.LastError = 0, time.Time{}, err.Error()
			st.LastReason = ""
			var ce *stdio.CloseError
			if errors.As(err, &ce) {
				st.LastReason = ce.Reason
				st.Stderr = ce.Stderr
			}
			if n > max {
				st.State, failed = Failed, true
				st.FailedAt = time.Now()
				// A Start as soon as Failed is seen must begin a new
				// run: this one is over (update holds s.mu).
				if s.runDone == done {
					s.cancel = nil
				}
				return
			}
			wait = s.opts.Policy.delay(n)
			st.State, st.NextAttempt = Backoff, time.Now().Add(wait)
			st.Restarts++
		})
		if failed {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			s.stopped()
			return
		}
	}
}

func (s *Supervisor) stopped() {
	s.update(func(st *Status) {
		st.State, st.PID, st.StartedAt, st.NextAttempt = Stopped, 0, time.Time{}, time.Time{}
	})
}

// capture remembers the Conn the SDK gets from the transport, so the
// supervisor can close it directly.
type capture struct {
	t    *stdio.Transport
	got  func(*stdio.Conn)
	conn *stdio.Conn
}

func (c *capture) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c.conn = conn.(*stdio.Conn)
	c.got(c.conn)
	return conn, nil
}

// attempt runs one process: connect, serve until it ends, and return why.
// *last is set to the process's ladder as soon as it exists.
func (s *Supervisor) attempt(ctx context.Context, last *<-chan struct{}) error {
	if s.opts.Transport != nil {
		return s.attemptTransport(ctx)
	}
	s.mu.Lock()
	spec := s.spec
	if s.probe > 0 {
		spec.ProbeTimeout = s.probe
	}
	s.mu.Unlock()
	s.update(func(st *Status) { st.State, st.NextAttempt = Starting, time.Time{} })
	var connMu sync.Mutex
	var conn *stdio.Conn
	// abandoned is set when the attempt was given up (stop or timeout)
	// before the connection existed: a secret can take long to read. The
	// connection is closed as soon as it exists, or the handshake would
	// run with no timeout and nothing to end it.
	var abandoned *stdio.CloseError
	tr := &capture{t: &stdio.Transport{
		Spec: spec, Options: s.opts.Start, FloodRate: s.opts.FloodRate, FloodWindow: s.opts.FloodWindow,
	}}
	tr.got = func(c *stdio.Conn) {
		connMu.Lock()
		conn = c
		ab := abandoned
		connMu.Unlock()
		p := c.Process()
		*last = p.Done()
		if ab != nil {
			c.CloseWith(ab.Reason, ab.Detail)
			return
		}
		s.mu.Lock()
		s.proc, s.conn = p, c
		s.mu.Unlock()
		s.update(func(st *Status) { st.PID, st.Sandbox, st.SandboxUnavailable = p.Pid(), p.Sandbox(), false })
	}
	closeConn := func(reason stdio.Reason, detail string) {
		connMu.Lock()
		defer connMu.Unlock()
		if conn != nil {
			conn.CloseWith(reason, detail)
		} else if abandoned == nil {
			abandoned = &stdio.CloseError{Reason: reason, Detail: detail}
		}
	}

	// The handshake gets its own timeout (a cold npx start downloads
	// packages); a deadline on Connect's context would also bind the
	// session, so the timer closes the connection instead.
	checked := spec
	_ = checked.Check()
	timeout := checked.ProbeTimeout + checked.HandshakeTimeout
	type result struct {
		cs  *mcp.ClientSession
		err error
	}
	res := make(chan result, 1)
	go func() {
		cs, err := s.opts.Client.Connect(context.WithoutCancel(ctx), tr, nil)
		res <- result{cs, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var r result
	select {
	case r = <-res:
	case <-timer.C:
		closeConn(stdio.ReasonHandshakeTimeout, fmt.Sprintf("the server did not finish the MCP handshake within %v (the %v probe, then handshakeTimeout %v): %s",
			timeout, checked.ProbeTimeout, checked.HandshakeTimeout, handshakeRemedy))
		r = <-res
	case <-ctx.Done():
		closeConn(stdio.ReasonStopped, "")
		r = <-res
		if r.cs != nil {
			go r.cs.Close()
		}
		return errStopped
	}
	if r.err != nil {
		connMu.Lock()
		c := conn
		connMu.Unlock()
		if c != nil {
			c.CloseWith(stdio.ReasonIOError, "handshake failed: "+r.err.Error())
			if c.LateProbeAnswers() > 0 {
				// The server was slower to start than the probe timeout
				// and answered server/discover late, after the fallback
				// initialize was sent: a modern server refuses that
				// initialize ("duplicate initialize"), and would on every
				// attempt. Give the next attempt's probe more time.
				s.mu.Lock()
				s.probe = min(2*checked.ProbeTimeout, max(checked.HandshakeTimeout, checked.ProbeTimeout))
				s.mu.Unlock()
			}
			// Why the connection closed, unless it was closed here or by
			// the SDK (stopped) after the handshake failed: then the
			// SDK's error says more.
			if ce := c.Err(); ce != nil {
				var want *stdio.CloseError
				if errors.As(ce, &want) && want.Reason != stdio.ReasonIOError && want.Reason != stdio.ReasonStopped {
					return lastWords(c, ce)
				}
			}
		}
		return r.err
	}
	cs := r.cs
	up := s.running(cs)

	waitErr := make(chan error, 1)
	go func() { waitErr <- cs.Wait() }()
	var err error
	select {
	case <-ctx.Done():
		s.update(func(st *Status) { st.State = Stopping })
		conn.Close() // directly: a hung request must not delay the ladder
		<-waitErr
		err = errStopped
	case <-waitErr:
		err = conn.Err()
		if err == nil {
			err = errors.New("the session ended")
		}
		err = lastWords(conn, err)
	}
	s.mu.Lock()
	s.session = nil
	s.mu.Unlock()
	go cs.Close() // releases the SDK's side; the connection is already closed
	if err != errStopped && time.Since(up) >= s.opts.Policy.StableAfter {
		s.update(func(st *Status) { st.Failures = 0 })
	}
	return err
}

// stderrWait bounds the wait for an exited server's stop ladder, after
// which its captured stderr is complete.
const stderrWait = 500 * time.Millisecond

// lastWords returns err with the last stderr lines of a server that has
// exited, read once its ladder has finished (or after stderrWait). The
// CloseError took them when the connection closed, when the lines the
// server wrote just before exiting (its crash report) may still have been
// in the pipe.
func lastWords(c *stdio.Conn, err error) error {
	var ce *stdio.CloseError
	p := c.Process()
	if !errors.As(err, &ce) || p == nil || p.Stderr() == nil {
		return err
	}
	select {
	case <-p.Exited():
	default:
		return err
	}
	t := time.NewTimer(stderrWait)
	defer t.Stop()
	select {
	case <-p.Done():
	case <-t.C:
	}
	withLines := *ce
	withLines.Stderr = p.Stderr().Tail(20)
	return &withLines
}

// running publishes the session cs as up: its era and protocol version
// from its handshake, and no error (local and remote servers alike). It
// returns when the session came up.
func (s *Supervisor) running(cs *mcp.ClientSession) time.Time {
	era, ver := EraLegacy, ""
	if ir := cs.InitializeResult(); ir != nil {
		ver = ir.ProtocolVersion
		if ver >= modernVersion {
			era = EraModern
		}
	}
	up := time.Now()
	s.mu.Lock()
	s.session = cs
	s.mu.Unlock()
	s.forgetRetry()
	s.update(func(st *Status) {
		st.State, st.Era, st.ProtocolVersion, st.StartedAt = Running, era, ver, up
		st.LastError, st.LastReason, st.Stderr = "", "", nil
	})
	return up
}
