//go:build linux

package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// uiHelperEnv runs this test binary as a go-sdk server with an MCP App,
// named by the variable's value (INST): the tool "show" whose
// _meta.ui.resourceUri is ui://widget and whose result's _meta names it
// too, the resource ui://widget (HTML that names INST), the template
// ui://items/{id}, the resource plain://INST, and the tool "plain" whose
// _meta and result's _meta hold ui:// only where MCP Apps do not look.
// The tool, the prompt "hi", the resource and the template carry icons.
const uiHelperEnv = "SWITCHBOARD_GATEWAY_UIAPPS_HELPER"

func init() {
	if inst := os.Getenv(uiHelperEnv); inst != "" {
		os.Exit(runUIAppsHelper(inst))
	}
}

// uiIcons are the icons every item of the helper carries.
var uiIcons = []mcp.Icon{{Source: "https://example.com/icon.svg", MIMEType: "image/svg+xml", Sizes: []string{"any"}, Theme: "dark"}}

func runUIAppsHelper(inst string) int {
	s := mcp.NewServer(&mcp.Implementation{Name: "gw-uiapps-" + inst, Version: "1", Icons: uiIcons}, nil)
	s.AddTool(&mcp.Tool{Name: "show", InputSchema: map[string]any{"type": "object"}, Icons: uiIcons,
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://widget", "visibility": []any{"model", "app"}}}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "ui://widget"}, "mark": inst},
				Content: []mcp.Content{&mcp.TextContent{Text: "shown by " + inst}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "plain", InputSchema: map[string]any{"type": "object"},
		Meta: mcp.Meta{"ui": map[string]any{"resourceUri": "https://example.com/ui://x"}, "link": "ui://widget"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Meta: mcp.Meta{"link": "ui://widget", "ui": map[string]any{"other": "ui://widget"}},
				Content: []mcp.Content{&mcp.TextContent{Text: "plain " + inst}}}, nil
		})
	read := func(text func(uri string) string) mcp.ResourceHandler {
		return func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, MIMEType: "text/html;profile=mcp-app", Text: text(r.Params.URI)}}}, nil
		}
	}
	s.AddResource(&mcp.Resource{URI: "ui://widget", Name: "widget", MIMEType: "text/html;profile=mcp-app", Icons: uiIcons},
		read(func(uri string) string { return "<html>widget of " + inst + " read as " + uri + "</html>" }))
	s.AddResource(&mcp.Resource{URI: "plain://" + inst, Name: "plain"},
		read(func(uri string) string { return "plain of " + inst }))
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "ui://items/{id}", Name: "items", Icons: uiIcons},
		read(func(uri string) string { return "item of " + inst + " read as " + uri }))
	s.AddPrompt(&mcp.Prompt{Name: "hi", Icons: uiIcons}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "uiapps helper:", err)
	}
	return 0
}

func uiEntry(inst string) map[string]any {
	return map[string]any{"command": testExe, "env": map[string]string{uiHelperEnv: inst, "GORACE": "atexit_sleep_ms=0"},
		"stdinGrace": 1000, "termGrace": 1000}
}

// uiResourceURI is a _meta's ui.resourceUri ("" if none).
func uiResourceURI(m mcp.Meta) string {
	ui, _ := m["ui"].(map[string]any)
	s, _ := ui["resourceUri"].(string)
	return s
}

// TestGatewayUIApps: two go-sdk servers, a and b, each list a tool whose
// _meta.ui.resourceUri is ui://widget and a resource ui://widget of their
// own. Through the host's gateway, on the lean path (the socket), the
// go-sdk path (the socket with the lean path off) and the HTTP endpoint
// (the raw result of the go-sdk server), an app sees ui://a/widget and
// ui://b/widget in tools/list, in resources/list (no conflict), in the
// tool results' _meta, and reads each server's own HTML under them (the
// server is asked for ui://widget; the contents come back under the
// namespaced URI); ui:// templates likewise. Other URIs, and ui:// where
// MCP Apps do not look, stay as the servers wrote them; icons pass.
func TestGatewayUIApps(t *testing.T) {
	for _, path := range []string{"lean", "sdk"} {
		t.Run(path, func(t *testing.T) {
			setGatewayPath(t, path)
			store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
			th := runHostWith(t, store, map[string]any{"a": uiEntry("a"), "b": uiEntry("b")}, func(o *Options) { o.GatewayHTTPPort = -1 })
			th.waitRunning(t, "a")
			th.waitRunning(t, "b")
			var info hostapi.GatewayInfo
			th.must(t, hostapi.MethodGatewayTools.Name, nil, &info)
			if len(info.Mapping.Conflicts) > 0 {
				t.Errorf("conflicts: %+v", info.Mapping.Conflicts)
			}
			token, err := gateway.Token(store)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			httpCS, err := mcp.NewClient(&mcp.Implementation{Name: "uiapps-test", Version: "1"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: info.HTTP, HTTPClient: &http.Client{Transport: relayBearer{token, http.DefaultTransport}}, MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer httpCS.Close()
			clients := map[string]*mcp.ClientSession{"socket": gwClient(t, th, gateway.Filter{}, "", nil), "HTTP": httpCS}
			for name, cs := range clients {
				t.Run(name, func(t *testing.T) { checkUIApps(t, cs) })
			}
		})
	}
}

func checkUIApps(t *testing.T, cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, tl := range tools.Tools {
		server, own, _ := gateway.SplitName(tl.Name)
		switch own {
		case "show":
			seen++
			if got, want := uiResourceURI(tl.Meta), "ui://"+server+"/widget"; got != want {
				t.Errorf("tools/list: %s's _meta.ui.resourceUri is %q, want %q (%v)", tl.Name, got, want, tl.Meta)
			}
			if ui, _ := tl.Meta["ui"].(map[string]any); fmt.Sprint(ui["visibility"]) != "[model app]" {
				t.Errorf("tools/list: %s's _meta.ui lost its other members: %v", tl.Name, tl.Meta)
			}
			if !slices.EqualFunc(tl.Icons, uiIcons, iconEqual) {
				t.Errorf("tools/list: %s's icons %+v, want %+v", tl.Name, tl.Icons, uiIcons)
			}
		case "plain":
			seen++
			if got := uiResourceURI(tl.Meta); got != "https://example.com/ui://x" || tl.Meta["link"] != "ui://widget" {
				t.Errorf("tools/list: %s's _meta changed: %v", tl.Name, tl.Meta)
			}
		}
	}
	if seen != 4 {
		t.Fatalf("tools/list: %d of a__show, b__show, a__plain, b__plain", seen)
	}

	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
		if strings.HasPrefix(r.URI, "ui://") && !slices.EqualFunc(r.Icons, uiIcons, iconEqual) {
			t.Errorf("resources/list: %s's icons %+v", r.URI, r.Icons)
		}
	}
	slices.Sort(uris)
	if want := []string{"plain://a", "plain://b", "ui://a/widget", "ui://b/widget"}; !slices.Equal(uris, want) {
		t.Errorf("resources/list: %q, want %q", uris, want)
	}
	var tmpls []string
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		tmpls = append(tmpls, rt.URITemplate)
		if !slices.EqualFunc(rt.Icons, uiIcons, iconEqual) {
			t.Errorf("resources/templates/list: %s's icons %+v", rt.URITemplate, rt.Icons)
		}
	}
	slices.Sort(tmpls)
	if want := []string{"ui://a/items/{id}", "ui://b/items/{id}"}; !slices.Equal(tmpls, want) {
		t.Errorf("resources/templates/list: %q, want %q", tmpls, want)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 2 {
		t.Fatalf("prompts/list: %v %+v", err, prompts)
	}
	for _, p := range prompts.Prompts {
		if !slices.EqualFunc(p.Icons, uiIcons, iconEqual) {
			t.Errorf("prompts/list: %s's icons %+v", p.Name, p.Icons)
		}
	}

	for _, inst := range []string{"a", "b"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: inst + "__show", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			t.Fatalf("calling %s__show: %v %+v", inst, err, res)
		}
		if got, want := uiResourceURI(res.Meta), "ui://"+inst+"/widget"; got != want || res.Meta["mark"] != inst || gwText(res) != "shown by "+inst {
			t.Errorf("tools/call %s__show: _meta %v, text %q; want ui.resourceUri %q and mark %q", inst, res.Meta, gwText(res), want, inst)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: inst + "__plain", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		delete(res.Meta, mcp.MetaKeyServerInfo) // the gateway's own, for a 2026-07-28 client
		if b, _ := json.Marshal(res.Meta); string(b) != `{"link":"ui://widget","ui":{"other":"ui://widget"}}` {
			t.Errorf("tools/call %s__plain: _meta %s, want it as the server wrote it", inst, b)
		}

		for _, c := range []struct{ uri, want string }{
			{"ui://" + inst + "/widget", "<html>widget of " + inst + " read as ui://widget</html>"},
			{"ui://" + inst + "/items/7", "item of " + inst + " read as ui://items/7"},
			{"plain://" + inst, "plain of " + inst},
		} {
			rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: c.uri})
			if err != nil || len(rr.Contents) != 1 {
				t.Errorf("resources/read %s: %v %+v", c.uri, err, rr)
				continue
			}
			if got := rr.Contents[0]; got.Text != c.want || got.URI != c.uri {
				t.Errorf("resources/read %s: %q under %q, want %q under the URI read", c.uri, got.Text, got.URI, c.want)
			}
		}
	}
	// The server's own form is no name of the gateway's.
	if rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://widget"}); err == nil {
		t.Errorf("resources/read ui://widget (no server named) was answered: %+v", rr.Contents[0])
	}
}

func iconEqual(a, b mcp.Icon) bool {
	return a.Source == b.Source && a.MIMEType == b.MIMEType && a.Theme == b.Theme && slices.Equal(a.Sizes, b.Sizes)
}

// TestGatewayUIAppsOneServer: with one server, its ui:// resource is
// namespaced all the same (the gateway names every tool SERVER__TOOL, one
// server or many), so that adding a second server later changes no name
// an app has kept; what is not ui:// stays as the server wrote it.
func TestGatewayUIAppsOneServer(t *testing.T) {
	th := runHost(t, nil, map[string]any{"solo": uiEntry("solo")})
	th.waitRunning(t, "solo")
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "solo__show", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := uiResourceURI(res.Meta); got != "ui://solo/widget" {
		t.Errorf("tools/call: _meta.ui.resourceUri %q", got)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "ui://solo/widget"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "<html>widget of solo read as ui://widget</html>" {
		t.Errorf("read: %v %+v", err, rr)
	}
	rr, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "plain://solo"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].URI != "plain://solo" {
		t.Errorf("read plain://solo: %v %+v", err, rr)
	}
}
