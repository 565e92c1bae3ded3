//go:build linux

package stdio

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"syscall"
)

// parkedInRead waits (at most testkit.Deadline) until a goroutine is
// parked in the network poller inside a ReadNow's Read: the reader waits
// for data, not merely about to.
func parkedInRead() {
	buf := make([]byte, 1<<20)
	testkit.Poll(testkit.Deadline, func() bool {
		n := runtime.Stack(buf, true)
		for _, g := range strings.Split(string(buf[:n]), "\n\n") {
			if strings.Contains(g, "[IO wait") && strings.Contains(g, "(*ReadNow).Read") {
				return true
			}
		}
		return false
	})
}

// TestReadNow: the raw reader of a pipe reads what is written (waiting
// for it through the poller), reports EOF when the writer closes, and an
// error once the file is closed under it. A descriptor in blocking mode
// (os.File.Fd sets it) is read the usual way: a raw read would block.
func TestReadNow(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rn := NewReadNow(r)
	if _, ok := rn.(*ReadNow); !ok {
		t.Fatalf("an os.Pipe gets %T", rn)
	}
	go func() {
		parkedInRead() // the reader waits for it in the poller
		_, _ = w.Write([]byte("hello"))
		big := bytes.Repeat([]byte("x"), 3<<20)
		_, _ = w.Write(big)
		w.Close()
	}()
	got, err := io.ReadAll(rn)
	if err != nil || len(got) != 5+3<<20 || string(got[:5]) != "hello" {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	rb, wb, _ := os.Pipe()
	defer rb.Close()
	defer wb.Close()
	_, _ = rb.Fd(), wb.Fd() // blocking now
	if _, ok := NewReadNow(rb).(*ReadNow); ok {
		t.Fatal("a blocking descriptor got raw reads")
	}
	if WriteNow(mustRaw(t, wb)) != nil {
		t.Fatal("a blocking descriptor got raw writes")
	}
	r2, w2, _ := os.Pipe()
	defer w2.Close()
	rn2 := NewReadNow(r2)
	done := make(chan error, 1)
	go func() {
		_, err := rn2.Read(make([]byte, 10))
		done <- err
	}()
	parkedInRead()
	r2.Close()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, io.EOF) {
			t.Fatalf("a read of a closed pipe: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a read did not end when its file closed")
	}
}

// TestLineTap: the line tap sees each line before it is decoded, and a
// line it claims is neither decoded nor passed on; WriteLine writes a
// line as it is.
func TestLineTap(t *testing.T) {
	toServerR, toServerW, _ := os.Pipe()
	fromServerR, fromServerW, _ := os.Pipe()
	defer toServerR.Close()
	defer fromServerW.Close()
	c := NewConn(fromServerR, toServerW, ConnOptions{Server: "t"})
	defer c.Close()
	claimed := make(chan string, 4)
	c.SetLineTap(func(line []byte) bool {
		if bytes.Contains(line, []byte(`"mine"`)) {
			claimed <- string(line)
			return true
		}
		return false
	})
	if err := c.WriteLine([]byte(`{"jsonrpc":"2.0","id":"mine","method":"ping"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteLine([]byte(`no newline`)); err == nil {
		t.Fatal("WriteLine took a line without its newline")
	}
	buf := make([]byte, 100)
	n, _ := toServerR.Read(buf)
	if string(buf[:n]) != `{"jsonrpc":"2.0","id":"mine","method":"ping"}`+"\n" {
		t.Fatalf("the server got %q", buf[:n])
	}
	_, _ = fromServerW.Write([]byte(`{"jsonrpc":"2.0","id":"mine","result":{}}` + "\n" + `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n"))
	if l := <-claimed; !strings.Contains(l, `"mine"`) {
		t.Fatalf("the tap got %q", l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	m, err := c.Read(ctx)
	if r, ok := m.(*jsonrpc.Response); err != nil || !ok || r.ID.Raw() != int64(3) {
		t.Fatalf("Read: %v %v", m, err)
	}
}

func mustRaw(t *testing.T, f *os.File) syscall.RawConn {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rc
}
