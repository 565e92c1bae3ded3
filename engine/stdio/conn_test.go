package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func mustID(t testing.TB, v any) jsonrpc.ID {
	t.Helper()
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// readMsg reads one message within d, failing the test on an error.
func readMsg(t testing.TB, c *Conn, d time.Duration) jsonrpc.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	m, err := c.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return m
}

// readErr reads until Read fails (at most max messages) and returns the error.
func readErr(t testing.TB, c *Conn, d time.Duration, max int) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for range max {
		m, err := c.Read(ctx)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("Read still open after %v", d)
			}
			return err
		}
		t.Logf("read %s", msgText(t, m))
	}
	t.Fatalf("Read returned %d messages and no error", max)
	return nil
}

func msgText(t testing.TB, m jsonrpc.Message) string {
	b, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantRequest(t testing.TB, m jsonrpc.Message, method string) *jsonrpc.Request {
	t.Helper()
	r, ok := m.(*jsonrpc.Request)
	if !ok || r.Method != method {
		t.Fatalf("got %T %s; want the request %q", m, msgText(t, m), method)
	}
	return r
}

// --- 1. framing ---

// TestFramer checks the line splitter's exact output: "\n" and "\r\n" end
// lines (only the last "\r" is dropped), a final line without a newline
// comes before the stream's end, and a line longer than max is refused
// whatever the read sizes.
func TestFramer(t *testing.T) {
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one-byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"half":     func(s string) io.Reader { return iotest.HalfReader(strings.NewReader(s)) },
	}
	for name, mk := range readers {
		t.Run(name, func(t *testing.T) {
			fr := newFramer(mk("a\r\nb\n\r\nc\rd\r\r\n"+strings.Repeat("x", 16)+"\nlast"), 16)
			want := []string{"a", "b", "", "c\rd\r", strings.Repeat("x", 16), "last"}
			for i, w := range want {
				line, err := fr.next()
				if err != nil {
					t.Fatalf("line %d: %v", i, err)
				}
				if string(line) != w {
					t.Fatalf("line %d = %q; want %q", i, line, w)
				}
			}
			if _, err := fr.next(); err != io.EOF {
				t.Fatalf("after the last line: %v; want io.EOF", err)
			}

			fr = newFramer(mk("ok\n"+strings.Repeat("y", 17)+"\nnever"), 16)
			if line, err := fr.next(); err != nil || string(line) != "ok" {
				t.Fatalf("first line %q, %v", line, err)
			}
			if _, err := fr.next(); !errors.Is(err, errTooLarge) {
				t.Fatalf("17-byte line with max 16: %v; want errTooLarge", err)
			}
			// Without a newline at all.
			fr = newFramer(mk(strings.Repeat("z", 100)), 16)
			if _, err := fr.next(); !errors.Is(err, errTooLarge) {
				t.Fatalf("unterminated 100-byte line with max 16: %v; want errTooLarge", err)
			}
		})
	}
}

// TestFramerGrowth: with MaxMessageBytes above the read chunk the buffer
// grows, never past max+chunk, and a line of exactly max bytes passes while
// one byte more is refused.
func TestFramerGrowth(t *testing.T) {
	max := 3*chunk + 5
	in := strings.Repeat("g", max) + "\n" + "short\n" + strings.Repeat("h", max+1) + "\n"
	fr := newFramer(iotest.HalfReader(strings.NewReader(in)), max)
	for _, want := range []int{max, 5} {
		line, err := fr.next()
		if err != nil || len(line) != want {
			t.Fatalf("line of %d bytes, %v; want %d bytes", len(line), err, want)
		}
		if len(fr.buf) > max+chunk {
			t.Fatalf("buffer of %d bytes; want at most max+chunk = %d", len(fr.buf), max+chunk)
		}
	}
	if _, err := fr.next(); !errors.Is(err, errTooLarge) {
		t.Fatalf("line of max+1 bytes: %v; want errTooLarge", err)
	}
	if len(fr.buf) > max+chunk {
		t.Fatalf("buffer of %d bytes; want at most max+chunk = %d", len(fr.buf), max+chunk)
	}
}

// TestConnFraming feeds a Conn over pipes, in writes of several sizes that
// split lines anywhere: lines split, "\r\n" works, a batch becomes its
// messages in order, and a final line without a newline is delivered before
// the stream's end closes the Conn (with a CloseError, not io.EOF). Write
// sends exactly one newline-terminated line.
func TestConnFraming(t *testing.T) {
	input := `{"jsonrpc":"2.0","method":"a","params":{"n":1}}` + "\n" +
		`{"jsonrpc":"2.0","method":"b","params":{"n":2}}` + "\r\n" +
		`[{"jsonrpc":"2.0","method":"c","params":{"n":3}},{"jsonrpc":"2.0","id":7,"result":{"ok":true}},{"jsonrpc":"2.0","id":"s","method":"e"}]` + "\n" +
		`  {"jsonrpc":"2.0","method":"d","params":{"n":4}}` // no newline
	for _, size := range []int{1, 7, 64, len(input)} {
		t.Run("writes of "+strconv.Itoa(size), func(t *testing.T) {
			pr, pw := io.Pipe()
			_, ww := io.Pipe()
			c := NewConn(pr, ww, ConnOptions{Server: "framing"})
			defer c.Close()
			go func() {
				for s := input; len(s) > 0; {
					n := min(size, len(s))
					if _, err := pw.Write([]byte(s[:n])); err != nil {
						return
					}
					s = s[n:]
				}
				pw.Close()
			}()
			var got []jsonrpc.Message
			for range 6 {
				got = append(got, readMsg(t, c, 10*time.Second))
			}
			// Checked after all reads: a message must not alias the
			// framer's buffer.
			wantRequest(t, got[0], "a")
			wantRequest(t, got[1], "b")
			wantRequest(t, got[2], "c")
			if r, ok := got[3].(*jsonrpc.Response); !ok || r.ID != mustID(t, float64(7)) || string(r.Result) != `{"ok":true}` || r.Error != nil {
				t.Fatalf("message 4 = %s; want the response 7", msgText(t, got[3]))
			}
			if r := wantRequest(t, got[4], "e"); r.ID != mustID(t, "s") {
				t.Fatalf("request e has id %v", r.ID)
			}
			wantRequest(t, got[5], "d")
			for i, n := range map[int]string{0: `{"n":1}`, 1: `{"n":2}`, 2: `{"n":3}`, 5: `{"n":4}`} {
				if p := string(got[i].(*jsonrpc.Request).Params); p != n {
					t.Errorf("message %d params %s; want %s", i, p, n)
				}
			}
			err := readErr(t, c, 10*time.Second, 1)
			RequireClose(t, err, ReasonExited)
			if c.junkLines() != 0 {
				t.Errorf("junkLines = %d; want 0", c.junkLines())
			}
		})
	}

	t.Run("write", func(t *testing.T) {
		pr, _ := io.Pipe()
		wr, ww := io.Pipe()
		c := NewConn(pr, ww, ConnOptions{Server: "framing"})
		defer c.Close()
		lines := make(chan string, 2)
		go func() {
			br := bufio.NewReader(wr)
			for {
				l, err := br.ReadString('\n')
				if err != nil {
					close(lines)
					return
				}
				lines <- l
			}
		}()
		ctx := context.Background()
		if err := c.Write(ctx, &jsonrpc.Request{ID: mustID(t, float64(1)), Method: "ping"}); err != nil {
			t.Fatal(err)
		}
		if err := c.Write(ctx, &jsonrpc.Request{Method: "notifications/x", Params: json.RawMessage(`{"s":"a\nb"}`)}); err != nil {
			t.Fatal(err)
		}
		for i, want := range []string{"ping", "notifications/x"} {
			var l string
			select {
			case l = <-lines:
			case <-time.After(10 * time.Second):
				t.Fatal("the write did not arrive")
			}
			m, err := jsonrpc.DecodeMessage([]byte(strings.TrimSuffix(l, "\n")))
			if err != nil || !strings.HasSuffix(l, "}\n") {
				t.Fatalf("line %d %q: %v", i, l, err)
			}
			wantRequest(t, m, want)
		}
	})
}

// TestReadNeverEOF: when a server exits, Read returns what it wrote and
// then a CloseError with its exit status, never a bare io.EOF.
func TestReadNeverEOF(t *testing.T) {
	for _, code := range []int{0, 5} {
		t.Run("exit "+strconv.Itoa(code), func(t *testing.T) {
			spec := HelperSpec("say", "SAY_EXIT="+strconv.Itoa(code), `{"jsonrpc":"2.0","method":"bye"}`)
			c := StartConn(t, &Transport{Spec: spec})
			wantRequest(t, readMsg(t, c, 10*time.Second), "bye")
			err := readErr(t, c, 10*time.Second, 1)
			ce := RequireClose(t, err, ReasonExited)
			if ce.Exit == nil || !ce.Exit.Exited || ce.Exit.Code != code {
				t.Fatalf("exit status %v; want exit code %d", ce.Exit, code)
			}
			// Read keeps returning the same error.
			_, err2 := c.Read(context.Background())
			if err2 != err {
				t.Fatalf("second Read: %v; want the same CloseError", err2)
			}
			WaitDone(t, c.Process(), 10*time.Second)
		})
	}
	t.Run("plain stream", func(t *testing.T) {
		pr, pw := io.Pipe()
		c := NewConn(pr, io.Discard, ConnOptions{})
		pw.Close()
		RequireClose(t, readErr(t, c, 10*time.Second, 1), ReasonExited)
	})
}

// --- 2. a line longer than MaxMessageBytes ---

// TestMessageTooLarge: a server writes one 100 MB line; the Conn refuses it
// once it passes MaxMessageBytes (8 MiB), holding at most about that much
// (the peak heap growth stays under 2 x MaxMessageBytes + slack, and far
// less than the line is allocated), and stops the server.
func TestMessageTooLarge(t *testing.T) {
	const (
		maxMsg  = 8 << 20
		lineLen = 100_000_000
		slack   = 8 << 20
	)
	spec := HelperSpec("bigline", strconv.Itoa(lineLen))
	spec.MaxMessageBytes = maxMsg
	h := StartHeapSampler(time.Millisecond)
	c := StartConn(t, &Transport{Spec: spec})
	ce := WaitClosed(t, c, 60*time.Second)
	WaitDone(t, c.Process(), 20*time.Second)
	st := h.Stop()
	t.Logf("100 MB line, MaxMessageBytes 8 MiB: %v", st)
	if ce.Reason != ReasonMessageTooLarge {
		t.Fatalf("close reason %q (%v); want %q", ce.Reason, ce, ReasonMessageTooLarge)
	}
	_, err := c.Read(context.Background())
	RequireClose(t, err, ReasonMessageTooLarge)
	if st.Growth() > 2*maxMsg+slack {
		t.Errorf("peak heap growth %.1f MiB; want under 2 x %d MiB + %d MiB", MiB(st.Growth()), maxMsg>>20, slack>>20)
	}
	if st.Allocated > lineLen/2 {
		t.Errorf("%.1f MiB allocated while refusing a %d-byte line: was it buffered?", MiB(st.Allocated), lineLen)
	}
	if PidExists(c.Process().Pid()) {
		t.Errorf("server %d still exists after the stop ladder", c.Process().Pid())
	}
}

// --- 3. junk output ---

const (
	noteOne = `{"jsonrpc":"2.0","method":"test/one"}`
	noteTwo = `{"jsonrpc":"2.0","method":"test/two"}`
)

// TestJunk: non-JSON-RPC lines are dropped and counted, a valid message
// resets the run, and a run longer than MaxJunkLines closes the Conn with
// ReasonJunkOutput and stops the server.
func TestJunk(t *testing.T) {
	t.Run("tolerated and reset", func(t *testing.T) {
		spec := HelperSpec("say", "Starting server...", `{"not":"jsonrpc"}`, "[1,2]",
			noteOne, "junk", `{"jsonrpc":"1.0","method":"x"}`, "", noteTwo)
		spec.MaxJunkLines = 3
		c := StartConn(t, &Transport{Spec: spec})
		wantRequest(t, readMsg(t, c, 10*time.Second), "test/one")
		// 3 + 3 junk lines with a limit of 3: only a reset lets test/two through.
		wantRequest(t, readMsg(t, c, 10*time.Second), "test/two")
		if n := c.junkLines(); n != 6 {
			t.Errorf("junkLines = %d; want 6", n)
		}
		if err := c.Err(); err != nil {
			t.Fatalf("closed: %v", err)
		}
	})
	t.Run("too many", func(t *testing.T) {
		spec := HelperSpec("say", "j1", "j2", "j3", "j4", noteOne)
		spec.MaxJunkLines = 3
		c := StartConn(t, &Transport{Spec: spec})
		ce := RequireClose(t, readErr(t, c, 10*time.Second, 1), ReasonJunkOutput)
		if !strings.Contains(ce.Detail, "j4") {
			t.Errorf("detail %q does not quote the last line", ce.Detail)
		}
		if n := c.junkLines(); n != 4 {
			t.Errorf("junkLines = %d; want 4", n)
		}
		WaitDone(t, c.Process(), 10*time.Second)
		if PidExists(c.Process().Pid()) {
			t.Errorf("server %d still exists", c.Process().Pid())
		}
	})
	t.Run("max -1 means 0", func(t *testing.T) {
		spec := HelperSpec("say", "junk", noteOne)
		spec.MaxJunkLines = -1
		c := StartConn(t, &Transport{Spec: spec})
		RequireClose(t, readErr(t, c, 10*time.Second, 1), ReasonJunkOutput)
		if n := c.junkLines(); n != 1 {
			t.Errorf("junkLines = %d; want 1", n)
		}
		WaitDone(t, c.Process(), 10*time.Second)
	})
	t.Run("conn options", func(t *testing.T) {
		for _, tc := range []struct {
			max, junk int
			closes    bool
		}{{-1, 1, true}, {0, 10, false}, {0, 11, true}, {2, 2, false}, {2, 3, true}} {
			var in bytes.Buffer
			for range tc.junk {
				in.WriteString("junk\n")
			}
			in.WriteString(noteOne + "\n")
			pr, pw := io.Pipe()
			go func() { pw.Write(in.Bytes()) }() // the pipe stays open
			c := NewConn(pr, io.Discard, ConnOptions{MaxJunkLines: tc.max})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			m, err := c.Read(ctx)
			cancel()
			if tc.closes {
				RequireClose(t, err, ReasonJunkOutput)
			} else if err != nil {
				t.Errorf("MaxJunkLines %d, %d junk lines: %v", tc.max, tc.junk, err)
			} else {
				wantRequest(t, m, "test/one")
			}
			c.Close()
		}
	})
}

// --- 5. writes never block ---

// TestWriteQueueFull: a server that never reads stdin cannot block Write:
// each 1 MiB Write returns at once, and the one that would pass
// WriteQueueBytes (4 MiB) closes the Conn with ReasonWriteQueueFull and
// returns the CloseError.
func TestWriteQueueFull(t *testing.T) {
	spec := HelperSpec("no-read")
	spec.WriteQueueBytes = 4 << 20
	c := StartConn(t, &Transport{Spec: spec})
	WaitStderr(t, c.Process(), 10*time.Second, func(l string) bool { return l == "ready" })

	params := json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)
	var (
		werr    error
		n       int
		slowest time.Duration
		took    []time.Duration
	)
	for n = 1; n <= 12; n++ {
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			done <- c.Write(context.Background(), &jsonrpc.Request{Method: "notifications/big", Params: params})
		}()
		select {
		case werr = <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Write %d blocked for 10 s", n)
		}
		took = append(took, time.Since(start).Round(time.Microsecond))
		slowest = max(slowest, time.Since(start))
		if werr != nil {
			break
		}
	}
	t.Logf("Write %d failed; the Writes took %v", n, took)
	RequireClose(t, werr, ReasonWriteQueueFull)
	if n < 4 || n > 6 {
		t.Errorf("Write %d of 1 MiB failed; with a 4 MiB queue it should be the 5th (about)", n)
	}
	if slowest > 5*time.Second {
		t.Errorf("a Write took %v", slowest)
	}
	// Later writes and reads return the same error.
	if err := c.Write(context.Background(), &jsonrpc.Request{Method: "notifications/x"}); err != c.Err() {
		t.Errorf("Write after close: %v; want %v", err, c.Err())
	}
	RequireClose(t, readErr(t, c, 10*time.Second, 1), ReasonWriteQueueFull)
	WaitDone(t, c.Process(), 15*time.Second)
	if PidExists(c.Process().Pid()) {
		t.Errorf("server %d still exists", c.Process().Pid())
	}
}

// --- 7. the server/discover probe, at the Conn level ---

func writeDiscover(t testing.TB, c *Conn, id jsonrpc.ID) {
	t.Helper()
	err := c.Write(context.Background(), &jsonrpc.Request{ID: id, Method: "server/discover", Params: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
}

func TestProbeTimeout(t *testing.T) {
	const probe = 200 * time.Millisecond
	legacy := func(discover string) *Transport {
		spec := HelperSpec("legacy", "discover="+discover)
		spec.ProbeTimeout = probe
		return &Transport{Spec: spec}
	}
	id := mustID(t, float64(1))

	t.Run("never answered", func(t *testing.T) {
		c := StartConn(t, legacy("never"))
		start := time.Now()
		writeDiscover(t, c, id)
		m := readMsg(t, c, 10*time.Second)
		took := time.Since(start)
		r, ok := m.(*jsonrpc.Response)
		if !ok || r.ID != id {
			t.Fatalf("got %s; want a response to id 1", msgText(t, m))
		}
		var we *jsonrpc.Error
		if !errors.As(r.Error, &we) || we.Code != CodeProbeTimeout {
			t.Fatalf("response error %v; want code %d", r.Error, CodeProbeTimeout)
		}
		if took < probe {
			t.Errorf("the made-up answer came after %v, before the probe timeout %v", took, probe)
		}
		t.Logf("probe timeout answer after %v", took)
	})

	t.Run("answered late", func(t *testing.T) {
		c := StartConn(t, legacy("late:700"))
		writeDiscover(t, c, id)
		m := readMsg(t, c, 10*time.Second)
		if r, ok := m.(*jsonrpc.Response); !ok || r.ID != id || r.Error == nil {
			t.Fatalf("first message %s; want the probe-timeout answer", msgText(t, m))
		}
		// The server's own answer comes next, then test/after: only
		// test/after may reach Read.
		wantRequest(t, readMsg(t, c, 10*time.Second), "test/after")
		if n := c.LateProbeAnswers(); n != 1 {
			t.Errorf("LateProbeAnswers = %d; want 1", n)
		}
		// Normal traffic still flows.
		if err := c.Write(context.Background(), &jsonrpc.Request{ID: mustID(t, float64(2)), Method: "ping"}); err != nil {
			t.Fatal(err)
		}
		if r, ok := readMsg(t, c, 10*time.Second).(*jsonrpc.Response); !ok || r.ID != mustID(t, float64(2)) || r.Error != nil {
			t.Fatalf("ping was not answered: %v", r)
		}
	})

	t.Run("answered in time", func(t *testing.T) {
		// The timeout runs from the Write: wait until the (slow to start,
		// race-enabled) helper reads, and allow a loaded machine 1 s.
		const probe = time.Second
		tr := legacy("ok")
		tr.Spec.ProbeTimeout = probe
		c := StartConn(t, tr)
		WaitStderr(t, c.Process(), 10*time.Second, func(l string) bool { return l == "ready" })
		start := time.Now()
		writeDiscover(t, c, id)
		m := readMsg(t, c, 10*time.Second)
		r, ok := m.(*jsonrpc.Response)
		if !ok || r.ID != id || r.Error != nil || string(r.Result) != `{"marker":"on-time"}` {
			t.Fatalf("got %s; want the server's answer unchanged", msgText(t, m))
		}
		// No made-up answer follows, even well after the timeout.
		ctx, cancel := context.WithDeadline(context.Background(), start.Add(probe+500*time.Millisecond))
		defer cancel()
		if m, err := c.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("after the answer: %v %v; want nothing", m, err)
		}
		if n := c.LateProbeAnswers(); n != 0 {
			t.Errorf("LateProbeAnswers = %d; want 0", n)
		}
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestWriteAfterExit: a Write to a server that has just exited fails on its
// closed stdin (EPIPE); the Conn must still close with ReasonExited and the
// exit status, not an i/o error.
func TestWriteAfterExit(t *testing.T) {
	// Two messages nobody reads: the reader stays busy, so only the write
	// sees the exit first.
	spec := HelperSpec("say", "SAY_EXIT=7", noteOne, noteTwo)
	c := StartConn(t, &Transport{Spec: spec})
	select {
	case <-c.Process().Exited():
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not exit")
	}
	err := c.Write(context.Background(), &jsonrpc.Request{ID: mustID(t, float64(1)), Method: "ping"})
	if err == nil {
		// The write may have fit before the pipe noticed; the Conn must
		// close all the same.
		WaitClosed(t, c, 10*time.Second)
		err = c.Err()
	}
	ce := RequireClose(t, err, ReasonExited)
	if ce.Exit == nil || ce.Exit.Code != 7 {
		t.Fatalf("exit status %v; want exit code 7", ce.Exit)
	}
}
