#!/usr/bin/env bash
# Runs the HTTP peer benchmark (package main in this directory): 1 MiB
# tool-call results from bench/bridgestart/tinyserver, sequential, three
# ways in one run: directly over stdio (the baseline), through
# Switchboard's HTTP endpoint, and through mcp-hub's (npm mcp-hub@4.2.1).
# Prints figures, never a verdict.
#
#   bench/httppeer/run.sh                       # 5 rounds x 40 calls per path
#   ROUNDS=7 CALLS=60 bench/httppeer/run.sh
#   HUBDIR=/tmp/hub bench/httppeer/run.sh       # where mcp-hub is (installed if missing)
#   NOHUB=1 bench/httppeer/run.sh               # without mcp-hub (no node)
#   BASE=31d8185 bench/httppeer/run.sh          # and a row for the host of commit BASE
#       # (git archive; this directory's main.go is built in that tree)
#
# mcp-hub is installed, if missing, with `npm install --no-save` into
# HUBDIR (default: $TMPDIR/switchboard-bench-mcp-hub), never into the
# repository. The measurement runs under nice (the machine is shared).
set -euo pipefail
cd "$(dirname "$0")/../.."

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

hub=
if [[ -z ${NOHUB:-} ]]; then
	hubdir=${HUBDIR:-${TMPDIR:-/tmp}/switchboard-bench-mcp-hub}
	hub=$hubdir/node_modules/mcp-hub/dist/cli.js
	if [[ ! -f $hub ]] || ! grep -q '"version": "4.2.1"' "$hubdir/node_modules/mcp-hub/package.json"; then
		echo "installing mcp-hub@4.2.1 into $hubdir (npm install --no-save)" >&2
		mkdir -p "$hubdir"
		(cd "$hubdir" && npm install --no-save --no-audit --no-fund --loglevel=error mcp-hub@4.2.1 >&2)
	fi
	echo "mcp-hub: $hub (node $(node --version))" >&2
fi

CGO_ENABLED=0 go build -o "$out/tinyserver" ./bench/bridgestart/tinyserver
go build -o "$out/httppeer" ./bench/httppeer
base=
if [[ -n ${BASE:-} ]]; then
	mkdir -p "$out/base"
	git archive "$BASE" | tar -x -C "$out/base"
	mkdir -p "$out/base/bench/httppeer"
	cp bench/httppeer/main.go "$out/base/bench/httppeer/"
	(cd "$out/base" && go build -o "$out/httppeer-base" ./bench/httppeer)
	base=$out/httppeer-base
fi
nice "$out/httppeer" -tiny "$out/tinyserver" -hub "$hub" -base "$base" -work "$out/work" \
	-rounds "${ROUNDS:-5}" -calls "${CALLS:-40}"
