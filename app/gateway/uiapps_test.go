package gateway

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// TestExposeUIMetaRaw: a result's _meta.ui on the raw path gets its
// resourceUri namespaced however the server wrote it (escaped slashes,
// other members around it), and everything else comes back byte for byte.
func TestExposeUIMetaRaw(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"resourceUri":"ui://widget"}`, `{"resourceUri":"ui://s/widget"}`},
		{`{"a":1, "resourceUri" : "ui:\/\/w\u0069dget/x?y=1","b":[2]}`, `{"a":1,"resourceUri":"ui://s/widget/x?y=1","b":[2]}`},
		{`{"resourceUri":"https://example.com/ui://x"}`, `{"resourceUri":"https://example.com/ui://x"}`},
		{`{"other":"ui://widget"}`, `{"other":"ui://widget"}`},
		{`{"resourceUri":1,"x":"ui://"}`, `{"resourceUri":1,"x":"ui://"}`},
		{`"ui://widget"`, `"ui://widget"`},
		{`{"resourceUri":"ui://widget"`, `{"resourceUri":"ui://widget"`}, // not JSON: left as it is
	} {
		if got := string(exposeUIMetaRaw("s", []byte(c.in))); got != c.want {
			t.Errorf("%s: %s, want %s", c.in, got, c.want)
		}
	}
	// The whole _meta of a result, as both raw paths take it.
	meta := serverMeta(nil, []byte(`{"io.modelcontextprotocol/x":1,"ui":{"resourceUri":"ui://widget"},"k":"ui://widget"}`), "s")
	var got string
	for _, m := range meta {
		got += string(m.key) + "=" + string(m.val) + ";"
	}
	if want := `"ui"={"resourceUri":"ui://s/widget"};"k"="ui://widget";`; got != want {
		t.Errorf("serverMeta: %s, want %s", got, want)
	}
}

// TestUIURIs: ownURI undoes exposedURI for the server that exposed it,
// and for no other; URIs of other schemes are the same on both sides.
func TestUIURIs(t *testing.T) {
	for _, uri := range []string{"ui://widget", "ui://", "ui://a/b/c?d#e", "plain://x", "file:///ui://x"} {
		e := exposedURI("srv", uri)
		if got := ownURI("srv", e); got != uri {
			t.Errorf("%s: exposed %s, back %s", uri, e, got)
		}
		if isUI(uri) && (e == uri || ownURI("other", e) != e) {
			t.Errorf("%s: exposed %s reads from another server as %s", uri, e, ownURI("other", e))
		}
	}
	m := mcp.Meta{"ui": map[string]any{"resourceUri": "ui://w", "csp": "x"}, "k": 1}
	got := exposeUIMeta("s", m)
	if uri := got["ui"].(map[string]any)["resourceUri"]; uri != "ui://s/w" || got["k"] != 1 {
		t.Errorf("exposeUIMeta: %v", got)
	}
	if m["ui"].(map[string]any)["resourceUri"] != "ui://w" {
		t.Errorf("exposeUIMeta changed the server's own _meta: %v", m)
	}
}

// BenchmarkRawResultMeta is the raw paths' splice of a small result's
// _meta (serverMeta, appendResult): without _meta, with a _meta without
// ui, and with _meta.ui.resourceUri (parsed and rewritten).
func BenchmarkRawResultMeta(b *testing.B) {
	content := []byte(`[{"type":"text","text":"echo: hello"}]`)
	for _, c := range []struct{ name, meta string }{
		{"none", ""},
		{"other", `{"mark":"a","io.modelcontextprotocol/x":1}`},
		{"ui", `{"mark":"a","ui":{"resourceUri":"ui://widget"}}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			res := &relay.Result{Content: content}
			if c.meta != "" {
				res.Meta = []byte(c.meta)
			}
			out := make([]byte, 0, 256)
			b.ReportAllocs()
			for b.Loop() {
				out = appendResult(out[:0], res, serverMetaS(nil, res.Meta, "s"), nil)
			}
		})
	}
}

// serverMetaS is serverMeta (the benchmark runs on an earlier tree too,
// whose serverMeta had no server).
var serverMetaS = serverMeta
