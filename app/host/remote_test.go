//go:build linux

package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// remoteMCP is a go-sdk Streamable HTTP MCP server on a loopback port
// that can be stopped and started again on the same port (a remote
// server's restart: its sessions are gone). It answers only requests
// whose Authorization header is "Bearer " + token.
type remoteMCP struct {
	t         *testing.T
	addr      string
	token     string
	stateless bool // a stateless handler: the 2026-07-28 protocol (server/discover)

	mu      sync.Mutex
	srv     *http.Server
	headers []http.Header // of every request, as the server got them
}

func newRemoteMCP(t *testing.T, token string, stateless bool) *remoteMCP {
	r := &remoteMCP{t: t, token: token, stateless: stateless}
	r.start("127.0.0.1:0")
	t.Cleanup(r.stop)
	return r
}

func (r *remoteMCP) url() string { return "http://" + r.addr + "/mcp" }

func (r *remoteMCP) start(addr string) {
	r.t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.addr = l.Addr().String()
	s := mcp.NewServer(&mcp.Implementation{Name: "remote-test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes its text"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "remote: " + in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "always fails"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, errors.New("it failed on purpose")
		})
	s.AddPrompt(&mcp.Prompt{Name: "greet"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "remote greeting"}}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "remote://r", Name: "r"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "remote resource"}}}, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: r.stateless})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.headers = append(r.headers, req.Header.Clone())
		r.mu.Unlock()
		if req.Header.Get("Authorization") != "Bearer "+r.token {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, req)
	})}
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
	go srv.Serve(l)
}

func (r *remoteMCP) stop() {
	r.mu.Lock()
	srv := r.srv
	r.srv = nil
	r.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

func (r *remoteMCP) sawHeader(name, value string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, h := range r.headers {
		if h.Get(name) == value {
			return true
		}
	}
	return false
}

// TestRemoteServer: a remote entry is connected over Streamable HTTP with
// its headers (a secret from the keyring), its tools go through the
// gateway as a local server's (listed with its prefix, called on the lean
// path), its status shows its url; when the server goes away it is
// unreachable and retried with the backoff, and it comes back with the
// server; a server that refuses the credentials is unauthorized.
func TestRemoteServer(t *testing.T) {
	const token = "s3cret-remote-token"
	srv := newRemoteMCP(t, token, false)
	other := newRemoteMCP(t, "another-token", false)
	modern := newRemoteMCP(t, token, true)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("r-token", secrets.New(token)); err != nil {
		t.Fatal(err)
	}
	setGatewayPath(t, "lean")
	th := runHost(t, store, map[string]any{
		"r": map[string]any{"url": srv.url(), "maxReconnects": 1000,
			"headers": map[string]string{"Authorization": "Bearer ${keyring:r-token}", "X-Team": "core"}},
		"bad": map[string]any{"url": other.url(), "maxReconnects": 1000,
			"headers": map[string]string{"Authorization": "Bearer ${keyring:r-token}"}},
		"m": map[string]any{"url": modern.url(), "headers": map[string]string{"Authorization": "Bearer ${keyring:r-token}"}},
		"w": map[string]any{"url": modern.url(), "headers": map[string]string{"Authorization": "Bearer ${keyring:w-token}"}},
	})
	// A header's secret not stored: it waits for it, as for an env secret,
	// and says which key wants it.
	th.waitServer(t, "w", "waiting for its header's secret", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateWaiting && strings.Contains(s.LastError, "headers.Authorization: secret \"w-token\"") &&
			len(s.Issues) == 1 && s.Issues[0].Key == "headers.Authorization" && s.Issues[0].Remedy != nil && s.Issues[0].Remedy.Secret == "w-token"
	})
	// Both protocol eras: a stateful handler speaks 2025-11-25
	// (initialize), a stateless one 2026-07-28 (server/discover).
	if st := th.waitServer(t, "m", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 2 }); st.Era != "modern" {
		t.Errorf("the stateless server's era is %q (protocol %s), want modern", st.Era, st.ProtocolVersion)
	}
	st := th.waitServer(t, "r", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 2 })
	if st.Era != "legacy" {
		t.Errorf("the stateful server's era is %q (protocol %s), want legacy", st.Era, st.ProtocolVersion)
	}
	if st.URL != srv.url() || st.Transport != "http" || st.PID != 0 || st.Command != "" {
		t.Errorf("status = url %q transport %q pid %d command %q", st.URL, st.Transport, st.PID, st.Command)
	}
	if !srv.sawHeader("X-Team", "core") {
		t.Error("the server never got the entry's X-Team header")
	}

	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	tools := gwTools(t, cs)
	if strings.Join(tools, ",") != "m__echo,m__fail,r__echo,r__fail" {
		t.Fatalf("gateway tools = %v, want m__ and r__ echo and fail (and none of bad)", tools)
	}
	if got := gwText(gwCall(t, cs, "m__echo", map[string]any{"text": "modern"})); got != "remote: modern" {
		t.Errorf("m__echo = %q", got)
	}
	if got := gwText(gwCall(t, cs, "r__echo", map[string]any{"text": "hi"})); got != "remote: hi" {
		t.Errorf("r__echo = %q", got)
	}
	if res := gwCall(t, cs, "r__fail", map[string]any{}); !res.IsError || !strings.Contains(gwText(res), "it failed on purpose") {
		t.Errorf("r__fail = %+v %q: want the tool's error", res, gwText(res))
	}
	// servers.call takes the same path.
	var call json.RawMessage
	th.must(t, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: "r", Tool: "echo", Arguments: json.RawMessage(`{"text": "api"}`)}, &call)
	if !strings.Contains(string(call), "remote: api") {
		t.Errorf("servers.call = %s", call)
	}

	// The credentials refused: unauthorized, retried.
	th.waitServer(t, "bad", "unauthorized", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateUnauthorized && strings.Contains(s.LastError, "refused the credentials: HTTP 401")
	})

	// The server goes away: unreachable, retried; it comes back on its
	// port (a new process: its sessions are gone) and so does the session.
	addr := srv.addr
	srv.stop()
	th.waitServer(t, "r", "unreachable", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateUnreachable && strings.Contains(s.LastError, "cannot be reached") && s.Restarts > 0
	})
	srv.start(addr)
	th.waitServer(t, "r", "running again", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 2 })
	if got := gwText(gwCall(t, cs, "r__echo", map[string]any{"text": "again"})); got != "remote: again" {
		t.Errorf("r__echo after the restart = %q", got)
	}

	// The secret's value is in no log.
	if strings.Contains(th.log(t), token) {
		t.Error("the host log holds the token")
	}
}

// TestRemoteSSE: a remote entry of type sse is connected over the
// deprecated HTTP+SSE transport to the pinned npm server-everything
// ("mcp-server-everything sse", which listens on $PORT), and its tools are
// called through the gateway.
func TestRemoteSSE(t *testing.T) {
	bin := testkit.NpmServer(t, "mcp-server-everything")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(bin, "sse")
	cmd.Env = append(os.Environ(), "PORT="+port)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	listening := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			if strings.Contains(sc.Text(), "running on port") {
				once.Do(func() { close(listening) })
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(wait):
		t.Fatal("server-everything sse did not say it listens")
	}

	setGatewayPath(t, "lean")
	th := runHost(t, nil, map[string]any{"ev": map[string]any{"url": "http://127.0.0.1:" + port + "/sse", "type": "sse"}})
	st := th.waitServer(t, "ev", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools > 0 })
	if st.Transport != "sse" || st.Era != "legacy" {
		t.Errorf("status: transport %q era %q", st.Transport, st.Era)
	}
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	if tools := gwTools(t, cs); !slices.Contains(tools, "ev__echo") {
		t.Fatalf("gateway tools = %v: no ev__echo", tools)
	}
	if got := gwText(gwCall(t, cs, "ev__echo", map[string]any{"message": "over sse"})); got != "Echo: over sse" {
		t.Errorf("ev__echo = %q", got)
	}
}

// TestRemoteActivityAndPolicy: a remote server's calls go through the
// same hooks as a local one's: the activity log records them (the header's
// keyring secret redacted in the preview), and the entry's policy refuses
// a denied tool before the server sees it.
func TestRemoteActivityAndPolicy(t *testing.T) {
	const token = "s3cret-activity-token"
	srv := newRemoteMCP(t, token, false)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("r-token", secrets.New(token)); err != nil {
		t.Fatal(err)
	}
	setGatewayPath(t, "lean")
	th := runHostWith(t, store, map[string]any{
		"r": map[string]any{"url": srv.url(), "headers": map[string]string{"Authorization": "Bearer ${keyring:r-token}"},
			"policy": map[string]any{"tools": map[string]string{"fail": "deny"}}},
	}, func(o *Options) { o.StateDir = filepath.Join(filepath.Dir(o.RuntimeDir), "state") })
	th.waitServer(t, "r", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 2 })
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	if got := gwText(gwCall(t, cs, "r__echo", map[string]any{"text": token})); got != "remote: "+token {
		t.Errorf("r__echo = %q", got)
	}
	srv.mu.Lock()
	before := len(srv.headers)
	srv.mu.Unlock()
	res := gwCall(t, cs, "r__fail", map[string]any{})
	if !res.IsError || strings.Contains(gwText(res), "on purpose") {
		t.Errorf("a denied tool ran: %+v %q", res, gwText(res))
	}
	srv.mu.Lock()
	after := len(srv.headers)
	srv.mu.Unlock()
	if after != before {
		t.Errorf("the server got %d requests for a denied call", after-before)
	}
	var q hostapi.ActivityQueryResult
	th.must(t, hostapi.MethodActivityQuery.Name, hostapi.ActivityQueryParams{Server: "r"}, &q)
	outcomes := map[string]hostapi.ActivityRecord{}
	for _, r := range q.Records {
		outcomes[r.Target] = r
	}
	if r, ok := outcomes["echo"]; !ok || r.Outcome != "ok" || r.Kind != "tools/call" || strings.Contains(r.Preview, token) || !strings.Contains(r.Preview, "[secret r-token]") {
		t.Errorf("the echo call's record: %+v (want ok, the token redacted)", r)
	}
	if r, ok := outcomes["fail"]; !ok || r.Outcome != "denied" {
		t.Errorf("the denied call's record: %+v", r)
	}
}

// TestRemoteApprovalProgress: a remote server's call that its policy holds
// for the user's approval gives the app progress notifications under its
// own token while it waits (so that an app whose timeout progress resets
// does not give up), as a local server's held call does; approved, it runs.
func TestRemoteApprovalProgress(t *testing.T) {
	every := relay.HoldProgressEvery
	t.Cleanup(func() { relay.HoldProgressEvery = every }) // after the host stopped
	relay.HoldProgressEvery = 20 * time.Millisecond
	const token = "s3cret-approval-token"
	srv := newRemoteMCP(t, token, false)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("r-token", secrets.New(token)); err != nil {
		t.Fatal(err)
	}
	setGatewayPath(t, "lean")
	th := runHost(t, store, map[string]any{
		"r": map[string]any{"url": srv.url(), "headers": map[string]string{"Authorization": "Bearer ${keyring:r-token}"},
			"policy": map[string]any{"tools": map[string]string{"echo": "ask"}}},
	})
	th.waitServer(t, "r", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 2 })

	events := th.approvals(t)
	var progress atomic.Int32
	cs := gwClient(t, th, gateway.Filter{}, "", &mcp.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
			if r.Params.ProgressToken == "tok" && strings.Contains(r.Params.Message, "approve") {
				progress.Add(1)
			}
		}})
	done := make(chan string, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "r__echo", Arguments: map[string]any{"text": "held"}, Meta: mcp.Meta{"progressToken": "tok"}})
		if err != nil {
			done <- "CALL FAILED: " + err.Error()
			return
		}
		done <- gwText(res)
	}()
	var held []hostapi.Approval
	testkit.Eventually(t, "the call held for approval", func() (bool, string) {
		select {
		case ev := <-events:
			_ = json.Unmarshal(ev.Data, &held)
		default:
		}
		return len(held) == 1 && held[0].Tool == "echo", fmt.Sprint(held)
	})
	testkit.Eventually(t, "progress while the call waits", func() (bool, string) { return progress.Load() >= 2, fmt.Sprint(progress.Load()) })
	th.must(t, hostapi.MethodApprovalsDecide.Name, hostapi.DecideParams{ID: held[0].ID, Decision: hostapi.DecideOnce}, nil)
	select {
	case got := <-done:
		if got != "remote: held" {
			t.Errorf("the approved call answered %q", got)
		}
	case <-time.After(wait):
		t.Fatal("the approved call did not finish")
	}
}

// sseOnlyMCP serves a go-sdk MCP server over the older HTTP+SSE transport
// only (mcp.SSEHandler, as a server of the 2024-11-05 era does): a POST to
// its endpoint without a session is 400 Bad Request.
func sseOnlyMCP(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "sse-only", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes its text"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct {
			Text string `json:"text"`
		}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sse: " + in.Text}}}, nil, nil
		})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return "http://" + l.Addr().String() + "/sse"
}

// TestRemoteHTTPFirst (issue 27 §5): an entry with no "type" (what an
// imported `npx mcp-remote URL` becomes) connects as mcp-remote does by
// default: Streamable HTTP, then HTTP+SSE when the server answers 400,
// 404 or 405. Against real loopback servers: an SSE-only one runs over
// SSE (status says so, and why), a Streamable one over Streamable HTTP;
// "type": "http" is honoured (no SSE tried) and its failure names the
// remedy instead of a bare "Bad Request"; a server that speaks neither
// says both and what to check.
func TestRemoteHTTPFirst(t *testing.T) {
	const token = "first-token"
	sseURL := sseOnlyMCP(t)
	streamable := newRemoteMCP(t, token, false)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("f-token", secrets.New(token)); err != nil {
		t.Fatal(err)
	}
	nowhere := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(nowhere.Close)
	setGatewayPath(t, "lean")
	th := runHost(t, store, map[string]any{
		"sse":     map[string]any{"url": sseURL},
		"stream":  map[string]any{"url": streamable.url(), "headers": map[string]string{"Authorization": "Bearer ${keyring:f-token}"}},
		"onlyh":   map[string]any{"url": sseURL, "type": "http", "maxReconnects": 1},
		"neither": map[string]any{"url": nowhere.URL + "/mcp", "maxReconnects": 1},
	})
	st := th.waitServer(t, "sse", "running over SSE", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 1 })
	if st.Transport != "sse (the server answered Streamable HTTP with HTTP 400)" {
		t.Errorf("the SSE-only server's transport: %q", st.Transport)
	}
	if st := th.waitServer(t, "stream", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 2 }); st.Transport != "http" {
		t.Errorf("the Streamable server's transport: %q", st.Transport)
	}
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	if got := gwText(gwCall(t, cs, "sse__echo", map[string]any{"text": "hi"})); got != "sse: hi" {
		t.Errorf("sse__echo = %q", got)
	}
	if got := gwText(gwCall(t, cs, "stream__echo", map[string]any{"text": "hi"})); got != "remote: hi" {
		t.Errorf("stream__echo = %q", got)
	}
	th.waitServer(t, "onlyh", "failed with the remedy", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateFailed && strings.Contains(s.LastError, `answered HTTP 400 to Streamable HTTP (the entry's "type": "http")`) &&
			strings.Contains(s.LastError, `set "type": "sse"`) && strings.Contains(s.LastError, "--transport sse")
	})
	if st := th.statusOf(t, "onlyh"); st.Transport != "http" {
		t.Errorf(`"type": "http" connected with %q`, st.Transport)
	}
	th.waitServer(t, "neither", "failed, saying both", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateFailed && strings.Contains(s.LastError, "speaks neither MCP transport: it answered Streamable HTTP with HTTP 404") &&
			strings.Contains(s.LastError, `check that "url" is the server's MCP endpoint`)
	})
}
