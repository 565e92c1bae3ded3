#!/usr/bin/env bash
# Builds the installer packages (make dist) and checks them as a user's
# machine would see them:
#   .deb   lintian (clean: errors and warnings fail; the overrides are in
#          packaging/linux/lintian-overrides, each with its reason), its
#          control fields and file list, then a real `dpkg -i` on this
#          machine: the installed `switchboard version` and `doctor`,
#          `switchboard-bridge --version` (a static executable), the
#          menu entry, icons, man page and the (not enabled) systemd user
#          unit, the unit's ExecStart running a real MCP server (no systemd
#          here: the command, not the unit manager) and an AI app's
#          connect to it through switchboard-bridge, then `dpkg -r` and
#          `dpkg -P`, after which none of the package's files or folders
#          may be left.
#   .rpm   rpm -qip, its file list and requirements.
#   .msi   msiinfo: its tables, the three executables in the File table (with
#          the built sizes, and byte for byte in the cabinet), the Start
#          menu shortcut to the tray executable, the product version, the
#          PATH entry (the Environment table's one row and the two actions
#          in InstallExecuteSequence); the executables' PE subsystems
#          (console and GUI) and resources, and `version` from each, run
#          under Wine; then a real `msiexec /i` under Wine (the files, the
#          system PATH in the registry, `switchboard version` typed in
#          cmd) and `msiexec /x` (the files and the PATH entry gone).
#   .mcpb  switchboard.mcpb of each platform (Switchboard as an MCP Bundle
#          for Claude Desktop): the official CLI's (@anthropic-ai/mcpb,
#          pinned in engine/stdio/testdata/npm) validate of its manifest and info of
#          the file, its three entries (the bridge byte for byte the built
#          one, executable), the manifest's version and platform,
#          `switchboard bundles check` (the Windows one under Wine), and,
#          with the .deb installed, the installed bundle's bridge run as
#          Claude Desktop runs it, answering with the host's tools.
#   Open with Switchboard: the .deb's and .rpm's MIME type
#          (application/x-mcpb, *.mcpb and *.dxt) and menu-less desktop
#          entry (desktop-file-validate), the MIME and desktop databases
#          after dpkg -i and -r; the MSI's Registry rows (the ProgId, its
#          open verb on switchboard-tray.exe, .mcpb and .dxt) and, under
#          Wine, the keys after msiexec /i and /x.
#   macOS  every package compiles for darwin (make darwin-check); the
#          document type make app merges into the .app's Info.plist; the
#          darwin switchboard.mcpb's manifest and packing (a cross-compiled
#          bridge: make app packs the real one on a Mac).
#
# It needs root (or sudo) for dpkg, and lintian, rpm, wixl, msitools,
# desktop-file-utils and gcc-mingw-w64-x86-64 (scripts/deps.sh installs
# them). Without a tool it skips with a message, and fails when CI=true.
# PACKAGE_TEST_SKIP_BUILD=1 checks what dist/ already holds.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

t0=$(date +%s)
since() { echo "$(($(date +%s) - t0))s"; }
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok    $*"; }
bad() { failed=$((failed + 1)); echo "FAIL  $*"; }
check() { # check DESCRIPTION COMMAND...: ok when the command succeeds
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

missing=()
for t in make lintian rpm dpkg-deb wixl msiinfo msibuild msiextract desktop-file-validate x86_64-w64-mingw32-gcc x86_64-w64-mingw32-objdump; do
	command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
if [[ -n $SUDO ]] && ! sudo -n true 2>/dev/null; then missing+=("root (for dpkg -i)"); fi
if ((${#missing[@]})); then
	msg="package-test: missing ${missing[*]}: run scripts/deps.sh (apt: lintian rpm msitools wixl desktop-file-utils gcc-mingw-w64-x86-64)"
	if [[ ${CI:-} == true ]]; then
		echo "$msg (CI=true: failing, not skipping)" >&2
		exit 1
	fi
	echo "$msg; package checks SKIPPED" >&2
	exit 0
fi

version=$(make -s -f Makefile help | sed -n 's/^version \([^ ]*\)-\([0-9]*\), .*/\1/p')
release=$(make -s -f Makefile help | sed -n 's/^version \([^ ]*\)-\([0-9]*\), .*/\2/p')
deb=dist/switchboard_${version}-${release}_amd64.deb
rpmf=dist/switchboard-${version}-${release}.x86_64.rpm
msi=dist/switchboard-${version}-x64.msi
echo "package-test: version $version-$release"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/package-test.XXXXXX")
installed_by_us=false
serve_pid=""
cleanup() {
	if [[ -n $serve_pid ]]; then kill "$serve_pid" 2>/dev/null || true; fi
	if $installed_by_us; then
		echo "package-test: purging the test install" >&2
		$SUDO dpkg -P switchboard >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

if [[ ${PACKAGE_TEST_SKIP_BUILD:-} != 1 ]]; then
	echo "== build: make dist"
	b0=$(date +%s)
	if ! make dist >"$tmp/build.log" 2>&1; then
		tail -n 60 "$tmp/build.log"
		echo "package-test: make dist failed" >&2
		exit 1
	fi
	grep -v '^go: downloading' "$tmp/build.log" | tail -n 12
	echo "package-test: built in $(($(date +%s) - b0))s"
fi
lmcpb=dist/switchboard_${version}_linux_amd64/switchboard.mcpb
wmcpb=dist/switchboard_${version}_windows_amd64/switchboard.mcpb
for f in "$deb" "$rpmf" "$msi" "$lmcpb" "$wmcpb" dist/SHA256SUMS; do
	check "built $f" test -s "$f"
done
check "dist/SHA256SUMS verifies" bash -c 'cd dist && sha256sum --quiet -c SHA256SUMS'
for f in "$lmcpb" "$wmcpb"; do
	check "dist/SHA256SUMS lists ${f#dist/}" grep -q "  ${f#dist/}\$" dist/SHA256SUMS
done

# ------------------------------------------------------ switchboard.mcpb
# The official CLI make dist used: the tests' pin (engine/stdio/testdata/npm).
mcpb=$PWD/engine/stdio/testdata/npm/node_modules/.bin/mcpb
echo "== switchboard.mcpb: official CLI $("$mcpb" --version 2>/dev/null || echo missing)"
check "the official CLI is the pinned @anthropic-ai/mcpb 2.1.2" test "$("$mcpb" --version 2>/dev/null)" = 2.1.2
for b in linux:"$lmcpb":switchboard-bridge:bin/linux-amd64/switchboard-bridge \
	win32:"$wmcpb":switchboard-bridge.exe:bin/windows-amd64/switchboard-bridge.exe; do
	IFS=: read -r plat file exe built <<<"$b"
	d=$tmp/mcpb-$plat
	mkdir -p "$d"
	echo "  \$ mcpb info $file"
	"$mcpb" info "$file" 2>&1 | sed 's/^/  /'
	check "mcpb info $plat bundle" bash -c "'$mcpb' info '$file' >/dev/null 2>&1"
	(cd "$d" && unzip -q "$OLDPWD/$file")
	echo "  \$ mcpb validate manifest.json ($plat, unpacked)"
	(cd "$d" && "$mcpb" validate manifest.json) 2>&1 | sed 's/^/  /'
	check "mcpb validate: the $plat bundle's manifest" bash -c "cd '$d' && '$mcpb' validate manifest.json >/dev/null 2>&1"
	check "the $plat bundle holds exactly icon.png, manifest.json, server/$exe" \
		test "$(unzip -Z1 "$file" | LC_ALL=C sort | tr '\n' ' ')" = "icon.png manifest.json server/$exe "
	check "the $plat bundle's server/$exe is the built one, byte for byte, executable" \
		bash -c "cmp -s '$d/server/$exe' '$built' && unzip -Zl '$file' server/$exe | grep -q '^.rwxr-xr-x'"
	mjson=$(tr -d '\n ' <"$d/manifest.json")
	for want in '"manifest_version":"0.3"' "\"version\":\"$version\"" '"type":"binary"' \
		"\"platforms\":[\"$plat\"]" "\"command\":\"\${__dirname}/server/$exe\""; do
		check "the $plat bundle's manifest has $want" grep -qF "$want" <<<"$mjson"
	done
done
echo "  \$ switchboard bundles check $lmcpb"
bin/linux-amd64/switchboard bundles check "$lmcpb" 2>&1 | sed 's/^/  /'
check "switchboard bundles check: the linux bundle has nothing wrong (exit 0)" \
	bash -c "bin/linux-amd64/switchboard bundles check '$lmcpb' >/dev/null 2>&1"

# ---------------------------------------------------------------- .deb
echo "== lintian $deb"
# As root lintian says so on stderr; the tags go to stdout.
if lintian --fail-on error,warning --display-info --display-level '>=pedantic' \
	--tag-display-limit 0 "$deb" >"$tmp/lintian.out" 2>"$tmp/lintian.err"; then
	ok "lintian: no errors or warnings"
else
	bad "lintian: errors or warnings"
fi
sed 's/^/  /' "$tmp/lintian.out"
grep -v 'running with root privileges' "$tmp/lintian.err" | sed 's/^/  /' || true
[[ -s $tmp/lintian.out ]] || echo "  (lintian printed no tags)"

echo "== dpkg-deb -I / -c"
dpkg-deb -I "$deb" | sed 's/^/  /'
dpkg-deb -c "$deb" | awk '{ print "  " $1 " " $6 }'
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' | grep -v '^$' >"$tmp/deb.paths"
for p in /usr/bin/switchboard /usr/bin/switchboard-bridge /usr/share/man/man1/switchboard-bridge.1.gz \
	/usr/libexec/switchboard/switchboard-sandbox \
	/usr/share/applications/io.github.switchboard-mcp.switchboard.desktop \
	/usr/share/applications/io.github.switchboard-mcp.switchboard.bundle.desktop \
	/usr/share/mime/packages/io.github.switchboard-mcp.switchboard.xml \
	/usr/share/switchboard/switchboard.mcpb \
	/usr/lib/systemd/user/switchboard.service \
	/usr/share/man/man1/switchboard.1.gz \
	/usr/share/doc/switchboard/copyright \
	/usr/share/doc/switchboard/changelog.Debian.gz \
	/usr/share/icons/hicolor/16x16/apps/io.github.switchboard-mcp.switchboard.png \
	/usr/share/icons/hicolor/512x512/apps/io.github.switchboard-mcp.switchboard.png; do
	check "deb contains $p" grep -qxF "$p" "$tmp/deb.paths"
done
check "deb Version is $version-$release" test "$(dpkg-deb -f "$deb" Version)" = "$version-$release"
check "desktop-file-validate" desktop-file-validate packaging/linux/io.github.switchboard-mcp.switchboard.desktop
# Open with Switchboard: the menu-less entry for the MIME type, and the type.
bundle_desktop=packaging/linux/io.github.switchboard-mcp.switchboard.bundle.desktop
check "desktop-file-validate (the .mcpb entry)" desktop-file-validate "$bundle_desktop"
check "the .mcpb entry: MimeType=application/x-mcpb;" grep -qx 'MimeType=application/x-mcpb;' "$bundle_desktop"
check "the .mcpb entry: Exec=switchboard bundles open %f" grep -qx 'Exec=switchboard bundles open %f' "$bundle_desktop"
check "the .mcpb entry: NoDisplay=true (not a second menu item)" grep -qx 'NoDisplay=true' "$bundle_desktop"
mkdir -p "$tmp/mime/packages"
cp packaging/linux/io.github.switchboard-mcp.switchboard.xml "$tmp/mime/packages/"
check "update-mime-database reads the MIME type: application/x-mcpb for *.mcpb and *.dxt, a subclass of zip" \
	bash -c "update-mime-database '$tmp/mime' >/dev/null 2>&1 && grep -qx 'application/x-mcpb:\*.mcpb' '$tmp/mime/globs' &&
		grep -qx 'application/x-mcpb:\*.dxt' '$tmp/mime/globs' && grep -qx 'application/x-mcpb application/zip' '$tmp/mime/subclasses'"

# ---------------------------------------------------------------- .rpm
echo "== rpm -qip $rpmf"
rpm -qip "$rpmf" 2>&1 | sed 's/^/  /'
echo "  files:"
rpm -qlp "$rpmf" 2>/dev/null | sed 's/^/    /'
echo "  requires:"
rpm -qp --requires "$rpmf" 2>/dev/null | sed 's/^/    /'
check "rpm Version/Release are $version/$release" \
	test "$(rpm -qp --qf '%{VERSION}/%{RELEASE}' "$rpmf" 2>/dev/null)" = "$version/$release"
rpm -qlp "$rpmf" 2>/dev/null >"$tmp/rpm.paths"
for p in /usr/bin/switchboard /usr/bin/switchboard-bridge /usr/libexec/switchboard/switchboard-sandbox /usr/lib/systemd/user/switchboard.service \
	/usr/share/applications/io.github.switchboard-mcp.switchboard.desktop \
	/usr/share/applications/io.github.switchboard-mcp.switchboard.bundle.desktop \
	/usr/share/mime/packages/io.github.switchboard-mcp.switchboard.xml /usr/share/switchboard/switchboard.mcpb \
	/usr/share/man/man1/switchboard.1.gz /usr/share/licenses/switchboard/LICENSE; do
	check "rpm contains $p" grep -qxF "$p" "$tmp/rpm.paths"
done
check "rpm requires libGL.so.1" bash -c "rpm -qp --requires '$rpmf' 2>/dev/null | grep -q '^libGL.so.1'"

# ------------------------------------------------- dpkg -i, run, remove
echo "== dpkg -i $deb"
if dpkg -s switchboard >/dev/null 2>&1; then
	bad "switchboard is already installed on this machine: not touching it (dpkg -P switchboard first)"
else
	# What the package will add: its files, and its folders that do not
	# exist yet (they must be gone again after the purge).
	: >"$tmp/new.paths"
	while read -r p; do
		[[ -e $p ]] || echo "$p" >>"$tmp/new.paths"
	done <"$tmp/deb.paths"
	if $SUDO dpkg -i "$deb" >"$tmp/dpkg-i.log" 2>&1; then
		installed_by_us=true
		ok "dpkg -i"
	else
		bad "dpkg -i (missing dependencies? apt-get install -f)"
		installed_by_us=true
	fi
	sed 's/^/  /' "$tmp/dpkg-i.log"
	check "dpkg -s: install ok installed" bash -c "dpkg-query -W -f '\${Status}' switchboard | grep -qx 'install ok installed'"
	out=$(/usr/bin/switchboard version 2>"$tmp/version.err") || true
	echo "  \$ switchboard version"
	echo "  $out"
	sed 's/^/  stderr: /' "$tmp/version.err"
	check "installed switchboard version prints 'switchboard $version'" test "$out" = "switchboard $version"
	out=$(/usr/bin/switchboard-bridge --version 2>"$tmp/version.err") || true
	echo "  \$ switchboard-bridge --version"
	echo "  $out"
	sed 's/^/  stderr: /' "$tmp/version.err"
	check "installed switchboard-bridge --version prints 'switchboard-bridge $version'" test "$out" = "switchboard-bridge $version"
	# Static: no program interpreter (the dynamic loader) to run at start.
	check "switchboard-bridge is a static executable (no INTERP segment)" \
		bash -c "LC_ALL=C readelf -lW /usr/bin/switchboard-bridge | grep -q 'There are' && ! LC_ALL=C readelf -lW /usr/bin/switchboard-bridge | grep -q INTERP"

	# doctor as a new user would run it: a fresh home, no config, no host,
	# and no session bus (a bus address that leads nowhere, so that the
	# keyring check fails fast instead of autolaunching a dbus-daemon).
	# Exit 0 is "nothing to fix", 1 is "N things to fix" (here: no
	# keyring): both mean it ran and printed its report. Anything else (2:
	# usage, a panic, a signal, a time-out) fails.
	h=$tmp/home
	mkdir -p "$h"
	echo "  \$ switchboard doctor    (fresh HOME, no session bus)"
	set +e
	HOME=$h XDG_CONFIG_HOME=$h/.config XDG_CACHE_HOME=$h/.cache XDG_RUNTIME_DIR=$h/run \
		DBUS_SESSION_BUS_ADDRESS=unix:path=$h/no-bus SHELL=/bin/sh \
		timeout 60 /usr/bin/switchboard doctor >"$tmp/doctor.out" 2>"$tmp/doctor.err"
	rc=$?
	set -e
	sed 's/^/  /' "$tmp/doctor.out"
	sed 's/^/  stderr: /' "$tmp/doctor.err"
	echo "  (exit code $rc)"
	check "doctor ran and exited 0 or 1 (exit $rc)" test "$rc" -le 1
	check "doctor's report starts with 'Switchboard $version'" test "$(head -n1 "$tmp/doctor.out")" = "Switchboard $version"
	check "doctor's report ends with its verdict" \
		grep -Eq '^(nothing to fix|[0-9]+ things? to fix)$' <(tail -n1 "$tmp/doctor.out")

	check "man switchboard finds the page" bash -c 'man -w switchboard >/dev/null 2>&1'
	# dpkg's triggers (shared-mime-info, desktop-file-utils) rebuilt the
	# system's MIME and desktop databases: a .mcpb is application/x-mcpb,
	# and the entry that opens one is registered for it.
	check "installed: the MIME database maps *.mcpb to application/x-mcpb" grep -qx 'application/x-mcpb:\*.mcpb' /usr/share/mime/globs
	check "installed: mimeinfo.cache names the .mcpb entry for application/x-mcpb" \
		grep -q '^application/x-mcpb=.*io.github.switchboard-mcp.switchboard.bundle.desktop' /usr/share/applications/mimeinfo.cache
	check "installed: /usr/share/switchboard/switchboard.mcpb is the linux bundle of dist/" cmp -s /usr/share/switchboard/switchboard.mcpb "$lmcpb"
	check "the desktop entry is in the application menu folder" \
		test -f /usr/share/applications/io.github.switchboard-mcp.switchboard.desktop
	check "the systemd user unit is installed" test -f /usr/lib/systemd/user/switchboard.service
	check "the unit is not enabled (no default.target.wants link)" \
		bash -c '! ls /etc/systemd/user/*.wants/switchboard.service >/dev/null 2>&1'
	if systemd-analyze --version >/dev/null 2>&1; then
		# Verifies the unit's syntax and that ExecStart's binary exists.
		if systemd-analyze verify /usr/lib/systemd/user/switchboard.service >"$tmp/verify.out" 2>&1; then
			ok "systemd-analyze verify switchboard.service"
		else
			bad "systemd-analyze verify switchboard.service"
		fi
		sed 's/^/  /' "$tmp/verify.out"
	fi

	# What the enabled service does at login, without systemd (not PID 1
	# here): the installed unit's ExecStart, in the fresh home, with one
	# real MCP server (the pinned @modelcontextprotocol/server-everything)
	# in the config; `switchboard status` must show it running, and
	# `switchboard stop` must stop the host.
	everything=$PWD/engine/stdio/testdata/npm/node_modules/.bin/mcp-server-everything
	if [[ ! -x $everything ]]; then
		if [[ ${CI:-} == true ]]; then
			bad "the service check needs $everything (scripts/deps.sh runs npm ci)"
		else
			echo "  (no $everything: run scripts/deps.sh; service check SKIPPED)"
		fi
	else
		exec_line=$(sed -n 's/^ExecStart=//p' /usr/lib/systemd/user/switchboard.service)
		read -ra exec_argv <<<"$exec_line"
		mkdir -p "$h/run" && chmod 700 "$h/run"
		hostenv=(env HOME="$h" XDG_CONFIG_HOME="$h/.config" XDG_CACHE_HOME="$h/.cache" XDG_RUNTIME_DIR="$h/run"
			DBUS_SESSION_BUS_ADDRESS="unix:path=$h/no-bus" SHELL=/bin/sh)
		"${hostenv[@]}" /usr/bin/switchboard servers add everything -- "$everything" >/dev/null 2>"$tmp/add.err" ||
			cat "$tmp/add.err"
		echo "  \$ $exec_line    (the unit's ExecStart, in the background)"
		"${hostenv[@]}" "${exec_argv[@]}" >"$tmp/serve.log" 2>&1 &
		serve_pid=$!
		running=false
		for _ in $(seq 1 120); do
			if "${hostenv[@]}" /usr/bin/switchboard status --json 2>/dev/null | grep -q '"state": "running"'; then
				running=true
				break
			fi
			sleep 0.5
		done
		"${hostenv[@]}" /usr/bin/switchboard status 2>/dev/null | sed 's/^/  /'
		check "the service's host runs the configured server" $running
		# An AI app's connect through the installed switchboard-bridge, as
		# `switchboard clients connect` writes it (args: bridge): the
		# handshake and tools/list, answered by the host's gateway. Its
		# stdin stays open a few seconds, as an app's does.
		{
			printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"package-test","version":"1"}}}' \
				'{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
			sleep 5
		} | "${hostenv[@]}" timeout 60 /usr/bin/switchboard-bridge bridge >"$tmp/bridge.out" 2>"$tmp/bridge.err" || true
		sed 's/^/  bridge stderr: /' "$tmp/bridge.err"
		check "switchboard-bridge lists the host's tools (everything__echo)" \
			grep -q '"id":2.*"everything__echo"' "$tmp/bridge.out"
		# Claude Desktop's run of the installed switchboard.mcpb: unpacked in
		# its own folder, the bundle's bridge with the manifest's arguments,
		# the profile option left empty ("--profile=", every server).
		mkdir -p "$tmp/claude-ext"
		(cd "$tmp/claude-ext" && unzip -q /usr/share/switchboard/switchboard.mcpb)
		{
			printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-ai","version":"1"}}}' \
				'{"jsonrpc":"2.0","method":"notifications/initialized"}' '{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
			sleep 5
		} | "${hostenv[@]}" timeout 60 "$tmp/claude-ext/server/switchboard-bridge" --profile= >"$tmp/ext.out" 2>"$tmp/ext.err" || true
		sed 's/^/  bundle bridge stderr: /' "$tmp/ext.err"
		check "the installed switchboard.mcpb's bridge, run as Claude Desktop runs it, lists the host's tools" \
			grep -q '"id":2.*"everything__echo"' "$tmp/ext.out"
		"${hostenv[@]}" /usr/bin/switchboard stop 2>&1 | sed 's/^/  /'
		stopped=false
		for _ in $(seq 1 60); do
			if ! kill -0 "$serve_pid" 2>/dev/null; then
				stopped=true
				break
			fi
			sleep 0.5
		done
		check "switchboard stop ends the service's host" $stopped
		$stopped || { kill "$serve_pid" 2>/dev/null || true; sed 's/^/  /' "$tmp/serve.log"; }
		wait "$serve_pid" 2>/dev/null || true
	fi

	echo "== dpkg -r / dpkg -P"
	$SUDO dpkg -r switchboard 2>&1 | sed 's/^/  /'
	left=()
	while read -r p; do
		[[ -e $p && ! -d $p ]] && left+=("$p")
	done <"$tmp/deb.paths"
	check "dpkg -r: none of the package's files left" test ${#left[@]} -eq 0
	((${#left[@]} == 0)) || printf '  left: %s\n' "${left[@]}"
	# With no conffiles, dpkg -r leaves nothing for -P to purge.
	if dpkg-query -W -f '${Status}' switchboard 2>/dev/null | grep -q config-files; then
		$SUDO dpkg -P switchboard 2>&1 | sed 's/^/  /'
	else
		echo "  (dpkg -r left no config files: nothing for dpkg -P to purge)"
	fi
	installed_by_us=false
	left=()
	while read -r p; do
		[[ -e $p ]] && left+=("$p")
	done <"$tmp/new.paths"
	check "dpkg -P: no file or folder the package added is left" test ${#left[@]} -eq 0
	((${#left[@]} == 0)) || printf '  left: %s\n' "${left[@]}"
	check "dpkg -s: switchboard is gone" bash -c '! dpkg -s switchboard >/dev/null 2>&1'
	check "removed: the MIME database no longer has application/x-mcpb" bash -c "! grep -q '^application/x-mcpb:' /usr/share/mime/globs"
	check "removed: mimeinfo.cache no longer names the .mcpb entry" \
		bash -c "! grep -q 'io.github.switchboard-mcp.switchboard.bundle.desktop' /usr/share/applications/mimeinfo.cache"
fi

# ---------------------------------------------------------------- .msi
echo "== msiinfo $msi"
msiinfo suminfo "$msi" | sed 's/^/  /'
echo "  tables: $(msiinfo tables "$msi" | sort | tr '\n' ' ')"
for t in File Component Directory Shortcut Property Icon Feature Media Upgrade Environment InstallExecuteSequence; do
	check "msi has the $t table" grep -qx "$t" <(msiinfo tables "$msi")
done
msiinfo export "$msi" File >"$tmp/File.idt"
msiinfo export "$msi" Shortcut >"$tmp/Shortcut.idt"
msiinfo export "$msi" Property >"$tmp/Property.idt"
for t in File Shortcut Component Directory; do
	echo "  -- $t"
	msiinfo export "$msi" "$t" | tail -n +4 | sed 's/^/  /'
done
win=bin/windows-amd64
for exe in switchboard.exe switchboard-tray.exe switchboard-bridge.exe switchboard.mcpb; do
	size=$(stat -c %s "$win/$exe")
	check "msi File table: $exe, $size bytes" \
		awk -F'\t' -v n="$exe" -v s="$size" '$3 == n && $4 == s { f = 1 } END { exit !f }' "$tmp/File.idt"
done
check "msi Shortcut table: 'Switchboard' in the Start menu, opening switchboard-tray.exe" \
	awk -F'\t' 'NR > 3 && $2 == "ProgramMenuFolder" && $3 == "Switchboard" && $4 == "TrayExe" { f = 1 } END { exit !f }' "$tmp/Shortcut.idt"
# msiinfo export writes CRLF line ends.
prop() { awk -F'\t' -v k="$1" '{ sub(/\r$/, "") } $1 == k { print $2 }' "$tmp/Property.idt"; }
check "msi ProductVersion is $version" test "$(prop ProductVersion)" = "$version"
check "msi UpgradeCode is the fixed one" test "$(prop UpgradeCode)" = "{4CA7D9ED-B486-472A-B402-CE7386BDDF3C}"
check "msi has the Add/Remove Programs icon" test "$(prop ARPPRODUCTICON)" = switchboard.ico
# The PATH entry, added by the Makefile with msibuild (wixl has no
# Environment element): exactly one Environment row, appending [INSTALLDIR]
# to the system PATH for the ConsoleExe component and removing it with the
# component; and the two standard actions that apply it, at their standard
# sequence numbers, with no condition.
msiinfo export "$msi" Environment 2>/dev/null | tr -d '\r' | tail -n +4 >"$tmp/Environment.rows" || true
msiinfo export "$msi" InstallExecuteSequence 2>/dev/null | tr -d '\r' | tail -n +4 >"$tmp/InstallExecuteSequence.rows" || true
echo "  -- Environment"
sed 's/^/  /' "$tmp/Environment.rows"
echo "  -- InstallExecuteSequence (environment actions)"
grep 'EnvironmentStrings' "$tmp/InstallExecuteSequence.rows" | sed 's/^/  /' || echo "  (none)"
check "msi Environment table: exactly the row appending [INSTALLDIR] to the system PATH (=-*PATH, [~];[INSTALLDIR], ConsoleExe)" \
	test "$(cat "$tmp/Environment.rows")" = "$(printf 'SwitchboardPath\t=-*PATH\t[~];[INSTALLDIR]\tConsoleExe')"
for a in RemoveEnvironmentStrings:3300 WriteEnvironmentStrings:5200; do
	check "msi InstallExecuteSequence: ${a%%:*} at ${a#*:}, unconditional" \
		awk -F'\t' -v n="${a%%:*}" -v q="${a#*:}" '$1 == n { c++; if ($2 == "" && $3 == q) f = 1 } END { exit !(f && c == 1) }' \
		"$tmp/InstallExecuteSequence.rows"
done
# Open with Switchboard: wixl writes the ProgId, its verb and the
# extensions as Registry rows (root 0: HKEY_CLASSES_ROOT) of the tray's
# component.
msiinfo export "$msi" Registry 2>/dev/null | tr -d '\r' | tail -n +4 | cut -f2- >"$tmp/Registry.rows" || true
echo "  -- Registry"
sed 's/^/  /' "$tmp/Registry.rows"
for row in $'0\t.mcpb\t\tSwitchboard.Bundle\tTrayExe' $'0\t.dxt\t\tSwitchboard.Bundle\tTrayExe' \
	$'0\t.mcpb\tContent Type\tapplication/x-mcpb\tTrayExe' \
	$'0\t.mcpb\\OpenWithProgids\tSwitchboard.Bundle\t\tTrayExe' $'0\t.dxt\\OpenWithProgids\tSwitchboard.Bundle\t\tTrayExe' \
	$'0\tSwitchboard.Bundle\t\tMCP Bundle\tTrayExe' \
	$'0\tSwitchboard.Bundle\\shell\\open\\command\t\t"[#SwitchboardTrayExe]" bundles open "%1"\tTrayExe'; do
	check "msi Registry: HKCR $(tr '\t' ' ' <<<"${row:2}")" grep -qxF "$row" "$tmp/Registry.rows"
done
mkdir -p "$tmp/msi"
(cd "$tmp/msi" && msiextract "$OLDPWD/$msi" >/dev/null)
for exe in switchboard.exe switchboard-tray.exe switchboard-bridge.exe switchboard.mcpb; do
	got=$(find "$tmp/msi" -name "$exe" -type f | head -n1)
	check "msi cabinet: $exe is the built one, byte for byte" cmp -s "$got" "$win/$exe"
done

# The PE subsystem: 3 is the console, 2 the GUI (the optional header's
# Subsystem field, at e_lfanew + 0x5c).
subsystem() {
	local off
	off=$(od -An -tu4 -j 60 -N 4 "$1" | tr -d ' ')
	od -An -tu2 -j $((off + 92)) -N 2 "$1" | tr -d ' '
}
check "switchboard.exe is a console program" test "$(subsystem "$win/switchboard.exe")" = 3
check "switchboard-tray.exe is a GUI program (no console window)" test "$(subsystem "$win/switchboard-tray.exe")" = 2
check "switchboard-bridge.exe is a console program" test "$(subsystem "$win/switchboard-bridge.exe")" = 3
for exe in switchboard.exe switchboard-tray.exe; do
	check "$exe has a resource section (icon, manifest, version)" \
		bash -c "x86_64-w64-mingw32-objdump -h '$win/$exe' | grep -q '\.rsrc'"
done

# Both executables start and answer, as Windows programs under Wine (the
# same set-up as scripts/wine-test.sh: a fresh prefix, and the
# bcryptprimitives shim that Go 1.22+ needs on Wine 8). Then the MSI is
# installed for real with Wine's msiexec (Wine's msi.dll runs the same
# tables and actions, WriteEnvironmentStrings and RemoveEnvironmentStrings
# included): the files, the system PATH in the registry before, after the
# install and after the uninstall, and `switchboard version` typed in cmd,
# a new process that takes its PATH from the registry.
wine=$(command -v wine || command -v wine64 || true)
[[ -n $wine ]] || { [[ -x /usr/lib/wine/wine64 ]] && wine=/usr/lib/wine/wine64; }
wineserver=$(command -v wineserver || echo /usr/lib/wine/wineserver)
if [[ -z $wine || ! -x $wineserver ]]; then
	if [[ ${CI:-} == true ]]; then bad "wine64 is missing (scripts/deps.sh installs it)"; else echo "  (no wine: Windows run check SKIPPED)"; fi
else
	(
		export WINEPREFIX=$tmp/wine WINEDEBUG=-all WINEARCH=win64 WINESERVER=$wineserver WINEDLLOVERRIDES="mscoree=;mshtml="
		[[ $wine == */wine64 ]] && export WINELOADER=$wine
		"$wine" wineboot -i >"$tmp/wineboot.log" 2>&1 || exit 1
		x86_64-w64-mingw32-gcc -O2 -s -shared -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
			engine/testdata/wine/bcryptprimitives.c engine/testdata/wine/bcryptprimitives.def -ladvapi32 || exit 1
		for exe in switchboard.exe switchboard-tray.exe; do
			timeout 60 "$wine" "$win/$exe" version >"$tmp/$exe.out" 2>/dev/null || true
		done
		timeout 60 "$wine" "$win/switchboard-bridge.exe" --version >"$tmp/switchboard-bridge.exe.out" 2>/dev/null || true
		timeout 120 "$wine" "$win/switchboard.exe" bundles check "$("$wine" winepath -w "$PWD/$wmcpb" 2>/dev/null | tr -d '\r')" \
			>"$tmp/wcheck.out" 2>&1
		echo $? >"$tmp/wcheck.rc"

		syspath() {
			"$wine" reg query 'HKLM\System\CurrentControlSet\Control\Session Manager\Environment' /v PATH 2>/dev/null |
				tr -d '\r' | sed -n 's/^ *PATH *REG_[A-Z_]* *//p'
		}
		winmsi=$("$wine" winepath -w "$PWD/$msi" 2>/dev/null | tr -d '\r')
		syspath >"$tmp/path.before"
		timeout 300 "$wine" msiexec /i "$winmsi" /qn >"$tmp/msiexec-i.log" 2>&1
		echo $? >"$tmp/msiexec-i.rc"
		syspath >"$tmp/path.installed"
		"$wine" reg query 'HKCR\Switchboard.Bundle\shell\open\command' /ve 2>/dev/null | tr -d '\r' >"$tmp/assoc.installed"
		"$wine" reg query 'HKCR\.mcpb' /ve 2>/dev/null | tr -d '\r' >>"$tmp/assoc.installed"
		ls -1 "$WINEPREFIX/drive_c/Program Files/Switchboard" 2>/dev/null | LC_ALL=C sort >"$tmp/msi.installed"
		printf '@echo off\r\nswitchboard version\r\n' >"$WINEPREFIX/drive_c/sbversion.bat"
		timeout 60 "$wine" cmd /c 'C:\sbversion.bat' </dev/null >"$tmp/cmd.out" 2>/dev/null
		timeout 300 "$wine" msiexec /x "$winmsi" /qn >"$tmp/msiexec-x.log" 2>&1
		echo $? >"$tmp/msiexec-x.rc"
		syspath >"$tmp/path.removed"
		{
			"$wine" reg query 'HKCR\Switchboard.Bundle\shell\open\command' /ve
			"$wine" reg query 'HKCR\.mcpb' /ve
		} 2>/dev/null | tr -d '\r' >"$tmp/assoc.removed"
		"$wineserver" -k >/dev/null 2>&1 || true
	) || echo "  (wine prefix set-up failed: $(tail -n 3 "$tmp/wineboot.log" 2>/dev/null))"
	for exe in switchboard.exe switchboard-tray.exe; do
		got=$(tr -d '\r' <"$tmp/$exe.out" 2>/dev/null || true)
		echo "  wine $exe version: $got"
		check "$exe runs under Wine and prints 'switchboard $version'" test "$got" = "switchboard $version"
	done
	got=$(tr -d '\r' <"$tmp/switchboard-bridge.exe.out" 2>/dev/null || true)
	echo "  wine switchboard-bridge.exe --version: $got"
	check "switchboard-bridge.exe runs under Wine and prints 'switchboard-bridge $version'" test "$got" = "switchboard-bridge $version"
	echo "  wine switchboard.exe bundles check $wmcpb:"
	tr -d '\r' <"$tmp/wcheck.out" 2>/dev/null | sed 's/^/  /'
	check "switchboard.exe bundles check under Wine: the windows bundle has nothing wrong (exit 0)" \
		test "$(cat "$tmp/wcheck.rc" 2>/dev/null)" = 0

	echo "== wine msiexec /i, /x $msi"
	before=$(cat "$tmp/path.before" 2>/dev/null || true)
	installed=$(cat "$tmp/path.installed" 2>/dev/null || true)
	removed=$(cat "$tmp/path.removed" 2>/dev/null || true)
	echo "  system PATH before:    $before"
	echo "  after msiexec /i:      $installed"
	echo "  after msiexec /x:      $removed"
	check "msiexec /i under Wine exits 0" test "$(cat "$tmp/msiexec-i.rc" 2>/dev/null)" = 0
	check "installed: C:\Program Files\Switchboard holds switchboard.exe, switchboard-tray.exe, switchboard-bridge.exe and switchboard.mcpb" \
		test "$(tr '\n' ' ' <"$tmp/msi.installed" 2>/dev/null)" = "switchboard-bridge.exe switchboard-tray.exe switchboard.exe switchboard.mcpb "
	echo "  HKCR after msiexec /i:"
	sed 's/^/  /' "$tmp/assoc.installed" 2>/dev/null || true
	check "installed: HKCR\Switchboard.Bundle\shell\open\command runs switchboard-tray.exe bundles open \"%1\"" \
		grep -qF '"C:\Program Files\Switchboard\switchboard-tray.exe" bundles open "%1"' "$tmp/assoc.installed"
	check "installed: HKCR\.mcpb is Switchboard.Bundle" grep -q 'REG_SZ *Switchboard.Bundle$' "$tmp/assoc.installed"
	check "installed: the system PATH is the old one with ';C:\Program Files\Switchboard\' appended" \
		test -n "$before" -a "$installed" = "$before;"'C:\Program Files\Switchboard\'
	got=$(tr -d '\r' <"$tmp/cmd.out" 2>/dev/null || true)
	echo "  cmd> switchboard version: $got"
	check "cmd finds switchboard through PATH: 'switchboard version' prints 'switchboard $version'" \
		test "$got" = "switchboard $version"
	check "msiexec /x under Wine exits 0" test "$(cat "$tmp/msiexec-x.rc" 2>/dev/null)" = 0
	check "uninstalled: C:\Program Files\Switchboard is gone" test ! -e "$tmp/wine/drive_c/Program Files/Switchboard"
	echo "  HKCR after msiexec /x:"
	sed 's/^/  /' "$tmp/assoc.removed" 2>/dev/null || true
	check "uninstalled: the open command and .mcpb's Switchboard.Bundle are gone" \
		bash -c "! grep -qi 'REG_SZ.*switchboard' '$tmp/assoc.removed'"
	# Windows Installer removes the entry with its ';'; Wine 8's msi.dll
	# leaves the ';' (PATH ends in ';'), so compare the non-empty entries.
	# Wine also removes an appended entry whose Name lacks the '-' flag
	# (tried: "=*PATH" is removed too), so this check alone would not
	# catch a missing '-': the Environment row check above does.
	entries() { tr ';' '\n' <<<"$1" | grep -v '^$' || true; }
	check "uninstalled: the PATH entry is gone and the other entries are as before" \
		test -n "$before" -a "$(entries "$removed")" = "$(entries "$before")"
fi

# ---------------------------------------------------------------- macOS
echo "== darwin compile check"
if make -s darwin-check >"$tmp/darwin.log" 2>&1; then
	sed 's/^/  /' "$tmp/darwin.log"
	ok "darwin/arm64 and darwin/amd64 compile check (CGO_ENABLED=0 -tags ci)"
else
	sed 's/^/  /' "$tmp/darwin.log"
	bad "darwin compile check"
fi
# make app (on a Mac) merges this into the .app's Info.plist: the MCP
# Bundle document type, Open With for .mcpb and .dxt.
check "packaging/darwin/document-types.plist: CFBundleDocumentTypes (Viewer, Alternate) and the imported type for .mcpb and .dxt" \
	python3 -c '
import plistlib, sys
d = plistlib.load(open("packaging/darwin/document-types.plist", "rb"))
t, = d["CFBundleDocumentTypes"]
u, = d["UTImportedTypeDeclarations"]
tags = u["UTTypeTagSpecification"]
sys.exit(not (t["CFBundleTypeRole"] == "Viewer" and t["LSHandlerRank"] == "Alternate" and
	t["LSItemContentTypes"] == [u["UTTypeIdentifier"]] and "public.zip-archive" in u["UTTypeConformsTo"] and
	tags["public.filename-extension"] == ["mcpb", "dxt"] and tags["public.mime-type"] == ["application/x-mcpb"]))'
# The darwin switchboard.mcpb is packed by make app on a Mac; its manifest
# and packing are checked here with a cross-compiled bridge (no cgo).
d=$tmp/mcpb-darwin
mkdir -p "$d/server"
if GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 go build -o "$d/server/switchboard-bridge" ./app/bridge/cmd/switchboard-bridge &&
	go run ./packaging/mcpb -version "$version" -goos darwin -goarch arm64 -o "$d/manifest.json" &&
	cp packaging/icons/switchboard-512.png "$d/icon.png" && "$mcpb" validate "$d/manifest.json" >"$tmp/mcpb-darwin.log" 2>&1 &&
	"$mcpb" pack "$d" "$tmp/switchboard-darwin.mcpb" >>"$tmp/mcpb-darwin.log" 2>&1; then
	ok "the darwin/arm64 bundle: mcpb validate and mcpb pack (official CLI)"
else
	sed 's/^/  /' "$tmp/mcpb-darwin.log"
	bad "the darwin/arm64 bundle: mcpb validate and mcpb pack (official CLI)"
fi
check "switchboard bundles check: the darwin bundle names its platform, darwin" \
	bash -c "bin/linux-amd64/switchboard bundles check '$tmp/switchboard-darwin.mcpb' | grep -q '^platforms: darwin$'"

# The committed man page is the reviewers' copy; the packages carry one
# made from the binary they contain. Say when the copy is stale.
if ! cmp -s bin/pkg/switchboard.1 packaging/linux/switchboard.1; then
	echo "note: packaging/linux/switchboard.1 differs from 'switchboard help': run make man and commit it"
fi

echo "package-test: finished in $(since)"
echo "package-test: $passed passed, $failed failed"
((failed == 0))
