#!/usr/bin/env bash
# Runs the real app (tray + window, and the host it starts on demand) under
# a private Xvfb with a demo config, drives the window with xdotool and
# saves PNGs of each place and tab into docs/screenshots/, in the light
# and the dark theme (FYNE_THEME), at 1120x720 (the window's default size)
# and at 800x600: docs/screenshots/<page>-<theme>-<width>.png.
#
#   scripts/screenshots.sh            # writes docs/screenshots/*.png
#   OUT=/tmp/shots scripts/screenshots.sh
#   KEEP=1 scripts/screenshots.sh     # keep the temp dir (app logs)
#
# Needs: Xvfb, xdotool, ImageMagick (import), node (the npm test servers in
# engine/stdio/testdata/npm). The demo home is /home/alex, so that the
# paths shown are a user's: it is created for the run and removed after
# (the script refuses to run if it exists). The runtime directory is a
# temp dir; the host and its servers are stopped at the end. There is no
# window manager: the window sits at 0,0, undecorated, xdotool resizes it,
# and the clicks below are coordinates in its layout at each size (Fyne's
# default theme and font).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${OUT:-$root/docs/screenshots}
mkdir -p "$out"
for c in Xvfb xdotool import node; do
	command -v "$c" >/dev/null || { echo "screenshots.sh: $c is missing (apt-get install xvfb xdotool imagemagick nodejs)" >&2; exit 1; }
done
demo=/home/alex
if [[ -e $demo ]]; then
	echo "screenshots.sh: $demo exists; the demo home is made for the run and removed after: move it away first" >&2
	exit 1
fi

tmp=$(mktemp -d)
pids=()
app=
made=
cleanup() {
	set +e
	[[ -n $app ]] && kill "$app" 2>/dev/null
	[[ -x $tmp/switchboard ]] && "$tmp/switchboard" stop >/dev/null 2>&1
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	[[ -n $made ]] && rm -rf "$demo"
	if [[ -n ${KEEP:-} ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

go build -o "$tmp/switchboard" .

# The demo home: the config, the cache and the AI apps' files are where
# they are on a Linux desktop, under it.
mkdir -p "$demo/notes"
made=1
export HOME=$demo SWITCHBOARD_RUNTIME_DIR=$tmp/rt
export XDG_CONFIG_HOME=$HOME/.config XDG_CACHE_HOME=$HOME/.cache
export SHELL=/bin/sh LANG=en_US.UTF-8
unset DBUS_SESSION_BUS_ADDRESS # no session bus: the app has no tray and shows its window at launch, which is what we shoot
mkdir -p "$SWITCHBOARD_RUNTIME_DIR" "$XDG_CONFIG_HOME/switchboard" "$XDG_CACHE_HOME"
chmod 700 "$SWITCHBOARD_RUNTIME_DIR"
echo "Meeting notes" >"$HOME/notes/monday.md"
# The npm servers, where a user's npm prefix would put them.
mkdir -p "$HOME/.npm-global/lib"
ln -s "$root/engine/stdio/testdata/npm/node_modules" "$HOME/.npm-global/lib/node_modules"
bin=$HOME/.npm-global/lib/node_modules/.bin
config() {
	cat >"$XDG_CONFIG_HOME/switchboard/config.json" <<EOF
{"version": 1, "mcpServers": {
  "everything": {"command": "$bin/mcp-server-everything"},
  "filesystem": {"command": "$bin/mcp-server-filesystem", "args": ["$HOME/notes"]},
  "weather": {"command": "mcp-weather-server"}
}}
EOF
}

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
config
"$tmp/switchboard" clients connect cursor >"$tmp/connect.log"

# A free display, chosen by Xvfb itself.
exec 3>"$tmp/display"
Xvfb -displayfd 3 -screen 0 1120x720x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
pids+=($!)
exec 3>&-
for _ in $(seq 50); do [[ -s $tmp/display ]] && break; sleep 0.1; done
export DISPLAY=:$(head -1 "$tmp/display")

click() { xdotool mousemove "$1" "$2" click 1; sleep "${3:-0.8}"; }

# steady waits for two servers running and "weather" failed (its command
# does not exist; the host gives up after its restarts).
steady() {
	local st=
	for _ in $(seq 60); do
		st=$("$tmp/switchboard" status 2>/dev/null || true)
		if grep -q '^weather  *failed' <<<"$st" && [[ $(grep -c ' running ' <<<"$st") == 2 ]]; then return; fi
		sleep 0.5
	done
	echo "screenshots.sh: the demo servers did not settle:" >&2
	echo "$st" >&2
}

# The layout's coordinates. The sidebar and the server list are the same
# at both sizes; the right side starts at 28% of the width.
nav_servers="61 22" nav_apps="61 62" nav_catalog="62 102"
row_everything="166 115" row_filesystem="164 177" row_weather="158 239"
add_btn="128 70"

# shots takes every page at one width ($1) in $theme.
shots() {
	local w=$1 tabs entry call
	case $w in
	1120) tabs=(436 506 560 625) entry="880 277" call="644 355" ;;
	800) tabs=(346 417 471 536) entry="690 277" call="615 355" ;; # the tool list takes its width
	esac
	shot() {
		sleep "${2:-1.2}"
		import -window "$win" "$out/$1-$theme-$w.png"
		echo "wrote $out/$1-$theme-$w.png"
	}
	click $nav_servers
	click $row_everything
	click "${tabs[0]}" 75
	shot servers 0.5
	click $row_weather
	shot failed
	# Tools of "everything": its first tool (echo) shows; Try it.
	click $row_everything
	click "${tabs[1]}" 75 1.5
	click $entry
	xdotool type --delay 15 "hello from Switchboard"
	click $call
	shot tools 1.5
	click $row_filesystem
	click "${tabs[2]}" 75
	shot logs
	click $add_btn
	shot add-server
	click $nav_servers
	# The settings last: at 800 pixels the list gives way to them, and
	# the tabs move left.
	click "${tabs[3]}" 75
	shot settings
	click "${tabs[0]}" 75 # the list takes its room again
	click $nav_catalog
	shot catalog
	click $nav_apps
	shot ai-apps 2
	click $nav_servers
}

for theme in dark light; do
	config
	FYNE_THEME=$theme "$tmp/switchboard" >"$tmp/app-$theme.log" 2>&1 &
	app=$!
	win=$(timeout 20 xdotool search --sync --name '^Switchboard$' | head -1)
	steady
	sleep 1
	xdotool windowsize "$win" 1120 720
	shots 1120
	xdotool windowsize "$win" 800 600
	sleep 1
	shots 800
	# No servers: the empty state, with the import from Claude Desktop.
	for s in everything filesystem weather; do "$tmp/switchboard" servers remove "$s" >/dev/null; done
	sleep 2
	import -window "$win" "$out/empty-$theme-800.png"
	xdotool windowsize "$win" 1120 720
	sleep 1.5
	import -window "$win" "$out/empty-$theme-1120.png"
	echo "wrote $out/empty-$theme-800.png $out/empty-$theme-1120.png"
	kill "$app"
	wait "$app" 2>/dev/null || true
	app=
	"$tmp/switchboard" stop >/dev/null 2>&1 || true
done
