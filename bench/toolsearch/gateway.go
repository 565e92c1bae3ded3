package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/tokens"
	"github.com/switchboard-mcp/switchboard/app/toolsearch"
	"github.com/switchboard-mcp/switchboard/app/toolsearch/corpus"
)

// staticBackend serves the corpus' tool lists as running servers; calls
// are not made here.
type staticBackend struct{ servers []gateway.Server }

func (b staticBackend) Servers() []gateway.Server { return slices.Clone(b.servers) }

var errNoCalls = errors.New("the benchmark's servers take no calls")

func (staticBackend) CallTool(context.Context, string, *mcp.CallToolParams, func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	return nil, errNoCalls
}
func (staticBackend) GetPrompt(context.Context, string, *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	return nil, errNoCalls
}
func (staticBackend) ReadResource(context.Context, string, *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	return nil, errNoCalls
}
func (staticBackend) Complete(context.Context, string, *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	return nil, errNoCalls
}

// backendOf is the first n tools of the corpus (in its servers' order) as
// running servers.
func backendOf(tools []corpus.Tool, n int) staticBackend {
	var b staticBackend
	for _, t := range tools[:n] {
		if len(b.servers) == 0 || b.servers[len(b.servers)-1].Name != t.Server {
			b.servers = append(b.servers, gateway.Server{Name: t.Server, State: "running", Cached: true, StartTimeout: time.Second})
		}
		s := &b.servers[len(b.servers)-1]
		s.Tools = append(s.Tools, t.Tool)
	}
	return b
}

// wireClient is an app on the gateway's socket, speaking JSON-RPC lines:
// what it reads is what an app receives.
type wireClient struct {
	nc net.Conn
	br *bufio.Reader
	id int
}

func dialWire(sock string, filter gateway.Filter) (*wireClient, error) {
	nc, err := net.Dial("unix", sock)
	if err != nil {
		return nil, err
	}
	br, _, err := gateway.Handshake(nc, gateway.Hello{Filter: filter, Client: "bench"})
	if err != nil {
		nc.Close()
		return nil, err
	}
	c := &wireClient{nc: nc, br: br}
	if _, err := c.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"}}); err != nil {
		return nil, err
	}
	if err := c.write(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *wireClient) write(m map[string]any) error {
	b, _ := json.Marshal(m)
	_, err := c.nc.Write(append(b, '\n'))
	return err
}

// request sends a request and returns its response's result, as written.
func (c *wireClient) request(method string, params any) (json.RawMessage, error) {
	c.id++
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for {
		line, err := c.br.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var r struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &r) != nil || r.ID == nil || *r.ID != c.id {
			continue // a notification
		}
		if r.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, r.Error)
		}
		return r.Result, nil
	}
}

// gatewayFigures serves the first 50, 100 and 200 tools of the corpus
// (and all 208) through a real gateway on a Unix socket and reads, as an
// app on the socket does, the tools/list result in the normal mode and in
// search mode; at 208 tools it also times the index build (the tools as
// the gateway exposes them, toolsearch.DocOf, New) and find_tools through
// the socket for every request of the corpus.
func gatewayFigures(tools []corpus.Tool, reqs []corpus.Request, kreqs []corpus.KeywordRequest) error {
	dir, err := os.MkdirTemp("", "sbts")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Printf("\nthrough the gateway (a socket client, the tools/list result as written; %s):\n", tokens.Encoding)
	fmt.Printf("%6s %10s %10s %12s %12s %9s\n", "tools", "all tok", "all KB", "search tok", "search B", "saved")
	for _, n := range []int{50, 100, 200, len(tools)} {
		if n > len(tools) {
			continue
		}
		sock := filepath.Join(dir, fmt.Sprintf("gw%d.sock", n))
		g, stop, err := serveGateway(backendOf(tools, n), sock)
		if err != nil {
			return err
		}
		var cost [2]tokens.Cost
		for i, mode := range []string{"all", "search"} {
			c, err := dialWire(sock, gateway.Filter{ToolMode: mode})
			if err != nil {
				stop()
				return err
			}
			res, err := c.request("tools/list", map[string]any{})
			c.nc.Close()
			if err != nil {
				stop()
				return err
			}
			cost[i] = tokens.Cost{Bytes: len(res), Tokens: tokens.Count(string(res))}
		}
		fmt.Printf("%6d %10d %10.1f %12d %12d %8.1f%%\n", n, cost[0].Tokens, float64(cost[0].Bytes)/1024, cost[1].Tokens, cost[1].Bytes,
			100*(1-float64(cost[1].Tokens)/float64(cost[0].Tokens)))
		if n == len(tools) {
			if err := searchTimes(g, sock, tools, reqs); err != nil {
				stop()
				return err
			}
			if err := keywordWire(sock, kreqs); err != nil {
				stop()
				return err
			}
		}
		stop()
	}
	return nil
}

func serveGateway(b staticBackend, sock string) (*gateway.Gateway, func(), error) {
	g := gateway.New(gateway.Options{Backend: b, Version: "bench"})
	g.Refresh()
	l, err := net.Listen("unix", sock)
	if err != nil {
		g.Close()
		return nil, nil, err
	}
	go func() { _ = g.Serve(l) }()
	return g, g.Close, nil
}

// searchTimes prints the index build time over the tools and find_tools'
// latency through the socket (median, 90th percentile, max over the
// requests).
func searchTimes(_ *gateway.Gateway, sock string, tools []corpus.Tool, reqs []corpus.Request) error {
	exposed := make([]*mcp.Tool, len(tools))
	for i, t := range tools {
		exposed[i] = t.ExposedTool()
	}
	var builds []time.Duration
	for range 20 {
		t0 := time.Now()
		docs := make([]toolsearch.Doc, len(tools))
		for i, t := range tools {
			docs[i] = toolsearch.DocOf(t.Server, t.Exposed, exposed[i])
		}
		toolsearch.New(docs)
		builds = append(builds, time.Since(t0))
	}
	c, err := dialWire(sock, gateway.Filter{ToolMode: "search"})
	if err != nil {
		return err
	}
	defer c.nc.Close()
	if _, err := c.request("tools/call", map[string]any{"name": "find_tools", "arguments": map[string]any{"query": "warm up"}}); err != nil {
		return err
	}
	var finds []time.Duration
	for _, q := range reqs {
		t0 := time.Now()
		res, err := c.request("tools/call", map[string]any{"name": "find_tools", "arguments": map[string]any{"query": q.Text}})
		if err != nil {
			return err
		}
		finds = append(finds, time.Since(t0))
		if !strings.Contains(string(res), "content") {
			return fmt.Errorf("find_tools %q answered %s", q.Text, res)
		}
	}
	slices.Sort(builds)
	slices.Sort(finds)
	pc := func(ds []time.Duration, p int) time.Duration { return ds[(len(ds)-1)*p/100] }
	fmt.Printf("\nat %d tools: index build (DocOf + New) median %v, min %v (%d runs)\n", len(tools),
		pc(builds, 50).Round(10*time.Microsecond), builds[0].Round(10*time.Microsecond), len(builds))
	fmt.Printf("find_tools through the socket (limit %d, %d requests): median %v, p90 %v, max %v\n", toolsearch.DefaultLimit, len(finds),
		pc(finds, 50).Round(10*time.Microsecond), pc(finds, 90).Round(10*time.Microsecond), finds[len(finds)-1].Round(10*time.Microsecond))
	fmt.Printf("baseline, same run: tools/list in the normal mode at %d tools through the socket: ", len(tools))
	a, err := dialWire(sock, gateway.Filter{})
	if err != nil {
		return err
	}
	defer a.nc.Close()
	var lists []time.Duration
	for range 20 {
		t0 := time.Now()
		if _, err := a.request("tools/list", map[string]any{}); err != nil {
			return err
		}
		lists = append(lists, time.Since(t0))
	}
	slices.Sort(lists)
	fmt.Printf("median %v\n", pc(lists, 50).Round(10*time.Microsecond))
	return nil
}

// keywordWire prints, for the blind keyword set's requests, find_tools
// with intent and keywords through the socket as an app calls it: the
// tools/call result as written (its tokens, o200k_base) and the latency.
func keywordWire(sock string, kreqs []corpus.KeywordRequest) error {
	if len(kreqs) == 0 {
		return nil
	}
	c, err := dialWire(sock, gateway.Filter{ToolMode: "search"})
	if err != nil {
		return err
	}
	defer c.nc.Close()
	var toks, bytes []int
	var finds []time.Duration
	for _, r := range kreqs {
		t0 := time.Now()
		res, err := c.request("tools/call", map[string]any{"name": "find_tools", "arguments": map[string]any{"intent": r.Intent, "keywords": r.Keywords}})
		if err != nil {
			return err
		}
		finds = append(finds, time.Since(t0))
		if !strings.Contains(string(res), "content") {
			return fmt.Errorf("find_tools %q answered %s", r.Intent, res)
		}
		toks = append(toks, tokens.Count(string(res)))
		bytes = append(bytes, len(res))
	}
	slices.Sort(finds)
	pc := func(ds []time.Duration, p int) time.Duration { return ds[(len(ds)-1)*p/100] }
	fmt.Printf("find_tools with intent and keywords through the socket (%d requests of the keyword set): result tokens p50 %d p90 %d max %d, bytes p50 %d; median %v, p90 %v\n",
		len(kreqs), pct(toks, 50), pct(toks, 90), pct(toks, 100), pct(bytes, 50), pc(finds, 50).Round(10*time.Microsecond), pc(finds, 90).Round(10*time.Microsecond))
	return nil
}
