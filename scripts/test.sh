#!/usr/bin/env bash
# The whole test suite: formatting, vet, the race-enabled Go tests on
# Linux, the Windows code paths under Wine, and a compile check for
# Windows and macOS. Installs what it needs first (scripts/deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/deps.sh

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './engine/stdio/testdata/*'))
if [[ -n $bad ]]; then echo "gofmt would change: $bad"; exit 1; fi

echo "== go vet (linux, windows, darwin)"
go vet ./...
for os in windows darwin; do
  GOOS=$os CGO_ENABLED=0 go vet -tags ci ./engine/... ./secrets/... ./app/...
done

echo "== go test -race"
go test -race -count=1 -timeout 20m ./...

echo "== Windows code paths under Wine"
bash scripts/wine-test.sh
