package stdio

import (
	"io"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestTap: a tap sees the server's messages first and keeps the ones it
// handles from Read; the rest pass in order.
func TestTap(t *testing.T) {
	r, w := io.Pipe()
	c := NewConn(r, io.Discard, ConnOptions{})
	defer c.Close()
	tapped := make(chan jsonrpc.Message, 4)
	c.SetTap(func(m jsonrpc.Message) bool {
		if resp, ok := m.(*jsonrpc.Response); ok {
			if id, ok := resp.ID.Raw().(string); ok && id == "mine" {
				tapped <- m
				return true
			}
		}
		return false
	})
	go func() {
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":"mine","result":{"x":1}}`+"\n"+
			`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"+
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}`+"\n")
	}()
	if resp, ok := readMsg(t, c, 5*time.Second).(*jsonrpc.Response); !ok || resp.ID != mustID(t, float64(1)) {
		t.Fatalf("Read got %v first, want the response with id 1", resp)
	}
	if req, ok := readMsg(t, c, 5*time.Second).(*jsonrpc.Request); !ok || req.Method != "notifications/progress" {
		t.Fatalf("Read got %v, want the notification", req)
	}
	select {
	case m := <-tapped:
		if string(m.(*jsonrpc.Response).Result) != `{"x":1}` {
			t.Errorf("tapped %s", m.(*jsonrpc.Response).Result)
		}
	default:
		t.Fatal("the tap did not get its response")
	}
	c.SetTap(nil)
	go func() { _, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":"mine","result":{}}`+"\n") }()
	if resp, ok := readMsg(t, c, 5*time.Second).(*jsonrpc.Response); !ok || resp.ID != mustID(t, "mine") {
		t.Fatalf("without the tap, Read got %v", resp)
	}
}
