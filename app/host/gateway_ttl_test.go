//go:build linux

package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// ttlHelperEnv runs this test binary as a go-sdk server of the 2026-07-28
// era whose lists carry ttlMs and cacheScope, given as "TTLMS SCOPE DIR":
// it writes a line to DIR/lists for every tools/list it gets, fails
// tools/list while DIR/fail exists, and its tool "add" adds the tool
// "added" without telling anyone (its tools do not announce list_changed).
const ttlHelperEnv = "SWITCHBOARD_GATEWAY_TTL_HELPER"

func init() {
	if v := os.Getenv(ttlHelperEnv); v != "" {
		os.Exit(runTTLHelper(v))
	}
}

func runTTLHelper(v string) int {
	f := strings.Fields(v)
	ttl, _ := strconv.Atoi(f[0])
	scope, dir := f[1], f[2]
	s := mcp.NewServer(&mcp.Implementation{Name: "gw-ttl", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: false}},
		SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			if _, ok := req.(*mcp.ListToolsRequest); ok {
				c.TTLMs, c.CacheScope = ttl, scope
			}
		},
	})
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				if lf, err := os.OpenFile(filepath.Join(dir, "lists"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
					fmt.Fprintln(lf, "tools/list")
					lf.Close()
				}
				if _, err := os.Stat(filepath.Join(dir, "fail")); err == nil {
					return nil, errors.New("tools/list fails now (the test's fail file)")
				}
			}
			return next(ctx, method, req)
		}
	})
	obj := map[string]any{"type": "object"}
	done := func() *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}
	}
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return done(), nil })
	s.AddTool(&mcp.Tool{Name: "add", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.AddTool(&mcp.Tool{Name: "added", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return done(), nil })
		return done(), nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "ttl helper:", err)
	}
	return 0
}

func ttlEntry(ttlMs int, scope, dir string) map[string]any {
	return map[string]any{"command": testExe, "env": map[string]string{ttlHelperEnv: fmt.Sprintf("%d %s %s", ttlMs, scope, dir), "GORACE": "atexit_sleep_ms=0"},
		"stdinGrace": 1000, "termGrace": 1000}
}

// lists is the number of tools/list a ttl helper got.
func lists(t *testing.T, dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, "lists"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// TestGatewayListTTL: two servers of the 2026-07-28 era. "long" gives its
// tools a ttlMs of an hour, cacheScope private: two apps (one of each
// era) listing again and again cost it no request past the host's first,
// and the gateway tells the modern app its lists are private. "short"
// gives 300 ms and adds a tool without list_changed: an app's list past
// the ttlMs has the host list it again, so the app sees the new tool; a
// listing that fails leaves the last tools served (stale), and the app's
// ttlMs is at most what is left of short's.
func TestGatewayListTTL(t *testing.T) {
	longDir, shortDir := t.TempDir(), t.TempDir()
	th := runHost(t, nil, map[string]any{
		"long":  ttlEntry(3600_000, "private", longDir),
		"short": ttlEntry(300, "public", shortDir),
	})
	th.waitRunning(t, "long")
	th.waitRunning(t, "short")
	modern := gwClient(t, th, gateway.Filter{}, "", nil)
	legacy := gwClient(t, th, gateway.Filter{}, "2025-11-25", nil)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	listed := func(cs *mcp.ClientSession) (*mcp.ListToolsResult, []string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		return res, names
	}
	res, names := listed(modern)
	if want := []string{"long__add", "long__echo", "short__add", "short__echo"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v (in this order)", names, want)
	}
	if res.CacheScope != "private" || res.TTLMs > 300 {
		t.Errorf("the gateway's tools/list says ttlMs %d, cacheScope %q: want at most short's 300 and private (long's)", res.TTLMs, res.CacheScope)
	}
	for range 5 {
		listed(modern)
		listed(legacy)
	}
	if n := lists(t, longDir); n != 1 {
		t.Errorf("long got %d tools/list within its ttlMs, want 1 (the host's)", n)
	}

	// A tool added without list_changed shows up once short's ttlMs passed.
	if res, err := legacy.CallTool(ctx, &mcp.CallToolParams{Name: "short__add", Arguments: map[string]any{}}); err != nil || res.IsError {
		t.Fatalf("short__add: %v %+v", err, res)
	}
	testkit.Eventually(t, "the app sees the tool short added", func() (bool, string) {
		_, names := listed(legacy)
		return slices.Contains(names, "short__added"), fmt.Sprint(names)
	})
	before := lists(t, shortDir)
	if before < 2 {
		t.Errorf("short got %d tools/list, want 2 or more", before)
	}

	// A listing that fails: the last tools stay.
	if err := os.WriteFile(filepath.Join(shortDir, "fail"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "short's tools/list is tried again and fails", func() (bool, string) {
		_, names := listed(legacy)
		if !slices.Contains(names, "short__added") {
			t.Fatalf("a failed listing dropped short's tools: %v", names)
		}
		return lists(t, shortDir) > before, fmt.Sprint(lists(t, shortDir))
	})
	if _, names := listed(legacy); !slices.Contains(names, "short__echo") || !slices.Contains(names, "short__added") {
		t.Errorf("after a failed listing: %v, want short's last tools", names)
	}
	if n := lists(t, longDir); n != 1 {
		t.Errorf("long got %d tools/list, want 1", n)
	}
}
