//go:build linux

package main

import (
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type reloadResult struct {
	reload, start           []time.Duration
	react, spawn, handshake []time.Duration // the phases of each reload
	untouchedRestarts       int             // other servers whose pid changed
	untouched               int             // other servers × rounds
}

// measureReload runs c.rounds reloads of server s01 on the running host h,
// each followed by a direct start of the same server (the baseline).
func measureReload(ctx context.Context, c config, bins binaries, h *hostProc, progress func(string, ...any)) (reloadResult, error) {
	var res reloadResult
	names := serverNames(c.servers)
	target := names[0]
	for round := 1; round <= c.rounds; round++ {
		h.drain()
		before := map[string]int{}
		for _, n := range names {
			before[n] = h.state[n].PID
		}
		old := before[target]
		if old == 0 {
			return res, fmt.Errorf("round %d: %s is not running (%q)", round, target, h.state[target].State)
		}
		servers := map[string]entry{}
		for _, n := range names {
			servers[n] = entry{Command: bins.server}
		}
		// A different value every round, so that every write is a change.
		servers[target] = entry{Command: bins.server, Args: []string{"-round", fmt.Sprint(round)}}
		t0, err := writeConfig(h.cfgPath, servers)
		if err != nil {
			return res, err
		}
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		var reacted, spawned, running time.Time
		for running.IsZero() {
			ev, err := h.next(rctx)
			if err != nil {
				cancel()
				return res, fmt.Errorf("round %d: waiting for %s to run again: %w", round, target, err)
			}
			if reacted.IsZero() {
				reacted = ev.at // the host applied the new file (it publishes every entry's state)
			}
			if ev.st.Name != target || ev.st.PID == 0 || ev.st.PID == old {
				continue
			}
			if spawned.IsZero() {
				spawned = ev.at
			}
			if ev.st.State == "running" {
				running = ev.at
			}
		}
		cancel()
		res.reload = append(res.reload, running.Sub(t0))
		res.react = append(res.react, reacted.Sub(t0))
		res.spawn = append(res.spawn, spawned.Sub(reacted))
		res.handshake = append(res.handshake, running.Sub(spawned))

		// Let the tools refresh and the old server's events pass, then
		// look at the others' pids.
		time.Sleep(300 * time.Millisecond)
		h.drain()
		for _, n := range names[1:] {
			res.untouched++
			if h.state[n].PID != before[n] {
				res.untouchedRestarts++
			}
		}

		d, err := directStart(ctx, bins.server, []string{"-round", fmt.Sprint(round)})
		if err != nil {
			return res, fmt.Errorf("direct start %d: %w", round, err)
		}
		res.start = append(res.start, d)
		progress("round %d/%d: reload %v, direct start %v", round, c.rounds, res.reload[len(res.reload)-1].Round(time.Millisecond), d.Round(time.Millisecond))
	}
	return res, nil
}

// directStart is the baseline: spawn the server and do the MCP handshake
// with a go-sdk client over CommandTransport, with the host's client
// options (no capabilities, list-changed handlers set, so that a modern
// server's subscriptions/listen is part of both). It returns the time
// from before the spawn to the session being up; the close is not timed.
func directStart(ctx context.Context, bin string, args []string) (time.Duration, error) {
	noop := func(context.Context, *mcp.ToolListChangedRequest) {}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-direct", Version: "1.0.0"}, &mcp.ClientOptions{
		Capabilities:               &mcp.ClientCapabilities{},
		ToolListChangedHandler:     noop,
		PromptListChangedHandler:   func(context.Context, *mcp.PromptListChangedRequest) {},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {},
	})
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.Command(bin, args...)
	t0 := time.Now()
	cs, err := client.Connect(cctx, &mcp.CommandTransport{Command: cmd}, nil)
	d := time.Since(t0)
	if err != nil {
		return 0, err
	}
	_ = cs.Close() // closes stdin and waits for the exit
	return d, nil
}
