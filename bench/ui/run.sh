#!/usr/bin/env bash
# Figures of the tray app (the `switchboard` process itself, not its host)
# beside a bare Fyne app (bench/ui/bareapp: one window, a label, a button),
# both started the same way under one private Xvfb. Prints a table; never
# passes or fails.
#
#   bench/ui/run.sh                          # 10 servers, 5 s settle, 30 s idle window, 3 launches
#   SERVERS=10 SETTLE=5 WINDOW=60 LAUNCHES=5 bench/ui/run.sh
#   KEEP=1 bench/ui/run.sh                   # keep the temp dir (logs)
#
# Rows:
#   bare app (window)       bareapp, its window shown
#   tray, window never open switchboard --background (tray only), 10 servers
#   tray, window shown      switchboard (no args shows the window), 10 servers
# RSS is VmRSS (and its anon/file split) after SETTLE s; CPU is
# utime+stime over the next WINDOW s, as % of one core. Launch is the
# median time from exec to the window being mapped (xdotool search
# --onlyvisible, polled every 20 ms), over LAUNCHES fresh starts. The host
# (`switchboard serve`, 10 bench/host/mcpserver servers) is started first
# and is not measured here (bench/host does that). A private D-Bus session
# bus with no tray host on it: the tray exports its StatusNotifierItem
# there, and its registration with the (missing) StatusNotifierWatcher
# fails (logged); without any bus the app would show its window instead.
set -euo pipefail
cd "$(dirname "$0")/../.."

servers=${SERVERS:-10} settle=${SETTLE:-5} window=${WINDOW:-30} launches=${LAUNCHES:-3}
for c in Xvfb xdotool dbus-daemon; do
	command -v "$c" >/dev/null || { echo "run.sh: $c is missing (apt-get install xvfb xdotool dbus)" >&2; exit 1; }
done

tmp=$(mktemp -d)
pids=()
cleanup() {
	set +e
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	[[ -x $tmp/switchboard ]] && "$tmp/switchboard" stop >/dev/null 2>&1
	wait 2>/dev/null
	if [[ -n ${KEEP:-} ]]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT

go build -o "$tmp/switchboard" .
go build -o "$tmp/bareapp" ./bench/ui/bareapp
go build -o "$tmp/mcpserver" ./bench/host/mcpserver

mkdir -p "$tmp/rt" "$tmp/cfg/switchboard" "$tmp/cache"
chmod 700 "$tmp/rt"
{
	printf '{"version": 1, "mcpServers": {'
	for i in $(seq "$servers"); do
		((i > 1)) && printf ','
		printf '\n  "s%02d": {"command": "%s"}' "$i" "$tmp/mcpserver"
	done
	printf '\n}}\n'
} >"$tmp/cfg/switchboard/config.json"
export SWITCHBOARD_RUNTIME_DIR=$tmp/rt XDG_CONFIG_HOME=$tmp/cfg XDG_CACHE_HOME=$tmp/cache
export SHELL=/bin/sh LANG=en_US.UTF-8
read -r bus buspid < <(dbus-daemon --session --fork --print-address=1 --print-pid=1 | paste -sd' ')
pids+=("$buspid")
export DBUS_SESSION_BUS_ADDRESS=$bus

exec 3>"$tmp/display"
Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
pids+=($!)
exec 3>&-
for _ in $(seq 50); do [[ -s $tmp/display ]] && break; sleep 0.1; done
export DISPLAY=:$(head -1 "$tmp/display")

"$tmp/switchboard" serve >"$tmp/serve.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	[[ $("$tmp/switchboard" status 2>/dev/null | grep -c ' running ') == "$servers" ]] && break
	sleep 0.2
done

hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
now() { date +%s%N; }

# launch NAME TITLE CMD...: median ms from exec to a visible window titled TITLE.
launch() {
	local name=$1 title=$2; shift 2
	local ms=() i p t0
	for i in $(seq "$launches"); do
		t0=$(now)
		"$@" >>"$tmp/$name.log" 2>&1 &
		p=$!
		until xdotool search --onlyvisible --name "^$title\$" >/dev/null 2>&1; do sleep 0.02; done
		ms+=($((($(now) - t0) / 1000000)))
		kill "$p"; wait "$p" 2>/dev/null || true
		sleep 1
	done
	printf '%s\n' "${ms[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# measure NAME CMD...: RSS, anon, file (MB) after settle; CPU % over window.
measure() {
	local name=$1; shift
	"$@" >>"$tmp/$name.log" 2>&1 &
	local p=$!
	sleep "$settle"
	local t0 r a f
	t0=$(ticks "$p")
	sleep "$window"
	local t1; t1=$(ticks "$p")
	r=$(kb "$p" VmRSS) a=$(kb "$p" RssAnon) f=$(kb "$p" RssFile)
	kill "$p"; wait "$p" 2>/dev/null || true
	sleep 1
	awk -v r="$r" -v a="$a" -v f="$f" -v d=$((t1 - t0)) -v hz="$hz" -v w="$window" \
		'BEGIN {printf "%.1f %.1f %.1f %.2f\n", r/1024, a/1024, f/1024, 100*d/hz/w}'
}

echo "measuring: settle ${settle}s, idle window ${window}s, $launches launches, $servers servers on the host" >&2
read -r b_rss b_anon b_file b_cpu < <(measure bare "$tmp/bareapp")
b_launch=$(launch bare Bare "$tmp/bareapp")
read -r g_rss g_anon g_file g_cpu < <(measure tray-bg "$tmp/switchboard" --background)
read -r w_rss w_anon w_file w_cpu < <(measure tray-win "$tmp/switchboard")
w_launch=$(launch tray-win Switchboard "$tmp/switchboard")

row() { # label rss anon file cpu launch target
	awk -v l="$1" -v r="$2" -v a="$3" -v f="$4" -v c="$5" -v ms="$6" -v br="$b_rss" -v bc="$b_cpu" -v bl="$b_launch" -v t="$7" 'BEGIN {
		printf "| %-24s | %6.1f | %5.2fx | %5.1f / %5.1f | %5.2f | %5.2fx | %6s | %6s | %s |\n",
			l, r, r/br, a, f, c, (bc > 0 ? c/bc : 0), (ms == "-" ? "-" : ms " ms"), (ms == "-" ? "-" : sprintf("%.2fx", ms/bl)), t }'
}
echo
echo "Tray app vs a bare Fyne app, under Xvfb, $(nproc) cores, $servers servers on the host (not measured)"
echo
echo "| process                  | RSS MB | vs bare | anon / file MB | CPU % | vs bare | launch | vs bare | target |"
echo "|--------------------------|--------|---------|----------------|-------|---------|--------|---------|--------|"
row "bare Fyne app (window)" "$b_rss" "$b_anon" "$b_file" "$b_cpu" "$b_launch" "-"
row "tray, window never open" "$g_rss" "$g_anon" "$g_file" "$g_cpu" "-" "RSS <= 0.6x, CPU <= 1x"
row "tray, window shown" "$w_rss" "$w_anon" "$w_file" "$w_cpu" "$w_launch" "RSS <= 1.2x, launch < 1 s"
