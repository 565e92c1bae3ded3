package gateway

import (
	"bufio"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestRecoverID(t *testing.T) {
	for _, tc := range []struct{ prefix, want string }{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":"xxxx`, "7"},
		{`{"id":"abc-1","jsonrpc":"2.0","params":{"a":"xx`, `"abc-1"`},
		{`{"jsonrpc":"2.0","method":"tools/call","params":{"a":"xxxx`, "null"}, // the id, if any, is past the prefix
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"m"}`, "null"},                // not a valid id
		{`[1,2,3`, "null"},
		{`garbage`, "null"},
		{`{"jsonrpc":"2.0","method":"m","params":{},"id":-3}`, "-3"},
	} {
		if got := string(recoverID([]byte(tc.prefix))); got != tc.want {
			t.Errorf("recoverID(%q) = %s, want %s", tc.prefix, got, tc.want)
		}
	}
}

// A line over the limit is skipped to its end: the next line reads whole.
func TestReadLineSkipsTooLarge(t *testing.T) {
	in := `{"id":1,"pad":"` + strings.Repeat("x", 300<<10) + "\"}\n" + `{"id":2}` + "\n"
	br := bufio.NewReaderSize(strings.NewReader(in), 64<<10)
	_, err := readLine(br, 100<<10)
	var big *tooLargeError
	if !errors.As(err, &big) || len(big.prefix) != idPrefix || string(recoverID(big.prefix)) != "1" {
		t.Fatalf("readLine over the limit: %v (prefix %d bytes)", err, len(big.prefix))
	}
	line, err := readLine(br, 100<<10)
	if err != nil || string(line) != `{"id":2}` {
		t.Fatalf("the line after: %q %v", line, err)
	}
}

// A client with no preamble whose first message is over the limit gets
// the error too (with the id), and its session goes on.
func TestFirstMessageTooLarge(t *testing.T) {
	h := newHarness(t, "raw", running("srv", "echo"))
	nc := dialT(t, h.sock)
	go func() {
		big := `{"jsonrpc":"2.0","id":"big-1","method":"initialize","params":{"pad":"` + strings.Repeat("x", DefaultMaxMessageSize) + `"}}` + "\n"
		_, _ = nc.Write([]byte(big))
		_, _ = nc.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
	}()
	br := bufio.NewReader(nc)
	var got []map[string]any
	for len(got) < 2 {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %d answers: %v", len(got), err)
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		got = append(got, m)
	}
	e, _ := got[0]["error"].(map[string]any)
	if got[0]["id"] != "big-1" || e == nil || !strings.Contains(e["message"].(string), "larger than the gateway's limit of 8 MiB") {
		t.Fatalf("the big first message's answer: %v", got[0])
	}
	if got[1]["id"] != float64(2) || got[1]["result"] == nil {
		t.Fatalf("the session did not go on: %v", got[1])
	}
}
