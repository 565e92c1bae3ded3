//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/bench/internal/stats"
	"github.com/switchboard-mcp/switchboard/bench/internal/table"
)

// The trivial-server rows (issue 12, section 3): what the relay itself
// costs, with nothing else in the way. The server is
// bench/bridgestart/tinyserver (the standard library; it answers a call
// in microseconds) and the client writes request lines and reads answer
// lines itself (no go-sdk on either end), sequentially, one call at a
// time: directly to the tiny server, and through `switchboard bridge` to
// the host's instance of it (and to an earlier version's host, with
// -base), and through bench/gateway/floorrelay, a relay in C that only
// copies bytes: the floor of any relay process on this machine. The
// relay's CPU per call is its utime+stime (/proc/PID/stat) over the calls. Then the same with a 1 MiB result. Each round measures
// the small calls of every path, then their 1 MiB calls, starting with
// the next path each round (use a multiple of the paths' count as
// rounds).

func tinyPath(sb string) string { return filepath.Join(filepath.Dir(sb), "tinyserver") }

// floorPath is bench/gateway/floorrelay, built with the C compiler beside
// the other binaries: a relay that only copies bytes (see its source), the
// floor of any relay on this machine.
func floorPath(sb string) string { return filepath.Join(filepath.Dir(sb), "floorrelay") }

// goFloorPath is bench/gateway/gofloor: the same in Go, io.Copy through
// the runtime's poller.
func goFloorPath(sb string) string { return filepath.Join(filepath.Dir(sb), "gofloor") }

func buildFloor(repo, sb string) error {
	gb := exec.Command("go", "build", "-o", goFloorPath(sb), "./bench/gateway/gofloor")
	gb.Dir = repo
	if o, err := gb.CombinedOutput(); err != nil {
		return fmt.Errorf("go build gofloor: %v\n%s", err, o)
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	cmd := exec.Command(cc, "-O2", "-o", floorPath(sb), "bench/gateway/floorrelay/floorrelay.c")
	cmd.Dir = repo
	if o, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s floorrelay.c: %v\n%s", cc, err, o)
	}
	return nil
}

// rawConn is a line client of an MCP stdio server (or of a bridge).
type rawConn struct {
	cmd *exec.Cmd
	w   io.WriteCloser
	r   *bufio.Reader
	id  int
	buf []byte
}

func rawStart(cmd *exec.Cmd) (*rawConn, error) {
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &rawConn{cmd: cmd, w: w, r: bufio.NewReaderSize(r, 4<<20)}
	if _, err := c.roundTrip(`"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench-raw","version":"1"}}`); err != nil {
		c.close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if _, err := io.WriteString(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// roundTrip sends a request (its members after the id) and returns the
// answer line.
func (c *rawConn) roundTrip(rest string) ([]byte, error) {
	c.id++
	c.buf = append(c.buf[:0], `{"jsonrpc":"2.0","id":`...)
	c.buf = strconv.AppendInt(c.buf, int64(c.id), 10)
	c.buf = append(c.buf, ',')
	c.buf = append(c.buf, rest...)
	c.buf = append(c.buf, "}\n"...)
	if _, err := c.w.Write(c.buf); err != nil {
		return nil, err
	}
	for {
		line, err := c.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull { // over 4 MiB: not in this benchmark
			var more []byte
			more, err = c.r.ReadBytes('\n')
			line = append(append([]byte(nil), line...), more...)
		}
		if err != nil {
			return nil, err
		}
		if bytes.Contains(line, []byte(`"id":`)) {
			if !bytes.Contains(line, []byte(`"result"`)) || bytes.Contains(line, []byte(`"isError":true`)) {
				return nil, fmt.Errorf("not a result: %.300s", line)
			}
			return line, nil
		}
	}
}

func (c *rawConn) close() {
	c.w.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// rawPath is one way the raw client reaches the tiny server.
type rawPath struct {
	name   string
	h      *host  // nil: direct, or through the floor relay
	floor  string // through this relay: bench/gateway/floorrelay or gofloor
	c      *rawConn
	tool   string
	rates  []float64 // calls/s per round, small result
	big    []float64 // calls/s per round, 1 MiB result
	cpu    time.Duration
	bigCPU time.Duration
	calls  int
	bigN   int
	// context switches (voluntary and not, every thread) and read and
	// write system calls of the host and of the tiny server, over the
	// small calls
	hostCS, srvCS, hostSC int64
	srvCPU                time.Duration
}

func runRaw(ctx context.Context, c config, sb, server string, out io.Writer, progress func(string, ...any)) error {
	lean, err := startHost(ctx, c, sb, server, "raw-lean", c.hostEnv)
	if err != nil {
		return err
	}
	defer lean.stop()
	if err := buildFloor(c.repo, sb); err != nil {
		return err
	}
	paths := []*rawPath{
		{name: "direct (tinyserver)", tool: "echo"},
		{name: "bridge+gateway", h: lean, tool: "tiny__echo"},
		{name: "floor relay (C, copies bytes)", floor: floorPath(sb), tool: "echo"},
		{name: "floor relay (Go, io.Copy)", floor: goFloorPath(sb), tool: "echo"},
	}
	if c.activity {
		nolog, err := startHost(ctx, c, sb, server, "raw"+noLogSuffix, c.hostEnv)
		if err != nil {
			return err
		}
		defer nolog.stop()
		paths = append(paths[:2], append([]*rawPath{{name: noLogPath, h: nolog, tool: "tiny__echo"}}, paths[2:]...)...)
	}
	if c.base != "" {
		progress("building the base version's switchboard from %s", c.base)
		bsb := filepath.Join(c.work, "bin-base", "switchboard")
		cmd := exec.Command("go", "build", "-o", bsb, ".")
		cmd.Dir = c.base
		if o, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build (base): %v\n%s", err, o)
		}
		if err := os.Link(tinyPath(sb), tinyPath(bsb)); err != nil {
			return err
		}
		base, err := startHost(ctx, c, bsb, server, "raw-base", nil)
		if err != nil {
			return err
		}
		defer base.stop()
		paths = append(paths, &rawPath{name: "bridge+gateway (base)", h: base, tool: "tiny__echo"})
	}
	for _, p := range paths {
		cmd := exec.Command(tinyPath(sb))
		if p.h != nil {
			cmd = p.h.bridge()
		} else if p.floor != "" {
			cmd = exec.Command(p.floor, tinyPath(sb))
		}
		if p.c, err = rawStart(cmd); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		defer p.c.close()
	}
	small := func(p *rawPath) string {
		return `"method":"tools/call","params":{"name":"` + p.tool + `","arguments":{"text":"hello, gateway"}}`
	}
	big := func(p *rawPath) string {
		return `"method":"tools/call","params":{"name":"` + p.tool + `","arguments":{"size":1048576}}`
	}
	// relayPid is the process between the client and the server: the
	// host, or the floor relay (0: direct).
	relayPid := func(p *rawPath) int {
		switch {
		case p.h != nil:
			return p.h.cmd.Process.Pid
		case p.floor != "":
			return p.c.cmd.Process.Pid
		}
		return 0
	}
	srvPid := func(p *rawPath) int {
		if pid := relayPid(p); pid != 0 {
			return childOf(pid, "tinyserver")
		}
		return p.c.cmd.Process.Pid
	}
	measure := func(p *rawPath, req string, n int, counts bool) (float64, time.Duration, error) {
		for i := 0; i < n/10; i++ { // warm-up
			if _, err := p.c.roundTrip(req); err != nil {
				return 0, 0, err
			}
		}
		var cpu0 time.Duration
		var hcs0, scs0, hsc0 int64
		if rp := relayPid(p); rp != 0 {
			cpu0 = cpuTime(rp)
			hcs0, hsc0 = ctxSwitches(rp), rwSyscalls(rp)
		}
		scs0 = ctxSwitches(srvPid(p))
		scpu0 := cpuTime(srvPid(p))
		t0 := time.Now()
		for i := 0; i < n; i++ {
			if _, err := p.c.roundTrip(req); err != nil {
				return 0, 0, err
			}
		}
		el := time.Since(t0)
		var cpu time.Duration
		if rp := relayPid(p); rp != 0 {
			cpu = cpuTime(rp) - cpu0
			if counts {
				p.hostCS += ctxSwitches(rp) - hcs0
				p.hostSC += rwSyscalls(rp) - hsc0
			}
		}
		if counts {
			p.srvCS += ctxSwitches(srvPid(p)) - scs0
			p.srvCPU += cpuTime(srvPid(p)) - scpu0
		}
		return float64(n) / el.Seconds(), cpu, nil
	}
	nBig := max(c.rawCalls/40, 10)
	if c.rawBig >= 0 {
		nBig = c.rawBig
	}
	for r := 0; r < c.rounds; r++ {
		progress("trivial server: round %d/%d", r+1, c.rounds)
		// Each round starts with the next path (a rotation), so that
		// every path takes every place in the order as often: a path
		// measured after another's 1 MiB calls shared the machine with
		// the collection and the return of their memory.
		order := append(append([]*rawPath(nil), paths[r%len(paths):]...), paths[:r%len(paths)]...)
		for _, p := range order {
			rate, cpu, err := measure(p, small(p), c.rawCalls, true)
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			p.rates, p.cpu, p.calls = append(p.rates, rate), p.cpu+cpu, p.calls+c.rawCalls
		}
		if nBig == 0 {
			continue
		}
		for _, p := range order {
			rate, cpu, err := measure(p, big(p), nBig, false)
			if err != nil {
				return fmt.Errorf("%s (1 MiB): %w", p.name, err)
			}
			p.big, p.bigCPU, p.bigN = append(p.big, rate), p.bigCPU+cpu, p.bigN+nBig
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "\ntrivial server (bench/bridgestart/tinyserver), a raw line client, sequential; %d cores, %s; %d rounds x %d calls (1 MiB: %d); load %s\n",
		runtime.NumCPU(), runtime.Version(), c.rounds, c.rawCalls, nBig, strings.Join(strings.Fields(string(load))[:3], " "))
	t := table.New(out)
	fmt.Fprintln(t, "path\tcalls/s\tvs direct\trelay CPU/call\t1 MiB calls/s\t1 MiB MB/s\t1 MiB vs direct\trelay CPU per 1 MiB call")
	d := paths[0]
	for _, p := range paths {
		rate, brate := stats.Median(p.rates), stats.Median(p.big)
		rel, brel, cpu, bcpu := "-", "-", "-", "-"
		if p != d {
			rel = fmt.Sprintf("%.2fx", rate/stats.Median(d.rates))
			cpu = fmt.Sprintf("%.1f us", float64(p.cpu)/float64(p.calls)/1e3)
			if p.bigN > 0 {
				brel = fmt.Sprintf("%.2fx", brate/stats.Median(d.big))
				bcpu = fmt.Sprintf("%.2f ms", float64(p.bigCPU)/float64(p.bigN)/1e6)
			}
		}
		fmt.Fprintf(t, "%s\t%.0f\t%s\t%s\t%.1f\t%.1f\t%s\t%s\n", p.name, rate, rel, cpu, brate, brate*1.048576, brel, bcpu)
	}
	t.Flush()
	fmt.Fprintf(out, "per small call: context switches (every thread, voluntary or not) of the relay (the host, or the floor relay) and of the tiny server, the relay's read and write system calls, the tiny server's CPU (it wakes once per call):\n")
	for _, p := range paths {
		h := "-"
		if relayPid(p) != 0 {
			h = fmt.Sprintf("relay %.2f switches, %.2f reads+writes", float64(p.hostCS)/float64(p.calls), float64(p.hostSC)/float64(p.calls))
		}
		fmt.Fprintf(out, "  %-24s %s; server %.2f switches, CPU %.1f us\n", p.name, h, float64(p.srvCS)/float64(p.calls), float64(p.srvCPU)/float64(p.calls)/1e3)
	}
	for _, p := range paths {
		if p.floor == "" {
			continue
		}
		for _, h := range paths {
			if h.h == nil || p.calls == 0 || h.calls == 0 {
				continue
			}
			fmt.Fprintf(out, "%s against %s, same rounds: calls/s %.2fx, relay CPU per call %.2fx\n", h.name, p.name,
				stats.Median(h.rates)/stats.Median(p.rates), (float64(h.cpu)/float64(h.calls))/(float64(p.cpu)/float64(p.calls)))
		}
	}
	fmt.Fprintf(out, "rounds' rates (calls/s), small / 1 MiB:\n")
	for _, p := range paths {
		fmt.Fprintf(out, "  %-24s %s / %s\n", p.name, rates(p.rates), rates(p.big))
	}
	return nil
}

// ctxSwitches is the context switches of every thread of pid so far
// (voluntary: it waited; nonvoluntary: it was preempted).
func ctxSwitches(pid int) int64 {
	var n int64
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				x, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += x
			}
		}
	}
	return n
}

// rwSyscalls is pid's read and write system calls so far (/proc/PID/io:
// syscr and syscw).
func rwSyscalls(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	var n int64
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ": "); ok && (k == "syscr" || k == "syscw") {
			x, _ := strconv.ParseInt(v, 10, 64)
			n += x
		}
	}
	return n
}
