//go:build linux

package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// tmplHelperEnv runs this test binary as a go-sdk server with resource
// templates and completions, named by the variable's value (INST):
// the templates gw://INST/items/{id} (its own) and gw://shared/{id} (the
// same in every instance), the prompt "hello" with the argument "who", a
// completion handler that answers "INST REF ARG=VALUE", and the tool
// grow-template that adds gw://INST/grown/{id} (the go-sdk sends
// resources/list_changed).
const tmplHelperEnv = "SWITCHBOARD_GATEWAY_TEMPLATES_HELPER"

func init() {
	if inst := os.Getenv(tmplHelperEnv); inst != "" {
		os.Exit(runTemplatesHelper(inst))
	}
}

func runTemplatesHelper(inst string) int {
	s := mcp.NewServer(&mcp.Implementation{Name: "gw-templates-" + inst, Version: "1"}, &mcp.ServerOptions{
		CompletionHandler: func(_ context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
			p := r.Params
			v := fmt.Sprintf("%s %s %s=%s", inst, p.Ref.Name+p.Ref.URI, p.Argument.Name, p.Argument.Value)
			if p.Context != nil && len(p.Context.Arguments) > 0 {
				v += fmt.Sprintf(" %v", p.Context.Arguments)
			}
			return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{v}}}, nil
		},
	})
	item := func(what string) mcp.ResourceHandler {
		return func(_ context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			id := r.Params.URI[strings.LastIndexByte(r.Params.URI, '/')+1:]
			if id == "missing" {
				return nil, mcp.ResourceNotFoundError(r.Params.URI)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: fmt.Sprintf("%s %s %s", inst, what, id)}}}, nil
		}
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "items", URITemplate: "gw://" + inst + "/items/{id}", MIMEType: "text/plain"}, item("item"))
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "shared", URITemplate: "gw://shared/{id}"}, item("shared"))
	s.AddPrompt(&mcp.Prompt{Name: "hello", Arguments: []*mcp.PromptArgument{{Name: "who"}}}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello from " + inst}}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "grow-template", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "grown", URITemplate: "gw://" + inst + "/grown/{id}"}, item("grown"))
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "templates helper:", err)
	}
	return 0
}

func tmplEntry(inst string) map[string]any {
	return map[string]any{"command": testExe, "env": map[string]string{tmplHelperEnv: inst, "GORACE": "atexit_sleep_ms=0"},
		"stdinGrace": 1000, "termGrace": 1000}
}

func gwTemplates(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for rt, err := range cs.ResourceTemplates(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rt.URITemplate)
	}
	slices.Sort(out)
	return out
}

// TestGatewayTemplatesAndCompletions: through the host's gateway, a client
// lists the resource templates of server-everything and of two go-sdk
// servers, reads templated URIs and gets each server's content, sees the
// template both go-sdk servers declare served by neither, and gets
// completions from the server that owns the prompt or the template; a
// server's own list_changed brings its new template.
func TestGatewayTemplatesAndCompletions(t *testing.T) {
	everything := testkit.NpmServer(t, "mcp-server-everything")
	th := runHost(t, nil, map[string]any{
		"ev": map[string]any{"command": everything, "stdinGrace": 2000, "termGrace": 1000},
		"t1": tmplEntry("t1"),
		"t2": tmplEntry("t2"),
	})
	for _, s := range []string{"ev", "t1", "t2"} {
		th.waitRunning(t, s)
	}
	const evText, evBlob = "demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}"
	for _, era := range []struct{ name, version string }{{"legacy", "2025-11-25"}, {"modern", ""}} {
		t.Run(era.name, func(t *testing.T) {
			cs := gwClient(t, th, gateway.Filter{}, era.version, nil)
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			want := []string{evBlob, evText, "gw://t1/items/{id}", "gw://t2/items/{id}"}
			if got := gwTemplates(t, cs); !slices.Equal(got, want) {
				t.Fatalf("templates %v, want %v (gw://shared/{id} served by neither)", got, want)
			}

			read := func(uri string) (*mcp.ReadResourceResult, error) {
				return cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			}
			// server-everything's templates.
			rr, err := read("demo://resource/dynamic/text/3")
			if err != nil || len(rr.Contents) != 1 || !strings.HasPrefix(rr.Contents[0].Text, "Resource 3: This is a plaintext resource") {
				t.Errorf("read ev's text template: %v %+v", err, rr)
			}
			rr, err = read("demo://resource/dynamic/blob/4")
			if err != nil || len(rr.Contents) != 1 || !strings.HasPrefix(string(rr.Contents[0].Blob), "Resource 4: This is a base64 blob") {
				t.Errorf("read ev's blob template: %v %+v", err, rr)
			}
			// The go-sdk servers': each its own.
			for _, inst := range []string{"t1", "t2"} {
				rr, err := read("gw://" + inst + "/items/7")
				if want := inst + " item 7"; err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != want {
					t.Errorf("read gw://%s/items/7: %v %+v, want %q", inst, err, rr, want)
				}
			}
			// The template both declare is read from neither.
			if rr, err := read("gw://shared/1"); err == nil {
				t.Errorf("the conflicting template was read: %+v", rr.Contents[0])
			}
			// The servers' own errors, with their names.
			if _, err := read("demo://resource/dynamic/text/abc"); err == nil || !strings.Contains(err.Error(), `Switchboard server "ev"`) {
				t.Errorf("ev's error: %v", err)
			}
			var rpc *jsonrpc.Error
			if _, err := read("gw://t2/items/missing"); !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, `Switchboard server "t2"`) || !strings.Contains(string(rpc.Data), "gw://t2/items/missing") {
				t.Errorf("t2's error: %v", err)
			}

			// Completions.
			complete := func(ref *mcp.CompleteReference, arg, value string, args map[string]string) []string {
				t.Helper()
				p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
				if args != nil {
					p.Context = &mcp.CompleteContext{Arguments: args}
				}
				res, err := cs.Complete(ctx, p)
				if err != nil {
					t.Errorf("complete %+v %s=%q: %v", ref, arg, value, err)
					return nil
				}
				return res.Completion.Values
			}
			prompt := func(name string) *mcp.CompleteReference {
				return &mcp.CompleteReference{Type: "ref/prompt", Name: name}
			}
			resource := func(uri string) *mcp.CompleteReference {
				return &mcp.CompleteReference{Type: "ref/resource", URI: uri}
			}
			for _, c := range []struct {
				ref        *mcp.CompleteReference
				arg, value string
				args       map[string]string
				want       []string
			}{
				{prompt("ev__completable-prompt"), "department", "E", nil, []string{"Engineering"}},
				{prompt("ev__completable-prompt"), "name", "A", map[string]string{"department": "Engineering"}, []string{"Alice"}},
				{prompt("ev__completable-prompt"), "name", "", map[string]string{"department": "Sales"}, []string{"David", "Eve", "Frank"}},
				{resource(evText), "resourceId", "5", nil, []string{"5"}},
				{prompt("t1__hello"), "who", "w", nil, []string{"t1 hello who=w"}},
				{prompt("t2__hello"), "who", "w", map[string]string{"k": "v"}, []string{"t2 hello who=w map[k:v]"}},
				{resource("gw://t2/items/{id}"), "id", "1", nil, []string{"t2 gw://t2/items/{id} id=1"}},
				{resource("gw://t1/items/{id}"), "id", "1", nil, []string{"t1 gw://t1/items/{id} id=1"}},
			} {
				if got := complete(c.ref, c.arg, c.value, c.args); !slices.Equal(got, c.want) {
					t.Errorf("complete %+v %s=%q: %q, want %q", c.ref, c.arg, c.value, got, c.want)
				}
			}
			if _, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: resource("gw://shared/{id}"), Argument: mcp.CompleteParamsArgument{Name: "id"}}); err == nil {
				t.Error("a completion of the conflicting template was answered")
			}
		})
	}

	var info hostapi.GatewayInfo
	th.must(t, hostapi.MethodGatewayTools.Name, nil, &info)
	found := false
	for _, c := range info.Mapping.Conflicts {
		if c.URI == "gw://shared/{id}" && c.Template && slices.Equal(c.Servers, []string{"t1", "t2"}) {
			found = true
		}
	}
	if !found {
		t.Errorf("the mapping does not report the conflicting template: %+v", info.Mapping.Conflicts)
	}

	// A server's resources list_changed brings its new template.
	changed := make(chan struct{}, 8)
	cs := gwClient(t, th, gateway.Filter{}, "2025-11-25", &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	gwCall(t, cs, "t1__grow-template", nil)
	deadline := time.After(wait)
	for !slices.Contains(gwTemplates(t, cs), "gw://t1/grown/{id}") {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no list_changed with gw://t1/grown/{id}: %v", gwTemplates(t, cs))
		}
	}
	if rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "gw://t1/grown/9"}); err != nil || rr.Contents[0].Text != "t1 grown 9" {
		t.Errorf("read the new template: %v", err)
	}
}
