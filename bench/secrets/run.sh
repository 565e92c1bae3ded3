#!/usr/bin/env bash
# Counts the copies of a secret's value in a running host's memory (issue
# 11, item 12): a private D-Bus session with gnome-keyring-daemon, a secret
# stored by secret-tool (so it never passes through the host but from the
# keyring), a host whose one server (server-everything) gets it in its env;
# then /proc/HOST/mem is scanned after the start and after 5 restarts.
# Figures only, never pass or fail (secrets/memscan_linux_test.go is the
# test). Needs root or ptrace rights over the host, dbus-run-session,
# gnome-keyring-daemon, secret-tool, python3, node.
#
#   bench/secrets/run.sh              # this tree
#   BASE=5d0dfa0 bench/secrets/run.sh # and a baseline commit, same run
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/new" .
bins=(new)
if [[ -n ${BASE:-} ]]; then
	mkdir "$out/src"
	git archive "$BASE" | tar -x -C "$out/src"
	(cd "$out/src" && go build -o "$out/base" .)
	bins=(base new)
fi
everything=$PWD/engine/stdio/testdata/npm/node_modules/.bin/mcp-server-everything
for round in 1 2 3; do
	for b in "${bins[@]}"; do
		root=$(mktemp -d /tmp/sbm.XXXX)
		res=$(timeout 120 dbus-run-session --config-file=bench/secrets/bus.conf -- bench/secrets/inner.sh "$out/$b" "$root" "$everything" 2>/dev/null | tr "\n" " " || true)
		rm -rf "$root"
		echo "$b (round $round): $res"
	done
done
