package gateway

import (
	"context"
	"errors"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func templateNames(t *testing.T, cs *mcp.ClientSession) []string {
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

func withTemplates(s Server, templates ...string) Server {
	for _, tmpl := range templates {
		s.Templates = append(s.Templates, &mcp.ResourceTemplate{Name: s.Name + " " + tmpl, URITemplate: tmpl, MIMEType: "text/plain"})
	}
	return s
}

func readText(t *testing.T, cs *mcp.ClientSession, uri string) (string, error) {
	t.Helper()
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	if len(rr.Contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(rr.Contents))
	}
	return rr.Contents[0].Text, nil
}

func completion(cs *mcp.ClientSession, ref *mcp.CompleteReference, arg, value string, context_ map[string]string) ([]string, error) {
	p := &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
	if context_ != nil {
		p.Context = &mcp.CompleteContext{Arguments: context_}
	}
	res, err := cs.Complete(context.Background(), p)
	if err != nil {
		return nil, err
	}
	return res.Completion.Values, nil
}

// TestResourceTemplates: each server's templates are listed and a URI that
// matches one is read from its server; a URI template that two servers
// list is served by neither and reported; a URI that matches the
// templates of two servers is read from neither.
func TestResourceTemplates(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			a := withTemplates(running("a"), "file:///a/{name}", "shared://{id}", "over://{id}")
			b := withTemplates(running("b"), "shared://{id}", "b://items/{id}", "over://{key}")
			b.Resources = []*mcp.Resource{{URI: "over://listed", Name: "listed"}}
			h := newHarness(t, "raw", a, b)
			cs := h.connect(t, nil, era.version, nil)

			want := []string{"b://items/{id}", "file:///a/{name}", "over://{id}", "over://{key}"}
			if got := templateNames(t, cs); !slices.Equal(got, want) {
				t.Fatalf("templates %v, want %v (shared://{id} served by neither)", got, want)
			}
			m := h.g.Mapping()
			if len(m.Conflicts) != 1 || m.Conflicts[0].URI != "shared://{id}" || !m.Conflicts[0].Template || !slices.Equal(m.Conflicts[0].Servers, []string{"a", "b"}) {
				t.Errorf("conflicts: %+v", m.Conflicts)
			}
			hidden := 0
			for _, mt := range m.Templates {
				if mt.URITemplate == "shared://{id}" && strings.Contains(mt.Hidden, "served by none of them") {
					hidden++
				}
			}
			if len(m.Templates) != 6 || hidden != 2 {
				t.Errorf("mapping of the templates: %+v", m.Templates)
			}

			// A URI that matches a template is read from its server.
			for uri, want := range map[string]string{
				"file:///a/readme": "a file:///a/readme",
				"b://items/42":     "b b://items/42",
				"over://listed":    "b over://listed", // a listed resource wins over the templates
			} {
				if got, err := readText(t, cs, uri); err != nil || got != want {
					t.Errorf("read %s: %q %v, want %q", uri, got, err, want)
				}
			}
			// The conflicting template is served by neither.
			if got, err := readText(t, cs, "shared://1"); err == nil {
				t.Errorf("the conflicting template's URI was read: %q", got)
			}
			// A URI that matches the templates of two servers.
			_, err := readText(t, cs, "over://7")
			if err == nil || !strings.Contains(err.Error(), `"a" (over://{id})`) || !strings.Contains(err.Error(), `"b" (over://{key})`) {
				t.Errorf("a URI of two servers' templates: %v", err)
			}
			// The server's own error names it.
			var rpc *jsonrpc.Error
			_, err = readText(t, cs, "b://items/missing")
			if !errors.As(err, &rpc) || rpc.Code != -32002 || !strings.Contains(rpc.Message, `Switchboard server "b"`) || !strings.Contains(rpc.Message, "Resource not found: b://items/missing") {
				t.Errorf("the server's error: %v", err)
			}

			// A client that sees only b: the overlap with a does not
			// matter to it.
			onlyB := h.connect(t, &Filter{Servers: []string{"b"}}, era.version, nil)
			if got, want := templateNames(t, onlyB), []string{"b://items/{id}", "over://{key}"}; !slices.Equal(got, want) {
				t.Errorf("--servers b: templates %v, want %v", got, want)
			}
			if got, err := readText(t, onlyB, "over://7"); err != nil || got != "b over://7" {
				t.Errorf("--servers b: read over://7: %q %v", got, err)
			}
			if _, err := readText(t, onlyB, "file:///a/readme"); err == nil {
				t.Error("--servers b read a's template")
			}
		})
	}
}

// TestTemplatesFollowTheServer: a restarting server's templates stay
// listed and a read says why it fails; a failed server's go away, with
// list_changed.
func TestTemplatesFollowTheServer(t *testing.T) {
	h := newHarness(t, "raw", withTemplates(running("a"), "a://{x}"), withTemplates(running("b"), "b://{x}"))
	changed := make(chan struct{}, 16)
	cs := h.connect(t, nil, "2025-11-25", &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { changed <- struct{}{} },
	})
	if got := templateNames(t, cs); !slices.Equal(got, []string{"a://{x}", "b://{x}"}) {
		t.Fatalf("templates %v", got)
	}
	h.fake.set(withTemplates(running("a"), "a://{x}", "a://more/{y}"))
	h.g.Notify()
	waitFor := func(what string, want []string) {
		t.Helper()
		deadline := time.After(wait)
		for {
			select {
			case <-changed:
				if got := templateNames(t, cs); slices.Equal(got, want) {
					return
				}
			case <-deadline:
				t.Fatalf("%s: no list_changed with %v; list: %v", what, want, templateNames(t, cs))
			}
		}
	}
	waitFor("a new template", []string{"a://more/{y}", "a://{x}", "b://{x}"})

	h.fake.update("a", func(s *Server) {
		s.State, s.Cached, s.Templates, s.LastError = hostapi.StateRestarting, false, nil, "exit status 1"
	})
	h.notify()
	if got := templateNames(t, cs); !slices.Contains(got, "a://{x}") {
		t.Errorf("a restarting server's templates went away: %v", got)
	}
	if _, err := readText(t, cs, "a://1"); err == nil || !strings.Contains(err.Error(), `"a" is restarting (exit status 1)`) {
		t.Errorf("a read during a restart: %v", err)
	}
	h.fake.update("a", func(s *Server) { s.State = hostapi.StateFailed })
	h.g.Notify()
	waitFor("a failed server", []string{"b://{x}"})
	if _, err := readText(t, cs, "a://1"); err == nil {
		t.Error("a failed server's template was read")
	}
	m := h.g.Mapping()
	found := false
	for _, mt := range m.Templates {
		if mt.URITemplate == "a://{x}" && mt.Hidden == "the server is failed" {
			found = true
		}
	}
	if !found {
		t.Errorf("the mapping does not say why a://{x} is hidden: %+v", m.Templates)
	}
}

// TestCompletions: completion/complete of a prompt's argument goes to the
// prompt's server under its own name, of a template's argument to the
// template's server; a server without the capability is not asked.
func TestCompletions(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			a := withTemplates(running("a"), "a://{x}", "shared://{id}")
			a.Prompts = []*mcp.Prompt{{Name: "greet"}}
			a.Completions = true
			b := withTemplates(running("b"), "b://{x}", "shared://{id}")
			b.Prompts = []*mcp.Prompt{{Name: "greet"}}
			b.Resources = []*mcp.Resource{{URI: "b://listed", Name: "listed"}}
			b.Completions = true
			c := withTemplates(running("c"), "c://{x}")
			c.Prompts = []*mcp.Prompt{{Name: "ask"}}
			h := newHarness(t, "raw", a, b, c)
			cs := h.connect(t, nil, era.version, nil)

			if ir := cs.InitializeResult(); ir == nil || ir.Capabilities == nil || ir.Capabilities.Completions == nil {
				t.Fatalf("the gateway does not advertise completions: %+v", ir)
			}
			for _, c := range []struct {
				ref  *mcp.CompleteReference
				want string
			}{
				{&mcp.CompleteReference{Type: "ref/prompt", Name: "a__greet"}, "a greet who=x"},
				{&mcp.CompleteReference{Type: "ref/prompt", Name: "b__greet"}, "b greet who=x"},
				{&mcp.CompleteReference{Type: "ref/resource", URI: "a://{x}"}, "a a://{x} who=x"},
				{&mcp.CompleteReference{Type: "ref/resource", URI: "b://{x}"}, "b b://{x} who=x"},
				{&mcp.CompleteReference{Type: "ref/resource", URI: "b://listed"}, "b b://listed who=x"},
			} {
				got, err := completion(cs, c.ref, "who", "x", map[string]string{"earlier": "v"})
				if err != nil || !slices.Equal(got, []string{c.want}) {
					t.Errorf("complete %+v: %v %v, want %q", c.ref, got, err, c.want)
				}
			}
			rec := h.fake.recordedCompletes()
			if len(rec) != 5 {
				t.Fatalf("the servers got %d completions, want 5", len(rec))
			}
			if p := rec[0].params; p.Ref.Type != "ref/prompt" || p.Ref.Name != "greet" || p.Context == nil || p.Context.Arguments["earlier"] != "v" {
				t.Errorf("the server got %+v %+v", p.Ref, p.Context)
			}
			for _, r := range rec {
				for k := range r.params.Meta {
					if strings.HasPrefix(k, protocolMetaPrefix) {
						t.Errorf("the server got the hop's _meta key %q", k)
					}
				}
			}

			// c does not advertise completions: no values, c not asked.
			if got, err := completion(cs, &mcp.CompleteReference{Type: "ref/prompt", Name: "c__ask"}, "q", "", nil); err != nil || len(got) != 0 {
				t.Errorf("a server without completions: %v %v", got, err)
			}
			if n := len(h.fake.recordedCompletes()); n != 5 {
				t.Errorf("a server without completions was asked (%d completions)", n)
			}
			// The conflicting template: an error that says why.
			if _, err := completion(cs, &mcp.CompleteReference{Type: "ref/resource", URI: "shared://{id}"}, "id", "", nil); err == nil || !strings.Contains(err.Error(), "servers a and b") {
				t.Errorf("complete the conflicting template: %v", err)
			}
			// Unknown references, and the conflicting template.
			var rpc *jsonrpc.Error
			for _, ref := range []*mcp.CompleteReference{
				{Type: "ref/prompt", Name: "greet"},
				{Type: "ref/prompt", Name: "nope__greet"},
				{Type: "ref/resource", URI: "shared://{id}"},
				{Type: "ref/resource", URI: "nope://{x}"},
			} {
				if _, err := completion(cs, ref, "x", "", nil); !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams {
					t.Errorf("complete %+v: %v", ref, err)
				}
			}
			// A client that does not see a: its prompt is unknown there.
			onlyB := h.connect(t, &Filter{Servers: []string{"b"}}, era.version, nil)
			if _, err := completion(onlyB, &mcp.CompleteReference{Type: "ref/prompt", Name: "a__greet"}, "x", "", nil); err == nil {
				t.Error("--servers b completed a's prompt")
			}
			// A server that is down: an error naming it and its state.
			h.fake.update("a", func(s *Server) { s.State, s.Cached, s.LastError = hostapi.StateRestarting, false, "exit status 1" })
			h.notify()
			if _, err := completion(cs, &mcp.CompleteReference{Type: "ref/prompt", Name: "a__greet"}, "x", "", nil); err == nil || !strings.Contains(err.Error(), `"a" is restarting`) {
				t.Errorf("a restarting server: %v", err)
			}
			h.fake.update("a", func(s *Server) { s.State, s.LastError = hostapi.StateFailed, "exit status 2" })
			h.notify()
			if _, err := completion(cs, &mcp.CompleteReference{Type: "ref/prompt", Name: "a__greet"}, "x", "", nil); err == nil || !strings.Contains(err.Error(), `"a" has failed (exit status 2)`) {
				t.Errorf("a failed server: %v", err)
			}
		})
	}
}
