package bridge

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
)

// RelayEnv set to 1 in a bridge's environment makes it relay bytes instead
// of handing its stdin and stdout to the host (a diagnostic).
const RelayEnv = "SWITCHBOARD_BRIDGE_RELAY"

// Session is one AI app's bridge: its streams and its filter.
type Session struct {
	Filter Filter
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Relay makes the bridge relay the bytes even where it could hand its
	// stdin and stdout over (RelayEnv=1).
	Relay bool
}

// Dial connects to the running host's gateway at gw (waiting at most 10
// seconds for a host that is busy). The error wraps api.ErrNoHost when no
// host runs.
func Dial(ctx context.Context, gw string) (net.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return api.DialGateway(dctx, gw)
}

// Serve runs a bridge on nc, a new connection to the gateway, until the
// session ends: it sends the preamble, then hands its stdin and stdout to
// the host where it can (and waits for the end of the session), else
// relays the bytes both ways. It writes nothing of its own to stdout: the
// gateway's warnings go to stderr. The app closing stdin (or going away)
// ends it with no error; the host going away is an error. Serve closes nc.
func Serve(nc net.Conn, s Session) error {
	defer nc.Close()
	// Two goroutines copy bytes: one thread is plenty, and it spares the
	// runtime's hand-offs between threads (measured: bench/gateway). Only
	// for the real process, not a test that serves other streams.
	if s.Stdin == io.Reader(os.Stdin) {
		runtime.GOMAXPROCS(1)
	}
	// Where it can, the bridge hands its stdin and stdout to the host and
	// relays nothing (two process hops less per message); else it relays
	// the bytes.
	in, out := asFile(s.Stdin), asFile(s.Stdout)
	handOff := in != nil && out != nil && !s.Relay && CanHandOff(in, out)
	hello := Hello{Filter: s.Filter, Client: fmt.Sprintf("bridge pid %d", os.Getpid())}
	var br *bufio.Reader
	var w *Welcome
	var err error
	if handOff {
		// The descriptors go with the preamble: the host serves the app
		// as soon as it has read it.
		br, w, err = HandshakeFDs(nc, hello, in, out)
	} else {
		br, w, err = Handshake(nc, hello)
	}
	if err != nil {
		return fmt.Errorf("the gateway refused the bridge: %w", err)
	}
	for _, warn := range w.Warnings {
		fmt.Fprintln(s.Stderr, "switchboard bridge:", warn)
	}
	if w.FDs {
		// The host serves the app now; the bridge waits for the end of the
		// session: the app closing stdin, or the host stopping. What the
		// gateway could not take meanwhile, it says on stderr.
		return WaitEndNotices(br, func(n string) { fmt.Fprintln(s.Stderr, "switchboard bridge:", n) })
	}
	return relay(nc, br, s.Stdin, s.Stdout, s.Stderr)
}

// MaxMessageSize is the gateway's limit on one message (app/gateway's
// DefaultMaxMessageSize is this constant): a relaying bridge says on
// stderr when the app sends a larger one, which the gateway answers with
// an error.
const MaxMessageSize = 8 << 20

func asFile(v any) *os.File {
	f, _ := v.(*os.File)
	return f
}

// relay copies in to nc and nc (through br) to out until one side ends.
// The app closing stdin (or going away) ends the bridge at once, with no
// error: the servers keep running. The host going away is an error.
func relay(nc net.Conn, br *bufio.Reader, in io.Reader, out io.Writer, stderr io.Writer) error {
	done := make(chan error, 2)
	go func() {
		_, err := io.Copy(&lineWatch{w: nc, max: MaxMessageSize, stderr: stderr}, in)
		if err != nil {
			err = ErrHostGone // a write to the socket failed
		}
		done <- err // nil: the app closed stdin
	}()
	go func() {
		_, err := br.WriteTo(stdoutWriter{out})
		var we *writeError
		if errors.As(err, &we) {
			done <- nil // the app went away
			return
		}
		done <- ErrHostGone
	}()
	return <-done
}

// lineWatch passes what the app writes on to the gateway and says on
// stderr when a line (a message) grows past the gateway's limit: the
// gateway answers it with a JSON-RPC error, and the person reading the
// app's log learns why.
type lineWatch struct {
	w      io.Writer
	max    int
	stderr io.Writer
	n      int // bytes of the current line so far
}

func (l *lineWatch) Write(b []byte) (int, error) {
	for rest := b; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		seg := rest
		if i >= 0 {
			seg = rest[:i+1]
		}
		before := l.n
		l.n += len(seg)
		if before <= l.max && l.n > l.max {
			fmt.Fprintf(l.stderr, "switchboard bridge: the app sent a message larger than the gateway's limit of %d MiB (%d bytes); the gateway answers it with an error instead of delivering it\n", l.max>>20, l.max)
		}
		if i >= 0 {
			l.n = 0
		}
		rest = rest[len(seg):]
	}
	return l.w.Write(b)
}

// stdoutWriter marks its write errors, to tell them from the socket's.
type stdoutWriter struct{ w io.Writer }

func (s stdoutWriter) Write(b []byte) (int, error) {
	n, err := s.w.Write(b)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
