//go:build unix

package supervisor_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// lockedKeyring is a resolver that never gives its secret, and records
// when it was asked (from the test's start).
type lockedKeyring struct {
	start time.Time
	mu    sync.Mutex
	asked []time.Duration
}

func (k *lockedKeyring) Resolve(context.Context, string) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.asked = append(k.asked, time.Since(k.start))
	return nil, errors.New("the keyring is locked")
}

func (k *lockedKeyring) times() []time.Duration {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.asked)
}

// TestSecretRetryOnTheClock: a server whose secret cannot be read waits
// for it (no process, no failure) and asks again on its slow backoff:
// SecretRetry (15 s), doubling up to SecretRetryMax (5 min); a Retry asks
// at once and starts the backoff again. On a synctest bubble's clock: half
// an hour passes. (TestWaitingForSecret checks the wait and the start
// once the secret comes, with a real process.)
func TestSecretRetryOnTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &lockedKeyring{start: time.Now()}
		f := start(t, setup{role: "legacy", secrets: k, policy: supervisor.Policy{SecretRetry: 15 * time.Second, SecretRetryMax: 5 * time.Minute},
			env: map[string]engine.EnvValue{"API_TOKEN": engine.SecretRef("github-token")}})
		testkit.Advance(30 * time.Minute)
		s := func(n int) time.Duration { return time.Duration(n) * time.Second }
		want := []time.Duration{0, s(15), s(45), s(105), s(225), s(465), s(765), s(1065), s(1365), s(1665)}
		if got := k.times(); !slices.Equal(got, want) {
			t.Errorf("the keyring was asked at %v, want %v", got, want)
		}
		if st := f.sup.Status(); st.State != supervisor.WaitingSecret || st.Failures != 0 || st.PID != 0 {
			t.Errorf("after half an hour: state %q, failures %d, pid %d; want waiting for its secret, no failure, no process", st.State, st.Failures, st.PID)
		}
		if n := countEvents(f.evs(t), "start"); n != 0 {
			t.Errorf("the helper started %d times without its secret", n)
		}
		f.sup.Retry()
		testkit.Advance(0)
		testkit.Advance(15*time.Second - time.Millisecond)
		got := k.times()
		if want = append(want, s(1800), s(1815)); !slices.Equal(got, want[:len(want)-1]) {
			t.Errorf("after a Retry the keyring was asked at %v, want %v", got, want[:len(want)-1])
		}
		testkit.Advance(time.Millisecond)
		if got := k.times(); !slices.Equal(got, want) {
			t.Errorf("15 s after a Retry the keyring was asked at %v, want %v", got, want)
		}
	})
}
