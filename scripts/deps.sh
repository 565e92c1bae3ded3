#!/usr/bin/env bash
# Installs what the tests need on a Debian/Ubuntu machine that has only Go:
# Debian packages (Wine and mingw for the Windows code paths, Node.js for
# the real MCP servers), the pinned npm servers, and the Go modules.
# Idempotent: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

# "run" installs only what running the app needs; "test" (the default) all.
what=${1:-test}
need=()
if [[ $what == test ]]; then
  command -v wine >/dev/null 2>&1 || command -v wine64 >/dev/null 2>&1 || [[ -x /usr/lib/wine/wine64 ]] || need+=(wine64)
  command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || need+=(gcc-mingw-w64-x86-64)
  # A real keyring on a private bus for the secrets tests.
  command -v dbus-run-session >/dev/null 2>&1 || need+=(dbus-daemon)
  command -v gnome-keyring-daemon >/dev/null 2>&1 || need+=(gnome-keyring)
  command -v secret-tool >/dev/null 2>&1 || need+=(libsecret-tools)
  # The real tray under a virtual X server, and screenshots.
  command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
  command -v import >/dev/null 2>&1 || need+=(imagemagick)
  # Real clicks and key presses: the window's journeys (ui/journey) and the
  # tray app's test without a tray host (ui: the window found, its minimise
  # request seen with xev).
  command -v xdotool >/dev/null 2>&1 || need+=(xdotool)
  command -v xev >/dev/null 2>&1 || need+=(x11-utils)
  # The service's unit and the autostart entry are checked with systemd's
  # and freedesktop's own validators (app/service).
  command -v systemd-analyze >/dev/null 2>&1 || need+=(systemd)
  command -v desktop-file-validate >/dev/null 2>&1 || need+=(desktop-file-utils)
  # The installer packages' checks (scripts/package-test.sh).
  command -v lintian >/dev/null 2>&1 || need+=(lintian)
  command -v rpm >/dev/null 2>&1 || need+=(rpm)
  command -v wixl >/dev/null 2>&1 || need+=(wixl)
  command -v msiinfo >/dev/null 2>&1 || need+=(msitools)
  # The .deb's MIME type for .mcpb files, checked after dpkg -i in the
  # database its trigger rebuilds (package-test.sh).
  command -v update-mime-database >/dev/null 2>&1 || need+=(shared-mime-info)
fi
# Fyne's cgo build (GLFW) needs the GL and X11 headers, for running and testing alike.
[[ -f /usr/include/GL/gl.h ]] || need+=(libgl1-mesa-dev)
[[ -f /usr/include/X11/extensions/Xrandr.h && -f /usr/include/X11/extensions/XInput2.h ]] || need+=(xorg-dev)
command -v gcc >/dev/null 2>&1 || need+=(gcc)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
# PyPI servers' locked installs: a virtual environment with pip (app/install).
command -v python3 >/dev/null 2>&1 || need+=(python3)
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need+=(python3-venv)
if ((${#need[@]})); then
  echo "deps: installing ${need[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi

# The real MCP servers the engine's tests drive, at pinned versions.
npmdir=engine/stdio/testdata/npm
if [[ ! -x $npmdir/node_modules/.bin/mcp-server-everything || $npmdir/package-lock.json -nt $npmdir/node_modules ]]; then
  echo "deps: npm install in $npmdir"
  # npm install, not npm ci: the Inspector has an optional, Windows-only
  # dependency that npm leaves out of the lock file on Linux, and npm ci
  # then refuses the lock as out of sync. The lock still pins every version.
  (cd "$npmdir" && npm install --no-audit --no-fund --loglevel=error)
fi

go mod download
