package gateway

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// MCP Apps (the ui extension): a tool names the HTML of its interface in
// _meta.ui.resourceUri, a ui:// resource of its server, which the app
// reads with resources/read and renders. The gateway names every tool
// SERVER__TOOL, so it names ui:// resources too: a server's ui://REST is
// exposed as ui://SERVER/REST (the scheme stays, so that the apps still
// know it for an interface), in resources/list, resources/templates/list,
// _meta.ui.resourceUri of its tools (tools/list) and of their results
// (tools/call), and the contents of a read; a read of ui://SERVER/REST
// reaches SERVER as ui://REST. Two servers that both serve ui://widget
// no longer conflict. Every other URI keeps its form.

// uiScheme begins the URI of an MCP App's resource.
const uiScheme = "ui://"

// isUI reports whether uri is an MCP App's resource (ui://...).
func isUI(uri string) bool { return strings.HasPrefix(uri, uiScheme) }

// exposedURI is the URI under which the gateway exposes server's resource
// (or URI template) uri: ui://SERVER/REST for ui://REST, any other as it is.
func exposedURI(server, uri string) string {
	if !isUI(uri) {
		return uri
	}
	return uiScheme + server + "/" + uri[len(uiScheme):]
}

// ownURI undoes exposedURI for a read of uri from server: ui://SERVER/REST
// is the server's ui://REST; any other URI is the server's own.
func ownURI(server, uri string) string {
	if rest, ok := strings.CutPrefix(uri, uiScheme+server+"/"); ok {
		return uiScheme + rest
	}
	return uri
}

// uiMetaKey is the _meta key of the MCP Apps extension, resourceKey its
// member that names the interface's resource.
const (
	uiMetaKey   = "ui"
	resourceKey = "resourceUri"
)

// exposeUIMeta returns m with _meta.ui.resourceUri exposed for server
// (exposedURI); m itself, never changed, when it names no ui:// resource.
func exposeUIMeta(server string, m mcp.Meta) mcp.Meta {
	ui, ok := m[uiMetaKey].(map[string]any)
	if !ok {
		return m
	}
	uri, ok := ui[resourceKey].(string)
	if !ok || !isUI(uri) {
		return m
	}
	c, cu := maps.Clone(m), maps.Clone(ui)
	cu[resourceKey] = exposedURI(server, uri)
	c[uiMetaKey] = cu
	return c
}

// uiMetaKeyJSON is uiMetaKey as a member's key is written.
var uiMetaKeyJSON = []byte(`"` + uiMetaKey + `"`)

// exposeUIMetaRaw is exposeUIMeta on the raw path: val is the value of the
// "ui" member of a result's _meta, as the server wrote it. It is parsed
// only when it holds "ui:" (a URI may be written ui:\/\/...); it comes
// back as it was unless its resourceUri names a ui:// resource.
func exposeUIMetaRaw(server string, val []byte) []byte {
	if len(val) == 0 || val[0] != '{' || !bytes.Contains(val, []byte("ui:")) {
		return val
	}
	out := make([]byte, 0, len(val)+len(server)+2)
	out = append(out, '{')
	changed := false
	err := relay.Members(val, func(k, v []byte) bool {
		if string(k) == `"`+resourceKey+`"` && v[0] == '"' {
			if rest, ok := bytes.CutPrefix(v, []byte(`"`+uiScheme)); ok && bytes.IndexByte(rest, '\\') < 0 {
				// As written, without escapes: the server's name is
				// letters, digits and '-', nothing to escape.
				v = append([]byte(`"`+uiScheme+server+"/"), rest...)
				changed = true
			} else {
				var uri string
				if json.Unmarshal(v, &uri) == nil && isUI(uri) {
					if b, err := json.Marshal(exposedURI(server, uri)); err == nil {
						v, changed = b, true
					}
				}
			}
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, k...)
		out = append(out, ':')
		out = append(out, v...)
		return true
	})
	if err != nil || !changed {
		return val
	}
	return append(out, '}')
}

// exposeResource is server's resource r as the gateway lists it: r itself,
// or a copy under its exposed URI.
func exposeResource(server string, r *mcp.Resource) *mcp.Resource {
	if !isUI(r.URI) {
		return r
	}
	c := *r
	c.URI = exposedURI(server, r.URI)
	return &c
}

// exposeTemplate is exposeResource for a resource template.
func exposeTemplate(server string, t *mcp.ResourceTemplate) *mcp.ResourceTemplate {
	if !isUI(t.URITemplate) {
		return t
	}
	c := *t
	c.URITemplate = exposedURI(server, t.URITemplate)
	return &c
}

// exposeContents returns a read's result with the ui:// URIs of its
// contents exposed for server; res itself when it has none.
func exposeContents(server string, res *mcp.ReadResourceResult) *mcp.ReadResourceResult {
	i := 0
	for i < len(res.Contents) && (res.Contents[i] == nil || !isUI(res.Contents[i].URI)) {
		i++
	}
	if i == len(res.Contents) {
		return res
	}
	out := *res
	out.Contents = make([]*mcp.ResourceContents, len(res.Contents))
	for j, c := range res.Contents {
		if c != nil && isUI(c.URI) {
			cc := *c
			cc.URI = exposedURI(server, c.URI)
			c = &cc
		}
		out.Contents[j] = c
	}
	return &out
}
