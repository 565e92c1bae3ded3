//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
)

// The sleep benchmark (issue 15 §4): the memory of a host and its servers
// with every server always on, against the same servers on demand and
// asleep; and the first call to a sleeping server (which waits for its
// start) beside the next call, to it running, through the gateway's
// socket as a bridge reaches it.

type sleepResult struct {
	alwaysHostKB, alwaysServersKB int64
	sleepHostKB, sleepServersKB   int64
	asleep                        int
	first, next                   map[string][]time.Duration // by kind: "go-sdk", "server-everything"
}

// sleepServers are half go-sdk servers and half server-everything.
func sleepServers(c config, bins binaries, nodeBin string, start string, idle time.Duration) (map[string]entry, map[string]string) {
	servers, kind := map[string]entry{}, map[string]string{}
	for i := 0; i < c.servers; i++ {
		e := entry{Command: bins.server}
		name, k := fmt.Sprintf("go%02d", i+1), "go-sdk"
		if i%2 == 1 && c.node != "" {
			e = entry{Command: nodeBin, Args: []string{c.node, "stdio"}}
			name, k = fmt.Sprintf("node%02d", i+1), "server-everything"
		}
		e.Start = start
		if idle > 0 {
			e.IdleStop = int(idle / time.Millisecond)
		}
		servers[name], kind[name] = e, k
	}
	return servers, kind
}

// treeRSS is the host's VmRSS and its children's, summed, in KiB (the
// median of samples taken a second apart).
func treeRSS(pid, samples int) (host, servers int64) {
	var hs, ss []int64
	for i := 0; i < samples; i++ {
		if i > 0 {
			time.Sleep(time.Second)
		}
		kb, _, _ := rssKB(pid)
		hs, ss = append(hs, kb), append(ss, childrenRSS(pid))
	}
	return int64(medianInt(hs)), int64(medianInt(ss))
}

// waitStates waits until every named server is in state.
func (h *hostProc) waitStates(ctx context.Context, names []string, state string) error {
	for {
		h.drain()
		missing := ""
		for _, n := range names {
			if string(h.state[n].State) != state {
				missing = n
				break
			}
		}
		if missing == "" {
			return nil
		}
		if _, err := h.next(ctx); err != nil {
			st := h.state[missing]
			return fmt.Errorf("server %s is %q, not %s (%s): %w", missing, st.State, state, st.LastError, err)
		}
	}
}

func measureSleep(ctx context.Context, c config, bins binaries, rounds int, progress func(string, ...any)) (sleepResult, error) {
	res := sleepResult{first: map[string][]time.Duration{}, next: map[string][]time.Duration{}}
	nodeBin, _ := exec.LookPath("node")
	servers, kind := sleepServers(c, bins, nodeBin, "", 0)
	var names []string
	for n := range servers {
		names = append(names, n)
	}
	slices.Sort(names)

	progress("sleep: %d servers always on", len(names))
	h, err := startHost(ctx, bins.switchboard, filepath.Join(c.work, "sleep-always"), servers)
	if err != nil {
		return res, err
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	err = h.waitRunning(wctx, names)
	cancel()
	if err != nil {
		h.stop()
		return res, err
	}
	time.Sleep(c.settle)
	res.alwaysHostKB, res.alwaysServersKB = treeRSS(h.pid(), 5)
	h.stop()

	const idle = 3 * time.Second
	progress("sleep: the same servers on demand (idleStop %v)", idle)
	servers, _ = sleepServers(c, bins, nodeBin, "on-demand", idle)
	dir := filepath.Join(c.work, "sleep-ondemand")
	h, err = startHost(ctx, bins.switchboard, dir, servers)
	if err != nil {
		return res, err
	}
	defer h.stop()
	// The first host start learns each server's lists, then they sleep.
	wctx, cancel = context.WithTimeout(ctx, 3*time.Minute)
	err = h.waitStates(wctx, names, "sleeping")
	cancel()
	if err != nil {
		return res, err
	}
	time.Sleep(c.settle)
	res.sleepHostKB, res.sleepServersKB = treeRSS(h.pid(), 5)
	res.asleep = len(names)

	// First calls through the gateway's socket, as a bridge's app.
	sock := api.GatewayPathFor(filepath.Join(dir, "run", "host.sock"))
	conn, err := net.Dial("unix", sock)
	if err != nil {
		return res, fmt.Errorf("the gateway's socket %s: %w", sock, err)
	}
	cl := mcp.NewClient(&mcp.Implementation{Name: "bench-sleep", Version: "1"}, nil)
	sess, err := cl.Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		return res, err
	}
	defer sess.Close()
	call := func(name string) (time.Duration, error) {
		args := map[string]any{"text": "x"}
		if kind[name] == "server-everything" {
			args = map[string]any{"message": "x"}
		}
		t0 := time.Now()
		r, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: name + "__echo", Arguments: args})
		d := time.Since(t0)
		if err == nil && r.IsError {
			err = fmt.Errorf("tool error: %v", r.Content)
		}
		return d, err
	}
	for r := 0; r < rounds; r++ {
		for _, n := range names {
			d1, err := call(n)
			if err != nil {
				return res, fmt.Errorf("first call to sleeping %s: %w", n, err)
			}
			d2, err := call(n)
			if err != nil {
				return res, fmt.Errorf("second call to %s: %w", n, err)
			}
			res.first[kind[n]] = append(res.first[kind[n]], d1)
			res.next[kind[n]] = append(res.next[kind[n]], d2)
		}
		if r+1 < rounds {
			progress("sleep: round %d of %d done; waiting for the servers to sleep again", r+1, rounds)
			wctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
			err = h.waitStates(wctx, names, "sleeping")
			cancel()
			if err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

func printSleep(out io.Writer, c config, r sleepResult) {
	fmt.Fprintf(out, "\nservers that sleep: %d servers (%s), RSS in MB (median of 5 samples)\n", c.servers, sleepMix(c))
	fmt.Fprintf(out, "  %-34s %8s %8s %8s\n", "", "host", "servers", "total")
	fmt.Fprintf(out, "  %-34s %8s %8s %8s\n", "always on, all running", mb(float64(r.alwaysHostKB)), mb(float64(r.alwaysServersKB)), mb(float64(r.alwaysHostKB+r.alwaysServersKB)))
	fmt.Fprintf(out, "  %-34s %8s %8s %8s   (%s of always on)\n", fmt.Sprintf("on demand, %d asleep", r.asleep), mb(float64(r.sleepHostKB)), mb(float64(r.sleepServersKB)), mb(float64(r.sleepHostKB+r.sleepServersKB)),
		ratio(float64(r.sleepHostKB+r.sleepServersKB), float64(r.alwaysHostKB+r.alwaysServersKB)))
	fmt.Fprintf(out, "first call through the gateway (ms): to a sleeping server (it starts), then the next call to it running\n")
	for _, k := range []string{"go-sdk", "server-everything"} {
		if len(r.first[k]) == 0 {
			continue
		}
		f, n := statsOf(r.first[k]), statsOf(r.next[k])
		fmt.Fprintf(out, "  %-18s first: median %s (lo %s, hi %s)   next: median %s   first/next %.0fx   (n=%d)\n", k,
			ms(f.median), ms(f.lo), ms(f.hi), ms(n.median), float64(f.median)/float64(n.median), len(r.first[k]))
	}
}

func sleepMix(c config) string {
	if c.node == "" {
		return "go-sdk only"
	}
	return strings.Join([]string{fmt.Sprint((c.servers + 1) / 2), "go-sdk,", fmt.Sprint(c.servers / 2), "server-everything (node)"}, " ")
}
