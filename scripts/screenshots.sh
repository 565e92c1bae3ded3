#!/usr/bin/env bash
# Runs the real app (tray + window, and the host it starts on demand) under
# a private Xvfb with a demo config, drives the window with xdotool and
# saves PNGs of the main views into docs/screenshots/.
#
#   scripts/screenshots.sh            # writes docs/screenshots/*.png
#   OUT=/tmp/shots scripts/screenshots.sh
#   KEEP=1 scripts/screenshots.sh     # keep the temp dir (app.log, host logs)
#
# Needs: Xvfb, xdotool, ImageMagick (import), node (the npm test servers in
# engine/stdio/testdata/npm). Everything runs in a temp dir (HOME,
# SWITCHBOARD_RUNTIME_DIR, XDG_CONFIG_HOME, XDG_CACHE_HOME), the AI apps'
# config files too; the host and its servers are stopped at the end. There
# is no window manager: the window sits at 0,0, undecorated, and the clicks
# below are coordinates in its default 1120x720 layout (dark theme, Fyne's
# default font).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${OUT:-$root/docs/screenshots}
mkdir -p "$out"
for c in Xvfb xdotool import node; do
	command -v "$c" >/dev/null || { echo "screenshots.sh: $c is missing (apt-get install xvfb xdotool imagemagick nodejs)" >&2; exit 1; }
done

tmp=$(mktemp -d)
pids=()
cleanup() {
	set +e
	[[ -n ${app:-} ]] && kill "$app" 2>/dev/null
	[[ -x $tmp/switchboard ]] && "$tmp/switchboard" stop >/dev/null 2>&1
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	if [[ -n ${KEEP:-} ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

go build -o "$tmp/switchboard" .

npm=$root/engine/stdio/testdata/npm/node_modules/.bin
# A demo home: the config, the cache and the AI apps' files are where they
# are on a Linux desktop, under it.
export HOME=$tmp/home SWITCHBOARD_RUNTIME_DIR=$tmp/rt
export XDG_CONFIG_HOME=$HOME/.config XDG_CACHE_HOME=$HOME/.cache
export SHELL=/bin/sh LANG=en_US.UTF-8
unset DBUS_SESSION_BUS_ADDRESS # no session bus: the app has no tray and shows its window at launch, which is what we shoot
mkdir -p "$SWITCHBOARD_RUNTIME_DIR" "$XDG_CONFIG_HOME/switchboard" "$XDG_CACHE_HOME" "$HOME/notes"
chmod 700 "$SWITCHBOARD_RUNTIME_DIR"
echo "Meeting notes" >"$HOME/notes/monday.md"
cat >"$XDG_CONFIG_HOME/switchboard/config.json" <<EOF
{"version": 1, "mcpServers": {
  "everything": {"command": "$npm/mcp-server-everything"},
  "filesystem": {"command": "$npm/mcp-server-filesystem", "args": ["$HOME/notes"]},
  "weather": {"command": "mcp-weather-server"}
}}
EOF

# AI apps (app/aiapps' Linux paths): Claude Desktop ($XDG_CONFIG_HOME/Claude)
# with a server of its own; Cursor (~/.cursor) connected through the bridge,
# by the CLI as a user would. The token is a placeholder.
mkdir -p "$HOME/.cursor" "$XDG_CONFIG_HOME/Claude"
cat >"$XDG_CONFIG_HOME/Claude/claude_desktop_config.json" <<'EOF'
{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_EXAMPLE"}
    }
  }
}
EOF
"$tmp/switchboard" clients connect cursor >"$tmp/connect.log"

# A free display, chosen by Xvfb itself.
exec 3>"$tmp/display"
Xvfb -displayfd 3 -screen 0 1120x720x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
pids+=($!)
exec 3>&-
for _ in $(seq 50); do [[ -s $tmp/display ]] && break; sleep 0.1; done
export DISPLAY=:$(head -1 "$tmp/display")

"$tmp/switchboard" >"$tmp/app.log" 2>&1 &
app=$!
win=$(timeout 20 xdotool search --sync --name '^Switchboard$' | head -1)

# Wait for the steady state: two servers running, "weather" failed (its
# command does not exist; the host gives up after its restarts).
for _ in $(seq 60); do
	st=$("$tmp/switchboard" status 2>/dev/null || true)
	if grep -q '^weather  *failed' <<<"$st" && [[ $(grep -c ' running ' <<<"$st") == 2 ]]; then break; fi
	sleep 0.5
done
sleep 1

shot() { sleep "${2:-1.5}"; import -window "$win" "$out/$1.png"; echo "wrote $out/$1.png"; }
click() { xdotool mousemove "$1" "$2" click 1; }
back() { click 40 66; sleep 0.7; }

shot servers 0.5
# Tools of "everything" (the row's Tools button), then Try it on echo.
click 815 111
sleep 1.5
click 745 268
xdotool type --delay 15 "hello from Switchboard"
click 340 347
shot tools 2
back
# Logs of "filesystem".
click 765 151
shot logs
back
click 62 21 # Add server
shot add-server
click 352 21 # Catalog
shot catalog
click 449 21 # AI apps
shot ai-apps
