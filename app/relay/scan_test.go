package relay

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
	"testing"
)

// scanCases are texts the scanner must judge as encoding/json does.
var scanCases = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":-0.5e+10,"b":[true,false,null],"c":{"d":"e"}}`,
	`{"a":"\u00e9\n\t\"\\\/"}`, `{"a":"` + strings.Repeat("x", 100) + `"}`,
	`{"a":"` + strings.Repeat("xy\\n", 40) + `"}`, `{"a":"` + strings.Repeat("é", 30) + `"}`,
	`{"a":1,}`, `{"a":1`, `{"a" 1}`, `{a:1}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`,
	`{"a":"x`, `{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12g4"}`, "{\"a\":\"\x01\"}", "{\"a\":\"abcdefg\x1f\"}",
	`{"a":tru}`, `{"a":nul}`, `{"a":[1,2,]}`, `{"a":[1 2]}`, `{"a":[}`, `{"a":1}x`, `{"a":1}{}`, `[1]`, `"s"`, ``,
	`{"a":"` + strings.Repeat("0123456", 9) + `"}`, `{"` + strings.Repeat("k", 17) + `":"` + strings.Repeat("v", 23) + `\""}`,
}

// TestScanAgreesWithEncodingJSON: the one-pass scanner accepts and refuses
// what encoding/json's Valid does (objects), and finds the members that
// encoding/json decodes.
func TestScanAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range scanCases {
		want := json.Valid([]byte(c)) && strings.HasPrefix(strings.TrimSpace(c), "{")
		var got []string
		err := Members([]byte(c), func(key, val []byte) bool {
			got = append(got, string(key)+"="+string(val))
			return true
		})
		if (err == nil) != want {
			t.Errorf("%q: scanner says %v, encoding/json says valid=%v", c, err, want)
			continue
		}
		if !want {
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(c), &m); err != nil {
			t.Fatal(err)
		}
		if len(m) != len(got) {
			t.Errorf("%q: members %v, encoding/json %v", c, got, m)
		}
		for _, kv := range got {
			k, v, _ := strings.Cut(kv, "=")
			var key string
			if err := json.Unmarshal([]byte(k), &key); err != nil || string(m[key]) != v {
				t.Errorf("%q: member %s = %s, encoding/json %s", c, k, v, m[key])
			}
		}
	}
}

// TestScanStringStops: a quote, a backslash or a control character at
// every offset of a long string is found (the 8-byte steps must not skip
// one).
func TestScanStringStops(t *testing.T) {
	for n := 0; n < 24; n++ {
		for _, bad := range []string{"\x00", "\x1f", "\n"} {
			s := `{"a":"` + strings.Repeat("a", n) + bad + strings.Repeat("b", 9) + `"}`
			if Members([]byte(s), nil) == nil {
				t.Errorf("a control character after %d bytes was accepted", n)
			}
		}
		s := `{"a":"` + strings.Repeat("a", n) + `","b":"` + strings.Repeat("é", n) + `\"` + `"}`
		var a, b string
		if err := Members([]byte(s), func(key, val []byte) bool {
			if string(key) == `"a"` {
				a = string(val)
			} else {
				b = string(val)
			}
			return true
		}); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if a != `"`+strings.Repeat("a", n)+`"` || b != `"`+strings.Repeat("é", n)+`\""` {
			t.Errorf("n=%d: a=%s b=%s", n, a, b)
		}
	}
}

// TestScanDepth: nesting is counted as encoding/json and the go-sdk count
// it.
func TestScanDepth(t *testing.T) {
	deep := func(n int) []byte {
		return []byte(strings.Repeat("[", n) + strings.Repeat("]", n))
	}
	if !Valid(deep(maxArgsDepth)) || Valid(deep(maxArgsDepth+1)) {
		t.Errorf("arguments: %d levels must pass, %d not", maxArgsDepth, maxArgsDepth+1)
	}
	obj := func(n int) []byte { return []byte(`{"r":` + string(deep(n-1)) + `}`) }
	if _, ok := scanResult(obj(maxAnswerDepth)); !ok {
		t.Errorf("an answer %d deep was refused", maxAnswerDepth)
	}
	if _, ok := scanResult(obj(maxAnswerDepth + 1)); ok {
		t.Errorf("an answer %d deep was taken", maxAnswerDepth+1)
	}
}

// FuzzScan: the scanner agrees with encoding/json on any input.
func FuzzScan(f *testing.F) {
	for _, c := range scanCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := validValue([]byte(s), 1<<20)
		if (err == nil) != json.Valid([]byte(s)) {
			t.Fatalf("%q: scanner %v, encoding/json %v", s, err, json.Valid([]byte(s)))
		}
	})
}

func BenchmarkScanResult1MiB(b *testing.B) {
	text := strings.Repeat("All work and no play makes Jack a dull boy. ", 1<<20/44)
	raw, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	line := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"sbgw-1","result":%s}`, raw))
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		if objectMembers(line, maxAnswerDepth, nil) != nil {
			b.Fatal("invalid")
		}
	}
}

// BenchmarkAnswer1MiB: a 1 MiB answer taken apart as the line tap does:
// one pass that checks the line and finds the result's members
// (scanAnswer), against the two passes it made before (the line checked,
// then the result walked again for its members), in the same run.
func BenchmarkAnswer1MiB(b *testing.B) {
	text := strings.Repeat("All work and no play makes Jack a dull boy. ", 1<<20/44)
	raw, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}})
	line := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"sbgw-1","result":%s}`, raw))
	b.Run("two passes (before)", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			var result []byte
			if objectMembers(line, maxAnswerDepth, func(key, val []byte) bool {
				if string(key) == `"result"` {
					result = val
				}
				return true
			}) != nil {
				b.Fatal("invalid")
			}
			if res, ok := scanResult(result); !ok || res.Content == nil {
				b.Fatal("no content")
			}
		}
	})
	b.Run("one pass", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		as := newAnswerScanner()
		for b.Loop() {
			a, err := as.scan(line)
			if err != nil || !a.object || a.res.Content == nil {
				b.Fatal("no content")
			}
		}
	})
}

// strBefore is the string scan before bytes.IndexByte and ctl (8 bytes
// a step, three masks each), kept as BenchmarkString1MiB's baseline.
func (s *scanner) strBefore(i int) (int, error) {
	b := s.b
	i++
	for {
		for i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			return 0, errSyntax
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(b) {
				return 0, errSyntax
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				i += 6
			default:
				return 0, errSyntax
			}
		case c < 0x20:
			return 0, errSyntax
		default:
			i++
		}
	}
}

// BenchmarkString1MiB: a 1 MiB string checked by str, against the scan
// it replaced, in the same run: plain text, and text with an escape every
// 40 bytes or so (a quoted JSON document).
func BenchmarkString1MiB(b *testing.B) {
	for _, tc := range []struct{ name, unit string }{
		{"plain", "All work and no play makes Jack a dull boy. "},
		{"escapes", `{\"k\":\"All work and no play\",\n\"j\":1}, `},
	} {
		str := []byte(`"` + strings.Repeat(tc.unit, 1<<20/len(tc.unit)) + `"`)
		for _, impl := range []string{"before", "now"} {
			b.Run(tc.name+"/"+impl, func(b *testing.B) {
				b.SetBytes(int64(len(str)))
				s := scanner{b: str, max: 1}
				for b.Loop() {
					var e int
					var err error
					if impl == "now" {
						e, err = s.str(0)
					} else {
						e, err = s.strBefore(0)
					}
					if err != nil || e != len(str) {
						b.Fatal(e, err)
					}
				}
			})
		}
	}
}
