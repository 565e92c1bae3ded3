//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ShimMain is the exec shim (`switchboard __sandbox-exec PATH ARGV0
// ARGS...`, the policy in [PolicyEnv]): it confines its own thread with
// no_new_privs, Landlock and, for net none, the seccomp socket filter,
// then execve's PATH from that thread, so the server keeps the shim's
// pid, process group and pipes. The loader's variables the host carried in
// [CarryEnv] are set again only for that execve, after confinement. It returns only on failure (an exit code:
// 125 the sandbox could not be applied, 126/127 the server could not be
// run); it never runs the server unconfined.
func ShimMain(args []string) int {
	runtime.LockOSThread() // the confined thread is the one that execve's
	fail := func(code int, format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "switchboard sandbox: "+format+"\n", a...)
		return code
	}
	v, ok := os.LookupEnv(PolicyEnv)
	if !ok || len(args) < 2 {
		return fail(125, "usage: %s PATH ARGV0 [ARGS...] with the policy in %s (the host runs this; not for people)", ShimArg, PolicyEnv)
	}
	os.Unsetenv(PolicyEnv)
	p, s, bpf, err := decodePolicy(v)
	if err != nil {
		return fail(125, "%v", err)
	}
	carried, err := decodeCarried(os.Getenv(CarryEnv))
	if err != nil {
		return fail(125, "%v", err)
	}
	os.Unsetenv(CarryEnv)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail(125, "no_new_privs: %v", err)
	}
	if err := landlock(p, s); err != nil {
		return fail(125, "cannot apply the Landlock rules: %v", err)
	}
	if len(bpf) > 0 {
		if err := installSeccomp(bpf); err != nil {
			return fail(125, "cannot install the seccomp filter: %v", err)
		}
	}
	// The server gets its stdin, stdout and stderr, nothing else this
	// process inherited (a descriptor without close-on-exec would reach
	// past every rule: Landlock checks opening, not using).
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		return fail(125, "cannot close the inherited descriptors: %v", err)
	}
	// The server's loader variables, which this process started without
	// (a loader, libc or library acting on them would have run the
	// server's code unconfined): its execve, now confined, honours them.
	for _, e := range carried {
		k, val, _ := strings.Cut(e, "=")
		if err := os.Setenv(k, val); err != nil {
			return fail(125, "cannot set the carried variable %s: %v", k, err)
		}
	}
	err = unix.Exec(args[0], args[1:], os.Environ())
	code := 126
	if err == unix.ENOENT {
		code = 127
	}
	return fail(code, "cannot run %q in the sandbox: %v (is it in the sandbox's read list?)", args[0], err)
}

// decodePolicy reads EncodePolicy's lines back into the parts the shim
// enforces.
func decodePolicy(v string) (Policy, Support, []unix.SockFilter, error) {
	var p Policy
	var bpf []unix.SockFilter
	s := Support{Mechanism: "landlock"}
	lines := strings.Split(strings.TrimSuffix(v, "\n"), "\n")
	if len(lines) == 0 || lines[0] != policyVersion {
		return p, s, nil, fmt.Errorf("the policy in %s is not of this version of Switchboard (%q): install this version's shim", PolicyEnv, lines[0])
	}
	unesc := strings.NewReplacer("%0A", "\n", "%25", "%")
	for _, l := range lines[1:] {
		k, val, _ := strings.Cut(l, " ")
		var err error
		switch k {
		case "abi":
			s.ABI, err = strconv.Atoi(val)
		case "net":
			p.Net = NetMode(val)
		case "bpf":
			bpf, err = decodeSeccomp(val)
			s.NetNone = "seccomp"
		case "port":
			p.NetAllow = append(p.NetAllow, "*:"+val)
		case "r":
			p.Read = append(p.Read, unesc.Replace(val))
		case "w":
			p.Write = append(p.Write, unesc.Replace(val))
		default:
			err = fmt.Errorf("unknown item %q", k)
		}
		if err != nil {
			return p, s, nil, fmt.Errorf("the policy in %s cannot be read: line %q: %v", PolicyEnv, l, err)
		}
	}
	if s.ABI < 1 {
		return p, s, nil, fmt.Errorf("the policy in %s names no Landlock ABI", PolicyEnv)
	}
	return p, s, bpf, nil
}

// decodeCarried reads CarryEnv's value back into NAME=VALUE entries (the
// Go shim; the C shim reads the same lines).
func decodeCarried(v string) ([]string, error) {
	if v == "" {
		return nil, nil
	}
	unesc := strings.NewReplacer("%0A", "\n", "%25", "%")
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(v, "\n"), "\n") {
		e := unesc.Replace(l)
		if k, _, ok := strings.Cut(e, "="); !ok || k == "" {
			return nil, fmt.Errorf("the environment carried in %s cannot be read: line %q is not NAME=VALUE", CarryEnv, l)
		}
		out = append(out, e)
	}
	return out, nil
}
