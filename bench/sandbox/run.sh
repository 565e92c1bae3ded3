#!/usr/bin/env bash
# Runs the sandbox benchmark (package main in this directory): the start
# time the exec shim adds (spawn to the first initialize answer of a tiny
# static MCP server, unconfined vs strict through switchboard-sandbox and
# through the tray app's switchboard binary) and the tools/call rate of a
# sandboxed server vs the same unconfined. It prints figures, never a
# verdict.
#
#   bench/sandbox/run.sh                    # N=300 starts per mode, CALLS=20000
#   N=1000 CALLS=50000 bench/sandbox/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "building switchboard, switchboard-sandbox, tinyserver" >&2
go build -o "$out/switchboard" .
CGO_ENABLED=0 go build -ldflags "-s -w" -o "$out/switchboard-sandbox-go" ./engine/sandbox/cmd/switchboard-sandbox
# As packaging/ builds it: the C shim (a constructor, before the Go
# runtime), linked statically.
CGO_ENABLED=1 go build -tags netgo,osusergo -ldflags "-s -w -linkmode external -extldflags -static" -o "$out/switchboard-sandbox" ./engine/sandbox/cmd/switchboard-sandbox
CGO_ENABLED=0 go build -ldflags "-s -w" -o "$out/tinyserver" ./bench/bridgestart/tinyserver
go build -o "$out/sandboxbench" ./bench/sandbox
"$out/sandboxbench" -tiny "$out/tinyserver" -work "$out" \
	-shims "switchboard-sandbox=$out/switchboard-sandbox,switchboard-sandbox-go=$out/switchboard-sandbox-go,switchboard=$out/switchboard" \
	-n "${N:-300}" -calls "${CALLS:-20000}"
