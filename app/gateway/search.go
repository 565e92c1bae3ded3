package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/toolsearch"
)

// Search mode (a client whose Filter.ToolMode is "search";
// docs/toolsearch.md): the client's tools/list holds find_tools and
// call_tool instead of every tool. find_tools ranks the tools the client
// may see (those its tools/list would hold in the normal mode) with
// app/toolsearch and answers with the best matches' definitions under
// their exposed names; call_tool(name, arguments) is a tools/call of name
// with arguments, on the same path as a direct one (the relay, its hooks
// and the activity log see the real tool; pins, approvals, timeouts,
// cancellation and progress apply; an unknown or hidden name gets the
// same error). A direct tools/call of an exposed name still works: an app
// may have kept a name from a find_tools answer, or from the normal mode.
//
// metaCall is the one place that decides what a tools/call of a
// search-mode client is: both the go-sdk's path (facade.call) and the
// lean path (sockConn.leanCall) ask it.

// maxFound bounds the tools a search-mode connection adds to its
// tools/list after find_tools (the most recently found stay).
const maxFound = 64

// metaKind is what a tools/call of a search-mode client is.
type metaKind int

const (
	metaNone metaKind = iota // a direct call of an exposed name
	metaFind                 // find_tools
	metaCall                 // call_tool: a call of the tool it names
)

// metaCall sorts out a tools/call of name with args for this facade's
// client: for call_tool, the tool it names and that tool's arguments
// (nil: none). bad is a tool error for call_tool arguments that do not
// name a tool.
func (f *facade) metaCall(name string, args json.RawMessage) (kind metaKind, target string, targetArgs json.RawMessage, bad *mcp.CallToolResult) {
	if !f.cur().Search() {
		return metaNone, name, args, nil
	}
	switch name {
	case toolsearch.FindToolsName:
		return metaFind, name, args, nil
	case toolsearch.CallToolName:
		var a toolsearch.CallToolArgs
		if err := json.Unmarshal(orEmpty(args), &a); err != nil {
			return metaCall, "", nil, toolError(fmt.Sprintf(`call_tool's arguments do not decode (%v): they are {"name": "a name find_tools returned", "arguments": {...}}`, err))
		}
		if a.Name == "" {
			return metaCall, "", nil, toolError(`call_tool needs the name of the tool to call: {"name": "a name find_tools returned", "arguments": {...}}; call find_tools first to get one`)
		}
		t := bytes.TrimSpace(a.Arguments)
		switch {
		case len(t) == 0 || bytes.Equal(t, []byte("null")):
			t = nil
		case t[0] != '{':
			return metaCall, "", nil, toolError(fmt.Sprintf("call_tool's arguments for %s must be an object, matching that tool's input schema", a.Name))
		}
		f.learn(a.Name)
		return metaCall, a.Name, json.RawMessage(t), nil
	}
	f.learn(name)
	return metaNone, name, args, nil
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(b)) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

// findTools answers find_tools: the best matches among the tools the
// client sees, compactly for a search with intent or keywords
// (toolsearch.CompactAnswer, 5 to 8 tools), with full definitions for
// the older query alone (toolsearch.Answer, 5) and for describe. A
// socket client's tools/list then holds the tools found too (see found),
// and the search is kept to learn from (see learn).
func (f *facade) findTools(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var a toolsearch.FindToolsArgs
	if err := json.Unmarshal(orEmpty(args), &a); err != nil {
		return toolError(fmt.Sprintf(`find_tools' arguments do not decode (%v): they are {"intent": "what you want to do, one sentence", "keywords": ["words", "and", "synonyms"]}`, err)), nil
	}
	if a.Empty() {
		return toolError(`find_tools needs an intent and keywords: {"intent": "Read a local file.", "keywords": ["read", "file", "open", "contents"]}`), nil
	}
	// Like a first list: servers still starting are waited for.
	sel := f.cur()
	f.g.waitStarted(ctx, sel)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	si := f.g.searchIndex(f.g.current(), sel)
	if len(a.Describe) > 0 {
		var tools []*mcp.Tool
		for _, n := range a.Describe {
			if i, ok := slices.BinarySearch(si.names, n); ok && !slices.ContainsFunc(tools, func(t *mcp.Tool) bool { return t.Name == n }) {
				tools = append(tools, si.tools[i])
			}
		}
		if len(tools) == 0 {
			return toolError(fmt.Sprintf("find_tools: no tool named %s is available; search with intent and keywords to get names", strings.Join(a.Describe, ", "))), nil
		}
		return toolsearch.Answer(tools), nil
	}
	q := a.SearchQuery()
	hits := si.ix.Find(q, a.Clamp(), f.g.search.learnedStore())
	hits = hits[:a.Cut(hits)]
	tools := make([]*mcp.Tool, 0, len(hits))
	names := make([]string, 0, len(hits))
	for _, h := range hits {
		tools = append(tools, si.tools[h.Doc])
		names = append(names, h.Name)
	}
	if f.addsFound && len(names) > 0 {
		f.mu.Lock()
		changed := false
		for _, n := range names {
			if i := slices.Index(f.found, n); i >= 0 {
				if i == len(f.found)-1 {
					continue
				}
				f.found = slices.Delete(f.found, i, i+1)
			} else {
				changed = true
			}
			f.found = append(f.found, n)
		}
		if len(f.found) > maxFound {
			f.found = slices.Delete(f.found, 0, len(f.found)-maxFound)
			changed = true
		}
		f.mu.Unlock()
		f.searches.add(q, names, time.Now())
		if changed {
			f.sync() // the go-sdk sends list_changed
		}
	}
	if a.Compact() {
		return toolsearch.CompactAnswer(tools), nil
	}
	return toolsearch.Answer(tools), nil
}

// Learning (docs/toolsearch.md, "Learning from use"): when a socket
// connection calls a tool (through call_tool, or directly) that one of
// its find_tools answers of the last learnWindow listed, that search's
// words are added to the tool's learned field (toolsearch.Learned, one
// per gateway, shared by every index), so that the next search in those
// words ranks it higher. Each answer teaches each tool it listed once.
// In memory only: nothing is written; a restart forgets (the activity
// log holds neither find_tools' words nor its answers to replay).
const (
	learnWindow = 10 * time.Minute
	maxSearches = 8 // the answers a connection keeps to learn from
)

// recentSearches are a connection's last find_tools answers.
type recentSearches struct {
	mu   sync.Mutex
	list []recentSearch // oldest first, at most maxSearches
}

type recentSearch struct {
	q      toolsearch.Query
	listed []string // exposed names, not yet taught
	at     time.Time
}

func (r *recentSearches) add(q toolsearch.Query, listed []string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, recentSearch{q: q, listed: slices.Clone(listed), at: at})
	if len(r.list) > maxSearches {
		r.list = slices.Delete(r.list, 0, len(r.list)-maxSearches)
	}
}

// taught takes out of the recent answers of the window before now those
// that listed tool, and returns their searches (the most recent last).
func (r *recentSearches) taught(tool string, now time.Time) []toolsearch.Query {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []toolsearch.Query
	for i := range r.list {
		s := &r.list[i]
		if now.Sub(s.at) > learnWindow {
			continue
		}
		if j := slices.Index(s.listed, tool); j >= 0 {
			s.listed = slices.Delete(s.listed, j, j+1)
			out = append(out, s.q)
		}
	}
	return out
}

// learn teaches tool (an exposed name the client calls in search mode)
// the words of the connection's recent searches that listed it.
func (f *facade) learn(tool string) {
	if !f.addsFound {
		return
	}
	qs := f.searches.taught(tool, time.Now())
	if len(qs) == 0 {
		return
	}
	l := f.g.search.learnedStore()
	for _, q := range qs {
		l.Add(tool, q)
	}
}

// listsFound reports whether the facade's tools/list holds a tool the
// client sees with sel (f.mu held): every one in the normal mode; in
// search mode, those that find_tools found.
func (f *facade) listsFound(sel *selection, exposed string) bool {
	return !sel.Search() || slices.Contains(f.found, exposed)
}

// metaTools puts find_tools and call_tool in a search-mode facade's
// server (the middleware answers their calls), or takes them out of one
// that is no longer in search mode (f.mu held).
func (f *facade) metaTools(on bool) {
	if on == f.meta {
		return
	}
	f.meta = on
	if !on {
		f.srv.RemoveTools(toolsearch.FindToolsName, toolsearch.CallToolName)
		f.found = nil
		return
	}
	for _, t := range []*mcp.Tool{toolsearch.FindTools(), toolsearch.CallTool()} {
		f.srv.AddTool(t, f.toolHandler)
	}
}

// unknownTool is the error of a tools/call of a name the client cannot
// call, on both paths.
func unknownTool(name string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
}

// A searchIndex ranks the tools one filter sees in one view.
type searchIndex struct {
	names []string    // exposed names, sorted
	tools []*mcp.Tool // the exposed definitions, in names' order
	ix    *toolsearch.Index
}

// searchCache keeps the search indexes of a view, by filter, and the
// last index of each filter across views: a view whose tools for a
// filter are the same (the same exposed definitions: a server's state
// changed, not its list) reuses it. Indexes are built when a search-mode
// client's facade syncs with a new view (off the request path), never
// per request.
type searchCache struct {
	mu      sync.Mutex
	last    map[string]*searchIndex // by filterKey
	learned *toolsearch.Learned     // what searches taught tools (learn)
}

// learnedStore is the gateway's Learned, made on first use.
func (c *searchCache) learnedStore() *toolsearch.Learned {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.learned == nil {
		c.learned = toolsearch.NewLearned()
	}
	return c.learned
}

// maxSearchKeys bounds the filters whose last index is kept.
const maxSearchKeys = 64

// filterKey tells apart the filters that may see different tools: every
// field of the filter but its mode (so that a field added to Filter is
// part of the key without a change here).
func filterKey(f Filter) string {
	f.ToolMode = ""
	b, err := json.Marshal(f)
	if err != nil { // strings and slices of strings: never
		return fmt.Sprintf("%#v", f)
	}
	return string(b)
}

// searchIndex returns the index of the tools filter sees in v.
func (g *Gateway) searchIndex(v *view, sel *selection) *searchIndex {
	// The key names the profile as resolved too (a config change parses
	// it anew): a profile edited while a view stands does not share the
	// old profile's index.
	key, filter := fmt.Sprintf("%s|%p", filterKey(sel.req), sel.profile), sel
	if si, ok := v.search.Load(key); ok {
		return si.(*searchIndex)
	}
	si := &searchIndex{}
	for name, e := range v.tools {
		if filter.SeesTool(e.server, e.name, name) {
			si.names = append(si.names, name)
		}
	}
	slices.Sort(si.names)
	si.tools = make([]*mcp.Tool, len(si.names))
	for i, n := range si.names {
		si.tools[i] = v.tools[n].tool
	}
	g.search.mu.Lock()
	if prev := g.search.last[key]; prev != nil && slices.Equal(prev.names, si.names) && slices.Equal(prev.tools, si.tools) {
		si = prev
	} else {
		docs := make([]toolsearch.Doc, len(si.names))
		for i, n := range si.names {
			docs[i] = toolsearch.DocOf(v.tools[n].server, n, si.tools[i])
		}
		si.ix = toolsearch.New(docs)
		if g.search.last == nil || len(g.search.last) >= maxSearchKeys {
			g.search.last = map[string]*searchIndex{}
		}
		g.search.last[key] = si
	}
	g.search.mu.Unlock()
	got, _ := v.search.LoadOrStore(key, si)
	return got.(*searchIndex)
}
