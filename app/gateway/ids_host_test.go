//go:build unix

// A real host with a real stdio server, over the gateway's Unix socket and
// HTTP endpoint: Unix only. Under Wine the host's stdio server never
// answered (the Wine run hung until its timeout); the id mapping itself is
// the same code on every OS, and TestCanonicalID and TestIDMapCancel run
// there.

package gateway_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/host/hosttest"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

var testExe string

const helperEnv = "GATEWAY_TEST_HELPER"

func TestMain(m *testing.M) {
	testkit.HelperMain(&testExe, helperEnv, map[string]func() int{"mcp": echoServer})
	os.Exit(testkit.Run(m))
}

// echoServer is a real stdio MCP server with one tool, echo.
func echoServer() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "ids", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Text string `json:"text"`
	}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// lineClient speaks MCP's stdio framing on the gateway socket, after a
// bridge's preamble, as a bridge that relays does.
type lineClient struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

func (c *lineClient) send(line string) {
	c.t.Helper()
	_ = c.nc.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.nc.Write([]byte(line + "\n")); err != nil {
		c.t.Fatal(err)
	}
}

// response reads lines until a response (no method) and returns it.
func (c *lineClient) response() []byte {
	c.t.Helper()
	for {
		_ = c.nc.SetReadDeadline(time.Now().Add(30 * time.Second))
		line, err := c.br.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("reading a response: %v", err)
		}
		if idOf(line) != nil || !bytes.Contains(line, []byte(`"method"`)) {
			return line
		}
	}
}

// idOf is the raw bytes of a message's top-level id, or nil.
func idOf(line []byte) []byte {
	var id []byte
	_ = relay.Members(bytes.TrimSpace(line), func(k, v []byte) bool {
		if string(k) == `"id"` {
			id = v
		}
		return true
	})
	return id
}

// testIDs are the ids the tests send: numbers of every form and size,
// strings with escapes, and plain ones.
var testIDs = []string{
	`1.5`, `1e3`, `1E+3`, `123456789012345678901234567890`, `-0`, `1.0`, `-7`, `0`, `42`,
	`9007199254740993`, `-123456789012345678901234567890.5e-7`,
	`"plain"`, `"a\"b\\c"`, `"\u0041\u00e9\ud83d\ude00"`, `"é😀"`, `"tab\there"`, `"\u2028"`, `"<&>"`, `""`,
}

// idsHost runs a real host with the echo server (and its HTTP endpoint).
func idsHost(t *testing.T) *hosttest.Host {
	t.Setenv("SHELL", "/bin/sh")
	return hosttest.Start(t, map[string]any{"ids": map[string]any{
		"command": testExe,
		"env":     map[string]string{helperEnv: "mcp", "GORACE": "atexit_sleep_ms=0"},
	}}, func(o *host.Options) { o.GatewayHTTPPort = -1 })
}

// TestIDsComeBackByteForByte: through a real host's gateway socket, with a
// real stdio server behind it, every request gets its id back as the
// client wrote it: numbers of any size and form, strings with escapes, on
// the go-sdk's path (initialize, tools/list, ping) and on the lean path's
// (tools/call), and in the error the gateway gives a line it cannot
// decode (null when it has none). Fails with the go-sdk's ids (1.5 came
// back as 1, 1e3 as 1000, a 30-digit id as the least int64).
func TestIDsComeBackByteForByte(t *testing.T) {
	th := idsHost(t)
	nc, err := api.DialGateway(context.Background(), api.GatewayPathFor(th.Opts.SocketPath))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br, _, err := gateway.Handshake(nc, gateway.Hello{Client: "ids-test"})
	if err != nil {
		t.Fatal(err)
	}
	c := &lineClient{t: t, nc: nc, br: br}

	c.send(`{"jsonrpc":"2.0","id":1.5e0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ids-test","version":"1"}}}`)
	if got := idOf(c.response()); string(got) != `1.5e0` {
		t.Errorf("initialize: the response's id is %s, want 1.5e0", got)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// The server is listed once it runs.
	testkit.Eventually(t, "the server's tool listed", func() bool {
		c.send(`{"jsonrpc":"2.0","id":"wait","method":"tools/list"}`)
		return bytes.Contains(c.response(), []byte(`ids__echo`))
	})
	for _, id := range testIDs {
		for _, req := range []string{
			`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"ids__echo","arguments":{"text":"hi"}}}`,
			`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"ids__nope","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":` + id + `,"method":"no/such/method"}`,
		} {
			c.send(req)
			resp := c.response()
			if got := idOf(resp); string(got) != id {
				t.Errorf("%s\n  answered with id %s, want %s: %s", req, got, id, bytes.TrimSpace(resp))
			}
			if strings.Contains(req, "ids__echo") && !bytes.Contains(resp, []byte(`"hi"`)) {
				t.Errorf("%s\n  answered %s, want the echo", req, bytes.TrimSpace(resp))
			}
		}
	}
	// A line that is not JSON-RPC: its error keeps the id it began with.
	c.send(`{"jsonrpc":"2.0","id":1.50,"method":"tools/list","params":}`)
	if got := idOf(c.response()); string(got) != `1.50` {
		t.Errorf("a malformed line's error has id %s, want 1.50", got)
	}
	// And null where there is none to keep.
	c.send(`not json`)
	if got := idOf(c.response()); string(got) != `null` {
		t.Errorf("a line that is not JSON got an error with id %s, want null", got)
	}
}

// TestHTTPIDsComeBackByteForByte: the same through the HTTP endpoint (the
// go-sdk's Streamable HTTP handler), whose answers are SSE streams.
func TestHTTPIDsComeBackByteForByte(t *testing.T) {
	th := idsHost(t)
	ac, err := api.Dial(context.Background(), th.Opts.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	defer ac.Close()
	var info hostapi.GatewayInfo
	if err := ac.Call(context.Background(), hostapi.MethodGatewayTools.Name, nil, &info); err != nil || info.HTTP == "" {
		t.Fatalf("the HTTP endpoint: %+v %v", info, err)
	}
	token, err := gateway.Token(th.Store)
	if err != nil {
		t.Fatal(err)
	}
	session := ""
	post := func(body string) (id []byte, resp string) {
		t.Helper()
		req, _ := http.NewRequest("POST", info.HTTP, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		if s := res.Header.Get("Mcp-Session-Id"); s != "" {
			session = s
		}
		b, _ := io.ReadAll(res.Body)
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimPrefix(line, "data: ")
			if strings.HasPrefix(line, "{") {
				if id := idOf([]byte(line)); id != nil {
					return id, line
				}
			}
		}
		return nil, string(b)
	}
	if id, resp := post(`{"jsonrpc":"2.0","id":1.5e0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ids-test","version":"1"}}}`); string(id) != `1.5e0` {
		t.Fatalf("initialize: id %s, want 1.5e0: %s", id, resp)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	testkit.Eventually(t, "the server's tool listed", func() bool {
		_, resp := post(`{"jsonrpc":"2.0","id":"wait","method":"tools/list"}`)
		return strings.Contains(resp, "ids__echo")
	})
	for _, id := range testIDs {
		for _, req := range []string{
			`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"ids__echo","arguments":{"text":"hi"}}}`,
		} {
			got, resp := post(req)
			if string(got) != id {
				t.Errorf("%s\n  answered with id %s, want %s: %s", req, got, id, resp)
			}
		}
	}
}
