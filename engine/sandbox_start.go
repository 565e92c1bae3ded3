package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// probeSandbox is sandbox.Probe; tests replace nothing, they cap the ABI
// with sandbox.ABIEnv.
var probeSandbox = sandbox.Probe

// checkSandbox validates the spec's sandbox policy (Spec.Check).
func (s *Spec) checkSandbox(bad func(key, format string, args ...any)) {
	p := &s.Sandbox
	if !p.Enabled {
		return
	}
	for _, l := range []struct {
		key   string
		paths []string
	}{{"sandbox.read", p.Read}, {"sandbox.write", p.Write}, {"sandbox.unix", p.Unix}} {
		for i, path := range l.paths {
			switch {
			case strings.ContainsRune(path, 0):
				bad(fmt.Sprintf("%s[%d]", l.key, i), "contains a NUL byte")
			case !filepath.IsAbs(path):
				bad(fmt.Sprintf("%s[%d]", l.key, i), "%q is not an absolute path: give an absolute path (~ is expanded)", path)
			}
		}
	}
	switch p.Net {
	case "":
		p.Net = sandbox.NetNone
	case sandbox.NetNone, sandbox.NetOutbound:
	case sandbox.NetAllow:
		if len(p.NetAllow) == 0 {
			bad("sandbox.net", `lists no endpoint: write ["host:port", ...], or "none" or "outbound"`)
		}
		for i, e := range p.NetAllow {
			if len(serverspec.AllowPorts([]string{e})) == 0 {
				bad(fmt.Sprintf("sandbox.net[%d]", i), `%q is not "host:port" with a port from 1 to 65535`, e)
			}
		}
	default:
		bad("sandbox.net", `%q is not "none", "outbound" or a list of "host:port"`, p.Net)
	}
}

// sandboxLaunch prepares the start of a sandboxed server: the policy with
// the runtime's needs, the private temp directory in env, and the launch
// through the shim. It returns the launch to run (launch itself when the
// server runs unconfined), the status to report, and carried, the memory
// of the entry that carries the loader's variables to the shim
// (carryLoaderEnv; nil if none): a value may be a secret's, so the caller
// zeroes it once the process is started.
func sandboxLaunch(spec *Spec, launch *Launch, opts StartOptions, env []string, path string) (*Launch, []string, *sandbox.Status, []byte, error) {
	pol := spec.Sandbox
	sup := probeSandbox()
	if !sup.Available() {
		if pol.Required {
			return nil, nil, nil, nil, &sandbox.UnavailableError{Server: spec.Name, Reason: sup.Detail}
		}
		st := sandbox.Plan(pol, sup)
		return launch, env, &st, nil, nil
	}
	home, _ := lookupEnv(env, "HOME", goosName)
	protected := serverspec.Protected(home, opts.Protected...)
	// The config refuses these first; a spec from elsewhere is refused
	// here all the same: a grant of HOME or of a credential file is no
	// sandbox.
	for _, l := range []struct {
		key   string
		paths []string
	}{{"sandbox.read", pol.Read}, {"sandbox.write", pol.Write}, {"sandbox.unix", pol.Unix}} {
		for i, p := range l.paths {
			if why := serverspec.WideGrant(p, home, protected); why != "" {
				return nil, nil, nil, nil, fmt.Errorf(`server %q: %s[%d]: %q cannot be given to a sandboxed server: %s; name a narrower folder, or set "sandbox": "off" to run it unconfined`, spec.Name, l.key, i, p, why)
			}
		}
	}
	args := spec.Args
	if d, ok := npxDirect(spec, launch, env, home); ok {
		// The package the host's warm-up installed, run without npx
		// (sandbox_npx.go); status still shows the entry's command.
		args, launch = d.Args[1:], &Launch{Path: d.Path, Args: d.Args, Resolved: launch.Resolved}
	}
	if sup.Mechanism == sandbox.MechanismSeatbelt { // macOS: sandbox-exec, no shim (sandbox_seatbelt.go)
		run, env, st, err := seatbeltLaunch(spec, launch, args, opts, env, path, sup, home, protected)
		return run, env, st, nil, err
	}
	if sup.NetNone == "" && pol.Required {
		// Without seccomp a server could open any Unix socket of the user
		// (the host's, the keyring's D-Bus): that is not a sandbox.
		return nil, nil, nil, nil, &sandbox.UnavailableError{Server: spec.Name, Reason: "no seccomp filter: Unix sockets cannot be closed; " + sup.Detail}
	}
	if opts.Shim == "" {
		return nil, nil, nil, nil, fmt.Errorf("server %q: the sandbox needs the exec shim, and StartOptions.Shim is not set", spec.Name)
	}
	rt, env, err := sandboxRuntime(spec, launch, args, opts, env, path, home, protected)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	read, write := rt.Needs()
	pol.Read = append(append([]string(nil), pol.Read...), read...)
	pol.Write = append(append([]string(nil), pol.Write...), write...)
	env = setEnv(env, sandbox.PolicyEnv, sandbox.EncodePolicy(pol, sup))
	env, carried := carryLoaderEnv(env)
	st := sandbox.Plan(pol, sup)
	shim := &Launch{Path: opts.Shim, Args: append([]string{opts.Shim, sandbox.ShimArg, launch.Path}, launch.Args...), Resolved: launch.Resolved}
	return shim, env, &st, carried, nil
}

// carryLoaderEnv moves the variables the dynamic loader, glibc or a
// linked library would act on while the shim starts (sandbox.LoaderVar:
// LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, GCONV_PATH, GLIBC_TUNABLES, ...)
// out of the shim's environment into sandbox.CarryEnv, which the shim
// reads and sets again only for the server's execve, once it is confined.
// Left in place, an entry's LD_PRELOAD would run its library in a
// dynamically linked shim (the switchboard binary, when switchboard-
// sandbox is not installed) before Landlock and seccomp: code outside the
// sandbox. A CarryEnv the entry set itself is dropped. carried is the
// memory of the new entry (a value may be a secret's: the caller zeroes
// it), nil when nothing was moved.
func carryLoaderEnv(env []string) (_ []string, carried []byte) {
	env = unsetEnv(env, sandbox.CarryEnv)
	var moved []string
	out := env[:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !sandbox.LoaderVar(k) {
			out = append(out, kv)
			continue
		}
		moved = append(moved, kv)
	}
	carried = sandbox.EncodeCarried(moved)
	if carried == nil {
		return out, nil
	}
	return append(out, unsafe.String(unsafe.SliceData(carried), len(carried))), carried
}

// sandboxRuntime is what every mechanism does before it confines a
// server: the private temp directory (its TMPDIR), the runtime whose
// needs are added to the policy, the socket variables removed from env,
// and npm told to keep off its read-only cache and, under net none, off
// the registry.
func sandboxRuntime(spec *Spec, launch *Launch, args []string, opts StartOptions, env []string, path, home string, protected []string) (sandbox.Runtime, []string, error) {
	pol := spec.Sandbox
	tmp, err := privateTemp(opts.SandboxTemp, spec.Name)
	if err != nil {
		return sandbox.Runtime{}, nil, fmt.Errorf("server %q: the sandbox's private temp directory: %w", spec.Name, err)
	}
	rt := sandbox.Runtime{Exe: launch.Path, Args: args, Cwd: spec.Cwd, Home: home, Path: path, Temp: tmp, Net: pol.Net, Protected: protected}
	for _, k := range []string{"TMPDIR", "TMP", "TEMP"} {
		env = setEnv(env, k, tmp)
	}
	// Where the user's sockets are (the host's runtime folder among them)
	// is none of a sandboxed server's business, even named by InheritEnv:
	// it can open no Unix socket anyway.
	for _, k := range socketEnv {
		env = unsetEnv(env, k)
	}
	if b := filepath.Base(launch.Resolved); b == "npx" || b == "npm" {
		// The npm cache is read-only to the server: its logs go to its
		// own temp, and nothing asks to write beside the cache. With no
		// registry to ask (net none), npm is offline: a lookup is answered
		// from the cache or fails at once, where prefer_offline (which
		// npx overrides for a package named without a version) let it
		// retry the registry for a minute, past the handshake timeout.
		set := [][2]string{{"npm_config_logs_dir", filepath.Join(tmp, "npm-logs")}, {"npm_config_update_notifier", "false"}}
		if pol.Net == sandbox.NetNone {
			set = append(set, [2]string{"npm_config_offline", "true"})
		}
		for _, kv := range set {
			if _, ok := lookupEnv(env, kv[0], goosName); !ok {
				env = setEnv(env, kv[0], kv[1])
			}
		}
	}
	return rt, env, nil
}

// socketEnv are the variables that say where the user's sockets are,
// removed from a sandboxed server's environment.
var socketEnv = []string{"XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "SSH_AUTH_SOCK",
	"GPG_AGENT_INFO", "GNOME_KEYRING_CONTROL", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DOCKER_HOST",
	"SWITCHBOARD_RUNTIME_DIR", "SWITCHBOARD_CONFIG"}

// unsetEnv removes k from env.
func unsetEnv(env []string, k string) []string {
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// setEnv sets k=v in env, replacing any earlier value.
func setEnv(env []string, k, v string) []string {
	out := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, k+"=") {
			out = append(out, kv)
		}
	}
	return append(out, k+"="+v)
}

// privateTemp makes the server's private temp directory, root/NAME, mode
// 0700; root (default: TMPDIR/switchboard-sandbox-UID) is made 0700 too,
// and refused unless it is a directory of this user's that no one else
// may enter.
func privateTemp(root, name string) (string, error) {
	if root == "" {
		root = filepath.Join(os.TempDir(), fmt.Sprintf("switchboard-sandbox-%d", os.Getuid()))
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", err
	}
	if err := ownedPrivateDir(root); err != nil {
		return "", err
	}
	safe := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' {
			return r
		}
		return '_'
	}, name)
	if safe == "" || safe == "." || safe == ".." {
		safe = "_" + safe
	}
	dir := filepath.Join(root, safe)
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return "", err
	}
	if err := ownedPrivateDir(dir); err != nil {
		return "", err
	}
	return dir, nil
}
