//go:build linux

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestPipelineEveryRequest: every request an app sends a server passes
// the call pipeline's hooks (pipeline.go), for a local and a remote
// server alike: a server whose policy's default is deny has its
// prompts/get and resources/read refused before it sees them (and its
// allowed tool answered), a remote server's denied tools/call too; the
// activity log records each with its kind and the decision. With
// SWITCHBOARD_GATEWAY_SDK_ONLY=1 in the host's environment (which once
// took the gateway around the hooks in test binaries), nothing changes.
func TestPipelineEveryRequest(t *testing.T) {
	t.Setenv("SWITCHBOARD_GATEWAY_SDK_ONLY", "1")
	const token = "s3cret-pipeline-token"
	srv := newRemoteMCP(t, token, false)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("r-token", secrets.New(token)); err != nil {
		t.Fatal(err)
	}
	denyButEcho := map[string]any{"default": "deny", "tools": map[string]string{"echo": "allow"}}
	local := gwEntry("gwmodern")
	local["policy"] = denyButEcho
	th := runHostWith(t, store, map[string]any{
		"m": local,
		"r": map[string]any{"url": srv.url(), "headers": map[string]string{"Authorization": "Bearer ${keyring:r-token}"},
			"policy": denyButEcho},
	}, func(o *Options) { o.StateDir = filepath.Join(filepath.Dir(o.RuntimeDir), "state") })
	th.waitServer(t, "m", "running with its lists", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateRunning && s.Resources == 1 && s.Prompts == 1
	})
	th.waitServer(t, "r", "running", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateRunning && s.Tools == 2 && s.Resources == 1 && s.Prompts == 1
	})
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	waitListed(t, cs, "gw://modern/r", "remote://r")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	for _, name := range []string{"m", "r"} {
		if res := gwCall(t, cs, name+"__echo", map[string]any{"text": "hi"}); res.IsError || !strings.Contains(gwText(res), "hi") {
			t.Errorf("%s__echo (allowed): %q", name, gwText(res))
		}
		if res := gwCall(t, cs, name+"__"+map[string]string{"m": "rich", "r": "fail"}[name], map[string]any{}); !res.IsError || !strings.Contains(gwText(res), "policy for this server denies it") {
			t.Errorf("%s: a denied tool: %+v %q", name, res, gwText(res))
		}
	}
	srv.mu.Lock()
	before := len(srv.headers)
	srv.mu.Unlock()
	for _, c := range []struct{ prompt, uri string }{{"m__hello", "gw://modern/r"}, {"r__greet", "remote://r"}} {
		if gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: c.prompt}); err == nil || !strings.Contains(err.Error(), "policy for this server denies it") {
			t.Errorf("prompts/get %s under a deny policy: %+v, %v", c.prompt, gp, err)
		}
		if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: c.uri}); err == nil || !strings.Contains(err.Error(), "policy for this server denies it") {
			t.Errorf("resources/read %s under a deny policy: %+v, %v", c.uri, rr, err)
		}
	}
	srv.mu.Lock()
	after := len(srv.headers)
	srv.mu.Unlock()
	if after != before {
		t.Errorf("the remote server got %d requests for denied ones", after-before)
	}

	if t.Failed() {
		return // the records would not be there either
	}
	var q hostapi.ActivityQueryResult
	testkit.Eventually(t, "the records", func() (bool, string) {
		th.must(t, hostapi.MethodActivityQuery.Name, hostapi.ActivityQueryParams{}, &q)
		got := map[string]bool{}
		for _, r := range q.Records {
			got[fmt.Sprintf("%s %s %s %s", r.Server, r.Kind, r.Target, r.Outcome)] = true
		}
		for _, want := range []string{
			"m tools/call echo ok", "m tools/call rich denied", "m prompts/get hello denied", "m resources/read gw://modern/r denied",
			"r tools/call echo ok", "r tools/call fail denied", "r prompts/get greet denied", "r resources/read remote://r denied",
		} {
			if !got[want] {
				return false, fmt.Sprintf("no record %q in %v", want, got)
			}
		}
		return true, ""
	})
}

// TestPipelineApprovalOfRead: a server whose policy's default is ask holds
// an app's resources/read and prompts/get for the user's approval, as it
// holds a tools/call: the request waits (its kind in the approval), and
// goes to the server once allowed; denied, it is refused.
func TestPipelineApprovalOfRead(t *testing.T) {
	local := gwEntry("gwmodern")
	local["policy"] = map[string]any{"default": "ask"}
	th := runHost(t, nil, map[string]any{"m": local})
	th.waitServer(t, "m", "running with its lists", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateRunning && s.Resources == 1 && s.Prompts == 1
	})
	events := th.approvals(t)
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	read := make(chan string, 1)
	next := func() []hostapi.Approval {
		t.Helper()
		for {
			select {
			case ev := <-events:
				var l []hostapi.Approval
				if err := json.Unmarshal(ev.Data, &l); err != nil {
					t.Fatal(err)
				}
				if len(l) > 0 {
					return l
				}
			case got := <-read:
				t.Fatalf("no approval request; the read ended: %q", got)
			case <-time.After(wait):
				t.Fatal("no approval request")
				return nil
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()

	go func() {
		rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "gw://modern/r"})
		if err != nil {
			read <- "FAILED: " + err.Error()
			return
		}
		read <- rr.Contents[0].Text
	}()
	l := next()
	if len(l) != 1 || l[0].Kind != "resources/read" || l[0].Tool != "gw://modern/r" {
		t.Fatalf("waiting: %+v", l)
	}
	select {
	case got := <-read:
		t.Fatalf("the read ended before the approval: %q", got)
	default:
	}
	if err := th.call(t, hostapi.MethodApprovalsDecide.Name, hostapi.DecideParams{ID: l[0].ID, Decision: hostapi.DecideAlways}, nil); err == nil {
		t.Error("a read was always allowed: a policy names tools only")
	}
	th.must(t, hostapi.MethodApprovalsDecide.Name, hostapi.DecideParams{ID: l[0].ID, Decision: hostapi.DecideOnce}, nil)
	if got := <-read; got != "modern resource" {
		t.Errorf("the approved read: %q", got)
	}

	prompt := make(chan error, 1)
	go func() {
		_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "m__hello"})
		prompt <- err
	}()
	l = next()
	if len(l) != 1 || l[0].Kind != "prompts/get" || l[0].Tool != "hello" {
		t.Fatalf("waiting: %+v", l)
	}
	th.must(t, hostapi.MethodApprovalsDecide.Name, hostapi.DecideParams{ID: l[0].ID, Decision: hostapi.DecideDeny}, nil)
	if err := <-prompt; err == nil || !strings.Contains(err.Error(), "the user denied this request") {
		t.Errorf("the denied prompt: %v", err)
	}
}

// waitListed waits until the gateway lists the resources uris to cs.
func waitListed(t *testing.T, cs *mcp.ClientSession, uris ...string) {
	t.Helper()
	testkit.Eventually(t, "the resources listed", func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			return false, err.Error()
		}
		have := map[string]bool{}
		for _, r := range res.Resources {
			have[r.URI] = true
		}
		for _, u := range uris {
			if !have[u] {
				return false, fmt.Sprint("listed: ", have)
			}
		}
		return true, ""
	})
}
