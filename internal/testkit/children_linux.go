package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Children returns this process's running children (zombies, which have
// exited, are not running) as "PID COMMAND LINE", with the
// variables whose names hold HELPER (a helper process's role).
func Children() []string {
	self := os.Getpid()
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) STATE PPID ...: the fields after the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if ppid, _ := strconv.Atoi(f[1]); ppid != self {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		line := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		if line == "" {
			line = "(" + s[strings.IndexByte(s, '(')+1:i] + ")"
		}
		// A helper process is this binary again: its role, in a variable
		// named *HELPER*, tells which one it is.
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		for _, kv := range strings.Split(string(env), "\x00") {
			if name, _, ok := strings.Cut(kv, "="); ok && strings.Contains(name, "HELPER") {
				line += " [" + kv + "]"
			}
		}
		out = append(out, fmt.Sprintf("%d %s", pid, line))
	}
	return out
}
