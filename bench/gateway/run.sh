#!/usr/bin/env bash
# Runs the gateway benchmark (package main in this directory): a tools/call
# through `switchboard bridge` and the host's gateway against a direct
# stdio call to the same go-sdk server, sequential and with 16 concurrent
# callers, and prints a table of figures (never a verdict).
#
#   bench/gateway/run.sh                      # 5 rounds x 2000 calls per phase
#   ROUNDS=3 CALLS=1000 bench/gateway/run.sh
#   KEEP=/tmp/out bench/gateway/run.sh        # keep the binaries and the hosts' logs
#   RAWONLY=1 BASE=/tmp/base bench/gateway/run.sh
#       # only the trivial-server rows (a raw line client and tinyserver:
#       # direct vs bridge, host CPU per call, 1 MiB results; a host with the
#       # activity log off; two relays that only copy bytes, in C, built
#       # with cc, and in Go: the floor of any relay here), beside the
#       # host of an earlier tree (git archive COMMIT | tar -x -C /tmp/base)
#   HOSTENV="SWITCHBOARD_CPUPROFILE=/tmp/host.prof" RAWONLY=1 bench/gateway/run.sh
#       # extra environment of the trivial-server rows' host (this tree's):
#       # a CPU profile of the host (go tool pprof), GOMAXPROCS=1, ...
#
#   ACTIVITY=false bench/gateway/run.sh      # without the activity-log-off path
#       # (by default a host with "activity": false is measured beside the
#       # lean one, and the log's cost printed: p50 added, throughput ratio)
#
# It takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ -n ${KEEP:-} ]]; then
	out=$KEEP
	mkdir -p "$out"
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi

go build -o "$out/gatewaybench" ./bench/gateway
"$out/gatewaybench" -work "$out/work" -rounds "${ROUNDS:-5}" -calls "${CALLS:-2000}" -conc "${CONC:-16}" \
	-rawcalls "${RAWCALLS:-20000}" -activity="${ACTIVITY:-true}" ${RAWONLY:+-rawonly} ${BASE:+-base "$BASE"} ${HOSTENV:+-hostenv "$HOSTENV"} ${RAWBIG:+-rawbig "$RAWBIG"}
