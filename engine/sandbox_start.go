package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
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
	}{{"sandbox.read", p.Read}, {"sandbox.write", p.Write}} {
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
			if len(sandbox.AllowPorts([]string{e})) == 0 {
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
// server runs unconfined) and the status to report.
func sandboxLaunch(spec *Spec, launch *Launch, opts StartOptions, env []string, path string) (*Launch, []string, *sandbox.Status, error) {
	pol := spec.Sandbox
	sup := probeSandbox()
	if !sup.Available() {
		if pol.Required {
			return nil, nil, nil, &sandbox.UnavailableError{Server: spec.Name, Reason: sup.Detail}
		}
		st := sandbox.Plan(pol, sup)
		return launch, env, &st, nil
	}
	if sup.Mechanism == sandbox.MechanismSeatbelt { // macOS: sandbox-exec, no shim (sandbox_seatbelt.go)
		return seatbeltLaunch(spec, launch, opts, env, path, sup)
	}
	if opts.Shim == "" {
		return nil, nil, nil, fmt.Errorf("server %q: the sandbox needs the exec shim, and StartOptions.Shim is not set", spec.Name)
	}
	tmp, err := privateTemp(opts.SandboxTemp, spec.Name)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("server %q: the sandbox's private temp directory: %w", spec.Name, err)
	}
	home, _ := lookupEnv(env, "HOME", goosName)
	read, write := sandbox.Runtime{Exe: launch.Path, Args: spec.Args, Cwd: spec.Cwd, Home: home, Path: path, Temp: tmp, Net: pol.Net}.Needs()
	pol.Read = append(append([]string(nil), pol.Read...), read...)
	pol.Write = append(append([]string(nil), pol.Write...), write...)
	for _, k := range []string{"TMPDIR", "TMP", "TEMP"} {
		env = setEnv(env, k, tmp)
	}
	if b := filepath.Base(launch.Resolved); pol.Net == sandbox.NetNone && (b == "npx" || b == "npm") {
		// No registry to ask: npx runs the package from its cache (the
		// host's warm-up fetched it) instead of failing on the lookup.
		if _, set := lookupEnv(env, "npm_config_prefer_offline", goosName); !set {
			env = setEnv(env, "npm_config_prefer_offline", "true")
		}
	}
	env = setEnv(env, sandbox.PolicyEnv, sandbox.EncodePolicy(pol, sup))
	st := sandbox.Plan(pol, sup)
	shim := &Launch{Path: opts.Shim, Args: append([]string{opts.Shim, sandbox.ShimArg, launch.Path}, launch.Args...), Resolved: launch.Resolved}
	return shim, env, &st, nil
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
