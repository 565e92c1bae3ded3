package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
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

// The HTTP endpoint (the go-sdk's Streamable HTTP handler) decodes a
// POST's message itself: httpIDs gives a request whose id the go-sdk would
// not give back as written a stand-in in the body, and writes the client's
// bytes in place of it in the answer (JSON or an SSE stream: the go-sdk
// writes each message in one Write). A cancellation posted while the
// request runs that names its id names the stand-in. A batch (an array,
// the 2025-03-26 era) passes as it is.
type httpIDs struct {
	mu      sync.Mutex
	running map[string]string // session + "\x00" + the client's id -> stand-in
}

var httpStandIns atomic.Uint64

// wrap rewrites r's body and returns the writer for its answer and a
// function to call once the answer is written; w as it is when there is
// nothing to do.
func (h *httpIDs) wrap(w http.ResponseWriter, r *http.Request, limit int) (http.ResponseWriter, func()) {
	nothing := func() {}
	if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
		return w, nothing
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, int64(limit)+1))
	if err != nil || len(body) > limit {
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return w, nothing
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	session := r.Header.Get("Mcp-Session-Id")
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return w, nothing
	}
	raw, method, params := memberValue(trimmed, `"id"`), memberValue(trimmed, `"method"`), memberValue(trimmed, `"params"`)
	if method == nil {
		return w, nothing
	}
	if raw == nil || string(raw) == "null" {
		// A notification: a cancellation may name a stand-in.
		if string(method) != `"notifications/cancelled"` || params == nil {
			return w, nothing
		}
		req := memberValue(params, `"requestId"`)
		if req == nil || canonicalID(req) {
			return w, nothing
		}
		h.mu.Lock()
		s, ok := h.running[session+"\x00"+string(req)]
		h.mu.Unlock()
		if !ok {
			return w, nothing
		}
		enc, _ := json.Marshal(s)
		np := splice(params, req, enc)
		nb := splice(trimmed, params, np)
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(nb)), int64(len(nb))
		return w, nothing
	}
	if canonicalID(raw) {
		return w, nothing
	}
	s := standInPrefix + "h" + strconv.FormatUint(httpStandIns.Add(1), 10)
	enc, _ := json.Marshal(s)
	nb := splice(trimmed, raw, enc)
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(nb)), int64(len(nb))
	key := session + "\x00" + string(raw)
	h.mu.Lock()
	if h.running == nil {
		h.running = map[string]string{}
	}
	h.running[key] = s
	h.mu.Unlock()
	return &idWriter{ResponseWriter: w, standIn: enc, raw: bytes.Clone(raw)}, func() {
		h.mu.Lock()
		if h.running[key] == s {
			delete(h.running, key)
		}
		h.mu.Unlock()
	}
}

// splice returns obj with its subslice part replaced by with.
func splice(obj, part, with []byte) []byte {
	i := cap(obj) - cap(part) // part is a slice of obj
	out := make([]byte, 0, len(obj)-len(part)+len(with))
	out = append(out, obj[:i]...)
	out = append(out, with...)
	return append(out, obj[i+len(part):]...)
}

// idWriter writes the client's id in place of its stand-in.
type idWriter struct {
	http.ResponseWriter
	standIn, raw []byte
}

func (w *idWriter) Write(p []byte) (int, error) {
	if !bytes.Contains(p, w.standIn) {
		return w.ResponseWriter.Write(p)
	}
	if _, err := w.ResponseWriter.Write(bytes.ReplaceAll(p, w.standIn, w.raw)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Unwrap lets http.ResponseController reach the connection (flushes,
// deadlines).
func (w *idWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
