package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
)

// seatbeltLaunch is sandboxLaunch on macOS, where sandbox.Probe says
// "seatbelt": the server runs under /usr/bin/sandbox-exec -p PROFILE --
// SERVER ARGS..., which applies the profile to itself and execs the server
// in the same process (same pid and process group: the stop ladder and
// the registry are as without a sandbox). No exec shim and no policy in
// the environment: the profile is an argument. The runtime's needs and
// the private temp directory are Linux's (sandbox.Runtime, privateTemp);
// the profile lets the server bind and connect Unix sockets within that
// temp and connect to the entry's "unix" list only, and denies the
// protected paths (sandbox.Protected, StartOptions.Protected) last.
//
// It builds only the launch (no OS call but the temp directory and the
// symbolic links' resolution), so it is tested on Linux; it has never run
// on a Mac (docs/sandbox.md, "macOS").
func seatbeltLaunch(spec *Spec, launch *Launch, args []string, opts StartOptions, env []string, path string, sup sandbox.Support, home string, protected []string) (*Launch, []string, *sandbox.Status, error) {
	pol := spec.Sandbox
	rt, env, err := sandboxRuntime(spec, launch, args, opts, env, path, home, protected)
	if err != nil {
		return nil, nil, nil, err
	}
	// dyld acts on DYLD_* while sandbox-exec starts, before it applies the
	// profile (where System Integrity Protection is off: with it on, dyld
	// ignores them in a system binary). Nothing runs between the profile
	// and the server's exec that could set them again, so a sandboxed
	// server on macOS does not get them (docs/sandbox.md "The loader's
	// variables").
	env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "DYLD_") })
	read, write := rt.Needs()
	needs := sandbox.Needs{Exec: launch.Path, Read: read, Write: write, Temp: rt.Temp, Deny: protected}
	// sandbox-exec execs its command with execvp: the absolute path, and
	// the server's own arguments after it (argv[0] becomes the path).
	argv := append([]string{launch.Path}, launch.Args[min(1, len(launch.Args)):]...)
	exe, args, err := sandbox.SeatbeltLaunch(pol, needs, argv)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("server %q: %w", spec.Name, err)
	}
	counted := pol // the status counts the runtime's paths too, as on Linux
	counted.Read = append(append([]string(nil), pol.Read...), read...)
	counted.Write = append(append([]string(nil), pol.Write...), write...)
	st := sandbox.Plan(counted, sup)
	return &Launch{Path: exe, Args: args, Resolved: launch.Resolved}, env, &st, nil
}
