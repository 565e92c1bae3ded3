package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// capture keeps the JSON-RPC responses (SSE data or JSON bodies) that
// answer tools/call over HTTP.
type capture struct {
	base http.RoundTripper
	mu   sync.Mutex
	got  []map[string]any
}

func (c *capture) RoundTrip(r *http.Request) (*http.Response, error) {
	var call bool
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		call = bytes.Contains(b, []byte(`"tools/call"`))
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	resp, err := c.base.RoundTrip(r)
	if err != nil || !call {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimPrefix(strings.TrimSpace(l), "data: ")
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["id"] != nil {
			delete(m, "id")
			c.mu.Lock()
			c.got = append(c.got, m)
			c.mu.Unlock()
		}
	}
	return resp, nil
}

// TestHTTPRawResultWire: the HTTP endpoint sends a relayed result as the
// server wrote it (rawToolResult, never decoded into go-sdk types), and
// what it writes is, as a JSON value, what the go-sdk's path (a plain
// Backend, a test double) writes for the same calls: the server's own _meta entries
// kept and the protocol's dropped, structured content, the error flag,
// and for a 2026-07-28 client the gateway's serverInfo and the result
// type; errors unchanged.
func TestHTTPRawResultWire(t *testing.T) {
	onCall := func(ctx context.Context, server string, p *mcp.CallToolParams, _ func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
		switch p.Name {
		case "rpcerr":
			return nil, &jsonrpc.Error{Code: -32000, Message: "nope", Data: json.RawMessage(`{"why":1}`)}
		case "rich":
			return &mcp.CallToolResult{Meta: mcp.Meta{"b": 2.0, "a": "x", mcp.MetaKeyServerInfo: "up", "progressToken": 7},
				Content:           []mcp.Content{&mcp.TextContent{Text: "r <&> \u2028"}, &mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}},
				StructuredContent: []any{1.0, "two"}, IsError: true}, nil
		case "big":
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 1<<20)}}}, nil
		}
		args, _ := json.Marshal(p.Arguments)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(args)}}}, nil
	}
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			answers := map[string][]map[string]any{}
			for _, mode := range []string{"sdk", "raw"} {
				store := secrets.NewMemoryStore(filepath.Join(testTempDir(t), "secrets.json"))
				f := newFake(running("alpha", "echo", "rpcerr", "rich", "big"))
				f.setOnCall(onCall)
				var b Backend = f
				if mode == "raw" {
					b = fakeRaw{f}
				}
				g := New(Options{Backend: b, Secrets: store, Version: "test"})
				defer g.Close()
				if err := g.SetHTTP(-1); err != nil {
					t.Fatal(err)
				}
				token, err := Token(store)
				if err != nil {
					t.Fatal(err)
				}
				cap := &capture{base: http.DefaultTransport}
				hc := &http.Client{Transport: bearer{token, cap}}
				c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + g.HTTPAddr() + HTTPPath, HTTPClient: hc, MaxRetries: -1},
					&mcp.ClientSessionOptions{ProtocolVersion: era.version})
				if err != nil {
					t.Fatalf("%s: connect: %v", mode, err)
				}
				for _, p := range []*mcp.CallToolParams{
					{Name: "alpha__echo", Arguments: map[string]any{"k": []any{1, 2}}},
					{Name: "alpha__rich", Meta: mcp.Meta{"x": 1}},
					{Name: "alpha__rpcerr", Arguments: map[string]any{}},
					{Name: "alpha__big"},
					{Name: "missing"},
				} {
					_, _ = cs.CallTool(ctx, p)
				}
				cs.Close()
				answers[mode] = cap.got
			}
			if len(answers["sdk"]) != 5 || len(answers["raw"]) != 5 {
				t.Fatalf("answers: %d on the go-sdk's path, %d relayed raw; want 5 each", len(answers["sdk"]), len(answers["raw"]))
			}
			for i, want := range answers["sdk"] {
				if got := answers["raw"][i]; !reflect.DeepEqual(got, want) {
					g, _ := json.Marshal(got)
					w, _ := json.Marshal(want)
					t.Errorf("call %d: the raw result wrote\n  %.600s\nthe go-sdk's path\n  %.600s", i, g, w)
				}
			}
		})
	}
}
