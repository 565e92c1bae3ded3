//go:build linux

package host

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/tokens"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// rawList is the result of a list method, as the gateway writes it to a
// bridge with filter (the exact bytes an app receives), after a
// 2025-11-25 handshake.
func rawList(t *testing.T, th *testHost, filter gateway.Filter, method string) json.RawMessage {
	t.Helper()
	nc, err := api.DialGateway(t.Context(), th.gwSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br, _, err := gateway.Handshake(nc, gateway.Hello{Filter: filter, Client: "cost test"})
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(wait))
	send := func(m map[string]any) {
		m["jsonrpc"] = "2.0"
		b, _ := json.Marshal(m)
		if _, err := nc.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id int) json.RawMessage {
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				t.Fatalf("reading the gateway's answer %d: %v", id, err)
			}
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &m) == nil && m.ID != nil && *m.ID == id {
				if m.Error != nil {
					t.Fatalf("answer %d: %s", id, m.Error)
				}
				return m.Result
			}
		}
	}
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": "2025-11-25",
		"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "cost-test", "version": "1"}}})
	answer(1)
	send(map[string]any{"method": "notifications/initialized"})
	send(map[string]any{"id": 2, "method": method})
	return answer(2)
}

// envelope is the bytes of an empty tools/list and prompts/list result
// as the gateway writes them.
func envelope(t *testing.T) int {
	return len(`{"ttlMs":0,"cacheScope":"public","tools":[]}`) + len(`{"ttlMs":0,"cacheScope":"public","prompts":[]}`)
}

// settledCost asks tools.cost until no server is pending (the host counts
// in the background).
func settledCost(t *testing.T, th *testHost, p hostapi.CostParams) hostapi.Cost {
	t.Helper()
	var c hostapi.Cost
	testkit.Eventually(t, "tools.cost counted every server", func() (bool, string) {
		c = hostapi.Cost{}
		th.must(t, hostapi.MethodToolsCost.Name, p, &c)
		return len(c.Pending) == 0, fmt.Sprintf("still counting %v", c.Pending)
	})
	return c
}

// TestToolsCost: with server-everything and a go-sdk server, tools.cost's
// figures for server-everything are app/tokens' count of the tools/list
// and prompts/list that the gateway writes to a bridge with --servers
// ev, byte for byte; every tool it lists is priced under its exposed
// name; the whole gateway's total is the sum of both; a connected app is
// priced with its own selection; a bad selection is refused.
func TestToolsCost(t *testing.T) {
	everything := testkit.NpmServer(t, "mcp-server-everything")
	th := runHost(t, nil, map[string]any{
		"ev": map[string]any{"command": everything, "stdinGrace": 2000, "termGrace": 1000},
		"t1": tmplEntry("t1"),
	})
	th.waitRunning(t, "ev")
	th.waitRunning(t, "t1")

	only := gateway.Filter{Servers: []string{"ev"}}
	toolsRaw := rawList(t, th, only, "tools/list")
	promptsRaw := rawList(t, th, only, "prompts/list")
	wantTools, wantPrompts := tokens.TextCost(string(toolsRaw)), tokens.TextCost(string(promptsRaw))
	var listed struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(toolsRaw, &listed); err != nil || len(listed.Tools) < 5 {
		t.Fatalf("server-everything's tools through the gateway: %v %s", err, toolsRaw)
	}

	c := settledCost(t, th, hostapi.CostParams{Servers: []string{"ev"}})
	if c.Method != hostapi.CostMethod || len(c.Servers) != 1 || c.Servers[0].Server != "ev" {
		t.Fatalf("tools.cost --servers ev: %+v", c)
	}
	ev := c.Servers[0]
	t.Logf("server-everything: %d tools, %d B, %d tokens; %d prompts, %d B, %d tokens", ev.Tools, ev.ToolsSize.Bytes, ev.ToolsSize.Tokens, ev.Prompts, ev.PromptsSize.Bytes, ev.PromptsSize.Tokens)
	if ev.ToolsSize != hostapi.Size(wantTools) || c.Tools != hostapi.Size(wantTools) {
		t.Errorf("the gateway writes a tools/list of %+v to the bridge; tools.cost says %+v (server) and %+v (list)", wantTools, ev.ToolsSize, c.Tools)
	}
	if c.Prompts != hostapi.Size(wantPrompts) || ev.Prompts == 0 {
		t.Errorf("the gateway writes a prompts/list of %+v; tools.cost says %+v (%d prompts)", wantPrompts, c.Prompts, ev.Prompts)
	}
	if c.Total != c.Tools.Add(c.Prompts) || ev.Tokens != ev.ToolsSize.Tokens+ev.PromptsSize.Tokens {
		t.Errorf("totals do not add up: %+v", c)
	}
	var names []string
	sum := 0
	for _, p := range ev.PerTool {
		names = append(names, p.Name)
		sum += p.Tokens
	}
	var want []string
	for _, tl := range listed.Tools {
		want = append(want, tl.Name)
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("priced tools %v, the gateway lists %v", names, want)
	}
	if sum < ev.ToolsSize.Tokens*9/10 || sum > ev.ToolsSize.Tokens*11/10 {
		t.Errorf("the tools' own costs sum to %d tokens, the list is %d", sum, ev.ToolsSize.Tokens)
	}

	// A connected app, priced with its own selection; everything in all.
	_ = gwClient(t, th, gateway.Filter{Servers: []string{"t1"}}, "", nil)
	all := settledCost(t, th, hostapi.CostParams{})
	t1 := settledCost(t, th, hostapi.CostParams{Servers: []string{"t1"}})
	// In bytes, exactly both lists less one envelope, plus one comma in
	// each list.
	if len(all.Servers) != 2 || all.Total.Tokens <= c.Total.Tokens || all.Total.Bytes != c.Total.Bytes+t1.Total.Bytes-envelope(t)+2 {
		t.Errorf("every server: %+v; ev alone %+v, t1 alone %+v", all.Total, c.Total, t1.Total)
	}
	var app *hostapi.AppCost
	for i, a := range all.Apps {
		if a.App == "host-gateway-test" {
			app = &all.Apps[i]
		}
	}
	if app == nil || !slices.Equal(app.Servers, []string{"t1"}) || app.Total != t1.Total || app.Pending {
		t.Errorf("the connected app: %+v (apps %+v), want t1's total %+v", app, all.Apps, t1.Total)
	}

	for _, p := range []hostapi.CostParams{{Tools: []string{"["}}, {ToolMode: "some"}} {
		if err := th.call(t, hostapi.MethodToolsCost.Name, p, nil); apiCode(err) != api.CodeBadRequest {
			t.Errorf("tools.cost %+v: %v, want a bad request", p, err)
		}
	}
}
