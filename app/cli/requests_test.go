//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// bridgeWith connects an app with client options (its handlers of a
// server's requests, and so its capabilities) and roots through a real
// bridge.
func (s *sandbox) bridgeWith(t *testing.T, name string, opts *mcp.ClientOptions, roots []*mcp.Root, args ...string) *bridgeClient {
	t.Helper()
	cmd := bigBridge().command(args...)
	cmd.Env = s.env
	b := &bridgeClient{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = b.stderr
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts)
	c.AddRoots(roots...)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connecting through the bridge: %v\nbridge stderr:\n%s", err, b.stderr.String())
	}
	b.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	return b
}

// asker is a `switchboard requests -f --json` process: it can be asked,
// and prints the waiting questions at each change.
type asker struct {
	cmd    *exec.Cmd
	stdout *syncBuffer
	done   chan struct{}
}

func startAsker(t *testing.T, sb *sandbox) *asker {
	t.Helper()
	a := &asker{cmd: exec.Command(sbBin, "requests", "-f", "--json"), stdout: &syncBuffer{}, done: make(chan struct{})}
	a.cmd.Env = sb.env
	a.cmd.Stdout = a.stdout
	a.cmd.Stderr = a.stdout
	if err := a.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = a.cmd.Wait(); close(a.done) }()
	t.Cleanup(func() {
		_ = a.cmd.Process.Kill()
		<-a.done
	})
	a.waitSet(t, "the asker's first list", func([]hostapi.InputRequest) bool { return true })
	return a
}

func (a *asker) waitSet(t *testing.T, what string, ok func([]hostapi.InputRequest) bool) []hostapi.InputRequest {
	t.Helper()
	var last []hostapi.InputRequest
	testkit.Eventually(t, what, func() (bool, string) {
		out := a.stdout.String()
		lines := strings.Split(strings.TrimSpace(out), "\n")
		last = nil
		if len(lines) == 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil {
			return false, out
		}
		return ok(last), out
	})
	return last
}

// TestServerRequests (issue 30 §1, §2): a shared server's requests to its
// client, through a real host and real bridges, with the pinned
// server-everything and a go-sdk server:
//   - app A declared elicitation, sampling and roots: its call's
//     elicitation and sampling reach A's own handlers (the server gets A's
//     answers), and a roots/list the server sends while serving A's call
//     gets A's roots;
//   - app B declared none: its call's elicitation waits as a question for
//     the user ('switchboard requests'), a wrong answer is refused with
//     every problem and sends nothing, 'switchboard answer' sends the
//     right one to the server; 'switchboard decline' declines; A's
//     handler never sees B's question; B's sampling is declined with an
//     error that says Switchboard has no model; B's roots are its
//     profile's;
//   - with no one to ask, B's question is cancelled at once.
func TestServerRequests(t *testing.T) {
	sb := newSandbox(t)
	sb.serve(t)
	everything := testkit.NpmServer(t, "mcp-server-everything")
	sb.cli(t, "servers", "add", "everything", "--env", markEnv+"="+sb.mark, "--", everything)
	sb.cli(t, sb.helperArgs("asker", "asker")...)
	sb.cli(t, "profiles", "set", "b")
	// The profile's roots are written in the file (no flag sets them).
	cfg := readConfig(t, sb.configPath())
	cfg["profiles"].(map[string]any)["b"].(map[string]any)["roots"] = []string{"/srv/b-project"}
	raw, _ := json.MarshalIndent(cfg, "", "  ")
	writeConfig(t, sb.configPath(), string(raw))
	sb.waitServer(t, "everything", "its elicitation tool listed", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools > 0 })
	sb.waitServer(t, "asker", "running", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools > 0 })

	var aElicits, aSamples atomic.Int32
	a := sb.bridgeWith(t, "app-a", &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			aElicits.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada from A"}}, nil
		},
		CreateMessageHandler: func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			aSamples.Add(1)
			return &mcp.CreateMessageResult{Model: "model-of-app-a", Role: "assistant", Content: &mcp.TextContent{Text: "sampled by A"}}, nil
		},
	}, []*mcp.Root{{URI: "file:///home/a/project", Name: "a"}})
	b := sb.bridgeWith(t, "app-b", nil, nil, "--profile", "b")

	if out := a.call(t, "everything__trigger-elicitation-request", map[string]any{}); !strings.Contains(out, "Name: Ada from A") || aElicits.Load() != 1 {
		t.Errorf("A's elicitation (A's handler called %d times):\n%s", aElicits.Load(), out)
	}
	if out := a.call(t, "everything__trigger-sampling-request", map[string]any{"prompt": "hi"}); !strings.Contains(out, "sampled by A") || !strings.Contains(out, "model-of-app-a") {
		t.Errorf("A's sampling:\n%s", out)
	}
	if out := a.call(t, "asker__roots", map[string]any{}); !strings.Contains(out, `file:///home/a/project`) {
		t.Errorf("A's roots:\n%s", out)
	}

	// No one to ask: cancelled at once.
	if out := b.call(t, "everything__trigger-elicitation-request", map[string]any{}); !strings.Contains(out, "cancel") {
		t.Errorf("B's elicitation with no one to ask:\n%s", out)
	}

	ask := startAsker(t, sb)
	pending := b.callAsync(t, "everything__trigger-elicitation-request", map[string]any{})
	qs := ask.waitSet(t, "B's question waits", func(l []hostapi.InputRequest) bool { return len(l) == 1 })
	q := qs[0]
	if q.Server != "everything" || q.App != "app-b" || q.Mode != hostapi.InputForm || len(q.Fields) < 10 || q.Fields[0].Name != "name" || !q.Fields[0].Required {
		t.Errorf("the question: %+v", q)
	}
	if out := sb.cli(t, "requests"); !strings.Contains(out, "server everything asks") || !strings.Contains(out, "switchboard answer "+q.ID) {
		t.Errorf("switchboard requests:\n%s", out)
	}
	r := sb.run(t, "", "answer", q.ID, `{"integer": 500, "email": "nope", "color": "red"}`)
	for _, want := range []string{"name: is required", "integer: must be at most 100", "email: must be an email address", "color: is not a field"} {
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("a wrong answer: want %q:\n%s", want, r)
		}
	}
	sb.cli(t, "answer", q.ID, `{"name": "Bob from the user", "integer": 7, "untitledMultipleSelectEnum": ["Piano"]}`)
	if out := recv(t, pending); !strings.Contains(out, "Name: Bob from the user") || !strings.Contains(out, "Favorite Integer: 7") {
		t.Errorf("B's elicitation answered by the user:\n%s", out)
	}
	if aElicits.Load() != 1 {
		t.Errorf("A's handler saw B's question: %d calls", aElicits.Load())
	}

	pending = b.callAsync(t, "everything__trigger-elicitation-request", map[string]any{})
	qs = ask.waitSet(t, "B's second question waits", func(l []hostapi.InputRequest) bool { return len(l) == 1 && l[0].ID != q.ID })
	sb.cli(t, "decline", qs[0].ID)
	if out := recv(t, pending); !strings.Contains(out, "declined") {
		t.Errorf("B's elicitation declined by the user:\n%s", out)
	}

	if out := b.call(t, "everything__trigger-sampling-request", map[string]any{"prompt": "hi"}); !strings.Contains(out, "no model of its own") || aSamples.Load() != 1 {
		t.Errorf("B's sampling (A's handler called %d times):\n%s", aSamples.Load(), out)
	}
	if out := b.call(t, "asker__roots", map[string]any{}); !strings.Contains(out, `file:///srv/b-project`) || strings.Contains(out, "/home/a") {
		t.Errorf("B's roots (its profile's):\n%s", out)
	}
}
