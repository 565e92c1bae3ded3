#!/usr/bin/env bash
# Captures the real tool lists of pinned npm MCP servers into
# app/toolsearch/testdata/servers (the tool-search corpus). It needs node,
# npm and the npm registry; CI does not run it (the JSON is committed).
#
#   scripts/capture-tool-lists.sh              # every server
#   ONLY=github,slack scripts/capture-tool-lists.sh
#
# The versions are pinned here and in bench/capturetools (keep them in step).
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(
	@modelcontextprotocol/server-everything@2026.8.31
	@modelcontextprotocol/server-filesystem@2026.8.31
	@modelcontextprotocol/server-memory@2026.8.31
	@modelcontextprotocol/server-sequential-thinking@2026.8.31
	@playwright/mcp@0.0.83
	@upstash/context7-mcp@4.1.1
	@modelcontextprotocol/server-github@2025.4.8
	@modelcontextprotocol/server-postgres@0.6.2
	@modelcontextprotocol/server-brave-search@0.6.2
	@modelcontextprotocol/server-gitlab@2025.4.25
	@modelcontextprotocol/server-slack@2025.4.25
	@modelcontextprotocol/server-google-maps@0.6.2
	@modelcontextprotocol/server-puppeteer@2025.5.12
	firecrawl-mcp@3.26.0
	tavily-mcp@0.2.22
	mcp-server-kubernetes@4.1.7
	exa-mcp-server@3.4.1
	@notionhq/notion-mcp-server@2.5.2
)

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo '{"private":true}' >"$dir/package.json"
# --ignore-scripts: no browser downloads (puppeteer, playwright); listing
# tools does not launch a browser.
(cd "$dir" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --no-audit --no-fund --ignore-scripts "${pkgs[@]}" >/dev/null)
go run ./bench/capturetools -modules "$dir/node_modules" -out app/toolsearch/testdata/servers ${ONLY:+-only "$ONLY"}
