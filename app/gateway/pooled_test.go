//go:build unix

package gateway

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
)

// TestSendPooledKeepsQueuedBuffer: a large response line built in a pooled
// buffer is sent; what the client's pipe does not take at once waits in
// the queue, and its buffer does not go back to the pool (where the next
// large answer would overwrite it) until it is written; then the client
// reads the line whole.
func TestSendPooledKeepsQueuedBuffer(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, b := net.Pipe()
	defer b.Close()
	g := &Gateway{opts: Options{QueueBytes: 8 << 20}, log: slog.New(slog.DiscardHandler)}
	c := newSockConn(g, nil, a, a, w, nil, nil)
	if c.direct == nil {
		t.Fatal("a pipe got no direct writes")
	}
	buf := getLineBuf(1 << 20)
	line := append((*buf)[:0], bytes.Repeat([]byte("a"), 1<<20-1)...)
	line = append(line, '\n')
	*buf = line
	if err := c.sendPooled(line, buf); err != nil {
		t.Fatal(err)
	}
	// The pipe took at most its size; the rest waits in the queue (the
	// writer goroutine blocks on the full pipe): its buffer must not be
	// handed out again.
	for range 4 {
		if other := getLineBuf(1 << 20); other == buf {
			t.Fatal("the buffer of a line still queued went back to the pool")
		} else {
			defer putLineBuf(other)
		}
	}
	got := make([]byte, len(line))
	if _, err := io.ReadFull(r, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, line) {
		t.Fatal("the line came out changed")
	}
	_ = c.Close()
	<-c.writeDone
}
