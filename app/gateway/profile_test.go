package gateway

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// profiled is a raw fake backend that knows profiles, as the host's
// backend does from its config.
type profiled struct {
	fakeRaw
	mu       sync.Mutex
	profiles map[string]*config.Profile
}

func (p *profiled) Profile(name string) *config.Profile {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.profiles[name]
}

func (p *profiled) ProfileNames() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.profiles))
}

func (p *profiled) setProfiles(t *testing.T, js string) {
	t.Helper()
	f, err := config.Parse([]byte(`{"version": 1, "mcpServers": {}, "profiles": ` + js + `}`))
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.profiles = f.Profiles()
	p.mu.Unlock()
}

// newProfileHarness is newHarness (raw mode, or fds where the system
// hands descriptors over) over a backend with profiles.
func newProfileHarness(t *testing.T, mode string, profiles string, servers ...Server) (*harness, *profiled) {
	t.Helper()
	if mode == "fds" && !handOffHere {
		t.Skip("handing the stdin and stdout over is Unix-only")
	}
	f := newFake(servers...)
	b := &profiled{fakeRaw: fakeRaw{f}}
	b.setProfiles(t, profiles)
	g := New(Options{Backend: b, Version: "test"})
	l, sock := testListen(t)
	go func() { _ = g.Serve(l) }()
	t.Cleanup(g.Close)
	return &harness{g: g, fake: f, sock: sock, fds: mode == "fds"}, b
}

func TestProfiles(t *testing.T) {
	for _, mode := range []string{"raw", "fds"} {
		t.Run(mode, func(t *testing.T) { testProfiles(t, mode) })
	}
}

func testProfiles(t *testing.T, mode string) {
	h, b := newProfileHarness(t, mode,
		`{"coding": {"servers": ["git", "files", "github"], "tools": {"deny": ["files__write_*"]}}, "reads": {"tools": {"allow": ["*__read_*", "*__log"]}, "toolMode": "search"}}`,
		running("files", "read_file", "write_file"), running("git", "status", "log"), running("web", "fetch"))

	// The profile alone: its servers, without its denied tools.
	changed := make(chan struct{}, 16)
	coding := h.connect(t, &Filter{Profile: "coding"}, "", &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	if got, want := toolNames(t, coding), []string{"files__read_file", "git__log", "git__status"}; !slices.Equal(got, want) {
		t.Errorf("--profile coding: %v, want %v", got, want)
	}
	// A tool outside the profile is an unknown tool, on every path.
	var rpc *jsonrpc.Error
	for _, tool := range []string{"files__write_file", "web__fetch"} {
		if _, err := coding.CallTool(context.Background(), &mcp.CallToolParams{Name: tool}); !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "unknown tool") {
			t.Errorf("calling %s outside the profile: %v", tool, err)
		}
	}
	if res, err := coding.CallTool(context.Background(), &mcp.CallToolParams{Name: "git__log"}); err != nil || res.IsError {
		t.Errorf("calling a tool of the profile: %v %+v", err, res)
	}

	// The flags narrow the profile further: the intersection.
	narrow := h.connect(t, &Filter{Profile: "coding", Servers: []string{"git", "web"}, Tools: []string{"*__log", "*__fetch"}}, "", nil)
	if got, want := toolNames(t, narrow), []string{"git__log"}; !slices.Equal(got, want) {
		t.Errorf("--profile coding --servers git,web --tools: %v, want %v", got, want)
	}
	// A profile in search mode: the two meta-tools, and find_tools finds
	// only the profile's tools; --tool-mode all overrides the profile's.
	reads := h.connect(t, &Filter{Profile: "reads"}, "", nil)
	if got, want := toolNames(t, reads), []string{"call_tool", "find_tools"}; !slices.Equal(got, want) {
		t.Errorf("--profile reads (toolMode search): %v, want %v", got, want)
	}
	res, err := reads.CallTool(context.Background(), &mcp.CallToolParams{Name: "find_tools", Arguments: map[string]any{"query": "read write fetch status log file", "limit": 10}})
	if err != nil || res.IsError {
		t.Fatalf("find_tools under the profile: %v %+v", err, res)
	}
	var found []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			for _, n := range []string{"files__read_file", "files__write_file", "git__log", "git__status", "web__fetch"} {
				if strings.Contains(tc.Text, `"`+n+`"`) {
					found = append(found, n)
				}
			}
		}
	}
	if want := []string{"files__read_file", "git__log"}; !slices.Equal(found, want) {
		t.Errorf("find_tools under --profile reads found %v, want %v", found, want)
	}
	readsAll := h.connect(t, &Filter{Profile: "reads", ToolMode: "all"}, "", nil)
	if got, want := toolNames(t, readsAll), []string{"files__read_file", "git__log"}; !slices.Equal(got, want) {
		t.Errorf("--profile reads --tool-mode all: %v, want %v", got, want)
	}

	// The warnings: a server the profile names that is not configured,
	// and an unknown profile, which shows nothing.
	nc := dialT(t, h.sock)
	_, w, err := Handshake(nc, Hello{Filter: Filter{Profile: "coding"}})
	if err != nil || len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0], `"github"`) {
		t.Errorf("coding's warnings: %v %+v", err, w)
	}
	nc.Close()
	nc = dialT(t, h.sock)
	_, w, err = Handshake(nc, Hello{Filter: Filter{Profile: "nosuch"}})
	if err != nil || len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0], `no profile is named "nosuch"`) {
		t.Errorf("an unknown profile's warnings: %v %+v", err, w)
	}
	nc.Close()
	// A misspelled one: a guess among the profiles (issue 27 §17).
	nc = dialT(t, h.sock)
	_, w, err = Handshake(nc, Hello{Filter: Filter{Profile: "codng"}})
	if err != nil || len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0], `no profile is named "codng" (yet) (did you mean "coding"?)`) {
		t.Errorf("a misspelled profile's warnings: %v %+v", err, w)
	}
	nc.Close()
	unknown := h.connect(t, &Filter{Profile: "later"}, "", nil)
	if got := toolNames(t, unknown); len(got) != 0 {
		t.Errorf("an unknown profile sees %v, want nothing", got)
	}

	// A hot edit of the profile: list_changed, and the new list; the
	// profile named before it existed now shows its tools.
	for len(changed) > 0 {
		<-changed
	}
	b.setProfiles(t, `{"coding": {"servers": ["web", "files"]}, "later": {"servers": ["git"]}}`)
	h.g.Notify()
	want := []string{"files__read_file", "files__write_file", "web__fetch"}
	deadline := time.After(wait)
	for got := toolNames(t, coding); !slices.Equal(got, want); got = toolNames(t, coding) {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no list_changed with %v after the profile's edit; list: %v", want, got)
		}
	}
	if res, err := coding.CallTool(context.Background(), &mcp.CallToolParams{Name: "web__fetch"}); err != nil || res.IsError {
		t.Errorf("calling a tool the edit added: %v %+v", err, res)
	}
	if _, err := coding.CallTool(context.Background(), &mcp.CallToolParams{Name: "git__log"}); !errors.As(err, &rpc) {
		t.Errorf("calling a tool the edit removed: %v", err)
	}
	if got, want := toolNames(t, unknown), []string{"git__log", "git__status"}; !slices.Equal(got, want) {
		t.Errorf("the profile added later: %v, want %v", got, want)
	}
	// Removing it again hides everything (an unreadable profile too).
	b.setProfiles(t, `{"coding": {"tools": {"deny": ["[x"]}}}`)
	h.notify()
	if got := toolNames(t, coding); len(got) != 0 {
		t.Errorf("a profile with a malformed pattern shows %v", got)
	}
	if got := toolNames(t, unknown); len(got) != 0 {
		t.Errorf("a removed profile shows %v", got)
	}
}

func TestEffectiveToolMode(t *testing.T) {
	h, _ := newProfileHarness(t, "raw", `{"s": {"toolMode": "search"}, "a": {}}`, running("x", "y"))
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{}, "all"},
		{Filter{Profile: "s"}, "search"},
		{Filter{Profile: "s", ToolMode: "all"}, "all"},
		{Filter{Profile: "a", ToolMode: "search"}, "search"},
		{Filter{Profile: "a"}, "all"},
	} {
		if s, _ := h.g.effective(c.f); s.ToolMode != c.want {
			t.Errorf("%+v: tool mode %q, want %q", c.f, s.ToolMode, c.want)
		}
	}
}
