#!/usr/bin/env bash
# Runs the transport benchmarks of package bench in alternating rounds and
# prints a table of medians and ratios (ours / baseline). It prints figures,
# never pass or fail.
#
#   bench/run.sh                      # 5 rounds of every benchmark
#   ROUNDS=7 BENCH='ReadPath|PingPong' bench/run.sh
#   KEEP=/tmp/out bench/run.sh        # keep the raw output (raw.txt) there
#   BENCHTIME=2s bench/run.sh         # -benchtime of each run (default 1s)
#
# Why rounds and not one `go test -count 5`: -count repeats each
# sub-benchmark 5 times in a row (ours x5, then baseline x5), so a change of
# machine load in between would land on one side only. Each round here is
# one `-count 1` run of the compiled test binary, which runs ours then its
# baseline back to back: over the rounds they alternate. The Paired
# benchmarks go further: ours and the baseline alternate in blocks of a few
# operations inside one benchmark, so both see the same load (section A of
# the table); on a busy machine trust those, and the CPU per operation,
# over the separate runs (section B).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=${ROUNDS:-5}
pattern=${BENCH:-.}
benchtime=${BENCHTIME:-1s}
out=${KEEP:-$(mktemp -d)}
mkdir -p "$out"
: >"$out/raw.txt"

go test -c -o "$out/bench.test" ./bench/
go build -o "$out/benchtable" ./bench/benchtable

echo "machine: $(nproc) cores, $(go version | cut -d' ' -f3-), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$rounds"); do
	echo "round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
	if ! (cd bench && "$out/bench.test" -test.run '^$' -test.bench "$pattern" -test.count 1 -test.benchtime "$benchtime" -test.benchmem) >>"$out/raw.txt"; then
		echo "round $r: a benchmark failed; see $out/raw.txt" >&2
	fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); raw output: $out/raw.txt"
echo
"$out/benchtable" <"$out/raw.txt"
