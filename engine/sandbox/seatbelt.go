package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// SeatbeltExec is the macOS program that runs a command under an SBPL
// profile. The absolute path, never a PATH lookup (as Codex does).
const SeatbeltExec = "/usr/bin/sandbox-exec"

// MechanismSeatbelt is [Support.Mechanism] on macOS: the server runs under
// SeatbeltExec with the profile [SeatbeltProfile] writes.
const MechanismSeatbelt = "seatbelt"

// seatbeltUntested is said wherever macOS's enforcement is reported: the
// profile is generated and tested as text on Linux, never run on a Mac by
// this project's tests (docs/sandbox.md, "macOS").
const seatbeltUntested = "the Seatbelt profile has not been run on a Mac by Switchboard's tests (docs/sandbox.md)"

// seatbeltSupport is [Probe] on macOS, given what stat said of
// SeatbeltExec: Seatbelt when it is there (it ships with every macOS).
func seatbeltSupport(fi fs.FileInfo, err error) Support {
	switch {
	case err != nil:
		return Support{Detail: SeatbeltExec + " cannot be used (" + err.Error() + "); it ships with macOS"}
	case !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0:
		return Support{Detail: SeatbeltExec + " is not an executable file; it ships with macOS"}
	}
	return Support{Mechanism: MechanismSeatbelt, NetNone: MechanismSeatbelt, Detail: seatbeltUntested}
}

// seatbeltSupportString is [Support.String] for Seatbelt, for `doctor`.
func seatbeltSupportString(s Support) string {
	str := "seatbelt (" + SeatbeltExec + "): files by path, TCP connect by port (host: localhost or any), " +
		"Unix sockets by path, signals and process information within the sandbox; net none blocks every socket but Unix ones"
	if s.Detail != "" {
		str += "; " + s.Detail
	}
	return str
}

// seatbeltUnavailable is [UnavailableError]'s words on macOS.
func seatbeltUnavailable(e *UnavailableError) string {
	return fmt.Sprintf("server %q: sandbox requested but not available on this Mac (%s): set \"sandboxRequired\": false to start it unconfined, or \"sandbox\": \"off\"", e.Server, e.Reason)
}

// seatbeltPlan is [Plan] for Seatbelt: what the profile of p enforces and
// what it does not.
func seatbeltPlan(p Policy, s Support) Status {
	st := Status{Preset: p.Preset, Mechanism: s.Mechanism, Net: MechanismSeatbelt}
	st.Enforced = append(st.Enforced, fmt.Sprintf("files: read %d paths, write %d paths, nothing else (Seatbelt)", len(p.Read), len(p.Write)))
	switch p.Net {
	case NetOutbound:
		st.Enforced = append(st.Enforced, "network: outbound IP connections only, no listening (Seatbelt)")
	case NetAllow:
		st.Enforced = append(st.Enforced, fmt.Sprintf("network: TCP connect only to ports %s, no UDP, no listening (Seatbelt)", joinPorts(serverspec.AllowPorts(p.NetAllow))))
		st.NotEnforced = append(st.NotEnforced, "hosts: SBPL filters name no host but localhost (any host on an allowed port is reachable)")
	default:
		st.Enforced = append(st.Enforced, "network: no sockets but Unix ones (Seatbelt)")
	}
	st.Enforced = append(st.Enforced,
		fmt.Sprintf("Unix sockets: connect only to the %d listed and within its private temp, bind only there (Seatbelt)", len(p.Unix)),
		"signals and process information only within the sandbox (Seatbelt)",
		"Mach services: the user database and notifications only, and name resolution and TLS trust with the network (Seatbelt)")
	st.NotEnforced = append(st.NotEnforced,
		"sysctl reads and POSIX semaphores (machine settings, no user data)",
		"verified only as text: "+seatbeltUntested)
	return st
}

// darwinSystemRead are the parts of macOS every process reads: the
// dynamic loader and its shared cache (in a cryptex since macOS 13), the
// system libraries and frameworks, the shells npx and uv start scripts
// through, the time zones, the locale data and the CA files.
var darwinSystemRead = []string{
	"/bin",
	"/usr/bin",
	"/usr/lib",
	"/usr/libexec",
	"/usr/share",
	"/System/Library",
	"/System/Volumes/Preboot/Cryptexes",
	"/Library/Apple/System/Library",
	"/private/var/db/dyld",
	"/private/var/db/timezone",
	"/private/etc/ssl",
	"/private/etc/localtime",
	"/private/etc/hosts",
	"/private/etc/resolv.conf",
	"/private/etc/services",
	"/private/etc/protocols",
	"/dev/urandom",
	"/dev/random",
}

// seatbeltMachBase are the Mach services a node or python process needs
// with no network: the user database (os.userInfo, pwd.getpwuid, the home
// directory) and the notification centre libSystem uses to learn of time
// zone changes.
var seatbeltMachBase = []string{
	"com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.notification_center",
}

// seatbeltMachNet are the Mach services name resolution and TLS need when
// the server may use the network (as Codex's and Chromium's network
// policies list them).
var seatbeltMachNet = []string{
	"com.apple.SystemConfiguration.DNSConfiguration",
	"com.apple.SystemConfiguration.configd",
	"com.apple.dnssd.service",
	"com.apple.networkd",
	"com.apple.SecurityServer",
	"com.apple.trustd.agent",
	"com.apple.ocspd",
}

// mDNSResponder is the Unix socket getaddrinfo asks on macOS.
const mDNSResponder = "/private/var/run/mDNSResponder"

// SeatbeltProfile returns the SBPL profile, for `sandbox-exec -p`, that
// confines a server to p plus the runtime's needs n. Everything is denied
// but what is listed: executing the resolved executable and what lies in
// the read list; reading the read list, the runtime's paths and the
// system's libraries; writing the write list and the private temp; Unix
// sockets: connecting to those p.Unix lists (each its exact path) and
// binding and connecting within the private temp n.Temp, no other; the
// network as p.Net says; signals and process information only within the
// sandbox; the few Mach services a node or python process needs. n.Deny
// come last, denied whatever the lists say.
//
// Paths are absolute and should already be resolved (EvalSymlinks: the
// kernel matches the real path); /tmp, /var and /etc are rewritten to
// their /private targets here. A path with a control character is left
// out (denied) and the profile says so in a comment. Every other path is
// an SBPL string literal with `\` and `"` escaped, so no path can end its
// string and add rules.
//
// The policy's zero value (Enabled false) yields "": no profile, no
// sandbox-exec.
func SeatbeltProfile(p Policy, n Needs) string {
	if !p.Enabled {
		return ""
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	read := cleanPaths(append(append(append([]string{}, p.Read...), n.Read...), darwinSystemRead...))
	write := cleanPaths(append(append([]string{}, p.Write...), n.Write...))
	var dropped int
	read, d1 := dropControl(read)
	write, d2 := dropControl(write)
	unix, d3 := dropControl(cleanPaths(p.Unix))
	deny, d4 := dropControl(cleanPaths(n.Deny))
	exe, temp := "", ""
	if n.Exec != "" {
		if e := darwinPath(n.Exec); !hasControl(e) {
			exe = e
		} else {
			dropped++
		}
	}
	if n.Temp != "" && strings.HasPrefix(n.Temp, "/") {
		if t := darwinPath(n.Temp); !hasControl(t) {
			temp = t
		} else {
			dropped++
		}
	}
	dropped += d1 + d2 + d3

	w("(version 1)\n")
	w("; Switchboard: one MCP server's sandbox (docs/sandbox.md), generated; preset %s\n", sbplComment(presetName(p)))
	w("(deny default)\n")
	if dropped > 0 {
		w("; %d path(s) with control characters left out: denied\n", dropped)
	}

	w("\n; processes: the server and what it runs from its read list; children inherit the profile\n")
	w("(allow process-fork)\n")
	var execs []string
	if exe != "" {
		execs = append(execs, "(literal "+sbplString(exe)+")")
	}
	w("%s", sbplRule("process-exec", append(execs, filters("subpath", read)...)))
	w("(allow signal (target same-sandbox))\n")
	w("(allow process-info* (target same-sandbox))\n")
	w("(allow sysctl-read)\n")
	w("(allow mach-host*)\n") // libuv's os.cpus() reads host_processor_info
	w("(allow user-preference-read)\n")
	w("(allow ipc-posix-sem)\n") // python multiprocessing's SemLock
	w("(allow mach-lookup\n")
	for _, m := range seatbeltMachBase {
		w("  (global-name %s)\n", sbplString(m))
	}
	w(")\n")

	w("\n; files\n")
	if anc := ancestors(append(append(append([]string{}, read...), write...), exe)); len(anc) > 0 {
		w("(allow file-read-metadata") // realpath and module resolution stat every parent
		for _, a := range anc {
			w("\n  (literal %s)", sbplString(a))
		}
		w(")\n")
	}
	w("%s", sbplRule("file-read*", append(execs, filters("subpath", append(append([]string{}, read...), write...))...)))
	w("(allow file-read* file-write-data (literal \"/dev/null\") (literal \"/dev/zero\"))\n")
	w("%s", sbplRule("file-write*", filters("subpath", write)))

	// Unix sockets, in every mode. socket(2) and socketpair(2) of AF_UNIX
	// are allowed (node and python make socket pairs; a socket has no
	// address yet); what it may reach is by path: the listed sockets, each
	// its exact path, and the private temp (the server's own folder, where
	// no other program's socket lives). Seatbelt matches the socket's real
	// path, so a link planted in the temp leads nowhere else. One filter
	// per path: paths inside one unix-socket filter would all have to
	// match. Nothing else: no (allow network-outbound) without a filter in
	// any mode, as that would reach every Unix socket of the user.
	w("\n; Unix sockets: connect to the %d listed and within the private temp, bind only in the private temp; no other\n", len(unix))
	w("(allow system-socket (socket-domain AF_UNIX))\n")
	connect := wrap("remote unix-socket", filters("path-literal", unix))
	if temp != "" {
		connect = append(connect, "(remote unix-socket (subpath "+sbplString(temp)+"))")
		w("(allow network-bind (local unix-socket (subpath %s)))\n", sbplString(temp))
	}
	w("%s", sbplRule("network-outbound", connect))

	w("\n; network: %s\n", sbplComment(netName(p)))
	dns := "(remote unix-socket (path-literal " + sbplString(mDNSResponder) + "))"
	switch p.Net {
	case NetOutbound:
		// IP only: an unfiltered network-outbound would also connect to
		// every Unix socket. Name resolution goes through mDNSResponder.
		w("%s", sbplRule("network-outbound", []string{`(remote ip "*:*")`, dns}))
		w("(allow system-socket)\n")
		seatbeltNetMach(w)
	case NetAllow:
		rules, notes := seatbeltAllow(p.NetAllow)
		for _, note := range notes {
			w("; %s\n", sbplComment(note))
		}
		if len(rules) > 0 {
			w("%s", sbplRule("network-outbound", append([]string{dns}, rules...)))
			w("(allow system-socket)\n")
			seatbeltNetMach(w)
		}
	default: // NetNone and anything unknown: no network beyond Unix sockets
		w("; no network: every socket but the Unix ones above is denied\n")
	}

	if len(deny) > 0 || d4 > 0 {
		w("\n; never given, whatever the lists say: credentials and Switchboard's own state (the last matching rule wins)\n")
		if d4 > 0 {
			w("; %d protected path(s) with control characters cannot be written here\n", d4)
		}
		w("%s", sbplRuleOp("deny", "file-read* file-write*", filters("subpath", deny)))
		// The private temp may lie in a protected folder (the host's
		// runtime folder): the server's own temp, and the metadata of the
		// folders down to it, are opened again after the deny.
		if reopen, inside := foldersIn(temp, deny); inside {
			w("; the private temp lies in a protected folder: it alone is opened again\n")
			w("%s", sbplRule("file-read-metadata", filters("literal", reopen)))
			w("%s", sbplRule("file-read* file-write*", filters("subpath", []string{temp})))
		}
	}
	return b.String()
}

// sbplRule is "(allow OP FILTER...)" on lines of their own, or "" when
// there is no filter: an allow without a filter would allow everything.
func sbplRule(op string, filters []string) string {
	return sbplRuleOp("allow", op, filters)
}

// sbplRuleOp is "(ACTION OP FILTER...)", or "" when there is no filter.
func sbplRuleOp(action, op string, filters []string) string {
	if len(filters) == 0 {
		return ""
	}
	return "(" + action + " " + op + "\n  " + strings.Join(filters, "\n  ") + ")\n"
}

// filters are "(KIND "path")" for each path.
func filters(kind string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = "(" + kind + " " + sbplString(p) + ")"
	}
	return out
}

// wrap puts each filter inside "(OUTER filter)".
func wrap(outer string, fs []string) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = "(" + outer + " " + f + ")"
	}
	return out
}

func seatbeltNetMach(w func(string, ...any)) {
	w("(allow mach-lookup\n")
	for _, m := range seatbeltMachNet {
		w("  (global-name %s)\n", sbplString(m))
	}
	w(")\n")
}

// SeatbeltCommand is the launch that runs argv under p on macOS:
// SeatbeltExec with "-p PROFILE --" before argv (the "--" ends
// sandbox-exec's options, so an argv[0] starting with "-" stays the
// command). A disabled policy returns argv as it is. Paths are taken as
// given: [SeatbeltLaunch] resolves their links first.
func SeatbeltCommand(p Policy, n Needs, argv []string) (path string, args []string) {
	if !p.Enabled || len(argv) == 0 {
		return first(argv), argv
	}
	if n.Exec == "" {
		n.Exec = argv[0]
	}
	return SeatbeltExec, append([]string{SeatbeltExec, "-p", SeatbeltProfile(p, n), "--"}, argv...)
}

// SeatbeltLaunch returns the launch that runs argv (argv[0] the
// executable's absolute path) under p on macOS: SeatbeltExec -p PROFILE --
// argv... The profile allows the resolved executable and the runtime's
// needs n; every path is resolved through its symbolic links first, as
// Seatbelt matches real paths (Homebrew's node is a link into its Cellar).
// sandbox-exec applies the profile to itself and execs argv[0] in the same
// process, so the pid, the process group and the stop ladder are the
// engine's as without a sandbox; argv[0] is the path (sandbox-exec cannot
// give the server another argv[0]). A disabled policy returns argv as it
// is.
func SeatbeltLaunch(p Policy, n Needs, argv []string) (path string, args []string, err error) {
	if len(argv) == 0 || argv[0] == "" {
		return "", nil, errors.New("sandbox: no executable to confine")
	}
	if !p.Enabled {
		return argv[0], argv, nil
	}
	if !filepath.IsAbs(argv[0]) {
		// sandbox-exec looks a name without a slash up in PATH.
		return "", nil, fmt.Errorf("sandbox: %q is not an absolute path: sandbox-exec would look it up in PATH", argv[0])
	}
	if n.Exec == "" {
		n.Exec = argv[0]
	}
	p.Read, p.Write, p.Unix = realPaths(p.Read), realPaths(p.Write), realPaths(p.Unix)
	n.Read, n.Write, n.Deny = realPaths(n.Read), realPaths(n.Write), realPaths(n.Deny)
	n.Exec, n.Temp = realPath(n.Exec), realPath(n.Temp)
	path, args = SeatbeltCommand(p, n, argv)
	return path, args, nil
}

// realPaths resolves each path's symbolic links (realPath).
func realPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, realPath(p))
	}
	return out
}

// realPath resolves p's symbolic links. For a path that does not exist
// yet (a socket its daemon has not made, a credential file not written),
// its longest existing ancestor is resolved and the rest kept as written.
func realPath(p string) string {
	if p == "" {
		return ""
	}
	rest := ""
	for q := filepath.Clean(p); ; {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(q)
		if parent == q {
			return p
		}
		rest = filepath.Join(filepath.Base(q), rest)
		q = parent
	}
}

func first(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	return argv[0]
}

// seatbeltNotes says what of p a Seatbelt profile cannot enforce as asked,
// in words for the server's status: an allow-list host other than the
// local machine is widened to its port on every host, as SBPL's network
// filters name only "*" or "localhost" as the host.
func seatbeltNotes(p Policy) []string {
	if !p.Enabled || p.Net != NetAllow {
		return nil
	}
	_, notes := seatbeltAllow(p.NetAllow)
	return notes
}

// seatbeltAllow turns "host:port" endpoints into SBPL remote filters.
// SBPL's (remote tcp "HOST:PORT") takes only "*" or "localhost" as HOST,
// so another host becomes "*:PORT" (any host, that port) with a note;
// Linux's Landlock is port-only as well, so both OSes enforce the same.
func seatbeltAllow(allow []string) (rules, notes []string) {
	seen := map[string]bool{}
	for _, ep := range allow {
		host, port, err := net.SplitHostPort(ep)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil || n < 1 || n > 65535 {
			notes = append(notes, fmt.Sprintf("%q is not host:port: left out (denied)", ep))
			continue
		}
		h := "*"
		switch strings.ToLower(host) {
		case "localhost", "127.0.0.1", "::1":
			h = "localhost"
		case "*":
		default:
			notes = append(notes, fmt.Sprintf("%s: SBPL names no host but localhost; allowed as any host on port %d", ep, n))
		}
		r := fmt.Sprintf("(remote tcp %s)", sbplString(h+":"+strconv.Itoa(n)))
		if !seen[r] {
			seen[r] = true
			rules = append(rules, r)
		}
	}
	return rules, notes
}

// sbplString is s as an SBPL (TinyScheme) string literal: `\` and `"`
// escaped. Callers leave out strings with control characters.
func sbplString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// sbplComment keeps a comment on its line.
func sbplComment(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

func hasControl(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0
}

func dropControl(paths []string) (kept []string, dropped int) {
	for _, p := range paths {
		if hasControl(p) {
			dropped++
			continue
		}
		kept = append(kept, p)
	}
	return kept, dropped
}

// darwinPath cleans an absolute path and rewrites /tmp, /var and /etc to
// the /private directories they link to on macOS (Seatbelt matches the
// real path).
func darwinPath(p string) string {
	p = path.Clean(p)
	for _, top := range []string{"/tmp", "/var", "/etc"} {
		if p == top || strings.HasPrefix(p, top+"/") {
			return "/private" + p
		}
	}
	return p
}

// cleanPaths cleans, rewrites, sorts and deduplicates; relative paths
// (never valid in a policy) are left out.
func cleanPaths(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if !strings.HasPrefix(p, "/") {
			continue
		}
		p = darwinPath(p)
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// foldersIn reports whether p lies in (or is) one of the denied paths,
// and the folders above p that do.
func foldersIn(p string, denied []string) (folders []string, inside bool) {
	in := func(q string) bool {
		for _, d := range denied {
			if q == d || strings.HasPrefix(q, d+"/") || d == "/" {
				return true
			}
		}
		return false
	}
	if p == "" || !in(p) {
		return nil, false
	}
	for a := path.Dir(p); in(a); a = path.Dir(a) {
		folders = append([]string{a}, folders...)
		if a == "/" {
			break
		}
	}
	return folders, true
}

// ancestors are the directories above the paths, "/" included, sorted.
func ancestors(paths []string) []string {
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		for d := path.Dir(p); ; d = path.Dir(d) {
			seen[d] = true
			if d == "/" || d == "." {
				break
			}
		}
	}
	delete(seen, ".")
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

func presetName(p Policy) string {
	if p.Preset == "" {
		return "custom"
	}
	return p.Preset
}

func netName(p Policy) string {
	switch p.Net {
	case NetOutbound:
		return "outbound"
	case NetAllow:
		return "allow-list " + strings.Join(p.NetAllow, ",")
	default:
		return "none"
	}
}
