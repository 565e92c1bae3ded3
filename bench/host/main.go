//go:build linux

// Command host measures the Switchboard host (`switchboard serve`) against
// same-run baselines and prints a table of figures, never a verdict:
//
//   - idle: the host's RSS (VmRSS, sampled every second: median and max)
//     and CPU (utime+stime, and on-CPU time and context switches of its
//     threads) over a window after its servers are all running and have
//     settled; the baseline is a bare supervisor (baresup) that holds the
//     same servers on pipes and does nothing, measured at the same time.
//   - reload: the time from an atomic rename of config.json that changes
//     one server's args to that server running again with a new pid, as
//     seen in the host's server.state events through app/api's client;
//     the baseline is the same server's own start (spawn and MCP handshake
//     with a go-sdk client over mcp.CommandTransport), in alternating rounds.
//
// What an idle Go process does anyway, and so what the idle figures of
// both sides hold: the runtime's sysmon thread, with every P idle, sleeps
// 60 s at a time (forcegcperiod/2) and on waking re-reads the cgroup CPU
// limit (sched_getaffinity, a pread of cpu.cfs_quota_us or cpu.max: Go's
// container-aware GOMAXPROCS), about 2 context switches a minute; and a
// process that has had a GC is forced to have another every 2 minutes.
// A 60 s window that starts a few seconds after the host does holds no
// forced GC; a longer one does (a few ms of CPU). Anything beyond those
// in the "threads that ran" line is the host's own.
//
// run.sh builds and runs it; `go run ./bench/host -h` lists the knobs.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/bench/internal/setup"
)

// config is what one run measures.
type config struct {
	repo    string        // the module's root, where `go build .` makes switchboard
	work    string        // a scratch directory (binaries, hosts' homes)
	servers int           // servers per host
	settle  time.Duration // after every server runs, before the idle window
	window  time.Duration // the idle window
	rounds  int           // reload rounds (each with a direct start)
	node    string        // server-everything's entry point for an extra idle run; "" skips it
	verbose io.Writer     // progress; nil: none
}

func main() {
	var c config
	flag.StringVar(&c.repo, "repo", "", "the module root (default: from `go env GOMOD`)")
	flag.StringVar(&c.work, "work", "", "scratch directory (default: a new temporary one, removed after)")
	flag.IntVar(&c.servers, "servers", 10, "servers per host")
	flag.DurationVar(&c.settle, "settle", 5*time.Second, "settling time before the idle window")
	flag.DurationVar(&c.window, "window", 60*time.Second, "idle window")
	flag.IntVar(&c.rounds, "rounds", 15, "reload rounds, and direct starts")
	flag.StringVar(&c.node, "node", "", "path of server-everything's dist/index.js: also run the idle benchmark with node servers")
	quiet := flag.Bool("q", false, "no progress on stderr")
	flag.Parse()
	if !*quiet {
		c.verbose = os.Stderr
	}
	if err := run(context.Background(), c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench/host:", err)
		os.Exit(1)
	}
}

// binaries are the programs a run builds.
type binaries struct {
	switchboard, server, bare string
}

func run(ctx context.Context, c config, out io.Writer) error {
	if c.repo == "" {
		root, err := setup.ModuleRoot()
		if err != nil {
			return err
		}
		c.repo = root
	}
	cleanup, err := setup.WorkDir("host", &c.work)
	if err != nil {
		return err
	}
	defer cleanup()
	progress := setup.Progress(c.verbose, "host")

	progress("building switchboard, mcpserver and baresup")
	bins := binaries{
		switchboard: filepath.Join(c.work, "bin", "switchboard"),
		server:      filepath.Join(c.work, "bin", "mcpserver"),
		bare:        filepath.Join(c.work, "bin", "baresup"),
	}
	for _, b := range [][2]string{{bins.switchboard, "."}, {bins.server, "./bench/host/mcpserver"}, {bins.bare, "./bench/host/baresup"}} {
		cmd := exec.Command("go", "build", "-o", b[0], b[1])
		cmd.Dir = c.repo
		if o, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", b[1], err, o)
		}
	}

	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "host benchmarks: %d cores, %s, load before: %s\n", runtime.NumCPU(), goVersion(),
		strings.Join(strings.Fields(string(load))[:3], " "))

	// Idle with go-sdk servers; the host stays up for the reload rounds.
	progress("idle: %d go-sdk servers, settle %v, window %v", c.servers, c.settle, c.window)
	idle, h, err := measureIdle(ctx, c, bins, "go", bins.server, nil, true)
	if err != nil {
		return err
	}
	printIdle(out, c, idle, fmt.Sprintf("%d go-sdk servers (one tool each, a Go binary)", c.servers))

	progress("reload: %d rounds", c.rounds)
	rel, err := measureReload(ctx, c, bins, h, progress)
	h.stop()
	if err != nil {
		return err
	}
	printReload(out, c, rel)

	if c.node != "" {
		nodeBin, err := exec.LookPath("node")
		if err != nil {
			return fmt.Errorf("-node given but no node in PATH: %v", err)
		}
		progress("idle: %d server-everything (node) servers, settle %v, window %v", c.servers, c.settle, c.window)
		idleN, hn, err := measureIdle(ctx, c, bins, "node", nodeBin, []string{c.node, "stdio"}, false)
		if err != nil {
			return err
		}
		_ = hn
		printIdle(out, c, idleN, fmt.Sprintf("%d server-everything servers (node)", c.servers))
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "load after: %s\n", strings.Join(strings.Fields(string(load))[:3], " "))
	return nil
}

func goVersion() string {
	b, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return runtime.Version()
	}
	return strings.TrimSpace(string(b))
}
