package sandbox

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// ABIEnv, for tests only, caps the Landlock ABI [Probe] reports on Linux
// (0 simulates a kernel without Landlock): SWITCHBOARD_LANDLOCK_ABI=0. It
// is read only by a test binary or a build with the switchboard_testhooks
// tag (internal/testhooks): the shipped program ignores it, so that no
// environment can turn the sandbox off (docs/environment.md).
const ABIEnv = "SWITCHBOARD_LANDLOCK_ABI"

// Support is what this machine can enforce (see [Probe]).
type Support struct {
	// Mechanism is the confinement used: "landlock" on Linux, "seatbelt"
	// on macOS (MechanismSeatbelt); "" when none is available.
	Mechanism string
	// ABI is Landlock's ABI version (0: no Landlock).
	ABI int
	// NetNone is how "net": "none" blocks the socket families Landlock
	// does not filter (UDP, raw, netlink...): "seccomp", or "" if it cannot.
	NetNone string
	// Detail says why the sandbox is not available, or what is missing.
	Detail string
}

// Available reports whether a policy can be enforced at all.
func (s Support) Available() bool { return s.Mechanism != "" }

// String says it in words, for `switchboard doctor`.
func (s Support) String() string {
	if !s.Available() {
		return "not available: " + s.Detail
	}
	if s.Mechanism == MechanismSeatbelt { // macOS (seatbelt.go)
		return seatbeltSupportString(s)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s ABI %d: files", s.Mechanism, s.ABI)
	if s.ABI >= 4 {
		b.WriteString(", TCP bind/connect by port")
	}
	if s.ABI >= 6 {
		b.WriteString(", signal and abstract-socket scoping")
	}
	if s.NetNone != "" {
		b.WriteString("; no Unix sockets, listening, io_uring or key rings in any preset, and net none also blocks UDP and other socket families (" + s.NetNone + ")")
	}
	if s.Detail != "" {
		b.WriteString("; " + s.Detail)
	}
	return b.String()
}

// Status is what was enforced on one server process.
type Status struct {
	// Preset is the policy's preset ("" for a hand-written object).
	Preset string
	// Mechanism is "landlock" or "seatbelt", or "" when the server runs
	// unconfined.
	Mechanism string
	// ABI is the Landlock ABI the rules were written for.
	ABI int
	// Enforced lists the parts enforced, in words.
	Enforced []string
	// NotEnforced lists what the policy asks that this machine cannot
	// enforce, in words.
	NotEnforced []string
	// Net is how the network part is enforced ("landlock", "landlock+seccomp").
	Net string
	// Unconfined: the sandbox could not be applied and the entry said
	// "sandboxRequired": false, so the server runs with all the user's rights.
	Unconfined bool
}

// UnavailableError means a server's sandbox cannot be enforced on this
// machine and the entry requires it: the server is not started.
type UnavailableError struct {
	Server string
	Reason string // what is missing: "Landlock ABI 0: ..."
}

func (e *UnavailableError) Error() string {
	if runtime.GOOS == "darwin" { // macOS (seatbelt.go)
		return seatbeltUnavailable(e)
	}
	return fmt.Sprintf("server %q: sandbox requested but not available on this kernel (%s): run a kernel with Landlock enabled (Linux 5.13 or later, \"landlock\" in the lsm= boot list), or set \"sandboxRequired\": false to start it unconfined", e.Server, e.Reason)
}

// Plan says what enforcing p with support s does and does not cover. The
// shim enforces exactly this plan; the host reports it.
func Plan(p Policy, s Support) Status {
	st := Status{Preset: p.Preset, Mechanism: s.Mechanism, ABI: s.ABI}
	if !s.Available() {
		st.Unconfined = true
		st.NotEnforced = []string{"everything: " + s.Detail}
		return st
	}
	if s.Mechanism == MechanismSeatbelt { // macOS (seatbelt.go)
		return seatbeltPlan(p, s)
	}
	st.Enforced = append(st.Enforced, fmt.Sprintf("files: read %d paths, write %d paths (Landlock)", len(p.Read), len(p.Write)))
	if s.ABI < 2 {
		st.NotEnforced = append(st.NotEnforced, "moving files between directories (Landlock ABI 2)")
	}
	if s.ABI < 3 {
		st.NotEnforced = append(st.NotEnforced, "truncating files (Landlock ABI 3)")
	}
	switch net := p.Net; {
	case s.ABI < 4:
		st.NotEnforced = append(st.NotEnforced, "TCP (Landlock ABI 4)")
		if net == NetNone && s.NetNone != "" {
			st.Enforced = append(st.Enforced, "network: no sockets ("+s.NetNone+")")
			st.Net = s.NetNone
		}
	case net == NetNone || net == "":
		st.Enforced = append(st.Enforced, "network: no TCP bind or connect (Landlock)")
		st.Net = "landlock"
		if s.NetNone != "" {
			st.Enforced = append(st.Enforced, "network: no UDP, raw or other sockets ("+s.NetNone+")")
			st.Net = "landlock+" + s.NetNone
		} else {
			st.NotEnforced = append(st.NotEnforced, "UDP and other socket families (no seccomp)")
		}
	case net == NetOutbound:
		st.Enforced = append(st.Enforced, "network: outbound only, no TCP listening (Landlock)")
		st.Net = "landlock"
	case net == NetAllow:
		ports := serverspec.AllowPorts(p.NetAllow)
		st.Enforced = append(st.Enforced, fmt.Sprintf("network: TCP connect only to ports %s, no TCP listening (Landlock)", joinPorts(ports)))
		st.NotEnforced = append(st.NotEnforced, "hosts: Landlock filters TCP ports, not hosts (any host on an allowed port is reachable)",
			"UDP (DNS must work; Landlock ABI < 10 does not filter UDP)")
		st.Net = "landlock"
	}
	if s.NetNone != "" {
		st.Enforced = append(st.Enforced, "Unix sockets: none can be opened, named or abstract; socketpair works ("+s.NetNone+")",
			"io_uring and the kernel key rings: closed ("+s.NetNone+")")
		if s.NetNone == "seccomp" && st.Net == "landlock" {
			st.Net = "landlock+seccomp"
		}
	} else {
		st.NotEnforced = append(st.NotEnforced, "Unix sockets, io_uring and the kernel key rings (no seccomp on this machine)")
	}
	if len(p.Unix) > 0 {
		st.NotEnforced = append(st.NotEnforced, fmt.Sprintf("the %d Unix sockets the entry grants: Linux cannot allow one socket by its path (Landlock does not govern connect), so none is reachable", len(p.Unix)))
	}
	if s.ABI >= 6 {
		st.Enforced = append(st.Enforced, "signals and abstract Unix sockets only within the sandbox (Landlock scoping)")
	} else {
		st.NotEnforced = append(st.NotEnforced, "signal and abstract-socket scoping (Landlock ABI 6)")
	}
	return st
}

func joinPorts(ps []uint16) string {
	if len(ps) == 0 {
		return "(none)"
	}
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = fmt.Sprint(p)
	}
	return strings.Join(s, ", ")
}

// The exec shim (docs/sandbox.md): the host runs
//
//	SHIM __sandbox-exec /resolved/server argv0 args...
//
// with the policy as JSON in PolicyEnv; the shim removes PolicyEnv from the
// environment, confines itself and execve's the server (same pid).
const (
	ShimArg   = "__sandbox-exec"
	PolicyEnv = "SWITCHBOARD_SANDBOX_POLICY"
	// policyVersion is the policy's first line; a shim of another version
	// refuses it (exit 125) rather than enforce part of it. 3: the
	// loader's variables come in CarryEnv (a shim of 2 would drop them).
	policyVersion = "switchboard-sandbox 3"
)

// EncodePolicy is the value of PolicyEnv for p enforced with s: what the
// shim needs and nothing else (paths and ports, never a secret), one item
// a line, so that the C shim (cshim) reads it as easily as the Go one:
//
//	switchboard-sandbox 3
//	abi 7
//	net none            (none, outbound, allow)
//	bpf 2000000004000000...  (the seccomp program, in hex: see seccompFilter)
//	port 443            (allow: one line a port)
//	r /usr              (read and execute beneath)
//	w /tmp/x            (read and write beneath)
//
// A path's % and line feed are written %25 and %0A.
func EncodePolicy(p Policy, s Support) string {
	var b strings.Builder
	net := p.Net
	if net == "" {
		net = NetNone
	}
	fmt.Fprintf(&b, "%s\nabi %d\nnet %s\n", policyVersion, s.ABI, net)
	if s.NetNone == "seccomp" {
		if h := seccompLine(net == NetNone); h != "" {
			b.WriteString("bpf " + h + "\n")
		}
	}
	if net == NetAllow {
		for _, port := range serverspec.AllowPorts(p.NetAllow) {
			fmt.Fprintf(&b, "port %d\n", port)
		}
	}
	esc := strings.NewReplacer("%", "%25", "\n", "%0A")
	for _, r := range p.Read {
		b.WriteString("r " + esc.Replace(r) + "\n")
	}
	for _, w := range p.Write {
		b.WriteString("w " + esc.Replace(w) + "\n")
	}
	return b.String()
}
