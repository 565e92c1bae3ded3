// Command tinyserver is the smallest useful MCP stdio server: one tool,
// echo, written with the standard library only, built static
// (CGO_ENABLED=0). bench/bridgestart spawns it directly as the baseline
// of what an AI app pays to start an MCP server, and the host under test
// runs it as its one server.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
)

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
		Name            string `json:"name"`
		Arguments       struct {
			Text string `json:"text"`
			Size int    `json:"size"` // answer with a text of this many bytes instead
		} `json:"arguments"`
	} `json:"params"`
}

var tools = json.RawMessage(`{"tools":[{"name":"echo","description":"Returns its text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}]}`)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 16<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var r request
		if json.Unmarshal(in.Bytes(), &r) != nil || len(r.ID) == 0 {
			continue // a notification, or not JSON
		}
		var result any
		switch r.Method {
		case "initialize":
			v := r.Params.ProtocolVersion
			if v == "" {
				v = "2025-06-18"
			}
			result = map[string]any{"protocolVersion": v, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "tinyserver", "version": "1"}}
		case "tools/list":
			result = tools
		case "tools/call":
			text := r.Params.Arguments.Text
			if n := r.Params.Arguments.Size; n > 0 {
				text = strings.Repeat("x", n)
			}
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
		case "ping":
			result = map[string]any{}
		default:
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.ID, "error": map[string]any{"code": -32601, "message": "method not found: " + r.Method}})
			out.Write(append(b, '\n'))
			out.Flush()
			continue
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": r.ID, "result": result})
		out.Write(append(b, '\n'))
		out.Flush()
	}
}
