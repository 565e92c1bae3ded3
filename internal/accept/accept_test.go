package accept

import (
	"bytes"
	"errors"
	"log/slog"
	"net"
	"strings"
	"syscall"
	"testing"
)

// script is a listener whose Accept returns its steps in turn: a conn, or
// an error; past the end, net.ErrClosed.
type script struct {
	steps []any
	n     int
}

func (s *script) Accept() (net.Conn, error) {
	if s.n >= len(s.steps) {
		return nil, net.ErrClosed
	}
	st := s.steps[s.n]
	s.n++
	if err, ok := st.(error); ok {
		return nil, err
	}
	return st.(net.Conn), nil
}
func (s *script) Close() error   { return nil }
func (s *script) Addr() net.Addr { return &net.UnixAddr{Name: "test", Net: "unix"} }

func TestLoop(t *testing.T) {
	c1, c1b := net.Pipe()
	defer c1.Close()
	defer c1b.Close()
	c2, c2b := net.Pipe()
	defer c2.Close()
	defer c2b.Close()
	emfile := &net.OpError{Op: "accept", Net: "unix", Err: syscall.EMFILE}

	t.Run("retries what is not the close", func(t *testing.T) {
		var logs bytes.Buffer
		l := &script{steps: []any{emfile, emfile, c1, emfile, c2}}
		var got []net.Conn
		err := Loop(l, slog.New(slog.NewTextHandler(&logs, nil)), func() bool { return false }, func(nc net.Conn) error {
			got = append(got, nc)
			return nil
		})
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Loop returned %v, want net.ErrClosed", err)
		}
		if len(got) != 2 || got[0] != c1 || got[1] != c2 {
			t.Errorf("served %v, want both connections in order", got)
		}
		// The pause doubles from 5 ms, and starts over after a success.
		var pauses []string
		for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
			if !strings.Contains(line, "accept failed; retrying") || !strings.Contains(line, "too many open files") {
				t.Errorf("log line %q does not say the accept failed and why", line)
			}
			_, in, _ := strings.Cut(line, " in=")
			pauses = append(pauses, in)
		}
		if want := []string{"5ms", "10ms", "5ms"}; strings.Join(pauses, " ") != strings.Join(want, " ") {
			t.Errorf("pauses %v, want %v", pauses, want)
		}
	})

	t.Run("serve's error ends it", func(t *testing.T) {
		stop := errors.New("closed meanwhile")
		l := &script{steps: []any{c1, c2}}
		n := 0
		err := Loop(l, slog.New(slog.DiscardHandler), func() bool { return false }, func(net.Conn) error { n++; return stop })
		if err != stop || n != 1 {
			t.Errorf("Loop returned %v after %d connections, want serve's error after 1", err, n)
		}
	})

	t.Run("a failure while closing is not retried", func(t *testing.T) {
		var logs bytes.Buffer
		l := &script{steps: []any{emfile, c1}}
		err := Loop(l, slog.New(slog.NewTextHandler(&logs, nil)), func() bool { return true }, func(net.Conn) error {
			t.Error("a connection was served after the owner closed")
			return nil
		})
		if err != emfile || logs.Len() != 0 {
			t.Errorf("Loop returned %v and logged %q, want the failure at once and no log", err, logs.String())
		}
	})
}
