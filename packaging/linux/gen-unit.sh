#!/usr/bin/env bash
# Writes the systemd user unit of the Linux packages, from the binary's own
# definition (`switchboard service print`, app/service: the unit that
# `switchboard service install` writes), so that the packaged unit and the
# installed one never drift apart:
#
#   packaging/linux/gen-unit.sh BINARY > switchboard.service
#
# Only the leading comment changes: the package installs this unit in
# /usr/lib/systemd/user/ and does not enable it.
set -euo pipefail
bin=$1
unit=$("$bin" service print --exec /usr/bin/switchboard)
cat <<'HEAD'
# Switchboard's background service: the host of your local MCP servers, as
# a systemd user service. The switchboard package installs it and does not
# enable it: 'systemctl --user enable --now switchboard.service' (or
# 'switchboard service install') starts it now and at every login.
HEAD
# Drop the binary's own leading comment lines.
printf '%s\n' "$unit" | awk 'body || !/^#/ { body = 1; print }'
grep -q '^ExecStart=/usr/bin/switchboard serve' <<<"$unit" || {
	echo "gen-unit.sh: the unit does not run /usr/bin/switchboard serve:" >&2
	printf '%s\n' "$unit" >&2
	exit 1
}
