package stdio

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	segjson "github.com/segmentio/encoding/json"
)

// decodeMessage is [jsonrpc.DecodeMessage] without its cost per message:
// the go-sdk decodes through a json.Decoder over a bytes.Reader, which
// allocates a fresh 32 KiB buffer for every message (and, for a larger one,
// copies and re-scans it as the buffer doubles), plus a second decoder for
// the method name. On a 1 KiB message that buffer was about 40% of the
// transport's CPU, in allocation and GC.
//
// The result is the same: the same JSON package (segmentio/encoding, the
// one the go-sdk's internal/json wraps), the same flag, the same nesting
// limit and the same checks, on the same bytes. Only a message that decodes
// cleanly takes this path; anything else (invalid JSON, data after the
// value, too deep, a wrong version tag or id, an error in a field) goes to
// jsonrpc.DecodeMessage itself, so that the verdict and the error are the
// go-sdk's own.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	// The go-sdk's decoder first reads one whole value with a syntax check
	// (json.Valid also refuses data after it), and refuses deep nesting.
	if !segjson.Valid(data) || tooDeep(data, maxDepth) {
		return jsonrpc.DecodeMessage(data)
	}
	var msg wireDecode
	rest, err := segjson.Parse(data, &msg, segjson.DontMatchCaseInsensitiveStructFields)
	if err != nil || len(rest) != 0 || msg.VersionTag != "2.0" {
		return jsonrpc.DecodeMessage(data)
	}
	id, err := jsonrpc.MakeID(msg.ID)
	if err != nil {
		return jsonrpc.DecodeMessage(data)
	}
	if len(msg.Method) > 0 {
		// The "method" key was present: decode its value (including "").
		var method string
		if rest, err := segjson.Parse(msg.Method, &method, segjson.DontMatchCaseInsensitiveStructFields); err != nil || len(rest) != 0 {
			return jsonrpc.DecodeMessage(data)
		}
		return &jsonrpc.Request{Method: method, ID: id, Params: msg.Params}, nil
	}
	if !id.IsValid() {
		return jsonrpc.DecodeMessage(data) // a response needs an id
	}
	resp := &jsonrpc.Response{ID: id, Result: msg.Result}
	if msg.Error != nil { // no typed nil in the error interface
		resp.Error = msg.Error
	}
	return resp, nil
}

// wireDecode is the go-sdk's decode form of a JSON-RPC message
// (internal/jsonrpc2.wireDecode): Method is raw so that a present "method"
// key is told from an absent one, even with the value "".
type wireDecode struct {
	VersionTag string          `json:"jsonrpc"`
	ID         any             `json:"id,omitempty"`
	Method     json.RawMessage `json:"method"`
	Params     json.RawMessage `json:"params,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      *jsonrpc.Error  `json:"error,omitempty"`
}

// maxDepth is the go-sdk's nesting limit (internal/json.defaultMaxDepth).
const maxDepth = 1000

// tooDeep reports whether objects and arrays nest deeper than max, counted
// as the go-sdk's internal/json.checkMaxDepth counts them.
func tooDeep(data []byte, max int) bool {
	depth := 0
	inString, escaped := false, false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > max {
				return true
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return false
}
