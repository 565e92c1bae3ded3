//go:build linux

package engine

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// readProc reads /proc/PID/stat; the tests' own parser, independent of
// the one under test.
func readProc(pid int) (procInfo, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procInfo{}, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procInfo{}, false
	}
	// After "pid (comm)": state ppid pgrp session tty_nr tpgid flags minflt
	// cminflt majflt cmajflt utime stime cutime cstime priority nice
	// num_threads itrealvalue starttime.
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return procInfo{}, false
	}
	st := procInfo{State: f[0][0]}
	st.PPid, _ = strconv.Atoi(f[1])
	st.Pgrp, _ = strconv.Atoi(f[2])
	st.Start, _ = strconv.ParseUint(f[19], 10, 64)
	return st, true
}

// liveGroupMembers scans /proc for the live members of process group pgid.
func liveGroupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProc(pid); ok && st.Pgrp == pgid && st.State != 'Z' && st.State != 'X' {
			out = append(out, pid)
		}
	}
	return out
}
