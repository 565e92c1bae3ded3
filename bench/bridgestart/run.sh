#!/usr/bin/env bash
# Runs the bridge start benchmark (package main in this directory): what an
# AI app pays to connect (spawn + initialize + tools/list) through
# switchboard-bridge to a running host with one server, against spawning a
# tiny static MCP server directly, and through `switchboard bridge` (the
# tray app's binary), the gateway's socket dialled in-process and, when it
# can be built, mcpproxy-go's HTTP endpoint. It prints a table of figures
# (never a verdict) and each binary's package-init time (GODEBUG=inittrace=1).
#
#   bench/bridgestart/run.sh                 # 200 connects per path
#   N=500 bench/bridgestart/run.sh
#   KEEP=/tmp/out bench/bridgestart/run.sh   # keep the binaries and the hosts' logs
#
# mcpproxy-go (github.com/smart-mcp-proxy/mcpproxy-go) is built from a copy
# fetched beforehand (a bare git repository; MCPPROXY_GIT, default
# /work/.mirror/smart-mcp-proxy+mcpproxy-go/repo) or a source tree
# (MCPPROXY_SRC), or taken as a binary (MCPPROXY_BIN); without any of them
# that row is skipped. Nothing of it is kept in this repository. Its build
# (go build ./cmd/mcpproxy, CGO_ENABLED=0) is cached in
# ${XDG_CACHE_HOME:-~/.cache}/switchboard-bench/mcpproxy-COMMIT and takes
# minutes the first time.
#
# switchboard is built as `make build` builds it, switchboard-bridge and the
# tiny server as the packages build the bridge (CGO_ENABLED=0, -s -w).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [[ -n ${KEEP:-} ]]; then
	out=$KEEP
	mkdir -p "$out"
else
	out=$(mktemp -d)
	trap 'rm -rf "$out"' EXIT
fi

echo "building switchboard, switchboard-bridge, tinyserver" >&2
go build -o "$out/switchboard" .
CGO_ENABLED=0 go build -ldflags "-s -w" -o "$out/switchboard-bridge" ./app/bridge/cmd/switchboard-bridge
CGO_ENABLED=0 go build -ldflags "-s -w" -o "$out/tinyserver" ./bench/bridgestart/tinyserver
go build -o "$out/bridgestart" ./bench/bridgestart

mcpproxy=${MCPPROXY_BIN:-}
git_dir=${MCPPROXY_GIT:-/work/.mirror/smart-mcp-proxy+mcpproxy-go/repo}
if [[ -z $mcpproxy ]]; then
	src=${MCPPROXY_SRC:-}
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/switchboard-bench
	if [[ -z $src && -d $git_dir ]]; then
		commit=$(git --git-dir="$git_dir" rev-parse HEAD)
		if [[ -x $cache/mcpproxy-$commit/mcpproxy ]]; then
			mcpproxy=$cache/mcpproxy-$commit/mcpproxy
		else
			src=$out/mcpproxy-src
			mkdir -p "$src"
			# Only what the program needs: a fetched copy may lack its
			# largest files (docs, images).
			git --git-dir="$git_dir" archive HEAD go.mod go.sum cmd internal web oas | tar -x -C "$src"
		fi
	fi
	if [[ -z $mcpproxy && -n $src ]]; then
		commit=${commit:-$(cd "$src" && git rev-parse HEAD 2>/dev/null || echo src)}
		echo "building mcpproxy-go ($commit) from $src: minutes the first time" >&2
		mkdir -p "$cache/mcpproxy-$commit"
		if (cd "$src" && CGO_ENABLED=0 go build -o "$cache/mcpproxy-$commit/mcpproxy" ./cmd/mcpproxy); then
			mcpproxy=$cache/mcpproxy-$commit/mcpproxy
		else
			echo "mcpproxy-go did not build: its row is skipped" >&2
		fi
	fi
fi
[[ -n $mcpproxy ]] || echo "no mcpproxy-go (fetch github.com/smart-mcp-proxy/mcpproxy-go, or set MCPPROXY_SRC or MCPPROXY_BIN): its row is skipped" >&2

"$out/bridgestart" -switchboard "$out/switchboard" -bridge "$out/switchboard-bridge" -tiny "$out/tinyserver" \
	${mcpproxy:+-mcpproxy "$mcpproxy"} -work "$out/work" -n "${N:-200}"
