package gateway

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// A request's id goes back to the client byte for byte. The go-sdk's
// jsonrpc.ID holds an int64 or a string, decoded through a float64: it
// gives 1.5 back as 1, 1e3 as 1000, -0 as 0, an integer past 2^53 rounded
// (a 30-digit one as the least int64), and a string with escapes
// unescaped. The lean path writes the client's own bytes; for the go-sdk's
// path a socket connection (sockConn) swaps an id the go-sdk would not
// give back as written for a stand-in of its own before the session sees
// the request, and writes the client's bytes in place of the stand-in in
// the response. docs/gateway.md, "ids".

// canonicalID reports whether raw, a request's id as the client wrote it,
// is one that the go-sdk gives back byte for byte: an integer of at most
// 15 digits (within a float64's exact range) without a sign on zero or
// leading zeros, or a string without escapes whose bytes are valid UTF-8
// other than U+2028 and U+2029 (which encoding/json escapes).
func canonicalID(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	if raw[0] == '"' {
		if len(raw) < 2 || raw[len(raw)-1] != '"' {
			return false
		}
		s := raw[1 : len(raw)-1]
		for _, b := range s {
			if b < 0x20 || b == '"' || b == '\\' {
				return false
			}
		}
		return utf8.Valid(s) && !bytes.Contains(s, []byte("\u2028")) && !bytes.Contains(s, []byte("\u2029"))
	}
	d := raw
	if d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 15 || (d[0] == '0' && (len(d) > 1 || len(d) < len(raw))) {
		return false
	}
	for _, b := range d {
		if b < '0' || b > '9' {
			return false
		}
	}
	return true
}

// standInPrefix begins every stand-in id: a string with a NUL, which no
// client's id the go-sdk sees can be (a NUL in a JSON string is escaped,
// and an escaped id gets a stand-in itself).
const standInPrefix = "\x00sbid-"

// idMap is a socket connection's stand-in ids: each maps to the client's
// own id bytes until the response is written.
type idMap struct {
	mu    sync.Mutex
	n     uint64
	raw   map[string][]byte // stand-in -> the client's id
	byRaw map[string]string // the client's id -> its latest stand-in (for a cancellation)
}

// swap gives req, a request the go-sdk decoded from line, a stand-in id
// when its own would not come back as written; and a cancellation that
// names such a request names its stand-in instead.
func (m *idMap) swap(line []byte, req *jsonrpc.Request) {
	if req.IsCall() {
		raw := memberValue(line, `"id"`)
		if raw == nil || canonicalID(raw) {
			return
		}
		m.mu.Lock()
		if m.raw == nil {
			m.raw, m.byRaw = map[string][]byte{}, map[string]string{}
		}
		m.n++
		s := standInPrefix + strconv.FormatUint(m.n, 10)
		m.raw[s] = bytes.Clone(raw)
		m.byRaw[string(raw)] = s
		m.mu.Unlock()
		req.ID, _ = jsonrpc.MakeID(s)
		return
	}
	if req.Method != "notifications/cancelled" || len(req.Params) == 0 {
		return
	}
	raw := memberValue(req.Params, `"requestId"`)
	if raw == nil || canonicalID(raw) {
		return
	}
	m.mu.Lock()
	s, ok := m.byRaw[string(raw)]
	m.mu.Unlock()
	if !ok {
		return
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(req.Params, &p) != nil {
		return
	}
	p["requestId"], _ = json.Marshal(s)
	if b, err := json.Marshal(p); err == nil {
		req.Params = b
	}
}

// restore writes the client's id in place of a stand-in in line, the
// encoding of resp, and forgets the stand-in.
func (m *idMap) restore(line []byte, resp *jsonrpc.Response) []byte {
	s, ok := resp.ID.Raw().(string)
	if !ok || len(s) < len(standInPrefix) || s[:len(standInPrefix)] != standInPrefix {
		return line
	}
	m.mu.Lock()
	raw, ok := m.raw[s]
	delete(m.raw, s)
	if ok && m.byRaw[string(raw)] == s {
		delete(m.byRaw, string(raw))
	}
	m.mu.Unlock()
	if !ok {
		return line
	}
	enc, _ := json.Marshal(s)
	old := append([]byte(`"id":`), enc...)
	i := bytes.Index(line, old)
	if i < 0 {
		return line
	}
	out := make([]byte, 0, len(line)-len(enc)+len(raw))
	out = append(out, line[:i+len(`"id":`)]...)
	out = append(out, raw...)
	return append(out, line[i+len(old):]...)
}

// memberValue returns the value of the top-level member key (quoted, as
// written) of the JSON object obj, or nil.
func memberValue(obj []byte, key string) []byte {
	var v []byte
	if relay.Members(obj, func(k, val []byte) bool {
		if string(k) == key {
			v = val // the last, as the go-sdk's decoder takes it
		}
		return true
	}) != nil {
		return nil
	}
	return v
}
