//go:build linux

//lint:file-ignore SA1019 the servers' log messages (logging, deprecated by SEP-2577 and still functional) are what this file carries to the apps and the Logs

package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// fanApp is an app connected through switchboard-bridge with a go-sdk
// client that records the log messages and resource updates it gets.
type fanApp struct {
	cs      *mcp.ClientSession
	mu      sync.Mutex
	logs    []*mcp.LoggingMessageParams
	updates []string
}

func (s *sandbox) fanApp(t *testing.T, version string) *fanApp {
	t.Helper()
	a := &fanApp{}
	cmd := smallBridge().command()
	cmd.Env = s.env
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "fan-test", Version: "1"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			a.mu.Lock()
			a.logs = append(a.logs, r.Params)
			a.mu.Unlock()
		},
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			a.mu.Lock()
			a.updates = append(a.updates, r.Params.URI)
			a.mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting through the bridge: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { _ = cs.Close() })
	a.cs = cs
	return a
}

// logTexts are the data of the log messages a has, as text.
func (a *fanApp) logTexts() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, l := range a.logs {
		out = append(out, fmt.Sprint(l.Data))
	}
	return out
}

func (a *fanApp) count(sub string) int {
	n := 0
	for _, s := range a.logTexts() {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// simLevels are the levels of server-everything's simulated log messages
// that a has ("Error-level message" ...).
func (a *fanApp) simLevels() []mcp.LoggingLevel {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []mcp.LoggingLevel
	for _, l := range a.logs {
		if s, ok := l.Data.(string); ok && strings.Contains(s, "-level message") || strings.Contains(fmt.Sprint(l.Data), "Alert level-message") {
			out = append(out, l.Level)
		}
	}
	return out
}

func (a *fanApp) updated() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.updates)
}

// TestBridgeSubscriptionsAndLogs: two apps, each through its own
// switchboard-bridge to one host and one server-everything, subscribe to
// different resources (and one both subscribe to) and set different log
// levels: the server is subscribed once per URI and unsubscribed when the
// last app lets go (or goes away); each app gets the updates of its own
// resources and the log messages at its own level, with logger naming the
// server; the log messages are in 'switchboard logs' too.
func TestBridgeSubscriptionsAndLogs(t *testing.T) {
	everything := testkit.NpmServer(t, "mcp-server-everything")
	sb := newSandbox(t)
	sb.serve(t)
	sb.cli(t, "servers", "add", "ev", "--env", markEnv+"="+sb.mark, "--", everything)
	sb.waitServer(t, "ev", "tools listed", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools > 0 })

	const legacy = "2025-11-25"
	a, b := sb.fanApp(t, legacy), sb.fanApp(t, legacy)
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	defer cancel()
	if !a.cs.InitializeResult().Capabilities.Resources.Subscribe || a.cs.InitializeResult().Capabilities.Logging == nil {
		t.Fatalf("the gateway advertises %+v: want resources.subscribe and logging", a.cs.InitializeResult().Capabilities)
	}
	if err := a.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if err := b.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	res, err := a.cs.ListResources(ctx, nil)
	if err != nil || len(res.Resources) < 4 {
		t.Fatalf("resources: %v %d", err, len(res.Resources))
	}
	r := make([]string, 4)
	for i := range r {
		r[i] = res.Resources[i].URI
	}
	sub := func(app *fanApp, uri string) {
		t.Helper()
		if err := app.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	unsub := func(app *fanApp, uri string) {
		t.Helper()
		if err := app.cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
			t.Fatalf("unsubscribe %s: %v", uri, err)
		}
	}
	// server-everything logs each subscribe and unsubscribe it gets, at
	// info: a (debug) sees them, b (error) does not. A subscribe and
	// unsubscribe of r[3] marks a point in the server's stream.
	subscribed := func(uri string) string { return "Received Subscribe Resource request for URI: " + uri + " " }
	unsubscribed := func(uri string) string { return "Received Unsubscribe Resource request: " + uri + " " }
	marks := 0
	mark := func() {
		t.Helper()
		marks++
		sub(a, r[3])
		unsub(a, r[3])
		testkit.Eventually(t, "the server's mark reaches the app", func() (bool, string) {
			return a.count(unsubscribed(r[3])) == marks, strings.Join(a.logTexts(), "\n")
		})
	}
	sub(a, r[0])
	sub(a, r[2])
	sub(b, r[1])
	sub(b, r[2])
	mark()
	for i, uri := range r[:3] {
		if n := a.count(subscribed(uri)); n != 1 {
			t.Errorf("the server got %d subscribes of r[%d] %s, want 1:\n%s", n, i, uri, strings.Join(a.logTexts(), "\n"))
		}
	}
	a.mu.Lock()
	first := *a.logs[0]
	a.mu.Unlock()
	if first.Logger != "ev" || first.Level != "info" {
		t.Errorf("a log message came with logger %q level %q, want ev and info", first.Logger, first.Level)
	}
	if got := b.logTexts(); len(got) != 0 {
		t.Errorf("the app at level error got info messages: %q", got)
	}

	// Updates: each app those of its own resources.
	callTool := func(name string) {
		t.Helper()
		if res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}}); err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
	}
	callTool("ev__toggle-subscriber-updates")
	has := func(list []string, want ...string) bool {
		for _, w := range want {
			if !slices.Contains(list, w) {
				return false
			}
		}
		return true
	}
	testkit.Eventually(t, "each app gets the updates of its resources", func() (bool, string) {
		ua, ub := a.updated(), b.updated()
		return has(ua, r[0], r[2]) && has(ub, r[1], r[2]), fmt.Sprintf("a %q, b %q", ua, ub)
	})
	callTool("ev__toggle-subscriber-updates") // off
	if ua, ub := a.updated(), b.updated(); slices.Contains(ua, r[1]) || slices.Contains(ub, r[0]) || slices.Contains(ua, r[3]) {
		t.Errorf("an app got another's update: a %q, b %q", ua, ub)
	}

	// Log levels: every simulated message reaches a (debug); b gets those
	// at error and above, and only those.
	atLeastError := func(l mcp.LoggingLevel) bool {
		return slices.Contains([]mcp.LoggingLevel{"error", "critical", "alert", "emergency"}, l)
	}
	for range 60 {
		callTool("ev__toggle-simulated-logging") // on: one message now
		callTool("ev__toggle-simulated-logging") // off
		// Until a has a debug message (the host asked the server for
		// debug, a's level, below its own default, info) and one at
		// error or above.
		la := a.simLevels()
		if slices.ContainsFunc(la, atLeastError) && slices.Contains(la, "debug") {
			break
		}
	}
	mark()
	la := a.simLevels()
	if !slices.ContainsFunc(la, atLeastError) || !slices.Contains(la, "debug") {
		t.Fatalf("the app at debug got the levels %q: want debug and some at error or above", la)
	}
	want := slices.DeleteFunc(slices.Clone(la), func(l mcp.LoggingLevel) bool { return !atLeastError(l) })
	testkit.Eventually(t, "the app at error gets the messages at error and above", func() (bool, string) {
		lb := b.simLevels()
		return slices.Equal(lb, want), fmt.Sprintf("b %q, want %q (a %q)", lb, want, la)
	})

	// The server is unsubscribed when the last app lets go: a's
	// unsubscribe of r[2] leaves b's; b going away ends r[1] and r[2].
	unsub(a, r[2])
	mark()
	if n := a.count(unsubscribed(r[2])); n != 0 {
		t.Errorf("the server was unsubscribed from r[2] while b holds it")
	}
	_ = b.cs.Close()
	testkit.Eventually(t, "the server is unsubscribed from b's resources once b is gone", func() (bool, string) {
		return a.count(unsubscribed(r[1])) == 1 && a.count(unsubscribed(r[2])) == 1, strings.Join(a.logTexts(), "\n")
	})

	// The host's Logs.
	out := sb.cli(t, "logs", "ev")
	if !strings.Contains(out, "[log info] "+subscribed(r[0])) {
		t.Errorf("switchboard logs ev lacks the server's log message:\n%s", out)
	}
}
