//go:build linux

// Command sandbox measures what the sandbox of issue 16 costs a server,
// against the same server unconfined, in one run, and prints figures
// (never a verdict):
//
//   - start: from engine.Start to the first answer (initialize) of a tiny
//     static MCP server (bench/bridgestart/tinyserver), unconfined, and
//     under the strict preset through each shim given: the small
//     switchboard-sandbox and the tray app's switchboard binary (whose
//     package initialisation runs before its main dispatches the shim).
//     The modes alternate start by start; medians and 90th percentiles.
//     Two floors beside them, in the same rounds: the spawn of /bin/true
//     and of the first shim given run with no arguments (it prints its
//     usage and exits: the cost of starting that Go program at all).
//   - calls: tools/call echo round trips on one running server per mode
//     (unconfined, strict, and network: Landlock without the seccomp
//     filter), in alternating blocks of 200 calls: the median block's
//     rate, and the server's CPU time per call (the sum of its threads'
//     /proc/PID/task/*/schedstat), which scheduling noise disturbs less.
//
// Run it with bench/sandbox/run.sh (it builds the binaries):
//
//	bench/sandbox/run.sh            # N=300 starts per mode, CALLS=20000 per mode
//	N=1000 CALLS=50000 bench/sandbox/run.sh
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
)

type mode struct {
	name string
	shim string          // "" unconfined
	net  sandbox.NetMode // "" none
}

func main() {
	tiny := flag.String("tiny", "", "the tiny MCP server")
	shims := flag.String("shims", "", "shims to measure, name=path,... (switchboard-sandbox=...,switchboard=...)")
	n := flag.Int("n", 300, "starts per mode")
	calls := flag.Int("calls", 20000, "tools/call round trips per mode")
	work := flag.String("work", os.TempDir(), "a folder for the servers' private temp directories")
	flag.Parse()
	if *tiny == "" {
		fmt.Fprintln(os.Stderr, "usage: sandbox -tiny PATH -shims name=PATH,...  (bench/sandbox/run.sh runs it)")
		os.Exit(2)
	}
	sup := sandbox.Probe()
	fmt.Printf("sandbox support: %s\n", sup)
	modes := []mode{{name: "unconfined"}}
	for _, kv := range splitList(*shims) {
		name, path, _ := cut(kv, '=')
		modes = append(modes, mode{name: "strict via " + name, shim: path})
	}
	tmp := filepath.Join(*work, "sandbox-bench")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		fail(err)
	}

	// Start: alternate the modes, start by start.
	times := make([][]time.Duration, len(modes))
	var floorTrue, floorShim []time.Duration
	for i := 0; i < *n; i++ {
		floorTrue = append(floorTrue, spawn("/bin/true"))
		if len(modes) > 1 {
			floorShim = append(floorShim, spawn(modes[1].shim))
		}
		for k := range modes {
			m := modes[(i+k)%len(modes)]
			d, err := startOnce(*tiny, m, tmp)
			if err != nil {
				fail(fmt.Errorf("%s: %w", m.name, err))
			}
			idx := slices.IndexFunc(modes, func(x mode) bool { return x.name == m.name })
			times[idx] = append(times[idx], d)
		}
	}
	fmt.Printf("\nstart to the first answer (initialize), %d starts per mode, alternating\n", *n)
	fmt.Printf("%-34s %10s %10s %12s\n", "mode", "median", "p90", "vs unconfined")
	base := median(times[0])
	for k, m := range modes {
		fmt.Printf("%-34s %10s %10s %+11.2fms\n", m.name, fmtD(median(times[k])), fmtD(pct(times[k], 90)),
			float64(median(times[k])-base)/float64(time.Millisecond))
	}
	fmt.Printf("%-34s %10s %10s   (this machine's spawn floor)\n", "spawn /bin/true", fmtD(median(floorTrue)), fmtD(pct(floorTrue, 90)))
	if len(floorShim) > 0 {
		fmt.Printf("%-34s %10s %10s   (starting the first shim at all)\n", "spawn "+filepath.Base(modes[1].shim)+" (usage)", fmtD(median(floorShim)), fmtD(pct(floorShim, 90)))
	}

	// Calls: one server per mode, alternating blocks.
	const block = 200
	fmt.Printf("\ntools/call echo round trips, %d per mode in blocks of %d, alternating; the median block's rate\n", *calls, block)
	type running struct {
		p      *engine.Process
		in     *bufio.Writer
		out    *bufio.Reader
		blocks []time.Duration // the time of each block of calls
		cpu0   time.Duration   // the server's CPU time before the calls
	}
	callModes := modes[:min(2, len(modes))]
	if len(modes) > 1 {
		// The network preset: Landlock without the seccomp filter.
		callModes = append(callModes, mode{name: "network via " + modes[1].name[len("strict via "):], shim: modes[1].shim, net: sandbox.NetOutbound})
	}
	rs := make([]*running, 0, len(callModes))
	for _, m := range callModes {
		p, err := start(*tiny, m, tmp)
		if err != nil {
			fail(err)
		}
		r := &running{p: p, in: bufio.NewWriter(p.Stdin()), out: bufio.NewReader(p.Stdout())}
		if _, err := roundTrip(r.in, r.out, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`); err != nil {
			fail(err)
		}
		rs = append(rs, r)
	}
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`
	for _, r := range rs {
		r.cpu0 = cpuTime(r.p.Pid())
	}
	for done, i := 0, 0; done < *calls; done, i = done+block, i+1 {
		for k := range rs {
			r := rs[(i+k)%len(rs)]
			t0 := time.Now()
			for j := 0; j < block; j++ {
				if _, err := roundTrip(r.in, r.out, req); err != nil {
					fail(err)
				}
			}
			r.blocks = append(r.blocks, time.Since(t0))
		}
	}
	baseRate := block / median(rs[0].blocks).Seconds()
	var baseCPU time.Duration
	for k, r := range rs {
		cpu := (cpuTime(r.p.Pid()) - r.cpu0) / time.Duration(*calls)
		if k == 0 {
			baseCPU = cpu
		}
		fmt.Printf("%-34s %10s server CPU per call (schedstat) %8.3fx\n", callModes[k].name, cpu, float64(cpu)/float64(baseCPU))
	}
	for k, r := range rs {
		rate := block / median(r.blocks).Seconds()
		fmt.Printf("%-34s %10.0f calls/s %8.3fx\n", callModes[k].name, rate, rate/baseRate)
		<-r.p.Stop()
	}
}

// cpuTime is the time pid's threads have run on a CPU (the sum of
// /proc/PID/task/*/schedstat, ns; a Go server's threads live as long as it).
func cpuTime(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		var ns int64
		fmt.Sscan(string(b), &ns)
		sum += time.Duration(ns)
	}
	return sum
}

// spawn runs path with no arguments and times it to its exit.
func spawn(path string) time.Duration {
	t0 := time.Now()
	_ = exec.Command(path).Run() // the shim exits 2 with its usage
	return time.Since(t0)
}

func start(tiny string, m mode, tmp string) (*engine.Process, error) {
	spec := engine.Spec{Name: "tiny", Command: tiny, Stderr: engine.Stderr{Kind: engine.StderrDiscard},
		StdinGrace: time.Second, TermGrace: time.Second}
	if m.shim != "" {
		spec.Sandbox = sandbox.Policy{Enabled: true, Preset: "strict", Net: sandbox.NetNone, Required: true}
		if m.net != "" {
			spec.Sandbox.Preset, spec.Sandbox.Net = "network", m.net
		}
	}
	return engine.Start(context.Background(), spec, engine.StartOptions{Shim: m.shim, SandboxTemp: tmp})
}

// startOnce starts the server, times it to its first answer and stops it.
func startOnce(tiny string, m mode, tmp string) (time.Duration, error) {
	t0 := time.Now()
	p, err := start(tiny, m, tmp)
	if err != nil {
		return 0, err
	}
	defer func() { <-p.Stop() }()
	if _, err := roundTrip(bufio.NewWriter(p.Stdin()), bufio.NewReader(p.Stdout()),
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

func roundTrip(w *bufio.Writer, r *bufio.Reader, line string) (string, error) {
	if _, err := w.WriteString(line + "\n"); err != nil {
		return "", err
	}
	if err := w.Flush(); err != nil {
		return "", err
	}
	return r.ReadString('\n')
}

func median(d []time.Duration) time.Duration { return pct(d, 50) }

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func fmtD(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }

func splitList(s string) []string {
	var out []string
	for s != "" {
		var part string
		part, s, _ = cut(s, ',')
		if part != "" {
			out = append(out, part)
		}
	}
	return out
}

func cut(s string, sep byte) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == sep {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "sandbox bench:", err)
	os.Exit(1)
}
