//go:build linux

package host

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/gateway"
)

// TestGatewayDeeplyNestedRequest: a tools/call whose arguments nest more
// than 10,000 levels (encoding/json's limit; the go-sdk's is 1,000) gets
// an error that says so,
// with its id, not "server is stopping, try again"; the server keeps
// running and the session goes on.
func TestGatewayDeeplyNestedRequest(t *testing.T) {
	for _, path := range []string{"lean", "sdk"} {
		t.Run(path, func(t *testing.T) {
			setGatewayPath(t, path)
			th := runHost(t, nil, map[string]any{"m": gwEntry("gwmodern")})
			st := th.waitRunning(t, "m")
			// Wait for the gateway to list the tool.
			gwTools(t, gwClient(t, th, gateway.Filter{}, "2025-11-25", nil))

			nc, err := api.DialGateway(context.Background(), th.gwSocket())
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			br, _, err := gateway.Handshake(nc, gateway.Hello{Client: "depth-test"})
			if err != nil {
				t.Fatal(err)
			}
			out := bufio.NewReaderSize(br, 1<<20)
			send := func(s string) {
				t.Helper()
				if _, err := io.WriteString(nc, s+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			type resp struct {
				ID     json.RawMessage `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			next := func() resp {
				t.Helper()
				for {
					line, err := out.ReadBytes('\n')
					if err != nil {
						t.Fatal(err)
					}
					var r resp
					if err := json.Unmarshal(line, &r); err != nil {
						t.Fatalf("not JSON: %q", line)
					}
					if len(r.ID) > 0 { // skip notifications
						return r
					}
				}
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"depth","version":"1"}}}`)
			if r := next(); r.Error != nil {
				t.Fatalf("initialize: %+v", r.Error)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			deep := strings.Repeat("[", 10050) + strings.Repeat("]", 10050)
			send(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"m__echo","arguments":{"message":"x","deep":` + deep + `}}}`)
			r := next()
			msg := ""
			if r.Error != nil {
				msg = r.Error.Message
			} else {
				msg = string(r.Result)
			}
			if string(r.ID) != "42" || r.Error == nil || !strings.Contains(msg, "nested") || !strings.Contains(msg, "flatter") ||
				strings.Contains(msg, "stopping") || strings.Contains(msg, "try again") {
				t.Fatalf("the deep request's answer: id %s: %s", r.ID, msg)
			}
			t.Logf("PROVED (%s): %s", path, msg)
			send(`{"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"m__pid","arguments":{}}}`)
			if r := next(); string(r.ID) != "43" || r.Error != nil || !strings.Contains(string(r.Result), "\"isError\"") && !strings.Contains(string(r.Result), "text") {
				t.Fatalf("the call after: %s %+v", r.Result, r.Error)
			}
			if now := th.waitRunning(t, "m"); now.PID != st.PID {
				t.Errorf("the server was restarted: pid %d -> %d", st.PID, now.PID)
			}
		})
	}
}
