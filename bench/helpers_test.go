//go:build unix

package bench

// Fast tests of the benchmarks' helpers and inputs; `go test ./bench/`
// runs these and no benchmark.

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestToolResultSizes(t *testing.T) {
	for _, sz := range sizes {
		for _, id := range []int{1, 9, 10, 12345} {
			line := toolResult(id, sz.size)
			if len(line) != sz.size || line[len(line)-1] != '\n' || bytes.Count(line, []byte{'\n'}) != 1 {
				t.Fatalf("toolResult(%d, %d): %d bytes, want one line of %d", id, sz.size, len(line), sz.size)
			}
			m, err := jsonrpc.DecodeMessage(line[:len(line)-1])
			if err != nil {
				t.Fatalf("toolResult(%d, %d) does not decode: %v", id, sz.size, err)
			}
			if r, ok := m.(*jsonrpc.Response); !ok || r.ID != intID(id) {
				t.Fatalf("toolResult(%d, %d) decodes to a %T with another id", id, sz.size, m)
			}
		}
	}
}

// TestReadPathInputs checks that both connections decode the replayed
// stream to the same messages, across the wrap-around.
func TestReadPathInputs(t *testing.T) {
	const size = 1 << 10
	data := stream(size, 4*size)
	for name, connect := range map[string]connector{"ours": oursOver, "iotransport": ioTransportOver} {
		conn := connect(&replay{data: data})
		for i := range 10 {
			m, err := conn.Read(context.Background())
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			r, ok := m.(*jsonrpc.Response)
			if want := i%4 + 1; !ok || r.ID != intID(want) {
				t.Fatalf("%s: message %d is a %T, want the response %d", name, i, m, want)
			}
		}
		conn.Close()
	}
}

func TestEchoChild(t *testing.T) {
	conn, stop := oursProc(t, spec("echo"))
	defer stop()
	ctx := context.Background()
	for i := range 3 {
		if err := roundTrip(ctx, conn, i); err != nil {
			t.Fatal(err)
		}
	}
	// A 1 MiB line comes back whole.
	big := toolResult(77, 1<<20)
	m, err := jsonrpc.DecodeMessage(big[:len(big)-1])
	if err != nil {
		t.Fatal(err)
	}
	if err := conn.Write(ctx, m); err != nil {
		t.Fatal(err)
	}
	got, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := got.(*jsonrpc.Response); !ok || len(r.Result) != len(m.(*jsonrpc.Response).Result) {
		t.Fatalf("the 1 MiB message came back as %T", got)
	}

	io, stopIO := ioTransportProc(t, "echo")
	defer stopIO()
	if err := roundTrip(ctx, io, 5); err != nil {
		t.Fatal(err)
	}
}

func TestMCPChild(t *testing.T) {
	ctx := context.Background()
	for name, open := range map[string]func(testing.TB) (*mcp.ClientSession, func()){
		"ours": oursSession, "commandtransport": commandSession,
	} {
		cs, stop := open(t)
		if err := callEcho(ctx, cs); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		stop()
	}
}

func TestHugeLineRefused(t *testing.T) {
	r, err := refuseHuge(oursOver, tooLargeOurs)
	if err != nil {
		t.Fatal(err)
	}
	// Refused once past the limit: at most the limit and two 64 KiB reads.
	if r.read > maxMessage+128<<10 {
		t.Errorf("read %d bytes of the huge line before refusing it, limit %d", r.read, maxMessage)
	}
	if _, err := refuseHuge(ioTransportOver, tooLargeIOTransport); err != nil {
		t.Fatal(err)
	}
}

func TestStopChildren(t *testing.T) {
	s := spec("ignore-term")
	s.StdinGrace, s.TermGrace = 20*time.Millisecond, 20*time.Millisecond
	conn, stop := oursProc(t, s)
	waitReady(t, conn)
	t0 := time.Now()
	stop() // SIGKILL ends it, after both graces
	if d := time.Since(t0); d < 40*time.Millisecond {
		t.Errorf("an ignore-term child was gone after %v, before both graces passed", d)
	}
	stopCmd := startCommand(t, "ignore-eof", 20*time.Millisecond)
	stopCmd() // SIGTERM ends it after the grace
}
