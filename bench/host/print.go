//go:build linux

package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/bench/internal/table"
)

func mb(kb float64) string { return fmt.Sprintf("%.1f", kb/1024) }

func ratio(a, b float64) string {
	if b == 0 {
		if a == 0 {
			return "- (both 0)"
		}
		return "- (baseline 0)"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

func printIdle(out io.Writer, c config, r idleResult, what string) {
	fmt.Fprintf(out, "\nidle: %s; settle %v, window %v, RSS sampled every 1 s (%d samples)\n", what, c.settle, c.window, r.host.samples)
	tw := table.New(out)
	fmt.Fprintln(tw, "\tswitchboard serve\tbare supervisor\tserve/bare\ttarget\t")
	h, b := r.host, r.bare
	// The target is the host's own memory (RssAnon): VmRSS adds the
	// pages of the binary that are mapped in, shared with every other
	// switchboard process and given back under memory pressure.
	fmt.Fprintf(tw, "RssAnon (own memory) median, MB\t%s\t%s\t%s\t< 30 MB\t\n", mb(h.anonMedKB), mb(b.anonMedKB), ratio(h.anonMedKB, b.anonMedKB))
	fmt.Fprintf(tw, "RssAnon max, MB\t%s\t%s\t%s\t\t\n", mb(float64(h.anonMaxKB)), mb(float64(b.anonMaxKB)), ratio(float64(h.anonMaxKB), float64(b.anonMaxKB)))
	fmt.Fprintf(tw, "VmRSS (own + mapped files) median, MB\t%s\t%s\t%s\t\t\n", mb(h.rssMedKB), mb(b.rssMedKB), ratio(h.rssMedKB, b.rssMedKB))
	fmt.Fprintf(tw, "VmRSS max, MB\t%s\t%s\t%s\t\t\n", mb(float64(h.rssMaxKB)), mb(float64(b.rssMaxKB)), ratio(float64(h.rssMaxKB), float64(b.rssMaxKB)))
	fmt.Fprintf(tw, "CPU utime+stime, clock ticks\t%d\t%d\t%s\t0\t\n", h.ticks, b.ticks, ratio(float64(h.ticks), float64(b.ticks)))
	fmt.Fprintf(tw, "CPU utime+stime, ms\t%d\t%d\t%s\t0\t\n", h.ticks*1000/userHZ, b.ticks*1000/userHZ, ratio(float64(h.ticks), float64(b.ticks)))
	fmt.Fprintf(tw, "CPU on-CPU time (schedstat), ms\t%.3f\t%.3f\t%s\t\t\n", float64(h.cpuNS)/1e6, float64(b.cpuNS)/1e6, ratio(float64(h.cpuNS), float64(b.cpuNS)))
	fmt.Fprintf(tw, "  the same, %% of one core\t%.4f\t%.4f\t\t\t\n", 100*float64(h.cpuNS)/float64(c.window), 100*float64(b.cpuNS)/float64(c.window))
	fmt.Fprintf(tw, "context switches (wake-ups)\t%d\t%d\t%s\t\t\n", h.switches, b.switches, ratio(float64(h.switches), float64(b.switches)))
	fmt.Fprintf(tw, "threads\t%d\t%d\t%s\t\t\n", h.threads, b.threads, ratio(float64(h.threads), float64(b.threads)))
	fmt.Fprintf(tw, "servers' RSS, summed, MB\t%s\t%s\t%s\t\t\n", mb(float64(h.childrenRSSKB)), mb(float64(b.childrenRSSKB)), ratio(float64(h.childrenRSSKB), float64(b.childrenRSSKB)))
	tw.Flush()
	fmt.Fprintf(out, "server.state events the harness got during the window: %d\n", r.events)
	fmt.Fprintf(out, "serve (pid %d) threads that ran in the window (tid:name xswitches): %s\n", h.pid, list(h.wokenThreads))
	fmt.Fprintf(out, "bare (pid %d) threads that ran in the window: %s\n", b.pid, list(b.wokenThreads))
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

func printReload(out io.Writer, c config, r reloadResult) {
	fmt.Fprintf(out, "\nreload: rename of config.json changing s01's args -> s01 running with a new pid (server.state event via app/api), %d rounds, each followed by a direct start\n", len(r.reload))
	rel, st := statsOf(r.reload), statsOf(r.start)
	tw := table.New(out)
	fmt.Fprintln(tw, "ms\tmedian\tp90\tmin\tmax\t")
	row := func(name string, s durStats) {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t\n", name, ms(s.median), ms(s.p90), ms(s.lo), ms(s.hi))
	}
	row("reload: write -> running again", rel)
	row("server's own start (CommandTransport)", st)
	row("  reload phase: write -> host publishes", statsOf(r.react))
	row("  reload phase: -> new pid", statsOf(r.spawn))
	row("  reload phase: new pid -> running", statsOf(r.handshake))
	tw.Flush()
	over := rel.median - st.median
	fmt.Fprintf(out, "host's overhead (reload median - start median): %s ms, of which the debounce is %d ms; target < 300 ms\n", ms(over), 100)
	fmt.Fprintf(out, "reload/start, medians: %s; p90s: %s\n", ratio(float64(rel.median), float64(st.median)), ratio(float64(rel.p90), float64(st.p90)))
	fmt.Fprintf(out, "untouched servers whose pid changed: %d of %d (server x round)\n", r.untouchedRestarts, r.untouched)
}
