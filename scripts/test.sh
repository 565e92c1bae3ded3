#!/usr/bin/env bash
# The whole test suite: formatting, vet, the race-enabled Go tests on
# Linux, the Windows code paths under Wine, and a compile check for
# Windows and macOS. Installs what it needs first (scripts/deps.sh).
#
#   scripts/test.sh          what CI runs (.ci/run, CI=true)
#   scripts/test.sh -short   the Go tests with -short (a quicker local run)
set -euo pipefail
cd "$(dirname "$0")/.."
short=
if [[ ${1:-} == -short ]]; then short=-short; fi

bash scripts/deps.sh

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './engine/stdio/testdata/*'))
if [[ -n $bad ]]; then echo "gofmt would change: $bad"; exit 1; fi

echo "== go vet (linux, windows, darwin)"
go vet ./...
CGO_ENABLED=0 go vet -tags ci ./...
# Every package compiles for Windows with Fyne's headless driver (-tags ci).
GOOS=windows CGO_ENABLED=0 go vet -tags ci ./...
# For macOS, Fyne 2.7.1's widget package needs cgo even with -tags ci
# (internal/widget/scroller_behavior_darwin.go), and cgo for darwin needs a
# Mac: every package but the Fyne UI (ui/... and main) is checked here.
GOOS=darwin CGO_ENABLED=0 go vet -tags ci $(GOOS=darwin go list -e -tags ci ./... 2>/dev/null | grep -v -e '/ui$' -e '/ui/' -e '^github.com/switchboard-mcp/switchboard$')

echo "== staticcheck (linux, windows, darwin)"
# honnef.co/go/tools is a tool dependency in go.mod. 'go tool -n' builds it
# for this machine and prints its path: with GOOS set, 'go tool' would
# build a Windows or macOS binary that cannot run here.
staticcheck=$(go tool -n staticcheck)
"$staticcheck" ./...
GOOS=windows CGO_ENABLED=0 "$staticcheck" -tags ci ./...
GOOS=darwin CGO_ENABLED=0 "$staticcheck" -tags ci $(GOOS=darwin go list -e -tags ci ./... 2>/dev/null | grep -v -e '/ui$' -e '/ui/' -e '^github.com/switchboard-mcp/switchboard$')

echo "== go test -race"
# -json through scripts/skipreport: the usual output (each package's line,
# a failed test's whole output), then every skipped test with its reason;
# under CI=true a skip that scripts/skips-allowed.txt does not name fails.
go test -race -count=1 -timeout 20m -json $short ./... | go run ./scripts/skipreport -lane linux

echo "== Windows code paths under Wine"
bash scripts/wine-test.sh

echo "== mutation check (security code)"
# Each one-line break of scripts/mutations.txt (the sandbox shims, the
# redactor, the approval policy, the pin store, the OAuth sign-in) must
# make its packages' tests fail (internal/mutate; docs/architecture.md).
go run ./internal/mutate

echo "== Installer packages (.deb, .rpm, .msi) and the darwin compile check"
bash scripts/package-test.sh
