//go:build unix

package supervisor_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/stdio"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

func TestStartModern(t *testing.T) {
	t.Parallel()
	testStart(t, "modern", supervisor.EraModern, "2026-07-28")
}

func TestStartLegacy(t *testing.T) {
	t.Parallel()
	testStart(t, "legacy", supervisor.EraLegacy, "2025-11-25")
}

func testStart(t *testing.T, role, era, version string) {
	f := start(t, setup{role: role})
	run, ri := f.rec.waitState(t, 0, supervisor.Running)

	// OnChange saw Starting (with the pid once the process ran) before
	// Running, and nothing in between but Starting.
	all := f.rec.changes()
	si := -1
	for i, c := range all[:ri] {
		if c.St.State == supervisor.Starting {
			if si < 0 {
				si = i
			}
		} else if si >= 0 {
			t.Errorf("change %d between Starting and Running is %q", i, c.St.State)
		}
		if c.Sess != nil {
			t.Errorf("change %d (%s) carries a session", i, c.St.State)
		}
	}
	if si < 0 {
		t.Fatalf("OnChange did not see Starting before Running: %+v", all[:ri+1])
	}

	st := run.St
	if run.Sess == nil {
		t.Fatal("Running was published without a session")
	}
	if st.PID <= 0 {
		t.Errorf("Running status has PID %d", st.PID)
	}
	if p := f.sup.Process(); p == nil || p.Pid() != st.PID {
		t.Errorf("Process() = %v, status PID %d", p, st.PID)
	}
	if procStart(st.PID) == 0 {
		t.Errorf("PID %d of the status is not a running process", st.PID)
	}
	if st.Era != era || st.ProtocolVersion != version {
		t.Errorf("Era %q, ProtocolVersion %q; want %q, %q", st.Era, st.ProtocolVersion, era, version)
	}
	if st.StartedAt.IsZero() || st.Failures != 0 || st.LastError != "" {
		t.Errorf("StartedAt %v, Failures %d, LastError %q", st.StartedAt, st.Failures, st.LastError)
	}
	if got := f.sup.Status(); got.State != supervisor.Running || got.PID != st.PID || got.Era != era {
		t.Errorf("Status() = %+v, want what OnChange published", got)
	}
	if f.sup.Session() != run.Sess {
		t.Error("Session() is not the session OnChange published")
	}
	echo(t, run.Sess, "hello "+role)
}

func TestCrashLoopBacksOffThenFails(t *testing.T) {
	t.Parallel()
	const maxReconnects = 3
	pol := supervisor.Policy{Initial: 20 * time.Millisecond, Max: 100 * time.Millisecond, Jitter: 0.2}
	f := start(t, setup{role: "crash", policy: pol, spec: func(s *engine.Spec) { s.MaxReconnects = maxReconnects }})
	failed, _ := f.rec.waitState(t, 0, supervisor.Failed)

	// One Starting per attempt, a Backoff after each failed one but the
	// last: MaxReconnects+1 attempts in all.
	all := f.rec.changes()
	var backoffs []change
	var waits []time.Duration // from a Backoff to the next Starting, as OnChange saw them
	startings := 0
	for i, c := range all {
		switch c.St.State {
		case supervisor.Starting:
			if i > 0 && all[i-1].St.State != supervisor.Starting {
				startings++
			}
		case supervisor.Backoff:
			backoffs = append(backoffs, c)
			for _, n := range all[i+1:] {
				if n.St.State == supervisor.Starting {
					waits = append(waits, n.At.Sub(c.At))
					break
				}
			}
		}
	}
	if startings != maxReconnects+1 {
		t.Errorf("%d attempts, want MaxReconnects+1 = %d", startings, maxReconnects+1)
	}
	if n := countEvents(f.evs(t), "start"); n != maxReconnects+1 {
		t.Errorf("the helper started %d times, want %d", n, maxReconnects+1)
	}
	if len(backoffs) != maxReconnects || len(waits) != maxReconnects {
		t.Fatalf("%d Backoff states (%d followed by an attempt), want %d", len(backoffs), len(waits), maxReconnects)
	}
	for i, b := range backoffs {
		if b.St.Failures != i+1 || b.St.NextAttempt.IsZero() || b.St.LastReason != stdio.ReasonExited {
			t.Errorf("Backoff %d: Failures %d, NextAttempt %v, LastReason %q", i, b.St.Failures, b.St.NextAttempt, b.St.LastReason)
		}
	}
	// The delays grow: 20, 40, 80 ms with 20% jitter. OnChange runs before
	// the timer starts, so a measured wait is never shorter than the delay
	// (a lower bound that noise cannot break), and NextAttempt minus the
	// time OnChange saw is never longer (an upper bound).
	for i, w := range waits {
		nominal := pol.Initial << i
		if lo := time.Duration(float64(nominal) * 0.8); w < lo {
			t.Errorf("wait %d was %v, shorter than the least delay %v", i, w, lo)
		}
		if ahead := backoffs[i].St.NextAttempt.Sub(backoffs[i].At); ahead > time.Duration(float64(nominal)*1.2)+time.Millisecond {
			t.Errorf("Backoff %d: NextAttempt %v ahead, more than the greatest delay of %v", i, ahead, nominal)
		}
	}
	if first, last := backoffs[0].St.NextAttempt.Sub(backoffs[0].At), waits[len(waits)-1]; last <= first {
		t.Errorf("the delays did not grow: first at most %v, last %v", first, last)
	}
	t.Logf("waits between attempts: %v", waits)

	st := failed.St
	if st.Failures != maxReconnects+1 || st.LastReason != stdio.ReasonExited || st.PID != 0 {
		t.Errorf("Failed status: Failures %d, LastReason %q, PID %d", st.Failures, st.LastReason, st.PID)
	}
	if !strings.Contains(st.LastError, "exit status 3") {
		t.Errorf("LastError %q does not give the exit status", st.LastError)
	}
	if !containsLine(st.Stderr, crashLine) {
		t.Errorf("Failed status Stderr %q lacks the helper's last line %q", st.Stderr, crashLine)
	}
	for i, b := range backoffs {
		if !containsLine(b.St.Stderr, crashLine) {
			t.Errorf("Backoff %d Stderr %q lacks %q", i, b.St.Stderr, crashLine)
		}
	}
	if got := f.sup.Status(); got.State != supervisor.Failed {
		t.Errorf("Status() is %q after giving up", got.State)
	}
	// No more attempts after Failed: TestBackoffOnTheClock runs an hour
	// of a synctest bubble's clock after it.

	// A user's Start resets the count and tries again.
	from := len(f.rec.changes())
	f.sup.Start()
	c, ci := f.rec.waitState(t, from, supervisor.Starting)
	if c.St.Failures != 0 || c.St.LastError != "" {
		t.Errorf("after Start: Failures %d, LastError %q", c.St.Failures, c.St.LastError)
	}
	again, _ := f.rec.waitState(t, ci, supervisor.Failed)
	if again.St.Failures != maxReconnects+1 {
		t.Errorf("second round ended with Failures %d", again.St.Failures)
	}
	// Each failure for good has its own time: a client that sees only
	// the two Failed states (no Starting between) tells them apart.
	if st.FailedAt.IsZero() || !again.St.FailedAt.After(st.FailedAt) {
		t.Errorf("FailedAt: first round %v, second %v; want set, and later the second time", st.FailedAt, again.St.FailedAt)
	}
	if n := countEvents(f.evs(t), "start"); n != 2*(maxReconnects+1) {
		t.Errorf("the helper started %d times in two rounds, want %d", n, 2*(maxReconnects+1))
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

func TestRestartAfterKill(t *testing.T) {
	t.Parallel()
	f := start(t, setup{role: "modern"})
	first, ri := f.rec.waitState(t, 0, supervisor.Running)
	old := first.Sess

	callErr := make(chan error, 1)
	go func() {
		_, err := old.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
		callErr <- err
	}()
	f.waitEvent(t, "block", 1)
	if err := syscall.Kill(first.St.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}

	select {
	case err := <-callErr:
		var ce *stdio.CloseError
		if !errors.As(err, &ce) {
			t.Fatalf("the in-flight call failed with %v (%T), want a *stdio.CloseError", err, err)
		}
		if ce.Reason != stdio.ReasonExited || ce.Exit == nil || ce.Exit.Signal != "SIGKILL" {
			t.Errorf("CloseError %+v, want exited by SIGKILL", ce)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the in-flight call did not return after its server was killed")
	}

	b, _ := f.rec.waitState(t, ri, supervisor.Backoff)
	if b.St.Failures != 1 || b.St.LastReason != stdio.ReasonExited {
		t.Errorf("Backoff after the kill: Failures %d, LastReason %q", b.St.Failures, b.St.LastReason)
	}
	second, _ := f.rec.waitState(t, ri+1, supervisor.Running)
	if second.Sess == nil || second.Sess == old {
		t.Fatal("no new session after the restart")
	}
	if second.St.PID == first.St.PID || second.St.PID <= 0 {
		t.Errorf("new PID %d, old %d", second.St.PID, first.St.PID)
	}
	if second.St.Restarts != 1 {
		t.Errorf("Restarts %d after one restart", second.St.Restarts)
	}
	echo(t, second.Sess, "after the kill")
	// The old session is dead, and the blocked call was not retried on the
	// new one.
	if _, err := old.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "x"}}); err == nil {
		t.Error("a call on the old session succeeded")
	}
	if n := countEvents(f.evs(t), "block"); n != 1 {
		t.Errorf("block ran %d times, want 1 (no retry)", n)
	}
}

func TestStopWithHungCall(t *testing.T) {
	t.Parallel()
	f := start(t, setup{role: "modern"})
	run, _ := f.rec.waitState(t, 0, supervisor.Running)
	pid := run.St.PID

	callErr := make(chan error, 1)
	go func() {
		_, err := run.Sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "block"})
		callErr <- err
	}()
	f.waitEvent(t, "block", 1)

	t0 := time.Now()
	done := f.sup.Stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop's channel did not close within 10 s: a hung call delayed the stop")
	}
	t.Logf("Stop took %v with a hung call", time.Since(t0))
	requireGone(t, pid)
	if st := f.sup.Status(); st.State != supervisor.Stopped || st.PID != 0 {
		t.Errorf("after Stop: state %q, PID %d", st.State, st.PID)
	}
	if f.sup.Session() != nil || f.sup.Process() != nil {
		t.Error("Session() or Process() not nil after Stop")
	}
	all := f.rec.changes()
	if last := all[len(all)-1].St.State; last != supervisor.Stopped {
		t.Errorf("last published state %q, want stopped", last)
	}
	sawStopping := false
	for _, c := range all {
		sawStopping = sawStopping || c.St.State == supervisor.Stopping
	}
	if !sawStopping {
		t.Error("Stopping was not published")
	}
	select {
	case err := <-callErr:
		var ce *stdio.CloseError
		if !errors.As(err, &ce) || ce.Reason != stdio.ReasonStopped {
			t.Errorf("the hung call failed with %v, want a CloseError with reason stopped", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the hung call did not return after Stop")
	}
	// A second Stop is harmless and its channel is closed.
	select {
	case <-f.sup.Stop():
	case <-time.After(time.Second):
		t.Error("a second Stop's channel is not closed")
	}
}

func TestRestartNeverOverlaps(t *testing.T) {
	t.Parallel()
	// The helper ignores EOF and SIGTERM: its ladder takes the whole
	// StdinGrace+TermGrace, a window in which a new instance must not start.
	f := start(t, setup{role: "modern", env: map[string]engine.EnvValue{stayEnv: engine.Literal("term")}})
	first, ri := f.rec.waitState(t, 0, supervisor.Running)
	f.sup.Restart()
	second, _ := f.rec.waitFor(t, ri+1, "running with a new pid", func(st supervisor.Status) bool {
		return st.State == supervisor.Running && st.PID != first.St.PID
	})
	evs := f.evs(t)
	if n := countEvents(evs, "overlap"); n > 0 {
		t.Errorf("a new instance started while the old one was still there: %v", evs)
	}
	if _, _, _, ok := procStat(first.St.PID); ok {
		t.Errorf("old pid %d still there", first.St.PID)
	}
	echo(t, second.Sess, "restarted")

	// Restart while starting, twice in a row: still one at a time.
	f.sup.Restart()
	f.sup.Restart()
	third, _ := f.rec.waitFor(t, ri+1, "running with a third pid", func(st supervisor.Status) bool {
		return st.State == supervisor.Running && st.PID != first.St.PID && st.PID != second.St.PID
	})
	echo(t, third.Sess, "restarted twice")
	if evs := f.evs(t); countEvents(evs, "overlap") > 0 {
		t.Errorf("instances overlapped: %v", evs)
	}
}

// resolver is a keyring that is locked until opened.
type resolver struct {
	open  atomic.Bool
	calls atomic.Int32
}

func (r *resolver) Resolve(_ context.Context, name string) ([]byte, error) {
	r.calls.Add(1)
	if !r.open.Load() {
		return nil, errors.New("the keyring is locked")
	}
	return []byte("value-of-" + name), nil
}

func TestWaitingForSecret(t *testing.T) {
	t.Parallel()
	res := &resolver{}
	f := start(t, setup{role: "legacy", secrets: res,
		env: map[string]engine.EnvValue{"API_TOKEN": engine.SecretRef("github-token")}})
	w, wi := f.rec.waitState(t, 0, supervisor.WaitingSecret)
	if !strings.Contains(w.St.LastError, "API_TOKEN") || !strings.Contains(w.St.LastError, "github-token") {
		t.Errorf("LastError %q does not name the variable and the secret", w.St.LastError)
	}
	if w.St.Failures != 0 || w.St.PID != 0 {
		t.Errorf("waiting for a secret: Failures %d, PID %d", w.St.Failures, w.St.PID)
	}
	// It waits: no process (TestSecretRetryOnTheClock has its pace).
	if n := res.calls.Load(); n != 1 {
		t.Errorf("the resolver was asked %d times while waiting, want 1", n)
	}
	if n := countEvents(f.evs(t), "start"); n != 0 {
		t.Errorf("the helper started %d times without its secret", n)
	}
	if st := f.sup.Status(); st.State != supervisor.WaitingSecret {
		t.Errorf("state %q while the keyring is locked", st.State)
	}

	res.open.Store(true)
	f.sup.Retry()
	run, _ := f.rec.waitState(t, wi, supervisor.Running)
	if run.St.Failures != 0 {
		t.Errorf("Failures %d after the secret arrived", run.St.Failures)
	}
	echo(t, run.Sess, "unlocked")
}

// TestStartRetriesWaitingSecret: 'servers start' on a server that waits
// for a secret tries the secret again at once (it used to do nothing:
// the run was alive, so Start returned). The periodic retry is an hour
// away here, so only Start can have done it.
func TestStartRetriesWaitingSecret(t *testing.T) {
	t.Parallel()
	res := &resolver{}
	f := start(t, setup{role: "legacy", secrets: res, policy: supervisor.Policy{SecretRetry: time.Hour},
		env: map[string]engine.EnvValue{"API_TOKEN": engine.SecretRef("github-token")}})
	_, wi := f.rec.waitState(t, 0, supervisor.WaitingSecret)
	res.open.Store(true)
	f.sup.Start()
	run, _ := f.rec.waitState(t, wi, supervisor.Running)
	if n := res.calls.Load(); n != 2 {
		t.Errorf("the resolver was asked %d times, want 2 (the first attempt and the start)", n)
	}
	echo(t, run.Sess, "started")
}

// TestSecretRetryBackoff: while a server waits for a secret, the secret is
// tried again with a growing delay, so a keyring unlocked by other means
// (a login, another app) is noticed without a 'secret set'.
func TestSecretRetryBackoff(t *testing.T) {
	t.Parallel()
	res := &resolver{}
	pol := supervisor.Policy{SecretRetry: 20 * time.Millisecond, SecretRetryMax: 80 * time.Millisecond}
	f := start(t, setup{role: "legacy", secrets: res, policy: pol,
		env: map[string]engine.EnvValue{"API_TOKEN": engine.SecretRef("github-token")}})
	// Four waits in a row, each announced with its next attempt.
	var waits []change
	from := 0
	for len(waits) < 4 {
		w, i := f.rec.waitState(t, from, supervisor.WaitingSecret)
		waits = append(waits, w)
		from = i + 1
	}
	for i, w := range waits {
		ahead := w.St.NextAttempt.Sub(w.At)
		nominal := min(pol.SecretRetry<<i, pol.SecretRetryMax)
		if w.St.NextAttempt.IsZero() || ahead > nominal+5*time.Millisecond {
			t.Errorf("wait %d: NextAttempt %v ahead, want at most %v", i, ahead, nominal)
		}
		if i > 0 {
			// The next wait is announced after the delay has passed.
			if gap := w.At.Sub(waits[i-1].At); gap < min(pol.SecretRetry<<(i-1), pol.SecretRetryMax) {
				t.Errorf("wait %d came %v after the one before, sooner than its delay", i, gap)
			}
		}
	}
	if n := countEvents(f.evs(t), "start"); n != 0 {
		t.Errorf("the helper started %d times without its secret", n)
	}
	res.open.Store(true) // unlocked by other means: no Retry, no Start
	run, _ := f.rec.waitState(t, from, supervisor.Running)
	echo(t, run.Sess, "noticed")
}

func TestHandshakeTimeout(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	f := start(t, setup{role: "mute", spec: func(s *engine.Spec) {
		s.ProbeTimeout = 100 * time.Millisecond
		s.HandshakeTimeout = 300 * time.Millisecond
		s.MaxReconnects = -1 // no second attempt
	}})
	started, _ := f.rec.waitFor(t, 0, "starting with a pid", func(st supervisor.Status) bool {
		return st.State == supervisor.Starting && st.PID > 0
	})
	failed, _ := f.rec.waitState(t, 0, supervisor.Failed)
	t.Logf("failed after %v", time.Since(t0))
	if failed.St.LastReason != stdio.ReasonHandshakeTimeout {
		t.Errorf("LastReason %q (%s), want %q", failed.St.LastReason, failed.St.LastError, stdio.ReasonHandshakeTimeout)
	}
	// The error says where the time went and what to do: the sum alone
	// (400ms) matches no option the user set.
	if want := "the server did not finish the MCP handshake within 400ms (the 100ms probe, then handshakeTimeout 300ms): " +
		"check that the command runs an MCP server over stdio, or raise handshakeTimeout if its first start is slow"; !strings.Contains(failed.St.LastError, want) {
		t.Errorf("LastError %q, want it to say %q", failed.St.LastError, want)
	}
	if failed.St.Failures != 1 {
		t.Errorf("Failures %d, want 1", failed.St.Failures)
	}
	// The mute helper was stopped by the ladder.
	select {
	case <-f.sup.Stop():
	case <-time.After(10 * time.Second):
		t.Fatal("the ladder of the timed-out attempt did not finish within 10 s")
	}
	requireGone(t, started.St.PID)
}

func TestUpdateRestartsWithNewSpec(t *testing.T) {
	t.Parallel()
	f := start(t, setup{role: "modern", env: map[string]engine.EnvValue{markEnv: engine.Literal("spec-a")}})
	first, ri := f.rec.waitState(t, 0, supervisor.Running)
	if got := echo(t, first.Sess, "one"); !strings.HasSuffix(got, "spec-a") {
		t.Errorf("echo %q, want the mark spec-a", got)
	}
	// A failure first, so that there is a count to reset.
	_ = syscall.Kill(first.St.PID, syscall.SIGKILL)
	second, ri := f.rec.waitFor(t, ri+1, "running again", func(st supervisor.Status) bool {
		return st.State == supervisor.Running && st.PID != first.St.PID
	})
	if second.St.Failures != 1 {
		t.Fatalf("Failures %d after a kill:\n%s", second.St.Failures, f.rec.dump())
	}

	spec := f.sup.Spec()
	spec.Env = map[string]engine.EnvValue{}
	for k, v := range f.sup.Spec().Env {
		spec.Env[k] = v
	}
	spec.Env[markEnv] = engine.Literal("spec-b")
	f.sup.Update(spec)
	third, _ := f.rec.waitFor(t, ri+1, "running with the new spec", func(st supervisor.Status) bool {
		return st.State == supervisor.Running && st.PID != second.St.PID
	})
	if third.St.Failures != 0 {
		t.Errorf("Failures %d after Update, want 0", third.St.Failures)
	}
	if got := echo(t, third.Sess, "two"); !strings.HasSuffix(got, "spec-b") {
		t.Errorf("echo %q, want the mark spec-b", got)
	}
	for _, e := range f.evs(t) {
		if e.What == "start" && e.PID == third.St.PID && e.Mark != "spec-b" {
			t.Errorf("the new instance started with mark %q", e.Mark)
		}
	}
	if evs := f.evs(t); countEvents(evs, "overlap") > 0 {
		t.Errorf("instances overlapped: %v", evs)
	}
}

func TestStableAfterResetsFailures(t *testing.T) {
	t.Parallel()
	const stable = time.Second
	f := start(t, setup{role: "legacy", policy: supervisor.Policy{StableAfter: stable}})
	killAndCount := func(from int, wait time.Duration) (int, int) {
		t.Helper()
		run, ri := f.rec.waitState(t, from, supervisor.Running)
		time.Sleep(wait)
		if err := syscall.Kill(run.St.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		b, bi := f.rec.waitState(t, ri, supervisor.Backoff)
		return b.St.Failures, bi
	}
	// Killed at once: the failures add up.
	n1, i := killAndCount(0, 0)
	n2, i := killAndCount(i, 0)
	if n1 != 1 || n2 != 2 {
		t.Fatalf("failures %d then %d after quick deaths, want 1 then 2", n1, n2)
	}
	// Up longer than StableAfter: the count starts again.
	n3, _ := killAndCount(i, stable+200*time.Millisecond)
	if n3 != 1 {
		t.Errorf("failures %d after a connection that stayed up past StableAfter, want 1", n3)
	}
}

// TestParallelStops is not parallel to the other tests: it measures time.
func TestParallelStops(t *testing.T) {
	const n = 10
	fs := make([]*fixture, n)
	for i := range fs {
		fs[i] = start(t, setup{role: "modern", env: map[string]engine.EnvValue{stayEnv: engine.Literal("term")},
			spec: func(s *engine.Spec) { s.StdinGrace, s.TermGrace = 300*time.Millisecond, 300*time.Millisecond }})
	}
	pids := make([]int, n)
	for i, f := range fs {
		run, _ := f.rec.waitState(t, 0, supervisor.Running)
		pids[i] = run.St.PID
	}
	spec := fs[0].sup.Spec()
	ladder := spec.StdinGrace + spec.TermGrace

	t0 := time.Now()
	var wg sync.WaitGroup
	for _, f := range fs {
		done := f.sup.Stop()
		wg.Go(func() { <-done })
	}
	wg.Wait()
	took := time.Since(t0)
	t.Logf("stopping %d servers that ignore EOF and SIGTERM took %v (ladder %v)", n, took, ladder)
	if took < ladder {
		t.Errorf("the stops took %v, less than the ladder %v: did they wait for it?", took, ladder)
	}
	// One after another, they would take n ladders at least: the one
	// bound that no load on the machine can make a parallel stop reach
	// (a tighter one failed on a busy machine).
	if took >= n*ladder {
		t.Errorf("the stops took %v, %d ladders of %v: they ran one after another", took, n, ladder)
	}
	for _, pid := range pids {
		requireGone(t, pid)
	}
}

// TestStopDuringHandshake stops a server that never answers while its
// handshake is under way: Stop must not wait for the handshake timeout.
func TestStopDuringHandshake(t *testing.T) {
	t.Parallel()
	f := start(t, setup{role: "mute", spec: func(s *engine.Spec) { s.HandshakeTimeout = time.Minute }})
	c, _ := f.rec.waitFor(t, 0, "starting with a pid", func(st supervisor.Status) bool {
		return st.State == supervisor.Starting && st.PID > 0
	})
	t0 := time.Now()
	select {
	case <-f.sup.Stop():
	case <-time.After(10 * time.Second):
		t.Fatal("Stop during the handshake did not finish within 10 s")
	}
	t.Logf("Stop during the handshake took %v", time.Since(t0))
	requireGone(t, c.St.PID)
	if st := f.sup.Status(); st.State != supervisor.Stopped {
		t.Errorf("state %q after Stop", st.State)
	}
}

// slowResolver is a keyring that answers only when released (a prompt the
// user has not answered yet).
type slowResolver struct {
	entered chan struct{}
	release chan struct{}
	once    sync.Once
}

func newSlowResolver() *slowResolver {
	return &slowResolver{entered: make(chan struct{}), release: make(chan struct{})}
}

func (r *slowResolver) Resolve(_ context.Context, name string) ([]byte, error) {
	r.once.Do(func() { close(r.entered) })
	<-r.release
	return []byte("value-of-" + name), nil
}

// TestStopWhileResolvingSecret stops a server whose process is not started
// yet (its secret is being read): once the secret arrives, the process must
// be stopped at once, not left in a handshake that nothing times out.
func TestStopWhileResolvingSecret(t *testing.T) {
	t.Parallel()
	res := newSlowResolver()
	f := start(t, setup{role: "mute", secrets: res,
		env: map[string]engine.EnvValue{"API_TOKEN": engine.SecretRef("token")}})
	<-res.entered
	done := f.sup.Stop()
	close(res.release)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not finish within 10 s of the secret's arrival")
	}
	if st := f.sup.Status(); st.State != supervisor.Stopped {
		t.Errorf("state %q after Stop", st.State)
	}
	for _, e := range f.evs(t) {
		if e.What == "start" {
			requireGone(t, e.PID)
		}
	}
}

// TestHandshakeTimeoutCountsSecretTime: a secret that takes longer than
// the handshake timeout must not leave the handshake without one.
func TestHandshakeTimeoutCountsSecretTime(t *testing.T) {
	t.Parallel()
	res := newSlowResolver()
	f := start(t, setup{role: "mute", secrets: res,
		env: map[string]engine.EnvValue{"API_TOKEN": engine.SecretRef("token")},
		spec: func(s *engine.Spec) {
			s.ProbeTimeout = 100 * time.Millisecond
			s.HandshakeTimeout = 300 * time.Millisecond
			s.MaxReconnects = -1
		}})
	<-res.entered
	time.Sleep(600 * time.Millisecond) // past ProbeTimeout+HandshakeTimeout
	close(res.release)
	failed, _ := f.rec.waitState(t, 0, supervisor.Failed)
	if failed.St.LastReason != stdio.ReasonHandshakeTimeout {
		t.Errorf("LastReason %q (%s), want %q", failed.St.LastReason, failed.St.LastError, stdio.ReasonHandshakeTimeout)
	}
}

// TestSlowModernServer: a modern server that starts slower than the probe
// timeout answers server/discover after the fallback initialize was sent,
// and a go-sdk server then refuses the initialize. The supervisor gives the
// next attempts a longer probe until the server is found modern.
func TestSlowModernServer(t *testing.T) {
	t.Parallel()
	f := start(t, setup{role: "modern", env: map[string]engine.EnvValue{slowEnv: engine.Literal("300ms")},
		spec: func(s *engine.Spec) {
			s.ProbeTimeout = 100 * time.Millisecond
			s.MaxReconnects = 10
		}})
	run, _ := f.rec.waitState(t, 0, supervisor.Running)
	if run.St.Era != supervisor.EraModern {
		t.Errorf("era %q, want modern", run.St.Era)
	}
	if run.St.Failures == 0 {
		t.Fatalf("no failed attempt: the helper was not slower than the probe\n%s", f.rec.dump())
	}
	for _, c := range f.rec.changes() {
		if c.St.State != supervisor.Backoff {
			continue
		}
		// The failure says what the SDK said, not "closed: stopped".
		if c.St.LastReason == stdio.ReasonStopped || !strings.Contains(c.St.LastError, "initialize") {
			t.Errorf("a failed attempt reported reason %q, error %q", c.St.LastReason, c.St.LastError)
		}
	}
	echo(t, run.Sess, "slow but modern")
}
