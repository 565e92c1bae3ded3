//go:build darwin

package sandbox

import (
	"errors"
	"path/filepath"
)

// Wrap returns the launch that runs argv (argv[0] the resolved executable)
// under p on macOS: /usr/bin/sandbox-exec -p PROFILE -- argv... The
// profile allows the resolved executable and the runtime's needs n; every
// path is resolved through its symbolic links first, as Seatbelt matches
// real paths. sandbox-exec applies the profile and execs argv in the same
// process, so the pid, the process group and the stop ladder are the
// engine's as without a sandbox. A disabled policy returns argv as it is.
//
// This file is compiled for darwin (GOOS=darwin go vet); it has not run
// on a Mac in this project's CI: see docs/sandbox.md.
func Wrap(p Policy, n Needs, argv []string) (path string, args []string, err error) {
	if len(argv) == 0 || argv[0] == "" {
		return "", nil, errors.New("sandbox: no executable to confine")
	}
	if !p.Enabled {
		return argv[0], argv, nil
	}
	if n.Exec == "" {
		n.Exec = argv[0]
	}
	p.Read, p.Write = realPaths(p.Read), realPaths(p.Write)
	n.Read, n.Write = realPaths(n.Read), realPaths(n.Write)
	if r := realPaths([]string{n.Exec}); len(r) == 1 {
		n.Exec = r[0]
	}
	path, args = SeatbeltCommand(p, n, argv)
	return path, args, nil
}

// realPaths resolves each path's symbolic links; a path that does not
// exist yet is kept as written (it is then matched as written).
func realPaths(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		out = append(out, p)
	}
	return out
}
