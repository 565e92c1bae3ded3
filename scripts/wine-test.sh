#!/usr/bin/env bash
# Runs the tests of the packages with Windows code paths (engine, app/api,
# app/service, app/gateway, app/activity) as Windows programs under Wine: real cmd.exe,
# batch files, CreateProcess, job objects and named pipes (Wine's
# implementations).
#
#   scripts/wine-test.sh [go test flags, e.g. -test.run Batch -test.count 2]
#   WINE_TEST_PKGS=app/gateway scripts/wine-test.sh    (some packages only)
#
# The output ends with the skip report (scripts/skipreport, lane wine):
# under CI=true a skip that scripts/skips-allowed.txt does not allow fails.
#
# Needs wine64 and gcc-mingw-w64-x86-64 (apt-get install -y wine64
# gcc-mingw-w64-x86-64). Without wine it skips with a message, and fails
# when CI=true. Each run uses a fresh, temporary WINEPREFIX.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
shim_src="$root/engine/testdata/wine"

# The wine64 package alone (as apt installs it with --no-install-recommends)
# has no /usr/bin/wine or wineserver: use its loader and server directly.
# WINE and WINESERVER override the search.
find_tool() {
	local c
	for c in "$@"; do
		if [[ $c == /* ]]; then
			[[ -x $c ]] && { echo "$c"; return; }
		elif command -v "$c" >/dev/null 2>&1; then
			command -v "$c"
			return
		fi
	done
}
wine=${WINE:-$(find_tool wine wine64 /usr/lib/wine/wine64)}
wineserver=${WINESERVER:-$(find_tool wineserver /usr/lib/wine/wineserver)}
missing=()
[[ -n $wine && -x $wine && -n $wineserver && -x $wineserver ]] || missing+=(wine64)
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || missing+=(gcc-mingw-w64-x86-64)
if ((${#missing[@]})); then
	msg="wine-test: missing ${missing[*]}: apt-get install -y wine64 gcc-mingw-w64-x86-64"
	if [[ "${CI:-}" == "true" ]]; then
		echo "$msg (CI=true: failing, not skipping)" >&2
		exit 1
	fi
	echo "$msg; Windows tests SKIPPED" >&2
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/wine-test.XXXXXX")
export WINEPREFIX="$tmp/prefix" WINEDEBUG=-all WINEARCH=win64 WINESERVER="$wineserver"
if [[ $wine == */wine64 && -z ${WINELOADER:-} ]]; then
	export WINELOADER=$wine # what the wine wrapper sets for a 64-bit-only install
fi
# No Mono or Gecko: their install prompts are the slow part of wineboot,
# and the tests need neither.
export WINEDLLOVERRIDES="mscoree=;mshtml="
cleanup() {
	"$wineserver" -k >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

t0=$(date +%s%N)
elapsed() { awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.1fs", (b - a) / 1e9 }'; }

# Boot the prefix while the test binary and the shim build.
"$wine" wineboot -i >"$tmp/wineboot.log" 2>&1 &
boot=$!

# Go 1.22+ loads ProcessPrng from System32\bcryptprimitives.dll at start;
# Wine 8 has no such export, so build a shim on RtlGenRandom.
x86_64-w64-mingw32-gcc -O2 -s -shared -o "$tmp/bcryptprimitives.dll" \
	"$shim_src/bcryptprimitives.c" "$shim_src/bcryptprimitives.def" -ladvapi32
# The packages with Windows code paths: the engine (job objects, the batch
# guard), the local API (named pipe with a same-user DACL, the lock), the
# service package (the Run key through the registry) and the gateway (its
# tests on named pipes, and switchboard bridge relaying through the pipe
# to a real server: bridge_windows_test.go), and engine/sandbox (the
# AppContainer calls: docs/sandbox.md says what Wine lacks).
pkgs=${WINE_TEST_PKGS:-"engine engine/sandbox app/api app/service app/gateway app/activity"}
for p in $pkgs; do
	(cd "$root" && GOOS=windows GOARCH=amd64 go test -c -o "$tmp/${p//\//_}.test.exe" "./$p/")
done
echo "wine-test: built in $(elapsed)" >&2

if ! wait "$boot"; then
	cat "$tmp/wineboot.log" >&2
	echo "wine-test: wineboot failed" >&2
	exit 1
fi
sys32="$WINEPREFIX/drive_c/windows/system32"
if [[ ! -d "$sys32" ]]; then
	echo "wine-test: wineboot made no $sys32" >&2
	exit 1
fi
cp "$tmp/bcryptprimitives.dll" "$sys32/bcryptprimitives.dll"
echo "wine-test: prefix ready in $(elapsed)" >&2

# Run from the temp dir: the test binary and its helpers live there. Each
# binary's output goes through test2json (-test.v=test2json, as go test
# -json runs it) into scripts/skipreport, which prints it as go test would
# and then the skipped tests with their reasons: under CI=true a skip that
# scripts/skips-allowed.txt does not allow (lane wine) fails the run.
module=$(cd "$root" && go list -m)
test2json=$(cd "$root" && go tool -n test2json)
(cd "$root" && go build -o "$tmp/skipreport" ./scripts/skipreport)
set +e
{
	rc=0
	for p in $pkgs; do
		echo "wine-test: == $p" >&2
		# A hang fails instead of blocking CI; flags given later win.
		(cd "$tmp" && "$wine" "$tmp/${p//\//_}.test.exe" -test.v=test2json -test.timeout 10m "$@" 2>&1) |
			"$test2json" -t -p "$module/$p"
		r=${PIPESTATUS[0]}
		echo "wine-test: $p exit code $r" >&2
		((r == 0)) || rc=$r
	done
	echo "$rc" >"$tmp/rc"
} | (cd "$root" && "$tmp/skipreport" -lane wine)
report=$?
set -e
rc=$(cat "$tmp/rc")
((rc != 0)) || rc=$report
echo "wine-test: tests finished in $(elapsed), exit code $rc" >&2
exit "$rc"
