package stdio

import (
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// decodeCorpus is lines that a server might write, good and bad, for the
// comparison of decodeMessage with the go-sdk's jsonrpc.DecodeMessage.
var decodeCorpus = []string{
	`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`,
	`{"jsonrpc":"2.0","id":"abc","result":{"content":[{"type":"text","text":"a \"quoted\" \\ line\n\u00e9\ud83d\ude00"}]}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"Method not found","data":{"x":[1,2]}}}`,
	`{"jsonrpc":"2.0","id":7,"error":null,"result":null}`,
	`{"jsonrpc":"2.0","id":7,"result":{}}`,
	`{"jsonrpc":"2.0","id":7}`,
	`{"jsonrpc":"2.0","id":1.5,"result":1}`,
	`{"jsonrpc":"2.0","id":-0,"result":1}`,
	`{"jsonrpc":"2.0","id":1e300,"result":1}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"result":1}`,
	`{"jsonrpc":"2.0","id":null,"result":1}`,
	`{"jsonrpc":"2.0","result":1}`,
	`{"jsonrpc":"2.0","id":true,"result":1}`,
	`{"jsonrpc":"2.0","id":{"a":1},"result":1}`,
	`{"jsonrpc":"2.0","id":[1],"method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":null}`,
	`{"jsonrpc":"2.0","id":1,"method":5}`,
	`{"jsonrpc":"2.0","id":1,"method":{"a":1}}`,
	`{"jsonrpc":"2.0","id":1,"method":"a\u0000b"}`,
	`{"jsonrpc":"1.0","id":1,"result":1}`,
	`{"id":1,"result":1}`,
	`{"jsonrpc":2.0,"id":1,"result":1}`,
	`{"JSONRPC":"2.0","ID":1,"Result":1}`,
	`{"jsonrpc":"2.0","Id":1,"Method":"x"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"result":1}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"result":2}`,
	`{"jsonrpc":"2.0","id":1,"result":1,"extra":{"deep":[[[[]]]]}}`,
	`{"jsonrpc":"2.0","id":1,"result":1} trailing`,
	`{"jsonrpc":"2.0","id":1,"result":1}{"jsonrpc":"2.0","id":2,"result":2}`,
	`{"jsonrpc":"2.0","id":1,"result":1}   `,
	`{"jsonrpc":"2.0","id":1,"result":1}` + "\t\r",
	"  \t" + `{"jsonrpc":"2.0","id":1,"result":1}`,
	`{"jsonrpc":"2.0","id":1,"result":"` + "\x01" + `"}`,
	`{"jsonrpc":"2.0","id":1,"result":"` + "\xff\xfe" + `"}`,
	`{"jsonrpc":"2.0","id":1,"result":"\x"}`,
	`{"jsonrpc":"2.0","id":1,"result":"\ud800"}`,
	`{"jsonrpc":"2.0","id":1,"result":[1,2,}`,
	`{"jsonrpc":"2.0","id":1,"result":01}`,
	`{"jsonrpc":"2.0","id":1,"result":NaN}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"x"}}`,
	`{"jsonrpc":"2.0","id":1,"error":"oops"}`,
	`{"jsonrpc":"2.0","id":1,"params":[1,2],"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"params":"x","method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"result":1`,
	`{"jsonrpc":"2.0","id":1,"result":1}}`,
	`{}`,
	`{"jsonrpc":"2.0"}`,
	`{"jsonrpc":"2.0","method":"m","id":"x","params":{"s":"` + strings.Repeat("é", 1000) + `"}}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 998) + strings.Repeat("]", 998) + `}`,
	`{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("[", 2000) + `"}`,
	`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat(`"x",`, 0) + strings.Repeat("a", 0) + `1}`,
}

// sameDecode fails t unless decodeMessage and jsonrpc.DecodeMessage give
// the same message, or the same error, for line.
func sameDecode(t *testing.T, line []byte) {
	t.Helper()
	want, wantErr := jsonrpc.DecodeMessage(line)
	got, gotErr := decodeMessage(line)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%q: decodeMessage error %v, the go-sdk's %v", line, gotErr, wantErr)
	}
	if wantErr != nil {
		if gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: decodeMessage error %q, the go-sdk's %q", line, gotErr, wantErr)
		}
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decodeMessage gave %#v, the go-sdk %#v", line, got, want)
	}
}

func TestDecodeMessageMatchesSDK(t *testing.T) {
	for _, line := range decodeCorpus {
		sameDecode(t, []byte(line))
	}
	// The results do not share the input's memory: the framer reuses it.
	line := []byte(decodeCorpus[0])
	m, err := decodeMessage(line)
	if err != nil {
		t.Fatal(err)
	}
	for i := range line {
		line[i] = 'x'
	}
	if p := string(m.(*jsonrpc.Request).Params); p != `{"name":"echo","arguments":{"text":"hi"}}` {
		t.Fatalf("params changed with the input buffer: %s", p)
	}
}

func FuzzDecodeMessage(f *testing.F) {
	for _, line := range decodeCorpus {
		f.Add([]byte(line))
	}
	f.Fuzz(sameDecode)
}
