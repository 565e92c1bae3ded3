//go:build linux

package engine

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// SandboxedPeer reports whether the process pid (a peer of one of the
// host's sockets, from SO_PEERCRED) is one of servers (pid → name: the
// host's sandboxed servers) or descends from one, and then its name.
//
// Its ancestry is read from /proc. A process whose parent died was
// reparented to the host (its subreaper) and so lost that ancestry; it is
// still known by what a sandbox leaves on every descendant and no process
// can drop: it descends from this process and carries more seccomp
// filters than this process, or no_new_privs where this process has none.
// A peer that cannot be read (it is gone) is refused too.
func SandboxedPeer(pid int, servers map[int]string) (name string, refused bool) {
	own := os.Getpid()
	if pid <= 0 || pid == own {
		return "", false // unknown (not this OS's), or this process itself
	}
	peer, err := readProcStatus(pid)
	if err != nil {
		return fmt.Sprintf("(pid %d, unreadable: %v)", pid, err), true
	}
	self, err := readProcStatus(own)
	if err != nil {
		return fmt.Sprintf("(this process's status is unreadable: %v)", err), true
	}
	fromHost := false
	for cur, st, depth := pid, peer, 0; depth < 256; depth++ {
		if n, ok := servers[cur]; ok {
			return n, true
		}
		if st.ppid == own {
			fromHost = true
			break
		}
		if st.ppid <= 1 {
			break
		}
		cur = st.ppid
		if st, err = readProcStatus(cur); err != nil {
			break
		}
	}
	if fromHost && (peer.filters > self.filters || peer.noNewPrivs && !self.noNewPrivs) {
		return "(a process left behind by a sandboxed server)", true
	}
	return "", false
}

type procStatus struct {
	ppid       int
	filters    int
	noNewPrivs bool
}

func readProcStatus(pid int) (procStatus, error) {
	var st procStatus
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return st, err
	}
	seen := 0
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "PPid":
			st.ppid, err = strconv.Atoi(v)
			seen++
		case "Seccomp_filters":
			st.filters, _ = strconv.Atoi(v)
		case "NoNewPrivs":
			st.noNewPrivs = v == "1"
		}
		if err != nil {
			return st, err
		}
	}
	if seen == 0 {
		return st, fmt.Errorf("no PPid in /proc/%d/status", pid)
	}
	return st, nil
}
