//lint:file-ignore SA1019 the servers' log messages (logging, deprecated by SEP-2577 and still functional) are what this file carries to the apps and the Logs

package gateway

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

// fakeSub is a fake that records the subscriptions and log levels the
// gateway asks of its servers.
type fakeSub struct {
	fakeRaw
	smu    sync.Mutex
	asked  []string // "sub SERVER URI", "unsub SERVER URI"
	levels map[string]mcp.LoggingLevel
}

func (f *fakeSub) Subscribe(_ context.Context, server, uri string) error {
	f.smu.Lock()
	defer f.smu.Unlock()
	f.asked = append(f.asked, "sub "+server+" "+uri)
	return nil
}

func (f *fakeSub) Unsubscribe(_ context.Context, server, uri string) error {
	f.smu.Lock()
	defer f.smu.Unlock()
	f.asked = append(f.asked, "unsub "+server+" "+uri)
	return nil
}

func (f *fakeSub) SetLogLevel(server string, level mcp.LoggingLevel) {
	f.smu.Lock()
	defer f.smu.Unlock()
	f.levels[server] = level
}

func (f *fakeSub) seen() ([]string, map[string]mcp.LoggingLevel) {
	f.smu.Lock()
	defer f.smu.Unlock()
	levels := map[string]mcp.LoggingLevel{}
	for k, v := range f.levels {
		levels[k] = v
	}
	return slices.Clone(f.asked), levels
}

// recorder is a client's log of what reached it.
type recorder struct {
	mu   sync.Mutex
	got  []string
	opts *mcp.ClientOptions
}

func newRecorder() *recorder {
	r := &recorder{}
	r.opts = &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, n *mcp.ResourceUpdatedNotificationRequest) {
			r.add("updated " + n.Params.URI)
		},
		LoggingMessageHandler: func(_ context.Context, n *mcp.LoggingMessageRequest) {
			r.add(fmt.Sprintf("log %s %s %v", n.Params.Level, n.Params.Logger, n.Params.Data))
		},
	}
	return r
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.got = append(r.got, s)
	r.mu.Unlock()
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// TestSubscribeFanIn: two apps (one of each era: resources/subscribe and
// subscriptions/listen) subscribe to a server's ui:// resource under its
// exposed URI; the server is asked once, under its own URI, and let go
// when the last app is gone; its update reaches both under the exposed
// URI, and no app that did not subscribe. A server without
// resources.subscribe is refused. Log messages reach the apps that see
// the server, at each one's level, with logger naming the server, and the
// server is asked for the lowest level.
func TestSubscribeFanIn(t *testing.T) {
	a := running("a")
	a.Subscribe = true
	a.Resources = []*mcp.Resource{{URI: "ui://widget", Name: "w"}, {URI: "file:///x", Name: "x"}}
	b := running("b")
	b.Resources = []*mcp.Resource{{URI: "file:///y", Name: "y"}}
	fs := &fakeSub{fakeRaw: fakeRaw{newFake(a, b)}, levels: map[string]mcp.LoggingLevel{}}
	g := New(Options{Backend: fs, Version: "test"})
	l, sock := testListen(t)
	go func() { _ = g.Serve(l) }()
	t.Cleanup(g.Close)
	h := &harness{g: g, fake: fs.fake, sock: sock}

	r1, r2, r3 := newRecorder(), newRecorder(), newRecorder()
	old := h.connect(t, nil, "2025-11-25", r1.opts)
	modern := h.connect(t, nil, "", r2.opts)
	onlyB := h.connect(t, &Filter{Servers: []string{"b"}}, "2025-11-25", r3.opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if caps := old.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe || caps.Logging == nil {
		t.Fatalf("capabilities %+v: want resources.subscribe and logging", caps)
	}
	if err := old.Subscribe(ctx, &mcp.SubscribeParams{URI: "ui://a/widget"}); err != nil {
		t.Fatal(err)
	}
	listen := make(chan error, 1)
	go func() { listen <- modern.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "ui://a/widget"}) }()
	testkit.Eventually(t, "the modern app's listen is subscribed", func() bool {
		g.fan.mu.Lock()
		defer g.fan.mu.Unlock()
		return g.fan.count[subKey{"a", "ui://widget"}] == 2
	})
	if asked, _ := fs.seen(); !slices.Equal(asked, []string{"sub a ui://widget"}) {
		t.Errorf("the server was asked %q, want one subscribe under its own URI", asked)
	}
	if err := old.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///y"}); err == nil || !strings.Contains(err.Error(), `"b" does not offer resource subscriptions`) {
		t.Errorf("subscribing to a server without resources.subscribe: %v", err)
	}
	if err := old.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///nowhere"}); err == nil || !strings.Contains(err.Error(), "unknown resource") {
		t.Errorf("subscribing to an unknown URI: %v", err)
	}

	g.ResourceUpdated("a", "ui://widget")
	g.ResourceUpdated("a", "file:///x") // nobody subscribed
	testkit.Eventually(t, "both apps get the update under the exposed URI", func() (bool, string) {
		return slices.Equal(r1.all(), []string{"updated ui://a/widget"}) && slices.Equal(r2.all(), []string{"updated ui://a/widget"}),
			fmt.Sprint(r1.all(), r2.all())
	})

	// Logs: old at warning, onlyB at debug; the modern app set none.
	if err := old.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); err != nil {
		t.Fatal(err)
	}
	if err := onlyB.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	if _, levels := fs.seen(); levels["a"] != "warning" || levels["b"] != "debug" {
		t.Errorf("the servers were asked for %v: want a warning (old's), b debug (onlyB's, the lowest)", levels)
	}
	g.ServerLog("a", &mcp.LoggingMessageParams{Level: "info", Data: "a-info"})
	g.ServerLog("a", &mcp.LoggingMessageParams{Level: "error", Logger: "db", Data: "a-error"})
	g.ServerLog("b", &mcp.LoggingMessageParams{Level: "debug", Data: "b-debug"})
	testkit.Eventually(t, "each app gets its own log messages", func() (bool, string) {
		return slices.Contains(r1.all(), "log error a/db a-error") && slices.Contains(r3.all(), "log debug b b-debug"),
			fmt.Sprint(r1.all(), r3.all())
	})
	g.ServerLog("a", &mcp.LoggingMessageParams{Level: "emergency", Data: "last"}) // after the others, in order
	testkit.Eventually(t, "the last message", func() bool { return slices.Contains(r1.all(), "log emergency a last") })
	for _, s := range r1.all() {
		if strings.Contains(s, "a-info") || strings.Contains(s, "b-debug") {
			t.Errorf("the app at warning got %q", s)
		}
	}
	for _, s := range r3.all() {
		if strings.Contains(s, "a-") || strings.Contains(s, "last") {
			t.Errorf("the app that sees only b got %q", s)
		}
	}
	if got := r2.all(); len(got) != 1 {
		t.Errorf("the app that set no level got %q", got)
	}

	// Let go: the old app unsubscribes, the modern one's listen ends
	// with its session.
	if err := old.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "ui://a/widget"}); err != nil {
		t.Fatal(err)
	}
	if asked, _ := fs.seen(); slices.Contains(asked, "unsub a ui://widget") {
		t.Errorf("the server was let go while the modern app listens: %q", asked)
	}
	_ = modern.Close()
	testkit.Eventually(t, "the server is let go once the last app is gone", func() (bool, string) {
		asked, _ := fs.seen()
		return slices.Equal(asked, []string{"sub a ui://widget", "unsub a ui://widget"}), fmt.Sprint(asked)
	})
	_ = old.Close()
	testkit.Eventually(t, "the levels are let go with the app", func() (bool, string) {
		_, levels := fs.seen()
		return levels["a"] == "" && levels["b"] == "debug", fmt.Sprint(levels)
	})
}

// TestSubscribeWaitsForStart: a subscription to a URI of a server that is
// starting for the first time waits for it, as a first list does.
func TestSubscribeWaitsForStart(t *testing.T) {
	fs := &fakeSub{fakeRaw: fakeRaw{newFake(Server{Name: "slow", State: hostapi.StateStarting, StartTimeout: wait})}, levels: map[string]mcp.LoggingLevel{}}
	g := New(Options{Backend: fs, Version: "test"})
	l, sock := testListen(t)
	go func() { _ = g.Serve(l) }()
	t.Cleanup(g.Close)
	h := &harness{g: g, fake: fs.fake, sock: sock}
	cs := h.connect(t, nil, "2025-11-25", nil)
	// Up a moment after the subscribe came (if it came later, the test
	// would pass without the wait).
	time.AfterFunc(300*time.Millisecond, func() {
		up := running("slow")
		up.Subscribe = true
		up.Resources = []*mcp.Resource{{URI: "file:///late", Name: "late"}}
		fs.set(up)
		g.Notify()
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "file:///late"}); err != nil {
		t.Fatal(err)
	}
	if asked, _ := fs.seen(); !slices.Equal(asked, []string{"sub slow file:///late"}) {
		t.Errorf("the server was asked %q", asked)
	}
}
