//go:build linux

package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/secrets"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

type relayBearer struct {
	token string
	next  http.RoundTripper
}

func (b relayBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// entryPoint is one way a tools/call reaches a server: it calls tool with
// args and returns what the caller sees as the error: a tool error's
// text, a JSON-RPC error (code and message), or the API's error.
type entryPoint struct {
	name string
	call func(t *testing.T, tool string) (text string, rpc *jsonrpc.Error)
}

// TestRelayEveryEntryPoint: every production path of a tools/call (the
// API's servers.call, the gateway's lean path, the gateway's go-sdk
// server on the socket, the HTTP endpoint) and the go-sdk-only
// diagnostic, against the same real server with callTimeout 300 ms: a
// call that sleeps is cancelled at the server after the same timeout
// with the same words, and the server's own JSON-RPC error comes back
// with its code and message.
func TestRelayEveryEntryPoint(t *testing.T) {
	want := (&relay.TimeoutError{Server: "m", Tool: "sleep", Timeout: 300 * time.Millisecond}).Error()
	for _, path := range []string{"lean", "sdk"} {
		t.Run(path, func(t *testing.T) {
			setGatewayPath(t, path)
			store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
			t.Setenv("SHELL", "/bin/sh")
			th := runHostWith(t, store, map[string]any{"m": with(gwEntry("gwmodern"), "callTimeout", 300)}, func(o *Options) { o.GatewayHTTPPort = -1 })
			th.waitRunning(t, "m")
			var info hostapi.GatewayInfo
			th.must(t, hostapi.MethodGatewayTools.Name, nil, &info)
			token, err := gateway.Token(store)
			if err != nil {
				t.Fatal(err)
			}

			fromResult := func(res *mcp.CallToolResult, err error) (string, *jsonrpc.Error) {
				var rpc *jsonrpc.Error
				if errors.As(err, &rpc) {
					return "", rpc
				}
				if err != nil {
					t.Fatalf("the call failed: %v", err)
				}
				if !res.IsError {
					t.Fatalf("not a tool error: %s", gwText(res))
				}
				return gwText(res), nil
			}
			sdkClient := func(cs *mcp.ClientSession) func(t *testing.T, tool string) (string, *jsonrpc.Error) {
				return func(t *testing.T, tool string) (string, *jsonrpc.Error) {
					ctx, cancel := context.WithTimeout(context.Background(), wait)
					defer cancel()
					return fromResult(cs.CallTool(ctx, &mcp.CallToolParams{Name: "m__" + tool, Arguments: map[string]any{}}))
				}
			}
			socket := gwClient(t, th, gateway.Filter{}, "", nil)
			gwTools(t, socket)
			hc := &http.Client{Transport: relayBearer{token, http.DefaultTransport}}
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			httpCS, err := mcp.NewClient(&mcp.Implementation{Name: "relay-test", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: info.HTTP, HTTPClient: hc, MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer httpCS.Close()

			points := []entryPoint{
				{"servers.call (API)", func(t *testing.T, tool string) (string, *jsonrpc.Error) {
					err := th.call(t, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: "m", Tool: tool, Arguments: json.RawMessage(`{}`)}, nil)
					if err == nil {
						t.Fatal("servers.call: no error")
					}
					return err.Error(), nil
				}},
				{"socket, go-sdk client (lean path)", sdkClient(socket)},
				{"socket, a request the lean path leaves to the go-sdk", socketEscaped(t, th)},
				{"HTTP", sdkClient(httpCS)},
			}
			var logs hostapi.LogsResult
			cancelled := func() int {
				th.must(t, hostapi.MethodServersLogs.Name, hostapi.NameParams{Name: "m"}, &logs)
				n := 0
				for _, l := range logs.Lines {
					if l == "gwmodern: sleep cancelled" {
						n++
					}
				}
				return n
			}
			for _, p := range points {
				before := cancelled()
				text, rpc := p.call(t, "sleep")
				if rpc != nil || !strings.HasSuffix(text, want) {
					t.Errorf("%s: a call past callTimeout: %q %v; want %q", p.name, text, rpc, want)
				}
				testkit.Eventually(t, p.name+": the server got the cancellation", func() (bool, string) {
					return cancelled() == before+1, strings.Join(logs.Lines, " | ")
				})

				text, rpc = p.call(t, "rpcerr")
				if p.name == "servers.call (API)" {
					if !strings.Contains(text, `Switchboard server "m": tool "rpcerr": modern says no`) {
						t.Errorf("%s: the server's error: %q", p.name, text)
					}
				} else if rpc == nil || rpc.Code != -32001 || rpc.Message != "modern says no" {
					t.Errorf("%s: the server's error: %q %v", p.name, text, rpc)
				}
				t.Logf("%s: %s", p.name, want)
			}
		})
	}
}

// socketEscaped calls a tool on the gateway's socket with a request whose
// "name" key is written with an escape: well formed, so the go-sdk's server
// takes it (the lean path leaves such a request to it), and its tools/call
// goes through the facade's relay.
func socketEscaped(t *testing.T, th *testHost) func(t *testing.T, tool string) (string, *jsonrpc.Error) {
	nc, err := api.DialGateway(context.Background(), th.gwSocket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	br, _, err := gateway.Handshake(nc, gateway.Hello{Client: "relay-test"})
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReaderSize(br, 1<<20)
	type resp struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *jsonrpc.Error  `json:"error"`
	}
	send := func(t *testing.T, s string) resp {
		t.Helper()
		if _, err := io.WriteString(nc, s+"\n"); err != nil {
			t.Fatal(err)
		}
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			var r resp
			if err := json.Unmarshal(line, &r); err != nil {
				t.Fatalf("not JSON: %q", line)
			}
			if len(r.ID) > 0 {
				return r
			}
		}
	}
	if r := send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"relay","version":"1"}}}`); r.Error != nil {
		t.Fatalf("initialize: %v", r.Error)
	}
	if _, err := io.WriteString(nc, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	id := 1
	return func(t *testing.T, tool string) (string, *jsonrpc.Error) {
		id++
		r := send(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"n\u0061me":"m__`+tool+`","arguments":{}}}`)
		if r.Error != nil {
			return "", r.Error
		}
		var res struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			IsError bool `json:"isError"`
		}
		if err := json.Unmarshal(r.Result, &res); err != nil || !res.IsError || len(res.Content) != 1 {
			t.Fatalf("not a tool error: %s", r.Result)
		}
		return res.Content[0].Text, nil
	}
}
