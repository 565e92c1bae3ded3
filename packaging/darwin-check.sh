#!/usr/bin/env bash
# The macOS compile check that runs on Linux: every package builds for
# darwin/arm64 and darwin/amd64 with CGO_ENABLED=0 -tags ci (Fyne's headless
# test driver instead of GLFW; no Apple SDK here).
#
# One exception, Fyne's own: fyne.io/fyne/v2/internal/widget (and so every
# package that uses Fyne's widgets) declares isScrollerPageOnTap for darwin
# in a cgo file only (scroller_behavior_darwin.go, v2.7.1), so without cgo
# it cannot compile for macOS at all. Those packages are listed and left out;
# they compile on a Mac (make app), and for Linux and Windows here.
set -euo pipefail
cd "$(dirname "$0")/.."
cgo_only=fyne.io/fyne/v2/internal/widget
for arch in arm64 amd64; do
	export GOOS=darwin GOARCH=$arch CGO_ENABLED=0
	mapfile -t all < <(go list -tags ci -f '{{if .GoFiles}}{{.ImportPath}}{{end}}' ./... | grep .)  # test-only packages have nothing to build
	mapfile -t skip < <(go list -tags ci -f '{{.ImportPath}} {{join .Deps " "}}' ./... | awk -v d="$cgo_only" '{ for (i = 2; i <= NF; i++) if ($i == d) { print $1; next } }')
	build=()
	for p in "${all[@]}"; do
		[[ " ${skip[*]} " == *" $p "* ]] || build+=("$p")
	done
	go build -tags ci "${build[@]}"
	echo "darwin/$arch: ${#build[@]} packages compile (CGO_ENABLED=0 -tags ci)"
	if ((${#skip[@]})); then
		echo "darwin/$arch: left out, as they use Fyne's widgets ($cgo_only needs cgo on macOS): ${skip[*]}"
	fi
done
