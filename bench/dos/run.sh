#!/usr/bin/env bash
# Runs the denial-of-service measurements (package main in this directory):
# an HTTP connection flood, a 60 MB config.json, a config.json linked to
# /dev/zero. Prints figures, never a verdict.
#
#   bench/dos/run.sh                        # this tree
#   BASE=5d0dfa0 bench/dos/run.sh           # and, first, the tree of commit BASE (git archive)
#   CONNS=5000 HOLD=20s bench/dos/run.sh
#   ONLY=flood bench/dos/run.sh             # flood, bigconfig or devzero
#
# It takes about a minute per tree.
set -euo pipefail
cd "$(dirname "$0")/../.."

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
args=(-conns "${CONNS:-2000}" -hold "${HOLD:-15s}" -only "${ONLY:-}")

if [[ -n ${BASE:-} ]]; then
	mkdir -p "$out/base"
	git archive "$BASE" | tar -x -C "$out/base"
	mkdir -p "$out/base/bench/dos"
	cp bench/dos/main.go "$out/base/bench/dos/"
	(cd "$out/base" && go build -o "$out/dos-base" ./bench/dos)
	"$out/dos-base" -label "$BASE" "${args[@]}"
fi
go build -o "$out/dos" ./bench/dos
"$out/dos" -label "this tree ($(git rev-parse --short HEAD))" "${args[@]}"
