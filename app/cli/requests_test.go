//go:build linux

//lint:file-ignore SA1019 roots and sampling are deprecated as of 2026-07-28 (SEP-2577) and still used by the apps and servers of the eras before it, for whom Switchboard carries them

package cli

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
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
func (s *sandbox) bridgeWith(t *testing.T, name, version string, opts *mcp.ClientOptions, roots []*mcp.Root, args ...string) *bridgeClient {
	t.Helper()
	cmd := bigBridge().command(args...)
	cmd.Env = s.env
	b := &bridgeClient{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = b.stderr
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts)
	c.AddRoots(roots...)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting through the bridge: %v\nbridge stderr:\n%s", err, b.stderr.String())
	}
	b.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	return b
}

// startAsker starts `switchboard requests -f --json`: one who can be
// asked.
func startAsker(t *testing.T, sb *sandbox) *setFollower[hostapi.InputRequest] {
	t.Helper()
	return startSetFollower[hostapi.InputRequest](t, sb, "requests")
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
	sb := newSessionSandbox(t) // the TypeScript app's bridge finds the host with the SDK's stripped environment
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
	a := sb.bridgeWith(t, "app-a", "2025-11-25", &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			aElicits.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada from A"}}, nil
		},
		CreateMessageHandler: func(ctx context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			aSamples.Add(1)
			return &mcp.CreateMessageResult{Model: "model-of-app-a", Role: "assistant", Content: &mcp.TextContent{Text: "sampled by A"}}, nil
		},
	}, []*mcp.Root{{URI: "file:///home/a/project", Name: "a"}})
	b := sb.bridgeWith(t, "app-b", "2025-11-25", nil, nil, "--profile", "b")

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

	// A 2026-07-28 server's input_required round, completed by the host
	// for B: its question waits for the user; B withdrawing its call
	// withdraws the question.
	pending = b.callAsync(t, "asker__confirm", map[string]any{})
	// Each wait names what is new: the set printed last may still hold
	// the question answered just before.
	newAsker := func(prev string) func([]hostapi.InputRequest) bool {
		return func(l []hostapi.InputRequest) bool { return len(l) == 1 && l[0].Server == "asker" && l[0].ID != prev }
	}
	qs = ask.waitSet(t, "the round's question waits", newAsker(""))
	if q := qs[0]; q.Message != "Delete everything?" || q.App != "app-b" || len(q.Fields) != 1 || q.Fields[0].Type != "boolean" {
		t.Errorf("the round's question: %+v", q)
	}
	sb.cli(t, "answer", qs[0].ID, `{"sure": true}`)
	if out := recv(t, pending); out != "confirm: accept true" {
		t.Errorf("the round completed with the user's answer: %q", out)
	}
	// The same, answered on a terminal field by field: a wrong value is
	// asked again.
	pending = b.callAsync(t, "asker__confirm", map[string]any{})
	qs = ask.waitSet(t, "the round's question waits again", newAsker(qs[0].ID))
	master, slave := openPTY(t)
	answer := exec.Command(sbBin, "answer", qs[0].ID)
	answer.Env, answer.Stdin = sb.env, slave
	var answerOut syncBuffer
	answer.Stdout, answer.Stderr = &answerOut, &answerOut
	if err := answer.Start(); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the first prompt", func() bool { return strings.Contains(answerOut.String(), "sure (Sure?) [y/n, required]: ") })
	_, _ = master.Write([]byte("maybe\n"))
	testkit.Eventually(t, "the problem and the second prompt", func() bool {
		return strings.Contains(answerOut.String(), "sure: must be true or false") && strings.Count(answerOut.String(), "sure (Sure?) [y/n, required]: ") == 2
	})
	_, _ = master.Write([]byte("n\n"))
	if err := answer.Wait(); err != nil {
		t.Errorf("answer on a terminal: %v\n%s", err, answerOut.String())
	}
	if out := recv(t, pending); out != "confirm: accept false" {
		t.Errorf("the round completed with the answer typed on a terminal: %q", out)
	}

	ctx, cancel := context.WithCancel(context.Background())
	withdrawn := make(chan error, 1)
	go func() {
		_, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: "asker__confirm", Arguments: map[string]any{}})
		withdrawn <- err
	}()
	ask.waitSet(t, "the second round's question waits", newAsker(qs[0].ID))
	cancel()
	<-withdrawn
	ask.waitSet(t, "the question goes with the call B withdrew", func(l []hostapi.InputRequest) bool { return len(l) == 0 })

	// A page to open: its host is shown; `answer --yes` opens it (here no
	// browser can be: the server is told all the same) and accepts.
	pending = b.callAsync(t, "everything__trigger-url-elicitation", map[string]any{"url": "https://sign-in.example.com/device?code=42"})
	qs = ask.waitSet(t, "B's URL question waits", func(l []hostapi.InputRequest) bool { return len(l) == 1 && l[0].Mode == hostapi.InputURL })
	if q := qs[0]; q.URLHost != "sign-in.example.com" || q.URL != "https://sign-in.example.com/device?code=42" {
		t.Errorf("the URL question: %+v", q)
	}
	if out := sb.cli(t, "requests"); !strings.Contains(out, "open a page on sign-in.example.com") {
		t.Errorf("switchboard requests:\n%s", out)
	}
	if r := sb.run(t, "", "answer", qs[0].ID); r.code == 0 || !strings.Contains(r.stderr, "give --yes") {
		t.Errorf("answer of a URL question without a terminal or --yes:\n%s", r)
	}
	noBrowser := append(slices.Clone(sb.env), "PATH=/nonexistent")
	if r := runEnv(t, noBrowser, "", "answer", qs[0].ID, "--yes"); r.code != 0 || !strings.Contains(r.stderr, "open https://sign-in.example.com/device?code=42 yourself") {
		t.Errorf("answer --yes:\n%s", r)
	}
	if out := recv(t, pending); !strings.Contains(out, "User completed the URL elicitation flow") {
		t.Errorf("B's URL elicitation accepted by the user:\n%s", out)
	}

	// A page the user must open before the call can run, sent as an
	// error (-32042): B cannot show it, so it is a question; once opened,
	// the host sends the call again (the server then asks for its own
	// page the usual way).
	pending = b.callAsync(t, "everything__trigger-url-elicitation", map[string]any{"url": "https://pay.example.com/checkout", "errorPath": true})
	// (The set printed last may still hold the page answered above.)
	qs = ask.waitSet(t, "the prerequisite page waits", func(l []hostapi.InputRequest) bool {
		return len(l) == 1 && l[0].Mode == hostapi.InputURL && l[0].URLHost == "modelcontextprotocol.io"
	})
	if q := qs[0]; q.App != "app-b" || q.URL != "https://modelcontextprotocol.io" {
		t.Errorf("the prerequisite page: %+v", q)
	}
	runEnv(t, noBrowser, "", "answer", qs[0].ID, "--yes")
	qs = ask.waitSet(t, "the call's own page waits", func(l []hostapi.InputRequest) bool {
		return len(l) == 1 && l[0].URLHost == "pay.example.com"
	})
	runEnv(t, noBrowser, "", "answer", qs[0].ID, "--yes")
	if out := recv(t, pending); !strings.Contains(out, "User completed the URL elicitation flow") || !strings.Contains(out, "https://pay.example.com/checkout") {
		t.Errorf("B's call after the prerequisite page:\n%s", out)
	}

	if out := b.call(t, "everything__trigger-sampling-request", map[string]any{"prompt": "hi"}); !strings.Contains(out, "no model of its own") || aSamples.Load() != 1 {
		t.Errorf("B's sampling (A's handler called %d times):\n%s", aSamples.Load(), out)
	}
	if out := b.call(t, "asker__roots", map[string]any{}); !strings.Contains(out, `file:///srv/b-project`) || strings.Contains(out, "/home/a") {
		t.Errorf("B's roots (its profile's):\n%s", out)
	}

	// An app of the 2026-07-28 era gets the input_required result as the
	// server wrote it, and completes the round itself: the server gets
	// the app's own roots (the host would have given its profile's, or
	// none).
	modern := sb.bridgeWith(t, "app-modern", "", nil, []*mcp.Root{{URI: "file:///modern/app", Name: "m"}}, "--profile", "b")
	if out := modern.call(t, "asker__roots", map[string]any{}); out != `roots: ["file:///modern/app"]` {
		t.Errorf("the modern app's round: %q", out)
	}

	// The official TypeScript SDK's client as an app with handlers, with
	// StdioClientTransport's stripped environment, as Claude Desktop
	// starts the bridge.
	script, err := filepath.Abs("../../engine/stdio/testdata/npm/ts-sdk-asker.mjs")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	calls := `[["everything__trigger-elicitation-request",{}],["everything__trigger-sampling-request",{"prompt":"hi"}],["asker__roots",{}]]`
	cmd := exec.CommandContext(ctx, "node", script, calls, "--", sbBridge, "bridge")
	cmd.Env = sb.env // the app's own (session) environment; the SDK strips it
	var errOut syncBuffer
	cmd.Stderr = &errOut
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("ts-sdk app: %v\n%s\n%s", err, out, errOut.String())
	}
	var ts struct {
		Texts []string
		Asked []string
	}
	if err := json.Unmarshal(out, &ts); err != nil || len(ts.Texts) != 3 {
		t.Fatalf("ts-sdk app printed %q: %v", out, err)
	}
	if !strings.Contains(ts.Texts[0], "Name: Tess from the TypeScript app") || !strings.Contains(ts.Texts[1], "sampled by the TypeScript app") ||
		!strings.Contains(ts.Texts[2], "file:///ts/project") || !slices.Equal(ts.Asked, []string{"elicitation/create", "sampling/createMessage", "roots/list"}) {
		t.Errorf("ts-sdk app: %+v", ts)
	}
	ask.waitSet(t, "no question waits after the TypeScript app's calls", func(l []hostapi.InputRequest) bool { return len(l) == 0 })
}
