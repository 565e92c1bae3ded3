package gateway

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func TestCanonicalID(t *testing.T) {
	for raw, want := range map[string]bool{
		`0`: true, `7`: true, `-7`: true, `123456789012345`: true, `"a"`: true, `""`: true, `"é😀 <&>"`: true,
		`-0`: false, `07`: false, `1.5`: false, `1e3`: false, `1.0`: false, `1234567890123456`: false,
		`123456789012345678901234567890`: false, `"a\"b"`: false, `"\u0041"`: false, "\"\u2028\"": false,
		"\"\xff\"": false, `-`: false, `null`: false, `true`: false, ``: false, `"`: false,
	} {
		if got := canonicalID([]byte(raw)); got != want {
			t.Errorf("canonicalID(%s) = %v, want %v", raw, got, want)
		}
	}
}

// TestIDMapCancel: a cancellation that names a request by an id that has
// a stand-in names the stand-in when the go-sdk sees it, and the response
// gets the client's bytes back.
func TestIDMapCancel(t *testing.T) {
	var m idMap
	line := []byte(`{"jsonrpc":"2.0","id":1.50,"method":"tools/list"}`)
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		t.Fatal(err)
	}
	req := msg.(*jsonrpc.Request)
	m.swap(line, req)
	standIn, ok := req.ID.Raw().(string)
	if !ok || standIn[:len(standInPrefix)] != standInPrefix {
		t.Fatalf("the request's id is %v, want a stand-in", req.ID.Raw())
	}
	cancel := []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.50,"reason":"x"}}`)
	cmsg, err := jsonrpc.DecodeMessage(cancel)
	if err != nil {
		t.Fatal(err)
	}
	creq := cmsg.(*jsonrpc.Request)
	m.swap(cancel, creq)
	if got := memberValue(creq.Params, `"requestId"`); string(got) != `"\u0000sbid-1"` {
		t.Errorf("the cancellation names %s, want the stand-in", got)
	}
	out, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: []byte(`{}`)})
	if got := string(m.restore(out, &jsonrpc.Response{ID: req.ID})); got != `{"jsonrpc":"2.0","id":1.50,"result":{}}` {
		t.Errorf("restored: %s", got)
	}
	if len(m.raw) != 0 || len(m.byRaw) != 0 {
		t.Errorf("the stand-in is still kept after its response: %v %v", m.raw, m.byRaw)
	}
}
