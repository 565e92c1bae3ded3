package gateway

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// rawToolResult is a relayed tool result that the go-sdk's server sends
// as the server wrote it: on the go-sdk's path (the HTTP endpoint, and
// socket requests that the lean path leaves to the go-sdk), a 1 MiB result
// was decoded into go-sdk types and encoded again (most of the HTTP
// endpoint's cost per MiB). Its MarshalJSON splices, as the lean path's
// rawResultLine does, what normalize keeps (the server's own _meta
// entries, content, structured content, error flag; content items as the
// server wrote them) from the spans the relay found in the answer, with
// what the go-sdk's server sets on the result itself (for a 2026-07-28
// client: its serverInfo in _meta and the result type), which goes to the
// embedded, empty CallToolResult through the methods it promotes.
type rawToolResult struct {
	*mcp.CallToolResult // never Content: what the go-sdk sets (_meta, result type)
	res                 *relay.Result
	server              string // whose result it is (its _meta.ui.resourceUri: uiapps.go)
}

func newRawToolResult(res *relay.Result, server string) *rawToolResult {
	return &rawToolResult{CallToolResult: &mcp.CallToolResult{}, res: res, server: server}
}

// MarshalJSON writes the result object: the embedded result's members
// (small: it has no content) but its content, its _meta merged with the
// server's own entries (the server's win, as normalize kept them before
// the go-sdk annotated the result), then the relayed members.
func (r *rawToolResult) MarshalJSON() ([]byte, error) {
	own, err := json.Marshal(r.CallToolResult)
	if err != nil {
		return nil, err
	}
	var meta, rest []member
	err = relay.Members(own, func(key, val []byte) bool {
		switch string(key) {
		case `"content"`, `"structuredContent"`, `"isError"`:
		case `"_meta"`:
			if val[0] == '{' {
				_ = relay.Members(val, func(k, v []byte) bool {
					meta = append(meta, member{k, v})
					return true
				})
			}
		default:
			rest = append(rest, member{key, val})
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if round := roundMembers(r.res); round != nil {
		// The server's round, not the go-sdk's word on a result it
		// never decoded ("complete").
		rest = slices.DeleteFunc(rest, func(m member) bool { return string(m.key) == `"resultType"` })
		rest = append(rest, round...)
	}
	out := make([]byte, 0, len(r.res.Content)+len(r.res.StructuredContent)+len(own)+256)
	return appendResult(out, r.res, serverMeta(meta, r.res.Meta, r.server), rest), nil
}

// roundMembers are the members of an input_required result that an app
// of the 2026-07-28 era needs to complete the round itself (resultType,
// inputRequests, requestState), as the server wrote them; nil for any
// other result (the host completes the rounds of the other apps,
// app/host/rounds.go, so they never see one).
func roundMembers(res *relay.Result) []member {
	if !res.Round { // found in the relay's one pass over the answer
		return nil
	}
	var out []member
	_ = relay.Members(res.Raw, func(key, val []byte) bool {
		switch string(key) {
		case `"resultType"`, `"inputRequests"`, `"requestState"`:
			out = append(out, member{key, val})
		}
		return true
	})
	return out
}

// member is one member of a JSON object: its key, quoted as written, and
// its value.
type member struct{ key, val []byte }

// serverMeta adds to meta the members of a server's _meta that a client
// gets (normalize's rule: not the protocol's keys, nor the progress
// token); a member of meta with the same key is replaced: the server's
// wins. Its "ui" member's resourceUri is exposed for server (uiapps.go).
func serverMeta(meta []member, raw []byte, server string) []member {
	if !isSet(raw) || raw[0] != '{' {
		return meta
	}
	_ = relay.Members(raw, func(key, val []byte) bool {
		k := key[1 : len(key)-1]
		if bytes.HasPrefix(k, []byte(protocolMetaPrefix)) || string(k) == "progressToken" {
			return true
		}
		if bytes.Equal(key, uiMetaKeyJSON) {
			val = exposeUIMetaRaw(server, val)
		}
		if i := slices.IndexFunc(meta, func(m member) bool { return bytes.Equal(m.key, key) }); i >= 0 {
			meta[i].val = val
		} else {
			meta = append(meta, member{key, val})
		}
		return true
	})
	return meta
}

// appendResult appends a relayed CallToolResult object to out: meta as
// its _meta (sorted, as the go-sdk writes a map), the server's content
// (an empty list when it sent none), structured content and error flag
// as the relay found their spans, then the rest members. Nothing is
// parsed again.
func appendResult(out []byte, res *relay.Result, meta, rest []member) []byte {
	out = append(out, '{')
	if len(meta) > 0 {
		slices.SortFunc(meta, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		out = append(out, `"_meta":{`...)
		for i, m := range meta {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, m.key...)
			out = append(out, ':')
			out = append(out, m.val...)
		}
		out = append(out, "},"...)
	}
	out = append(out, `"content":`...)
	if isSet(res.Content) {
		out = append(out, res.Content...)
	} else {
		out = append(out, "[]"...)
	}
	if isSet(res.StructuredContent) {
		out = append(out, `,"structuredContent":`...)
		out = append(out, res.StructuredContent...)
	}
	if res.IsError {
		out = append(out, `,"isError":true`...)
	}
	for _, m := range rest {
		out = append(out, ',')
		out = append(out, m.key...)
		out = append(out, ':')
		out = append(out, m.val...)
	}
	return append(out, '}')
}
