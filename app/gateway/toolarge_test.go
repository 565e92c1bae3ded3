package gateway

import (
	"bufio"
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
