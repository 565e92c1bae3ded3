#!/bin/bash
# Runs inside dbus-run-session: a keyring, a host with one server that uses a secret, counts.
set -e
BIN=$1; ROOT=$2; HERE=$(dirname "$0"); EVERYTHING=$3
export HOME=$ROOT/home XDG_CONFIG_HOME=$ROOT/cfg XDG_CACHE_HOME=$ROOT/cache SWITCHBOARD_RUNTIME_DIR=$ROOT/run XDG_RUNTIME_DIR=$ROOT/xdg
mkdir -p $HOME/.local/share/keyrings $XDG_CONFIG_HOME/switchboard $XDG_CACHE_HOME $XDG_RUNTIME_DIR
chmod 700 $XDG_RUNTIME_DIR
echo -n switchboard-test-password | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
KR=$!
for i in $(seq 50); do busctl --user list 2>/dev/null | grep -q org.freedesktop.secrets && break; gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus --method org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null | grep -q true && break; sleep 0.2; done
CANARY=canary$(head -c 16 /dev/urandom | xxd -p)
printf %s "$CANARY" | secret-tool store --label=memscan service switchboard username canary
EV=$EVERYTHING
cat > $XDG_CONFIG_HOME/switchboard/config.json <<JSON
{"version": 1, "mcpServers": {"ev": {"command": "$EV", "env": {"CANARY_TOKEN": "\${keyring:canary}"}}}}
JSON
$BIN serve >/dev/null 2>&1 &
H=$!
for i in $(seq 150); do $BIN status 2>/dev/null | grep -q "ev  *running" && break; sleep 0.2; done
$BIN status | sed -n 1,3p >&2
SPID=$($BIN status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["servers"][0]["pid"])')
grep -c "$CANARY" /proc/$SPID/environ >/dev/null && echo "server has the secret: yes" >&2
sleep 2
echo "after start: $(python3 $HERE/count.py $H $CANARY)"
for i in 1 2 3 4 5; do
  $BIN servers restart ev >/dev/null
  sleep 0.5
  for j in $(seq 150); do $BIN status 2>/dev/null | grep -q "ev  *running" && break; sleep 0.2; done
done
sleep 2
echo "after 5 restarts: $(python3 $HERE/count.py $H $CANARY)"
$BIN stop >/dev/null 2>&1 || kill $H
wait $H 2>/dev/null || true
kill $KR 2>/dev/null || true
