//go:build linux

// Command gateway measures a tools/call through Switchboard's bridge and
// gateway against a direct stdio call to the same go-sdk server, in one
// run, and prints a table of figures (never a verdict):
//
//   - direct: a go-sdk client over mcp.CommandTransport that runs the
//     server (bench/host/mcpserver: one "echo" tool) itself;
//   - bridge+gateway: the same client running `switchboard bridge`, which
//     hands its stdin and stdout to `switchboard serve`'s gateway, which
//     forwards to its running instance of the same server; tools/call
//     takes the gateway's lean path (the default setup);
//   - bridge relay+gateway: the same with the bridge relaying the bytes
//     (SWITCHBOARD_BRIDGE_RELAY=1; what runs where descriptors cannot be
//     handed over, e.g. Windows);
//   - lean, host GOMAXPROCS=1 (-gomaxprocs1, on by default): the lean
//     path with the host's Go scheduler on one thread, for reference
//     (the bridge always runs on one).
//
// Each is measured sequentially (one call at a time) and with 16
// concurrent callers on one client session, in rounds that alternate the
// three, so that drift of the machine falls on all of them. Latencies are
// pooled over the rounds (p50, p99); the rate is the median of the rounds'
// rates. Both hosts run at once (each with its own runtime directory), so
// the rounds need no restarts; only the host under test gets calls.
//
// run.sh builds and runs it; `go run ./bench/gateway -h` lists the knobs.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/bench/internal/setup"
	"github.com/switchboard-mcp/switchboard/bench/internal/stats"
	"github.com/switchboard-mcp/switchboard/bench/internal/table"
	"golang.org/x/sys/unix"
)

type config struct {
	repo   string
	work   string
	calls  int           // calls per phase per round
	conc   int           // concurrent callers
	rounds int           // rounds
	warmup int           // calls before each phase
	settle time.Duration // after the hosts' servers run
	only   string
	gmp1   bool
	// activity adds a path through a host whose activity log is off
	// ("activity": false), beside the lean path's host (the log on, the
	// default), and the log's cost between the two.
	activity bool
	verbose  io.Writer

	base     string // an earlier version's source tree
	rawCalls int
	rawOnly  bool
	rawBig   int      // 1 MiB calls per round; < 0: rawCalls/40
	hostEnv  []string // extra environment of the trivial-server rows' host
}

func main() {
	var c config
	flag.StringVar(&c.repo, "repo", "", "the module root (default: from `go env GOMOD`)")
	flag.StringVar(&c.work, "work", "", "scratch directory (default: a new temporary one, removed after)")
	flag.IntVar(&c.calls, "calls", 2000, "calls per phase per round")
	flag.IntVar(&c.conc, "conc", 16, "concurrent callers of the concurrent phase")
	flag.IntVar(&c.rounds, "rounds", 5, "rounds (each measures every path)")
	flag.IntVar(&c.warmup, "warmup", 200, "calls before each phase")
	flag.DurationVar(&c.settle, "settle", 2*time.Second, "wait after the hosts are up")
	flag.StringVar(&c.only, "only", "", "measure only the path of this name (profiling)")
	flag.BoolVar(&c.gmp1, "gomaxprocs1", true, "also measure the lean path with the host at GOMAXPROCS=1")
	flag.BoolVar(&c.activity, "activity", true, "also measure the lean path through a host with the activity log off, and print the log's cost")
	flag.StringVar(&c.base, "base", "", "a source tree of an earlier version: its host is measured beside this one in the trivial-server rows")
	flag.IntVar(&c.rawCalls, "rawcalls", 20000, "calls per round of the trivial-server rows (the 1 MiB rows make a fortieth of them)")
	flag.IntVar(&c.rawBig, "rawbig", -1, "1 MiB calls per round of the trivial-server rows (-1: a fortieth of -rawcalls, at least 10; 0: none)")
	flag.BoolVar(&c.rawOnly, "rawonly", false, "measure only the trivial-server rows")
	hostEnv := flag.String("hostenv", "", "extra environment (space-separated NAME=VALUE) of the host of the trivial-server rows, e.g. GOMAXPROCS=1 or SWITCHBOARD_CPUPROFILE=/tmp/host.prof")
	quiet := flag.Bool("q", false, "no progress on stderr")
	flag.Parse()
	c.hostEnv = strings.Fields(*hostEnv)
	if !*quiet {
		c.verbose = os.Stderr
	}
	if err := run(context.Background(), c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench/gateway:", err)
		os.Exit(1)
	}
}

// path is one way to reach the server.
type path struct {
	name string
	h    *host // nil: direct
	cmd  func() *exec.Cmd
	cs   *mcp.ClientSession
	// pids whose CPU time is counted: the server (direct), or the bridge,
	// the host and its server
	procs []proc
	cpu   map[string]time.Duration // CPU time per process over the phases, by role
	calls int
	seq   []time.Duration
	con   []time.Duration
	seqR  []float64 // calls/s per round
	conR  []float64
}

func run(ctx context.Context, c config, out io.Writer) error {
	if c.repo == "" {
		root, err := setup.ModuleRoot()
		if err != nil {
			return err
		}
		c.repo = root
	}
	cleanup, err := setup.WorkDir("gateway", &c.work)
	if err != nil {
		return err
	}
	defer cleanup()
	progress := setup.Progress(c.verbose, "gateway")
	progress("building switchboard and mcpserver")
	sb := filepath.Join(c.work, "bin", "switchboard")
	server := filepath.Join(c.work, "bin", "mcpserver")
	for _, b := range [][2]string{{sb, "."}, {server, "./bench/host/mcpserver"}, {tinyPath(sb), "./bench/bridgestart/tinyserver"}} {
		cmd := exec.Command("go", "build", "-o", b[0], b[1])
		cmd.Dir = c.repo
		cmd.Env = append(os.Environ(), "CGO_ENABLED="+map[bool]string{true: "0", false: "1"}[b[0] == tinyPath(sb)])
		if o, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b[1], err, o)
		}
	}
	if c.rawOnly {
		return runRaw(ctx, c, sb, server, out, progress)
	}

	lean, err := startHost(ctx, c, sb, server, "lean", nil)
	if err != nil {
		return err
	}
	defer lean.stop()
	var nolog *host
	if c.activity {
		if nolog, err = startHost(ctx, c, sb, server, "lean"+noLogSuffix, nil); err != nil {
			return err
		}
		defer nolog.stop()
	}
	var one *host
	if c.gmp1 {
		if one, err = startHost(ctx, c, sb, server, "gmp1", []string{"GOMAXPROCS=1"}); err != nil {
			return err
		}
		defer one.stop()
	}
	time.Sleep(c.settle)

	paths := []*path{
		{name: "direct (stdio)", cmd: func() *exec.Cmd { return exec.Command(server) }},
		{name: "bridge+gateway", cmd: func() *exec.Cmd { return lean.bridge() }, h: lean},
		{name: "bridge relay+gateway", cmd: func() *exec.Cmd { return lean.bridge("SWITCHBOARD_BRIDGE_RELAY=1") }, h: lean},
	}
	if one != nil {
		paths = append(paths, &path{name: "bridge+gateway, host GOMAXPROCS=1", cmd: func() *exec.Cmd { return one.bridge() }, h: one})
	}
	if nolog != nil {
		paths = append(paths, &path{name: noLogPath, cmd: func() *exec.Cmd { return nolog.bridge() }, h: nolog})
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-gateway", Version: "1"}, nil)
	for i, p := range paths {
		cmd := p.cmd()
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			return fmt.Errorf("%s: connect: %w", p.name, err)
		}
		defer cs.Close()
		p.cs = cs
		p.cpu = map[string]time.Duration{}
		if i == 0 {
			p.procs = []proc{{"server", cmd.Process.Pid}}
		} else {
			p.procs = []proc{{"bridge", cmd.Process.Pid}, {"host", p.h.cmd.Process.Pid}, {"server", childOf(p.h.cmd.Process.Pid, filepath.Base(server))}}
		}
		tool := "echo"
		if p != paths[0] {
			tool = "bench__echo"
		}
		if _, err := call(ctx, cs, tool); err != nil {
			return fmt.Errorf("%s: first call: %w", p.name, err)
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "gateway benchmark: %d cores, %s, %d rounds x %d calls per phase, %d concurrent; load before: %s\n",
		runtime.NumCPU(), runtime.Version(), c.rounds, c.calls, c.conc, strings.Join(strings.Fields(string(load))[:3], " "))
	era := "?"
	if ir := paths[0].cs.InitializeResult(); ir != nil {
		era = ir.ProtocolVersion
	}
	fmt.Fprintf(out, "protocol (client to direct server): %s; gateway: %s\n", era, paths[1].cs.InitializeResult().ProtocolVersion)
	fmt.Fprintf(out, "p50/p99 pooled over the rounds; calls/s: median of the rounds; \"vs direct\" and \"p50 added\" against the direct row of the same mode\n")

	for r := 0; r < c.rounds; r++ {
		progress("round %d/%d", r+1, c.rounds)
		order := slices.DeleteFunc(slices.Clone(paths), func(p *path) bool { return c.only != "" && p.name != c.only })
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, p := range order {
			tool := "bench__echo"
			if p == paths[0] {
				tool = "echo"
			}
			before := cpuTimes(p.procs)
			slow := func(mode string) func(time.Time, time.Duration, string) {
				return func(t0 time.Time, d time.Duration, stuck string) {
					slowMu.Lock()
					slowCalls = append(slowCalls, fmt.Sprintf("%s  %-34s %-14s round %d: %v%s", t0.Format("15:04:05.000"), p.name, mode, r+1, d.Round(time.Millisecond), stuck))
					slowMu.Unlock()
				}
			}
			procs := append([]proc{{"bench client", os.Getpid()}}, p.procs...)
			lat, rate, err := measure(ctx, p.cs, tool, c.calls, 1, c.warmup, slow("sequential"), procs)
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			p.seq, p.seqR = append(p.seq, lat...), append(p.seqR, rate)
			lat, rate, err = measure(ctx, p.cs, tool, c.calls, c.conc, c.warmup, slow("concurrent"), procs)
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			p.con, p.conR = append(p.con, lat...), append(p.conR, rate)
			after := cpuTimes(p.procs)
			for role, t := range after {
				p.cpu[role] += t - before[role]
			}
			p.calls += 2 * (c.calls + c.warmup)
		}
	}

	t := table.New(out)
	fmt.Fprintln(t, "path\tmode\tp50\tp99\tmax\tcalls/s\tvs direct rate\tp50 added")
	d := paths[0]
	for _, p := range paths {
		for _, m := range []struct {
			mode  string
			lat   []time.Duration
			rates []float64
			base  []time.Duration
			baseR []float64
		}{
			{"sequential", p.seq, p.seqR, d.seq, d.seqR},
			{fmt.Sprintf("%d concurrent", c.conc), p.con, p.conR, d.con, d.conR},
		} {
			p50, p99 := pct(m.lat, 50), pct(m.lat, 99)
			rate, base := stats.Median(m.rates), stats.Median(m.baseR)
			rel, added := "-", "-"
			if p != d {
				rel = fmt.Sprintf("%.2fx", rate/base)
				added = fmt.Sprintf("%+.3f ms", float64(p50-pct(m.base, 50))/1e6)
			}
			fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%.0f\t%s\t%s\n", p.name, m.mode, ms(p50), ms(p99), ms(pct(m.lat, 100)), rate, rel, added)
		}
	}
	t.Flush()
	if nolog != nil && c.only == "" {
		activityCost(out, paths[1], paths[len(paths)-1], c.conc)
	}
	fmt.Fprintf(out, "CPU per call (us, both phases, warm-up included; the client is this process, not counted):\n")
	for _, p := range paths {
		var parts []string
		var total time.Duration
		for _, pr := range p.procs {
			d := p.cpu[pr.role]
			total += d
			parts = append(parts, fmt.Sprintf("%s %.0f", pr.role, float64(d)/float64(p.calls)/1e3))
		}
		fmt.Fprintf(out, "  %-34s %s; total %.0f\n", p.name, strings.Join(parts, ", "), float64(total)/float64(p.calls)/1e3)
	}
	fmt.Fprintf(out, "rounds' rates (calls/s), sequential / concurrent:\n")
	for _, p := range paths {
		fmt.Fprintf(out, "  %-34s %s / %s\n", p.name, rates(p.seqR), rates(p.conR))
	}
	slowMu.Lock()
	if len(slowCalls) == 0 {
		fmt.Fprintf(out, "calls over %v: none\n", slowCall)
	} else {
		fmt.Fprintf(out, "calls over %v (start, path, mode, round: took), to match against the hosts' logs (KEEP=DIR keeps them):\n", slowCall)
		for _, l := range slowCalls {
			fmt.Fprintf(out, "  %s\n", l)
		}
	}
	slowMu.Unlock()
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "load after: %s\n", strings.Join(strings.Fields(string(load))[:3], " "))
	lean.stop()
	if one != nil {
		one.stop()
	}
	if nolog != nil {
		nolog.stop()
	}
	if c.only != "" {
		return nil // -only measures that path alone
	}
	return runRaw(ctx, c, sb, server, out, progress)
}

// stuckAfter is when a pending call's pipes are looked at.
const stuckAfter = 5 * time.Second

// pipeBacklog lists, for each process, the pipes it has open that hold
// unread bytes (FIONREAD through /proc/PID/fd: the same pipe, opened
// again), so that a stalled call shows whose input waits unread.
func pipeBacklog(procs []proc) string {
	var parts []string
	for _, p := range procs {
		dir := fmt.Sprintf("/proc/%d/fd", p.pid)
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			link, err := os.Readlink(filepath.Join(dir, e.Name()))
			if err != nil || !strings.HasPrefix(link, "pipe:") {
				continue
			}
			fd, err := unix.Open(filepath.Join(dir, e.Name()), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			n, err := unix.IoctlGetInt(fd, unix.TIOCINQ) // FIONREAD
			unix.Close(fd)
			if err == nil && n > 0 {
				parts = append(parts, fmt.Sprintf("%s (pid %d) fd %s %s: %d bytes unread", p.role, p.pid, e.Name(), link, n))
			}
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "no pipe holds unread bytes")
	}
	return strings.Join(parts, "; ") + "; " + procState(procs)
}

// procState gives, for each process, its I/O counters (bytes and calls of
// read and write, from /proc/PID/io) and each thread's state, kernel wait
// channel and system call number: taken while a call stalls and again
// when it ends, the counters say which process read the request and which
// had not yet written the answer, and the threads whether it waits in the
// kernel or is runnable (issue 11, item 19).
func procState(procs []proc) string {
	var parts []string
	for _, p := range procs {
		io, _ := os.ReadFile(fmt.Sprintf("/proc/%d/io", p.pid))
		var counters []string
		for _, l := range strings.Split(string(io), "\n") {
			k, v, ok := strings.Cut(l, ": ")
			if ok && (k == "rchar" || k == "wchar" || k == "syscr" || k == "syscw") {
				counters = append(counters, k+"="+v)
			}
		}
		var threads []string
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p.pid))
		for _, t := range tasks {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", p.pid, t.Name()))
			state := "?"
			if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) {
				state = string(stat[i+2 : i+3])
			}
			wchan, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/wchan", p.pid, t.Name()))
			sc, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/syscall", p.pid, t.Name()))
			nr, _, _ := strings.Cut(strings.TrimSpace(string(sc)), " ")
			threads = append(threads, fmt.Sprintf("%s:%s/%s/%s", t.Name(), state, wchan, nr))
		}
		parts = append(parts, fmt.Sprintf("%s (pid %d) io %s threads [%s]", p.role, p.pid, strings.Join(counters, " "), strings.Join(threads, " ")))
	}
	return strings.Join(parts, "; ")
}

// slowCall is the latency over which a call is listed with its time, path
// and round (issue 11, item 19: a call once took 60.001 s).
const slowCall = time.Second

var (
	slowMu    sync.Mutex
	slowCalls []string
)

func call(ctx context.Context, cs *mcp.ClientSession, tool string) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "hello, gateway"}})
	if err != nil {
		return nil, err
	}
	if res.IsError || len(res.Content) != 1 {
		return nil, fmt.Errorf("unexpected result: %+v", res)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "hello, gateway" {
		return nil, fmt.Errorf("unexpected content: %+v", res.Content[0])
	}
	return res, nil
}

// measure makes n calls with conc callers (after warmup calls) and returns
// each call's latency and the rate; slow hears of each call over slowCall.
func measure(ctx context.Context, cs *mcp.ClientSession, tool string, n, conc, warmup int, slow func(time.Time, time.Duration, string), procs []proc) ([]time.Duration, float64, error) {
	for i := 0; i < warmup; i++ {
		if _, err := call(ctx, cs, tool); err != nil {
			return nil, 0, err
		}
	}
	lat := make([]time.Duration, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	start := time.Now()
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t0 := time.Now()
				// A call still pending after stuckAfter: which pipe holds
				// the bytes that nobody reads says which process stalls.
				stuck := make(chan string, 1)
				watch := time.AfterFunc(stuckAfter, func() {
					snap := pipeBacklog(procs)
					if os.Getenv("STALLDUMP") != "" {
						for _, pr := range procs {
							if pr.role == "server" {
								_ = syscall.Kill(pr.pid, syscall.SIGQUIT)
								snap += fmt.Sprintf("; SIGQUIT sent to the server (pid %d): its goroutines are in server-stderr.log", pr.pid)
							}
						}
					}
					stuck <- "; after " + stuckAfter.String() + ": " + snap
				})
				_, err := call(ctx, cs, tool)
				lat[i] = time.Since(t0)
				if !watch.Stop() {
					slow(t0, lat[i], <-stuck+"; at the end: "+procState(procs))
				} else if lat[i] > slowCall {
					slow(t0, lat[i], "")
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	return lat, float64(n) / el.Seconds(), firstErr
}

// host is a running `switchboard serve` with the bench server.
type host struct {
	dir, sb string
	env     []string
	cmd     *exec.Cmd
}

func startHost(ctx context.Context, c config, sb, server, name string, extra []string) (*host, error) {
	dir := filepath.Join(c.work, name)
	h := &host{dir: dir, sb: sb}
	for _, d := range []string{"run", "cfg/switchboard", "home", "cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	cfg := fmt.Sprintf(`{"version": 1, "mcpServers": {"bench": {"command": %q}, "tiny": {"command": %q}}}`, server, tinyPath(sb))
	if strings.HasSuffix(name, noLogSuffix) {
		cfg = strings.Replace(cfg, `{"version": 1,`, `{"version": 1, "activity": false,`, 1)
	}
	if os.Getenv("STALLDUMP") != "" {
		cfg = fmt.Sprintf(`{"version": 1, "mcpServers": {"bench": {"command": %q, "stderr": %q}, "tiny": {"command": %q}}}`, server, "file:"+filepath.Join(dir, "server-stderr.log"), tinyPath(sb))
	}
	if err := os.WriteFile(filepath.Join(dir, "cfg/switchboard/config.json"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		if strings.HasPrefix(k, "SWITCHBOARD_") || strings.HasPrefix(k, "XDG_") || k == "HOME" {
			continue
		}
		h.env = append(h.env, e)
	}
	h.env = append(h.env, "SWITCHBOARD_RUNTIME_DIR="+filepath.Join(dir, "run"), "XDG_CONFIG_HOME="+filepath.Join(dir, "cfg"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "HOME="+filepath.Join(dir, "home"), "LANG=en_US.UTF-8")
	h.cmd = exec.Command(sb, "serve")
	h.cmd.Env = append(slices.Clone(h.env), extra...)
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	h.cmd.Stdout, h.cmd.Stderr = logf, logf
	if err := h.cmd.Start(); err != nil {
		return nil, err
	}
	// The host's API answers first (a bridge that came too early would
	// start a host of its own, on demand), then a bridge lists the tool.
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := api.Dial(ctx, filepath.Join(dir, "run", api.SocketName))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) || !alive(h.cmd.Process.Pid) {
			h.stop()
			b, _ := os.ReadFile(filepath.Join(dir, "serve.log"))
			return nil, fmt.Errorf("the %s host's API did not answer within 30 s: %v\n%s", name, err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-gateway-probe", Version: "1"}, nil)
	for {
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: h.bridge()}, nil)
		if err == nil {
			res, lerr := cs.ListTools(ctx, nil)
			cs.Close()
			if lerr == nil && slices.ContainsFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "bench__echo" }) {
				if !alive(h.cmd.Process.Pid) {
					return nil, fmt.Errorf("the %s host exited; another host answers", name)
				}
				return h, nil
			}
			err = errors.Join(lerr, errors.New("bench__echo not listed yet"))
		}
		if time.Now().After(deadline) {
			h.stop()
			b, _ := os.ReadFile(filepath.Join(dir, "serve.log"))
			return nil, fmt.Errorf("the %s host did not serve bench__echo within 30 s: %v\n%s", name, err, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (h *host) bridge(env ...string) *exec.Cmd {
	cmd := exec.Command(h.sb, "bridge")
	cmd.Env = append(slices.Clone(h.env), env...)
	return cmd
}

func (h *host) stop() {
	if h.cmd.Process != nil {
		_ = h.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = h.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = h.cmd.Process.Kill()
			<-done
		}
	}
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/1e6) }

func rates(v []float64) string {
	parts := make([]string, len(v))
	for i, r := range v {
		parts[i] = fmt.Sprintf("%.0f", r)
	}
	return strings.Join(parts, " ")
}

// proc is a process whose CPU time a path counts.
type proc struct {
	role string
	pid  int
}

// cpuTimes reads utime+stime of each process (and its threads).
func cpuTimes(ps []proc) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, p := range ps {
		out[p.role] = cpuTime(p.pid)
	}
	return out
}

func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	if len(f) < 13 {
		return 0
	}
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// childOf returns the pid of the child of pid whose command is name (the
// host's instance of a server: it runs two, mcpserver and tinyserver).
func childOf(pid int, name string) int {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(s[end+2:])
		if len(f) > 1 && f[1] == fmt.Sprint(pid) && s[open+1:end] == name {
			var c int
			fmt.Sscan(e.Name(), &c)
			return c
		}
	}
	return 0
}

// alive reports whether pid runs (and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// noLogSuffix names a host whose config turns the activity log off; the
// path through it is noLogPath.
const (
	noLogSuffix = "-nolog"
	noLogPath   = "bridge+gateway, activity log off"
)

// activityCost prints what the activity log adds to the lean path: on
// (the default host) against off (the same build, "activity": false),
// both measured in the same rounds.
func activityCost(out io.Writer, on, off *path, conc int) {
	fmt.Fprintf(out, "activity log (%q vs %q, same rounds):\n", on.name, off.name)
	for _, m := range []struct {
		mode      string
		onL, offL []time.Duration
		onR, offR []float64
	}{
		{"sequential", on.seq, off.seq, on.seqR, off.seqR},
		{fmt.Sprintf("%d concurrent", conc), on.con, off.con, on.conR, off.conR},
	} {
		added := float64(pct(m.onL, 50)-pct(m.offL, 50)) / 1e3
		fmt.Fprintf(out, "  %-14s p50 added %+.1f us; throughput %.3fx (%.0f vs %.0f calls/s)\n", m.mode, added,
			stats.Median(m.onR)/stats.Median(m.offR), stats.Median(m.onR), stats.Median(m.offR))
	}
}
