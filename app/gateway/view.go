package gateway

import (
	"encoding/json"
	"fmt"
	"github.com/switchboard-mcp/switchboard/app/config"
	"regexp"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/trust"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// A view is one immutable aggregate of every server's tools, prompts,
// resources and resource templates, with the names the gateway gives them. The gateway builds a
// new one after every change the host reports and replaces the old one;
// next is closed then, so that waiters wake.
type view struct {
	servers   map[string]*serverState
	tools     map[string]*entry // listed tools by exposed name
	prompts   map[string]*entry // listed prompts by exposed name
	resources map[string]*entry // listed resources by URI
	templates map[string]*entry // listed resource templates by URI template
	// allTemplates are the templates of every listed server, the
	// conflicting ones too: a URI that matches the templates of two
	// servers is read from neither.
	allTemplates []*entry
	// known holds the exposed names of every tool and prompt the gateway
	// has seen a server list (in its last run too), listed or not: a call
	// to one whose server is down gets a tool error naming its state.
	knownTools   map[string]*entry
	knownPrompts map[string]*entry
	// held are the tools that the pin store hides (held for review, or
	// rejected), by exposed name, with why: a call to one gets a tool
	// error saying so rather than "unknown tool".
	held    map[string]*heldTool
	mapping Mapping
	next    chan struct{}
	// search holds the search indexes of this view's tools, by filter
	// (filterKey), built on first use (search.go).
	search sync.Map
}

// entry is one exposed tool, prompt, resource or resource template.
type entry struct {
	server, name string // the server's own name of it (a resource's URI, a template's URI template)
	tool         *mcp.Tool
	prompt       *mcp.Prompt
	resource     *mcp.Resource
	template     *mcp.ResourceTemplate
	match        *regexp.Regexp // a template's URIs; nil if it does not parse
}

// heldTool is a tool the pin store hides, and why (trust.HiddenReason).
type heldTool struct {
	*entry
	reason string
}

// serverState is a server as of a view.
type serverState struct {
	Server
	listed   bool      // its (last known) lists are exposed
	pending  bool      // still starting: the first list of a session waits for it
	deadline time.Time // until when a list waits for it
}

// Mapping is the gateway's naming of everything it has seen, for
// 'switchboard tools': the host's API sends it as it is, so its types are
// the contract's (app/hostapi).
type (
	Mapping        = hostapi.GatewayMapping
	MappedName     = hostapi.MappedName
	MappedResource = hostapi.MappedResource
	MappedTemplate = hostapi.MappedTemplate
	Conflict       = hostapi.Conflict
)

// memo is what the gateway remembers of a server between views: its last
// lists (so that a restarting server's tools stay listed, and a call to
// one says why it fails), the exposed copies made of them (so that an
// unchanged tool keeps its pointer and a client's server is not touched),
// and since when it is starting.
type memo struct {
	have      bool // a list was seen
	tools     []*mcp.Tool
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	toolCopy  map[*mcp.Tool]*mcp.Tool
	promptCp  map[*mcp.Prompt]*mcp.Prompt
	resCp     map[*mcp.Resource]*mcp.Resource
	tmplCp    map[*mcp.ResourceTemplate]*mcp.ResourceTemplate
	tmplRe    map[*mcp.ResourceTemplate]*regexp.Regexp // by the copy; nil: does not parse
	since     time.Time                                // when it was first seen pending; zero if not pending
	// trust is the pin store's verdict on tools, by name (nil: not
	// observed, or no store); trustMode the mode it was observed in.
	trust     map[string]trust.ToolVerdict
	trustMode trust.Mode
}

// Observer records a server's tool list in the pin store and says which
// tools apps may see (app/trust's Store.Observe, through the host, which
// logs a failed write and tells its clients of held tools). It is called
// only when a server's list changed, its trust mode changed, or Retrust
// asked for it: never on a request.
type Observer func(server string, mode trust.Mode, tools []*mcp.Tool) *trust.Verdict

// transient reports whether a server is between two runs, and comes back by
// itself or once the user acts (a secret stored, a sign-in): its last lists
// stay listed meanwhile. A remote server that cannot be reached or was
// refused is retrying (the supervisor's restarting).
func transient(s *Server) bool {
	switch s.State {
	case hostapi.StateStarting, hostapi.StateRestarting, hostapi.StateStopping, hostapi.StateWaiting, hostapi.StateRunning, hostapi.StateSleeping,
		hostapi.StateUnreachable, hostapi.StateUnauthorized, hostapi.StateSigningIn, hostapi.StateSignInNeeded:
		return true
	case hostapi.StateStopped:
		return !s.UserStopped && !s.Disabled
	}
	return false
}

// build makes a view of servers, updating memos (the caller's, kept across
// views); it drops the memos of servers that no longer exist.
//
// With observe (nil: no pin store), a server's tools are observed when its
// list or trust mode changed (or its verdict was dropped by Retrust), and
// a tool the verdict does not show is hidden (held).
func build(servers []Server, memos map[string]*memo, now time.Time, observe Observer) *view {
	v := &view{
		servers:      map[string]*serverState{},
		tools:        map[string]*entry{},
		prompts:      map[string]*entry{},
		resources:    map[string]*entry{},
		templates:    map[string]*entry{},
		knownTools:   map[string]*entry{},
		knownPrompts: map[string]*entry{},
		held:         map[string]*heldTool{},
		next:         make(chan struct{}),
	}
	sort.Slice(servers, func(i, j int) bool { return servers[i].Name < servers[j].Name })
	seen := map[string]bool{}
	uris := map[string][]string{} // URI -> servers listing it
	uriEntries := map[string]*entry{}
	tmpls := map[string][]string{} // URI template -> servers listing it
	tmplEntries := map[string]*entry{}
	for i := range servers {
		s := servers[i]
		seen[s.Name] = true
		m := memos[s.Name]
		if m == nil {
			m = &memo{}
			memos[s.Name] = m
		}
		st := &serverState{Server: s}
		v.servers[s.Name] = st
		// A sleeping server's lists are the host's cache: listed as a
		// running server's are, and a started server that lists otherwise
		// replaces them (every client whose lists change gets list_changed).
		if (s.State == hostapi.StateRunning || s.State == hostapi.StateSleeping) && s.Cached {
			if !m.have || !slices.Equal(m.tools, s.Tools) {
				m.toolCopy = exposeTools(s.Name, s.Tools, m.toolCopy)
				m.trust = nil // observed again below
			}
			if !m.have || !slices.Equal(m.prompts, s.Prompts) {
				m.promptCp = exposePrompts(s.Name, s.Prompts, m.promptCp)
			}
			if !m.have || !slices.Equal(m.resources, s.Resources) {
				m.resCp = exposeEach(s.Resources, m.resCp, func(r *mcp.Resource) *mcp.Resource { return exposeResource(s.Name, r) })
			}
			if !m.have || !slices.Equal(m.templates, s.Templates) {
				m.tmplCp = exposeEach(s.Templates, m.tmplCp, func(t *mcp.ResourceTemplate) *mcp.ResourceTemplate { return exposeTemplate(s.Name, t) })
				m.tmplRe = templateRegexps(m.tmplCp, m.tmplRe)
			}
			m.have, m.tools, m.prompts, m.resources, m.templates = true, s.Tools, s.Prompts, s.Resources, s.Templates
		}
		st.listed = m.have && transient(&s)
		// The first list waits for a server that is on its way up and has
		// never listed anything: a first start, not a restart.
		st.pending = !m.have && (s.State == hostapi.StateStarting || s.State == hostapi.StateRunning ||
			s.State == hostapi.StateStopped && !s.UserStopped && !s.Disabled)
		if st.pending {
			if m.since.IsZero() {
				m.since = now
			}
			timeout := s.StartTimeout
			if timeout <= 0 {
				timeout = config.DefaultDuration("probeTimeout") + config.DefaultDuration("handshakeTimeout") // the defaults' start
			}
			st.deadline = m.since.Add(timeout)
			v.mapping.Pending = append(v.mapping.Pending, s.Name)
		} else {
			m.since = time.Time{}
		}
		if !m.have {
			continue
		}
		mode := s.Trust
		if mode != trust.ModeAuto {
			mode = trust.ModePin
		}
		if observe != nil && (m.trust == nil || m.trustMode != mode) {
			m.trust, m.trustMode = map[string]trust.ToolVerdict{}, mode
			if vd := observe(s.Name, mode, m.tools); vd != nil {
				for _, tv := range vd.Tools {
					m.trust[tv.Name] = tv
				}
			}
		}
		// Tools and prompts.
		for _, t := range m.tools {
			e := &entry{server: s.Name, name: t.Name, tool: m.toolCopy[t]}
			exposed := ExposedName(s.Name, t.Name)
			mn := MappedName{Exposed: exposed, Server: s.Name, Name: t.Name}
			switch {
			case !s.Filter.Allows(t.Name):
				mn.Hidden = "hidden by the entry's tools.allow/deny"
			case e.tool == nil:
				mn.Hidden = "its input schema is not a JSON Schema of type object"
			case v.knownTools[exposed] != nil:
				mn.Hidden = fmt.Sprintf("the server lists a second tool named %s", exposed)
			case observe != nil && !m.trust[t.Name].Visible:
				tv := m.trust[t.Name]
				mn.Trust = string(tv.State)
				mn.Hidden = trust.HiddenReason(s.Name, tv.State)
				if mn.Hidden == "" {
					mn.Hidden = "the pin store has no verdict on it"
				}
				v.knownTools[exposed] = e
				v.held[exposed] = &heldTool{entry: e, reason: mn.Hidden}
			default:
				v.knownTools[exposed] = e
				if st.listed {
					v.tools[exposed] = e
				} else {
					mn.Hidden = "the server is " + stateText(&s)
				}
			}
			v.mapping.Tools = append(v.mapping.Tools, mn)
		}
		for _, p := range m.prompts {
			e := &entry{server: s.Name, name: p.Name, prompt: m.promptCp[p]}
			exposed := ExposedName(s.Name, p.Name)
			mn := MappedName{Exposed: exposed, Server: s.Name, Name: p.Name}
			switch {
			case v.knownPrompts[exposed] != nil:
				mn.Hidden = fmt.Sprintf("the server lists a second prompt named %s", exposed)
			default:
				v.knownPrompts[exposed] = e
				if st.listed {
					v.prompts[exposed] = e
				} else {
					mn.Hidden = "the server is " + stateText(&s)
				}
			}
			v.mapping.Prompts = append(v.mapping.Prompts, mn)
		}
		if !st.listed {
			for _, r := range m.resources {
				v.mapping.Resources = append(v.mapping.Resources, MappedResource{URI: exposedURI(s.Name, r.URI), Server: s.Name, Hidden: "the server is " + stateText(&s)})
			}
			for _, t := range m.templates {
				v.mapping.Templates = append(v.mapping.Templates, MappedTemplate{URITemplate: exposedURI(s.Name, t.URITemplate), Server: s.Name, Hidden: "the server is " + stateText(&s)})
			}
			continue
		}
		// A resource's and a template's key is the exposed URI (a ui://
		// resource's names its server: uiapps.go), their entry's name the
		// server's own.
		for _, t := range m.templates {
			c := m.tmplCp[t]
			key := c.URITemplate
			if slices.Contains(tmpls[key], s.Name) {
				continue // listed twice by the same server
			}
			e := &entry{server: s.Name, name: t.URITemplate, template: c, match: m.tmplRe[c]}
			v.allTemplates = append(v.allTemplates, e)
			tmpls[key] = append(tmpls[key], s.Name)
			if len(tmpls[key]) == 1 {
				tmplEntries[key] = e
			}
		}
		for _, r := range m.resources {
			c := m.resCp[r]
			key := c.URI
			if slices.Contains(uris[key], s.Name) {
				continue // listed twice by the same server
			}
			uris[key] = append(uris[key], s.Name)
			if len(uris[key]) == 1 {
				uriEntries[key] = &entry{server: s.Name, name: r.URI, resource: c}
			}
		}
	}
	for name := range memos {
		if !seen[name] {
			delete(memos, name)
		}
	}
	for uri, owners := range uris {
		if len(owners) > 1 {
			v.mapping.Conflicts = append(v.mapping.Conflicts, Conflict{URI: uri, Servers: owners})
			for _, o := range owners {
				v.mapping.Resources = append(v.mapping.Resources, MappedResource{URI: uri, Server: o,
					Hidden: "servers " + english.List(owners) + " each list this URI: it is served by none of them"})
			}
			continue
		}
		v.resources[uri] = uriEntries[uri]
		v.mapping.Resources = append(v.mapping.Resources, MappedResource{URI: uri, Server: owners[0]})
	}
	for tmpl, owners := range tmpls {
		if len(owners) > 1 {
			v.mapping.Conflicts = append(v.mapping.Conflicts, Conflict{URI: tmpl, Servers: owners, Template: true})
			for _, o := range owners {
				v.mapping.Templates = append(v.mapping.Templates, MappedTemplate{URITemplate: tmpl, Server: o,
					Hidden: "servers " + english.List(owners) + " each list this URI template: it is served by none of them"})
			}
			continue
		}
		v.templates[tmpl] = tmplEntries[tmpl]
		v.mapping.Templates = append(v.mapping.Templates, MappedTemplate{URITemplate: tmpl, Server: owners[0]})
	}
	sort.Slice(v.mapping.Resources, func(i, j int) bool {
		a, b := v.mapping.Resources[i], v.mapping.Resources[j]
		return a.URI < b.URI || a.URI == b.URI && a.Server < b.Server
	})
	sort.Slice(v.mapping.Templates, func(i, j int) bool {
		a, b := v.mapping.Templates[i], v.mapping.Templates[j]
		return a.URITemplate < b.URITemplate || a.URITemplate == b.URITemplate && a.Server < b.Server
	})
	sort.Slice(v.mapping.Conflicts, func(i, j int) bool {
		a, b := v.mapping.Conflicts[i], v.mapping.Conflicts[j]
		return a.URI < b.URI || a.URI == b.URI && !a.Template && b.Template
	})
	return v
}

// stateText is a server's state for the mapping.
func stateText(s *Server) string {
	switch {
	case s.Disabled:
		return string(hostapi.StateDisabled)
	case s.UserStopped:
		return "stopped by the user"
	}
	return string(s.State)
}

// exposeTools returns the exposed copies of tools. A tool that is the
// same as before (the same pointer, or the same JSON: a restart or a
// list_changed re-reads every tool) keeps its copy, so that the clients'
// servers are not touched and get no list_changed for it. A tool whose
// input schema cannot be served gets no copy.
func exposeTools(server string, tools []*mcp.Tool, old map[*mcp.Tool]*mcp.Tool) map[*mcp.Tool]*mcp.Tool {
	byJSON := map[string]*mcp.Tool{}
	for src, c := range old {
		if c != nil {
			if b, err := json.Marshal(src); err == nil {
				byJSON[string(b)] = c
			}
		}
	}
	out := make(map[*mcp.Tool]*mcp.Tool, len(tools))
	for _, t := range tools {
		if c, ok := old[t]; ok {
			out[t] = c
			continue
		}
		if b, err := json.Marshal(t); err == nil {
			if c, ok := byJSON[string(b)]; ok {
				out[t] = c
				continue
			}
		}
		schema, ok := objectSchema(t.InputSchema)
		if !ok {
			out[t] = nil
			continue
		}
		c := *t
		c.Name = ExposedName(server, t.Name)
		c.InputSchema = schema
		c.Meta = exposeUIMeta(server, t.Meta)
		out[t] = &c
	}
	return out
}

func exposePrompts(server string, prompts []*mcp.Prompt, old map[*mcp.Prompt]*mcp.Prompt) map[*mcp.Prompt]*mcp.Prompt {
	byJSON := map[string]*mcp.Prompt{}
	for src, c := range old {
		if b, err := json.Marshal(src); err == nil {
			byJSON[string(b)] = c
		}
	}
	out := make(map[*mcp.Prompt]*mcp.Prompt, len(prompts))
	for _, p := range prompts {
		if c, ok := old[p]; ok {
			out[p] = c
			continue
		}
		if b, err := json.Marshal(p); err == nil {
			if c, ok := byJSON[string(b)]; ok {
				out[p] = c
				continue
			}
		}
		c := *p
		c.Name = ExposedName(server, p.Name)
		out[p] = &c
	}
	return out
}

// exposeEach maps each resource (or resource template) to its exposed
// form (expose: itself, or a copy under its exposed URI), or to the one
// made of an equal item of the last list (as exposeTools does for tools),
// so that an unchanged item keeps its pointer.
func exposeEach[T any](rs []*T, old map[*T]*T, expose func(*T) *T) map[*T]*T {
	byJSON := map[string]*T{}
	for src, c := range old {
		if b, err := json.Marshal(src); err == nil {
			byJSON[string(b)] = c
		}
	}
	out := make(map[*T]*T, len(rs))
	for _, r := range rs {
		if c, ok := old[r]; ok {
			out[r] = c
			continue
		}
		if b, err := json.Marshal(r); err == nil {
			if c, ok := byJSON[string(b)]; ok {
				out[r] = c
				continue
			}
		}
		out[r] = expose(r)
	}
	return out
}

// templateRegexps returns the regular expression of each template's URIs
// (nil for one that does not parse), keeping those of old.
func templateRegexps(ts map[*mcp.ResourceTemplate]*mcp.ResourceTemplate, old map[*mcp.ResourceTemplate]*regexp.Regexp) map[*mcp.ResourceTemplate]*regexp.Regexp {
	out := make(map[*mcp.ResourceTemplate]*regexp.Regexp, len(ts))
	for _, c := range ts {
		if re, ok := old[c]; ok {
			out[c] = re
			continue
		}
		if ut, err := uritemplate.New(c.URITemplate); err == nil {
			out[c] = ut.Regexp()
		} else {
			out[c] = nil
		}
	}
	return out
}

// objectSchema returns a tool's input schema in the form the go-sdk's
// server accepts (a JSON object of type "object"): a schema with no type
// gets type "object"; any other type is refused.
func objectSchema(s any) (any, bool) {
	switch m := s.(type) {
	case nil:
		return map[string]any{"type": "object"}, true
	case map[string]any:
		switch m["type"] {
		case "object":
			return m, true
		case nil:
			c := make(map[string]any, len(m)+1)
			for k, v := range m {
				c[k] = v
			}
			c["type"] = "object"
			return c, true
		}
		return nil, false
	}
	return nil, false
}
