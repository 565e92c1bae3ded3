//go:build linux

package host

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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

// TestApprovalsEveryEntryPoint: the real server-filesystem, whose
// write_file says it is destructive: with askDestructive on (the default)
// its call waits on every entry point (the gateway's lean path, HTTP, the
// API's servers.call) until an approver (an API connection subscribed to
// the approvals event) allows it, and then the file is written; its
// read_text_file goes without asking. While a lean call waits, the app
// gets progress notifications under its own token.
func TestApprovalsEveryEntryPoint(t *testing.T) {
	fsBin := testkit.NpmServer(t, "mcp-server-filesystem")
	every := relay.HoldProgressEvery
	t.Cleanup(func() { relay.HoldProgressEvery = every }) // after the host stopped
	relay.HoldProgressEvery = 20 * time.Millisecond
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	th := runHostWith(t, store, map[string]any{"fs": map[string]any{"command": fsBin, "args": []string{dir}}},
		func(o *Options) { o.GatewayHTTPPort = -1 })
	th.waitServer(t, "fs", "running with tools", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools > 0 })

	// The approver.
	events := th.approvals(t)
	nextSet := func() []hostapi.Approval {
		t.Helper()
		select {
		case ev := <-events:
			var l []hostapi.Approval
			if err := json.Unmarshal(ev.Data, &l); err != nil {
				t.Fatal(err)
			}
			return l
		case <-time.After(wait):
			t.Fatal("no approvals event")
			return nil
		}
	}

	var progress atomic.Int32
	lean := gwClient(t, th, gateway.Filter{}, "", &mcp.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
			if r.Params.ProgressToken == "tok" && strings.Contains(r.Params.Message, "approve") {
				progress.Add(1)
			}
		}})
	var info hostapi.GatewayInfo
	th.must(t, hostapi.MethodGatewayTools.Name, nil, &info)
	token, err := gateway.Token(store)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	httpCS, err := mcp.NewClient(&mcp.Implementation{Name: "approvals-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: info.HTTP, HTTPClient: &http.Client{Transport: relayBearer{token, http.DefaultTransport}}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer httpCS.Close()

	sdkCall := func(cs *mcp.ClientSession, meta mcp.Meta) func(tool string, args map[string]any) (string, bool) {
		return func(tool string, args map[string]any) (string, bool) {
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fs__" + tool, Arguments: args, Meta: meta})
			if err != nil {
				return "CALL FAILED: " + err.Error(), true
			}
			return gwText(res), res.IsError
		}
	}
	points := []struct {
		name string
		call func(tool string, args map[string]any) (string, bool)
	}{
		{"lean", sdkCall(lean, mcp.Meta{"progressToken": "tok"})},
		{"HTTP", sdkCall(httpCS, nil)},
		{"servers.call", func(tool string, args map[string]any) (string, bool) {
			raw, _ := json.Marshal(args)
			var res mcp.CallToolResult
			if err := th.call(t, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: "fs", Tool: tool, Arguments: raw}, &res); err != nil {
				return "CALL FAILED: " + err.Error(), true
			}
			return gwText(&res), res.IsError
		}},
	}
	for _, p := range points {
		file := filepath.Join(dir, p.name+".txt")
		type outcome struct {
			text  string
			isErr bool
		}
		done := make(chan outcome, 1)
		go func() {
			text, isErr := p.call("write_file", map[string]any{"path": file, "content": "written via " + p.name})
			done <- outcome{text, isErr}
		}()
		l := nextSet()
		if len(l) != 1 || l[0].Tool != "write_file" || l[0].Why != "the tool says it is destructive" || !strings.Contains(string(l[0].Arguments), p.name+".txt") {
			t.Fatalf("%s: waiting: %+v", p.name, l)
		}
		if _, err := os.Stat(file); err == nil {
			t.Fatalf("%s: the file was written before the approval", p.name)
		}
		if p.name == "lean" {
			testkit.Eventually(t, "progress while the call waits", func() (bool, string) { return progress.Load() >= 2, "" })
		}
		th.must(t, hostapi.MethodApprovalsDecide.Name, hostapi.DecideParams{ID: l[0].ID, Decision: hostapi.DecideOnce}, nil)
		var o outcome
		select {
		case o = <-done:
		case <-time.After(wait):
			t.Fatalf("%s: the approved call did not end", p.name)
		}
		if o.isErr {
			t.Fatalf("%s: the approved call: %s", p.name, o.text)
		}
		if b, err := os.ReadFile(file); err != nil || string(b) != "written via "+p.name {
			t.Fatalf("%s: the file: %q %v", p.name, b, err)
		}
		if l := nextSet(); len(l) != 0 {
			t.Fatalf("%s: still waiting: %+v", p.name, l)
		}
		// A read goes at once.
		if text, isErr := p.call("read_text_file", map[string]any{"path": file}); isErr || !strings.Contains(text, "written via") {
			t.Fatalf("%s: read_text_file: %q", p.name, text)
		}
	}
	select {
	case ev := <-events:
		t.Fatalf("a read asked: %s", ev.Data)
	default:
	}
}
