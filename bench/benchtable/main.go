// Command benchtable reads the output of the bench package's benchmarks
// (several rounds of `go test -bench`) on stdin and prints, for each
// comparison, the median of ours and of the baseline, their spread, and the
// ratio. It prints figures, never a verdict.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/bench/internal/stats"
)

// row is one line of the table: a metric of ours against a metric of a
// baseline. A section row has only a label.
type row struct {
	label          string
	ours, oursUnit string // benchmark name without the -GOMAXPROCS suffix, metric
	base, baseUnit string
	higherBetter   bool
	target         string
}

// separate compares two sub-benchmarks on the same metric.
func separate(label, unit, ours, base string, higher bool, target string) row {
	return row{label, ours, unit, base, unit, higher, target}
}

// paired compares the two sides of a paired benchmark (ours-UNIT, base-UNIT).
func paired(label, unit, name string, higher bool, target string) row {
	return row{label, name, "ours-" + unit, name, "base-" + unit, higher, target}
}

func section(label string) row { return row{label: label} }

const (
	readTarget  = ">= 1.5x IOTransport"
	pingTarget  = ">= 1.5x IOTransport"
	toolsTarget = ">= 0.9x CommandTransport"
)

var rows = []row{
	section("A. paired: ours and the baseline in one benchmark, alternating blocks of a few operations"),
	paired("read path, 1 KiB tools/call results", "MB/s", "BenchmarkPairedReadPath/1KiB", true, readTarget),
	paired("read path, 1 MiB tools/call results", "MB/s", "BenchmarkPairedReadPath/1MiB", true, readTarget),
	paired("ping-pong with an echo child", "trips/s", "BenchmarkPairedPingPong", true, pingTarget),
	paired("tools/call, sequential", "calls/s", "BenchmarkPairedToolsCall/sequential", true, toolsTarget),
	paired("tools/call, 16 concurrent callers", "calls/s", "BenchmarkPairedToolsCall/concurrent16", true, toolsTarget),
	paired("  CPU: read path, 1 KiB", "cpu-us/op", "BenchmarkPairedReadPath/1KiB", false, ""),
	paired("  CPU: read path, 1 MiB", "cpu-us/op", "BenchmarkPairedReadPath/1MiB", false, ""),
	paired("  CPU: ping-pong", "cpu-us/op", "BenchmarkPairedPingPong", false, ""),
	paired("  CPU: tools/call, sequential", "cpu-us/op", "BenchmarkPairedToolsCall/sequential", false, ""),
	paired("  CPU: tools/call, 16 concurrent", "cpu-us/op", "BenchmarkPairedToolsCall/concurrent16", false, ""),

	section("B. separate sub-benchmarks, ours then the baseline in each round"),
	separate("read path, 1 KiB tools/call results", "MB/s", "BenchmarkReadPath/1KiB/ours", "BenchmarkReadPath/1KiB/iotransport", true, readTarget),
	separate("read path, 1 MiB tools/call results", "MB/s", "BenchmarkReadPath/1MiB/ours", "BenchmarkReadPath/1MiB/iotransport", true, readTarget),
	separate("ping-pong with an echo child", "trips/s", "BenchmarkPingPong/ours", "BenchmarkPingPong/iotransport", true, pingTarget),
	separate("tools/call, sequential", "calls/s", "BenchmarkToolsCall/sequential/ours", "BenchmarkToolsCall/sequential/commandtransport", true, toolsTarget),
	separate("tools/call, 16 concurrent callers", "calls/s", "BenchmarkToolsCall/concurrent16/ours", "BenchmarkToolsCall/concurrent16/commandtransport", true, toolsTarget),
	separate("  CPU: read path, 1 KiB", "cpu-us/op", "BenchmarkReadPath/1KiB/ours", "BenchmarkReadPath/1KiB/iotransport", false, ""),
	separate("  CPU: read path, 1 MiB", "cpu-us/op", "BenchmarkReadPath/1MiB/ours", "BenchmarkReadPath/1MiB/iotransport", false, ""),
	separate("  CPU: ping-pong", "cpu-us/op", "BenchmarkPingPong/ours", "BenchmarkPingPong/iotransport", false, ""),
	separate("  CPU: tools/call, sequential", "cpu-us/op", "BenchmarkToolsCall/sequential/ours", "BenchmarkToolsCall/sequential/commandtransport", false, ""),
	separate("  CPU: tools/call, 16 concurrent", "cpu-us/op", "BenchmarkToolsCall/concurrent16/ours", "BenchmarkToolsCall/concurrent16/commandtransport", false, ""),

	section("C. memory and stopping (baselines: IOTransport with MaxLineLength 8 MiB; CommandTransport, TerminateDuration 2 s)"),
	separate("100 MB line refused: heap peak growth", "heap-peak-MiB", "BenchmarkHugeLine/ours", "BenchmarkHugeLine/iotransport", false, ""),
	separate("  the same / max_message_bytes (8 MiB)", "heap-peak/max-msg", "BenchmarkHugeLine/ours", "BenchmarkHugeLine/iotransport", false, "< 2x"),
	separate("100 MB line refused: bytes allocated", "alloc-MiB/op", "BenchmarkHugeLine/ours", "BenchmarkHugeLine/iotransport", false, ""),
	separate("stop 50 ignoring EOF (TERM ends them)", "s/stop-all", "BenchmarkStop50/ignore-eof/ours", "BenchmarkStop50/ignore-eof/commandtransport", false, ""),
	separate("  the same / (stdin_grace+term_grace)", "stop/grace", "BenchmarkStop50/ignore-eof/ours", "BenchmarkStop50/ignore-eof/commandtransport", false, "~0.5: TERM ends them after stdin_grace"),
	separate("stop 50 ignoring EOF and SIGTERM", "s/stop-all", "BenchmarkStop50/ignore-term/ours", "BenchmarkStop50/ignore-term/commandtransport", false, ""),
	separate("  the same / (stdin_grace+term_grace)", "stop/grace", "BenchmarkStop50/ignore-term/ours", "BenchmarkStop50/ignore-term/commandtransport", false, "~1.0"),
}

var suffix = regexp.MustCompile(`-\d+$`)

func main() {
	flag.Parse()
	// values[name][unit] lists the samples in the order read.
	values := map[string]map[string][]float64{}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		name := suffix.ReplaceAllString(f[0], "")
		if values[name] == nil {
			values[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			values[name][f[i+1]] = append(values[name][f[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}

	w := os.Stdout
	line := func(a, b, c, d, e, f string) {
		fmt.Fprintf(w, "%-40s %-13s %-26s %-26s %-9s %s\n", a, b, c, d, e, f)
	}
	line("metric", "unit", "ours: median (min-max; n)", "baseline: median (...)", "ours/base", "target (from the issue)")
	pending := "" // a section's title, printed before its first row with data
	for _, r := range rows {
		if r.ours == "" {
			pending = r.label
			continue
		}
		o, b := values[r.ours][r.oursUnit], values[r.base][r.baseUnit]
		if len(o) == 0 && len(b) == 0 {
			continue
		}
		if pending != "" {
			fmt.Fprintln(w)
			fmt.Fprintln(w, pending)
			pending = ""
		}
		ratio := "-"
		if len(o) > 0 && len(b) > 0 && stats.Median(b) != 0 {
			ratio = fmt.Sprintf("%.2fx", stats.Median(o)/stats.Median(b))
		}
		note := "lower is better"
		if r.higherBetter {
			note = "higher is better"
		}
		if r.target != "" {
			note = r.target + "; " + note
		}
		line(r.label, strings.TrimPrefix(r.oursUnit, "ours-"), summary(o), summary(b), ratio, note)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "baselines: read path and ping-pong: the go-sdk's IOTransport; tools/call and stop: its CommandTransport.")
	fmt.Fprintln(w, "ours/base is the ratio of the medians: above 1 means ours is higher (better where higher is better).")
	fmt.Fprintln(w, "cpu-us/op is this process's CPU (user+system) per operation, children excluded.")
}

func summary(v []float64) string {
	if len(v) == 0 {
		return "-"
	}
	return fmt.Sprintf("%s (%s-%s; %d)", num(stats.Median(v)), num(slices.Min(v)), num(slices.Max(v)), len(v))
}

func num(x float64) string {
	switch {
	case x >= 1000:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case x >= 100:
		return strconv.FormatFloat(x, 'f', 1, 64)
	default:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
}
