//go:build linux

package host

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// lineClient is an app on the gateway's socket that writes and reads
// JSON-RPC lines itself (the go-sdk's client knows no tasks).
type lineClient struct {
	t     *testing.T
	nc    net.Conn
	lines chan map[string]any
	n     int
}

func newLineClient(t *testing.T, th *testHost, name string) (*lineClient, map[string]any) {
	t.Helper()
	nc, err := api.DialGateway(context.Background(), th.gwSocket())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nc.Close() })
	br, _, err := gateway.Handshake(nc, gateway.Hello{Client: name})
	if err != nil {
		t.Fatal(err)
	}
	c := &lineClient{t: t, nc: nc, lines: make(chan map[string]any, 16)}
	go func() {
		sc := bufio.NewScanner(br)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil && m["id"] != nil {
				c.lines <- m
			}
		}
		close(c.lines)
	}()
	hello := c.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": name, "version": "1"}})
	if _, err := nc.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	return c, hello
}

// request sends a request and returns its response (result or error).
func (c *lineClient) request(method string, params any) map[string]any {
	c.t.Helper()
	c.n++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.n, "method": method, "params": params})
	if _, err := c.nc.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
	select {
	case m := <-c.lines:
		if m["id"] != float64(c.n) {
			c.t.Fatalf("%s: the answer of another request: %v", method, m)
		}
		return m
	case <-time.After(wait):
		c.t.Fatalf("%s: no answer", method)
	}
	return nil
}

// field digs a value out of a decoded message.
func field(m map[string]any, path ...string) any {
	var v any = m
	for _, k := range path {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	return v
}

// TestGatewayTasksOfConnection: a task belongs to the connection that
// made it (app/gateway/tasks.go), in-process: a real host, a go-sdk
// server whose tools are no tasks (the gateway keeps them), two apps on
// the socket. The second app cannot get, cancel, read or list the first
// one's tasks; the first one reads its result and cancels a running
// call, which is withdrawn at the server.
func TestGatewayTasksOfConnection(t *testing.T) {
	th := runHost(t, nil, map[string]any{"m": gwEntry("gwmodern")})
	th.waitRunning(t, "m")
	a, hello := newLineClient(t, th, "app-a")
	if field(hello, "result", "capabilities", "tasks", "requests", "tools", "call") == nil {
		t.Fatalf("the gateway's initialize advertises no tasks: %v", hello)
	}
	b, _ := newLineClient(t, th, "app-b")

	r := a.request("tools/call", map[string]any{"name": "m__echo", "arguments": map[string]any{"x": 1}, "task": map[string]any{"ttl": 60000}})
	id, _ := field(r, "result", "task", "taskId").(string)
	if !strings.HasPrefix(id, "sbtask-") {
		t.Fatalf("a task-augmented call's answer: %v", r)
	}
	for _, m := range []string{"tasks/get", "tasks/cancel", "tasks/result"} {
		if r := b.request(m, map[string]any{"taskId": id}); r["error"] == nil || !strings.Contains(fmt.Sprint(r["error"]), "not found") {
			t.Errorf("b's %s of a's task: %v", m, r)
		}
	}
	if r := b.request("tasks/list", map[string]any{}); len(field(r, "result", "tasks").([]any)) != 0 {
		t.Errorf("b's tasks/list: %v", r)
	}
	r = a.request("tasks/result", map[string]any{"taskId": id})
	if !strings.Contains(fmt.Sprint(field(r, "result", "content")), `modern {"x":1}`) ||
		field(r, "result", "_meta", "io.modelcontextprotocol/related-task", "taskId") != id {
		t.Errorf("a's tasks/result: %v", r)
	}
	if r := a.request("tasks/get", map[string]any{"taskId": id}); field(r, "result", "status") != "completed" {
		t.Errorf("a's tasks/get: %v", r)
	}

	// A running call, cancelled by its app: withdrawn at the server.
	n := th.sleeps(t)
	r = a.request("tools/call", map[string]any{"name": "m__sleep", "arguments": map[string]any{}, "task": map[string]any{}})
	sid, _ := field(r, "result", "task", "taskId").(string)
	if field(r, "result", "task", "status") != "working" {
		t.Fatalf("a long call's task: %v", r)
	}
	th.awaitSleep(t, n)
	if r := b.request("tasks/cancel", map[string]any{"taskId": sid}); r["error"] == nil {
		t.Errorf("b cancelled a's task: %v", r)
	}
	if r := a.request("tasks/list", map[string]any{}); len(field(r, "result", "tasks").([]any)) != 2 {
		t.Errorf("a's tasks/list: %v", r)
	}
	if r := a.request("tasks/cancel", map[string]any{"taskId": sid}); field(r, "result", "status") != "cancelled" {
		t.Errorf("a's tasks/cancel: %v", r)
	}
	testkit.Eventually(t, "the server's call is cancelled", func() (bool, string) {
		var logs hostapi.LogsResult
		th.must(t, hostapi.MethodServersLogs.Name, hostapi.NameParams{Name: "m"}, &logs)
		return strings.Contains(strings.Join(logs.Lines, "\n"), "gwmodern: sleep cancelled"), strings.Join(logs.Lines, "\n")
	})
}
