#!/usr/bin/env bash
# Builds switchboard and runs it. With no arguments it starts the pinned
# @modelcontextprotocol/server-everything through the engine (switchboard
# try), lists its tools and stops it; `run.sh -- CMD ARGS...` tries yours.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh run >/dev/null
mkdir -p bin
go build -o bin/switchboard .
# The bridge that AI apps run (`switchboard clients connect` names it when it
# sits next to switchboard): static, without cgo.
CGO_ENABLED=0 go build -o bin/switchboard-bridge ./app/bridge/cmd/switchboard-bridge
if [[ $# -gt 0 && $1 == -- ]]; then
  exec bin/switchboard try "$@"
elif [[ $# -gt 0 ]]; then
  exec bin/switchboard "$@"
fi
exec bin/switchboard try -- "$PWD/engine/stdio/testdata/npm/node_modules/.bin/mcp-server-everything"
