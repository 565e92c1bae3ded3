#!/usr/bin/env bash
# Runs the host benchmarks (package main in this directory) and prints a
# table of figures against same-run baselines: never pass or fail.
#
#   bench/host/run.sh                 # 10 servers, 5 s settle, 60 s window, 15 reloads,
#                                     # and the idle run with server-everything (node)
#   NODE=0 bench/host/run.sh          # without the node run
#   WINDOW=20s ROUNDS=10 SERVERS=10 SETTLE=5s bench/host/run.sh
#   KEEP=/tmp/out bench/host/run.sh   # keep the binaries and each host's
#                                     # directory (serve.log, cache/switchboard/host.log)
#
# What it measures, and against what, is in main.go's comment. It takes
# about 3 minutes with the node run, 1.5 without.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ -n ${KEEP:-} ]]; then
	out=$KEEP
	mkdir -p "$out"
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi

go build -o "$out/hostbench" ./bench/host

args=(-servers "${SERVERS:-10}" -settle "${SETTLE:-5s}" -window "${WINDOW:-60s}" -rounds "${ROUNDS:-15}")
everything=engine/stdio/testdata/npm/node_modules/.bin/mcp-server-everything
if [[ ${NODE:-1} != 0 ]]; then
	if [[ -e $everything ]] && command -v node >/dev/null; then
		args+=(-node "$(readlink -f "$everything")")
	else
		echo "no node or no $everything (scripts/deps.sh installs it): skipping the node run" >&2
	fi
fi
"$out/hostbench" -work "$out/work" "${args[@]}"
