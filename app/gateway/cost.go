package gateway

import (
	"slices"
	"sort"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/tokens"
	"github.com/switchboard-mcp/switchboard/app/toolsearch"
)

// Token costs (issue 15, docs/toolsearch.md): what an app pays in tokens
// for the tools and prompts the gateway lists to it. Counting is slow
// (the o200k encoder reads about 1 MB/s), so it never runs on a request:
// a goroutine of its own counts each server's exposed lists after a view
// is built, once per list change, and keeps the figures by the exposed
// copies' pointers, which stay the same while a list does not change
// (exposeTools keeps them across restarts and list_changed re-reads).
// [Gateway.Cost] only adds up what is counted.
//
// Method. A tool's own cost is its definition's JSON as the go-sdk
// writes it (tokens.JSONCost). A server's cost, when the selection sees
// all its tools, is the tools/list result of that server alone
// (tokens.ToolsCost of its exposed tools, in the go-sdk's order): the
// exact figure a bridge with --servers SERVER receives. A selection that
// sees part of a server is priced as the sum of its tools' own costs. A
// selection's total is the empty list's envelope plus each server's
// share: exact in bytes (the commas between items are added), within a
// few tokens of counting the whole list at once (BPE tokens do not split
// at the items' borders; the difference on the corpus is in
// docs/toolsearch.md). Prompts are counted the same way.

// costs is the gateway's cache of counts.
type costs struct {
	mu      sync.Mutex
	tools   map[*mcp.Tool]tokens.Cost   // by exposed copy
	prompts map[*mcp.Prompt]tokens.Cost // by exposed copy
	servers map[string]*serverCount     // by server name
	counted int                         // items counted since the gateway started (tests)
	// done is closed when a pass over the view counted everything it
	// lists (then replaced); see costsSettled.
	done chan struct{}
	last *view         // the view the last complete pass counted (tests)
	kick chan struct{} // capacity 1: count the current view
	stop chan struct{} // closed by Close
	quit chan struct{} // the counting goroutine ended
}

// serverCount is a server's counted lists: the exposed copies they were
// counted from (sorted by name) and the whole lists' costs.
type serverCount struct {
	tools        []*mcp.Tool
	prompts      []*mcp.Prompt
	toolsCost    tokens.Cost
	promptsCost  tokens.Cost
	toolsCounted bool
}

func newCosts() *costs {
	return &costs{
		tools: map[*mcp.Tool]tokens.Cost{}, prompts: map[*mcp.Prompt]tokens.Cost{}, servers: map[string]*serverCount{},
		done: make(chan struct{}), kick: make(chan struct{}, 1), stop: make(chan struct{}), quit: make(chan struct{}),
	}
}

// Envelopes of an empty tools/list and prompts/list result, counted once.
var (
	envOnce              sync.Once
	toolsEnv, promptsEnv tokens.Cost
)

func envelopes() (tokens.Cost, tokens.Cost) {
	envOnce.Do(func() {
		toolsEnv = toolsListCost(nil)
		promptsEnv = promptsListCost(nil)
	})
	return toolsEnv, promptsEnv
}

// The go-sdk's server writes a list result's cache fields with their
// defaults filled in ("cacheScope": "public"; tokens.ToolsCost marshals
// the zero value, ""): what the gateway writes is counted.
var wireCache = mcp.Cacheable{CacheScope: "public"}

// toolsListCost is the cost of the tools/list result the gateway writes
// with tools (exposed copies, which all marshal; tokens.ToolsCost, which
// leaves out one that does not, is the fallback).
func toolsListCost(tools []*mcp.Tool) tokens.Cost {
	if c, err := tokens.JSONCost(&mcp.ListToolsResult{Cacheable: wireCache, Tools: append([]*mcp.Tool{}, tools...)}); err == nil {
		return c
	}
	return tokens.ToolsCost(tools)
}

// promptsListCost is toolsListCost's twin for prompts/list.
func promptsListCost(prompts []*mcp.Prompt) tokens.Cost {
	if c, err := tokens.JSONCost(&mcp.ListPromptsResult{Cacheable: wireCache, Prompts: append([]*mcp.Prompt{}, prompts...)}); err == nil {
		return c
	}
	return tokens.PromptsCost(prompts)
}

// countLoop counts the gateway's current view whenever kicked, until
// stop.
func (g *Gateway) countLoop() {
	c := g.costs
	defer close(c.quit)
	for {
		select {
		case <-c.kick:
			g.countView(g.current())
		case <-c.stop:
			return
		}
	}
}

// kickCount asks the counting goroutine to count the current view; it
// never blocks.
func (c *costs) kickCount() {
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// lists are a view's listed tools and prompts, by server, each sorted by
// exposed name.
type lists struct {
	tools   map[string][]*mcp.Tool
	prompts map[string][]*mcp.Prompt
}

func listsOf(v *view) lists {
	l := lists{tools: map[string][]*mcp.Tool{}, prompts: map[string][]*mcp.Prompt{}}
	for _, e := range v.tools {
		l.tools[e.server] = append(l.tools[e.server], e.tool)
	}
	for _, e := range v.prompts {
		l.prompts[e.server] = append(l.prompts[e.server], e.prompt)
	}
	for _, ts := range l.tools {
		sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	}
	for _, ps := range l.prompts {
		sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	}
	return l
}

// countView counts what v lists that is not counted yet, server by
// server, and forgets the counts of what it no longer lists.
func (g *Gateway) countView(v *view) {
	c := g.costs
	l := listsOf(v)
	names := make([]string, 0, len(v.servers))
	for name := range v.servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		select {
		case <-c.stop:
			return
		default:
		}
		ts, ps := l.tools[name], l.prompts[name]
		c.mu.Lock()
		sc := c.servers[name]
		fresh := sc != nil && sc.toolsCounted && slices.Equal(sc.tools, ts) && slices.Equal(sc.prompts, ps)
		var need []*mcp.Tool
		var needP []*mcp.Prompt
		for _, t := range ts {
			if _, ok := c.tools[t]; !ok {
				need = append(need, t)
			}
		}
		for _, p := range ps {
			if _, ok := c.prompts[p]; !ok {
				needP = append(needP, p)
			}
		}
		c.mu.Unlock()
		if fresh && len(need) == 0 && len(needP) == 0 {
			continue
		}
		// Counted without the lock: a Cost meanwhile sees the server as
		// pending.
		tc := make(map[*mcp.Tool]tokens.Cost, len(need))
		for _, t := range need {
			if cost, err := tokens.JSONCost(t); err == nil {
				tc[t] = cost
			}
		}
		pc := make(map[*mcp.Prompt]tokens.Cost, len(needP))
		for _, p := range needP {
			if cost, err := tokens.JSONCost(p); err == nil {
				pc[p] = cost
			}
		}
		whole := &serverCount{tools: ts, prompts: ps, toolsCounted: true}
		if fresh {
			whole.toolsCost, whole.promptsCost = sc.toolsCost, sc.promptsCost
		} else {
			whole.toolsCost, whole.promptsCost = toolsListCost(ts), promptsListCost(ps)
		}
		c.mu.Lock()
		for t, cost := range tc {
			c.tools[t] = cost
		}
		for p, cost := range pc {
			c.prompts[p] = cost
		}
		c.servers[name] = whole
		c.counted += len(tc) + len(pc)
		c.mu.Unlock()
	}
	// Forget what the view no longer lists.
	keepT := make(map[*mcp.Tool]bool, len(v.tools))
	for _, e := range v.tools {
		keepT[e.tool] = true
	}
	keepP := make(map[*mcp.Prompt]bool, len(v.prompts))
	for _, e := range v.prompts {
		keepP[e.prompt] = true
	}
	c.mu.Lock()
	for t := range c.tools {
		if !keepT[t] {
			delete(c.tools, t)
		}
	}
	for p := range c.prompts {
		if !keepP[p] {
			delete(c.prompts, p)
		}
	}
	for name := range c.servers {
		if v.servers[name] == nil {
			delete(c.servers, name)
		}
	}
	if g.current() == v {
		c.last = v
		close(c.done)
		c.done = make(chan struct{})
	}
	c.mu.Unlock()
}

// costsSettled returns a channel closed after the next pass that counted
// the view current at its end (tests).
func (g *Gateway) costsSettled() <-chan struct{} {
	g.costs.mu.Lock()
	defer g.costs.mu.Unlock()
	return g.costs.done
}

// Cost is what an app whose bridge has filter f pays before its first
// message: the tools and prompts that a facade with f lists (listsTool,
// listsPrompt: the facade's own choice), by server and in all, with the
// connected apps' costs. It counts nothing: a server whose lists are not
// counted yet (or which is starting) is pending, and left out of the
// totals. In f's tool mode "search" the app's tools are the two search
// tools.
func (g *Gateway) Cost(f Filter) hostapi.Cost {
	v := g.current()
	sel, _ := g.effective(f)
	res := g.price(v, sel, true)
	for _, s := range g.sessions() {
		a := hostapi.AppCost{App: s.app, Conn: s.conn, Servers: s.sel.req.Servers, Tools: s.sel.req.Tools, Profile: s.sel.req.Profile, ToolMode: s.sel.ToolMode}
		p := g.price(v, s.sel, false)
		a.Total, a.Pending = p.Total, len(p.Pending) > 0
		a.ToolCount = toolCount(p, s.sel.Search())
		res.Apps = append(res.Apps, a)
	}
	return res
}

// toolCount is how many tools a tools/list priced as p lists: the
// counted servers' tools, or the two search tools in search mode.
func toolCount(p hostapi.Cost, search bool) int {
	if search {
		return 2
	}
	n := 0
	for _, sc := range p.Servers {
		n += sc.Tools
	}
	return n
}

// price adds up what v lists to a facade whose client sees f (in its
// tool mode).
func (g *Gateway) price(v *view, f *selection, perTool bool) hostapi.Cost {
	tEnv, pEnv := envelopes()
	res := hostapi.Cost{Method: hostapi.CostMethod, Servers: []hostapi.ServerCost{}}
	search := f.Search()
	var toolsBytes, toolsTokens, nTools int
	var promptsBytes, promptsTokens, nPrompts int
	all := listsOf(v)
	byServer := map[string][]*entry{}
	byServerP := map[string][]*entry{}
	for exposed, e := range v.tools {
		if listsTool(f, exposed, e) {
			byServer[e.server] = append(byServer[e.server], e)
		}
	}
	for _, e := range v.prompts {
		if listsPrompt(f, e) {
			byServerP[e.server] = append(byServerP[e.server], e)
		}
	}
	names := make([]string, 0, len(v.servers))
	for name := range v.servers {
		if f.SeesServer(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	c := g.costs
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, name := range names {
		st := v.servers[name]
		sc := hostapi.ServerCost{Server: name}
		ts, ps := byServer[name], byServerP[name]
		if search {
			ts = nil
		}
		sort.Slice(ts, func(i, j int) bool { return ts[i].tool.Name < ts[j].tool.Name })
		counted := c.servers[name]
		pending := st.pending || counted == nil ||
			!slices.Equal(counted.tools, all.tools[name]) || !slices.Equal(counted.prompts, all.prompts[name])
		var tb, tt, pb, pt int
		for _, e := range ts {
			cost, ok := c.tools[e.tool]
			if !ok {
				pending = true
				break
			}
			tb, tt = tb+cost.Bytes, tt+cost.Tokens
			if perTool {
				sc.PerTool = append(sc.PerTool, hostapi.ToolCost{Name: e.tool.Name, Bytes: cost.Bytes, Tokens: cost.Tokens})
			}
		}
		for _, e := range ps {
			cost, ok := c.prompts[e.prompt]
			if !ok {
				pending = true
				break
			}
			pb, pt = pb+cost.Bytes, pt+cost.Tokens
		}
		if pending {
			sc.Pending, sc.PerTool = true, nil
			res.Pending = append(res.Pending, name)
			res.Servers = append(res.Servers, sc)
			continue
		}
		sc.Tools, sc.Prompts = len(ts), len(ps)
		// The server's share of the whole list: its items and the commas
		// between them; the whole list of the server alone when the
		// selection sees all of it.
		tShare := tokens.Cost{Bytes: tb + max(len(ts)-1, 0), Tokens: tt}
		sc.ToolsSize = hostapi.Size{Bytes: tb, Tokens: tt}
		if len(ts) > 0 && len(ts) == len(counted.tools) {
			tShare = tokens.Cost{Bytes: counted.toolsCost.Bytes - tEnv.Bytes, Tokens: counted.toolsCost.Tokens - tEnv.Tokens}
			sc.ToolsSize = hostapi.Size(counted.toolsCost)
		}
		pShare := tokens.Cost{Bytes: pb + max(len(ps)-1, 0), Tokens: pt}
		sc.PromptsSize = hostapi.Size{Bytes: pb, Tokens: pt}
		if len(ps) > 0 && len(ps) == len(counted.prompts) {
			pShare = tokens.Cost{Bytes: counted.promptsCost.Bytes - pEnv.Bytes, Tokens: counted.promptsCost.Tokens - pEnv.Tokens}
			sc.PromptsSize = hostapi.Size(counted.promptsCost)
		}
		sc.Bytes = sc.ToolsSize.Bytes + sc.PromptsSize.Bytes
		sc.Tokens = sc.ToolsSize.Tokens + sc.PromptsSize.Tokens
		if len(ts) > 0 {
			if nTools > 0 {
				toolsBytes++ // the comma before this server's first tool
			}
			nTools += len(ts)
			toolsBytes, toolsTokens = toolsBytes+tShare.Bytes, toolsTokens+tShare.Tokens
		}
		if len(ps) > 0 {
			if nPrompts > 0 {
				promptsBytes++
			}
			nPrompts += len(ps)
			promptsBytes, promptsTokens = promptsBytes+pShare.Bytes, promptsTokens+pShare.Tokens
		}
		res.Servers = append(res.Servers, sc)
	}
	res.Tools = hostapi.Size{Bytes: tEnv.Bytes + toolsBytes, Tokens: tEnv.Tokens + toolsTokens}
	if search {
		res.Tools = hostapi.Size(searchCost())
	}
	res.Prompts = hostapi.Size{Bytes: pEnv.Bytes + promptsBytes, Tokens: pEnv.Tokens + promptsTokens}
	res.Total = res.Tools.Add(res.Prompts)
	return res
}

var (
	searchOnce sync.Once
	searchSize tokens.Cost
)

// searchCost is the tools/list of search mode: find_tools and call_tool.
func searchCost() tokens.Cost {
	searchOnce.Do(func() {
		searchSize = toolsListCost([]*mcp.Tool{toolsearch.CallTool(), toolsearch.FindTools()})
	})
	return searchSize
}

// session is a connected app, for Cost.
type session struct {
	app, conn string
	sel       *selection
}

// sessions are the gateway's connected apps: each socket client (a
// bridge), and each session of the HTTP endpoint, sorted by app name and
// connection.
func (g *Gateway) sessions() []session {
	g.mu.Lock()
	var out []session
	var shared []*facade
	for c := range g.conns {
		s := session{conn: c.f.conn, sel: c.f.cur()}
		if a := c.app.Load(); a != nil {
			s.app = *a
		} else if ss := c.ss.Load(); ss != nil {
			if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
				s.app = cleanClientName(p.ClientInfo.Name)
			}
		}
		out = append(out, s)
	}
	if g.http != nil && g.http.f != nil {
		shared = append(shared, g.http.f)
	}
	g.mu.Unlock()
	for _, f := range shared {
		for ss := range f.srv.Sessions() {
			s := session{conn: f.conn, sel: f.cur()}
			if s.conn == "" {
				s.conn = "http"
			}
			if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
				s.app = cleanClientName(p.ClientInfo.Name)
			}
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].app < out[j].app || out[i].app == out[j].app && out[i].conn < out[j].conn
	})
	return out
}
