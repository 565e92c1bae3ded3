package relay

import (
	"bufio"
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/engine/stdio"
)

// BenchmarkRelayCall: one relayed call after another over real pipes, to
// a server goroutine that answers each at once: the relay's own work per
// call (the request line, the id, the timeout, the answer's scan, Done)
// and its allocations, with the pipes' reads and writes and the wake-ups
// of the two goroutines around it.
func BenchmarkRelayCall(b *testing.B) {
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	fromServerR, fromServerW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	conn := stdio.NewConn(fromServerR, toServerW, stdio.ConnOptions{Server: "s"})
	defer conn.Close()
	go func() { // the server: answers each request with its id
		in := bufio.NewReader(toServerR)
		var out []byte
		for {
			line, err := in.ReadSlice('\n')
			if err != nil {
				return
			}
			i := bytes.Index(line, []byte(`"id":`))
			j := bytes.IndexByte(line[i+6:], '"')
			out = append(out[:0], `{"jsonrpc":"2.0","id":`...)
			out = append(out, line[i+5:i+6+j+1]...)
			out = append(out, `,"result":{"content":[{"type":"text","text":"hello, gateway"}]}}`+"\n"...)
			if _, err := fromServerW.Write(out); err != nil {
				return
			}
		}
	}()
	r := New("s", conn, Options{})
	done := make(chan error, 1)
	c := &Call{Tool: "echo", Arguments: []byte(`{"text":"hello, gateway"}`)}
	c.Done = func(res *Result, err error) { done <- err }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Start(c, time.Minute); err != nil {
			b.Fatal(err)
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
}
