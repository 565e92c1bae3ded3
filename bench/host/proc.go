//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// userHZ is the unit of utime and stime in /proc/PID/stat: USER_HZ, which
// the kernel fixes at 100 for user space on every architecture Linux
// supports, whatever CONFIG_HZ is (see proc(5)).
const userHZ = 100

// usage is a snapshot of one process's resource use from /proc.
type usage struct {
	rssKB   int64 // VmRSS
	ticks   int64 // utime+stime of every thread, in clock ticks
	cpuNS   int64 // time on a CPU of the live threads (schedstat), ns
	switchV int64 // voluntary context switches of the live threads
	switchN int64 // involuntary ones
	threads int
	wakes   map[string]int64 // voluntary switches per thread (tid: name)
}

// readUsage reads pid's VmRSS, utime+stime, and the per-thread
// schedstat and context switch counts.
func readUsage(pid int) (usage, error) {
	var u usage
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	u.rssKB = statusField(status, "VmRSS:")
	u.ticks, err = statTicks(pid)
	if err != nil {
		return u, err
	}
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	if err != nil {
		return u, err
	}
	u.wakes = map[string]int64{}
	for _, t := range tasks {
		st, err := os.ReadFile(filepath.Join(t, "status"))
		if err != nil {
			continue // the thread ended
		}
		v, n := statusField(st, "voluntary_ctxt_switches:"), statusField(st, "nonvoluntary_ctxt_switches:")
		u.switchV += v
		u.switchN += n
		u.threads++
		name := strings.TrimSpace(string(statusLine(st, "Name:")))
		u.wakes[filepath.Base(t)+":"+name] = v + n
		if ss, err := os.ReadFile(filepath.Join(t, "schedstat")); err == nil {
			if f := strings.Fields(string(ss)); len(f) > 0 {
				ns, _ := strconv.ParseInt(f[0], 10, 64)
				u.cpuNS += ns
			}
		}
	}
	return u, nil
}

// rssKB reads only VmRSS and RssAnon (the once-a-second sample).
func rssKB(pid int) (rss, anon int64, err error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	return statusField(status, "VmRSS:"), statusField(status, "RssAnon:"), nil
}

// statTicks returns utime+stime (fields 14 and 15 of /proc/PID/stat): the
// whole process, every thread, dead ones included; not its children.
func statTicks(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces and parentheses: the
	// fields that follow start after its last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no ')'", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state): utime is field 14, f[11]; stime f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad utime/stime %q %q", pid, f[11], f[12])
	}
	return ut + st, nil
}

func statusLine(status []byte, key string) []byte {
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte(key)); ok {
			return rest
		}
	}
	return nil
}

// statusField parses a number field of /proc/PID/status ("VmRSS:  1234 kB").
func statusField(status []byte, key string) int64 {
	f := strings.Fields(string(statusLine(status, key)))
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseInt(f[0], 10, 64)
	return n
}
