//go:build linux

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"syscall"
	"time"
)

// side is one process's figures over the idle window.
type side struct {
	pid           int
	rssMedKB      float64 // VmRSS: private and shared (the binary's mapped pages) together
	rssMaxKB      int64
	anonMedKB     float64 // RssAnon: the process's own memory (heap, stacks), what the target means
	anonMaxKB     int64
	ticks         int64 // utime+stime over the window
	cpuNS         int64 // on-CPU time of its threads over the window
	switches      int64 // context switches of its threads over the window
	threads       int
	wokenThreads  []string // "tid:name xN", the threads that ran in the window
	samples       int
	startRSSKB    int64
	childrenRSSKB int64 // the servers' RSS, summed, at the window's end
}

type idleResult struct {
	host, bare side
	events     int64 // server.state events the harness got during the window
}

func serverNames(n int) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("s%02d", i+1)
	}
	return names
}

// measureIdle runs a host and a bare supervisor, each with c.servers
// copies of command, and measures both over the same window. With keep,
// the host is returned still running.
func measureIdle(ctx context.Context, c config, bins binaries, tag, command string, args []string, keep bool) (idleResult, *hostProc, error) {
	var res idleResult
	names := serverNames(c.servers)
	servers := map[string]entry{}
	for _, n := range names {
		servers[n] = entry{Command: command, Args: args}
	}
	h, err := startHost(ctx, bins.switchboard, filepath.Join(c.work, "host-"+tag), servers)
	if err != nil {
		return res, nil, err
	}
	ok := false
	defer func() {
		if !ok || !keep {
			h.stop()
		}
	}()

	bare := exec.Command(bins.bare, append([]string{"-n", fmt.Sprint(c.servers), "--", command}, args...)...)
	bare.Env = hostEnv(filepath.Join(c.work, "bare-"+tag))
	bare.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := bare.StdoutPipe()
	if err != nil {
		return res, nil, err
	}
	if err := bare.Start(); err != nil {
		return res, nil, err
	}
	defer func() {
		_ = bare.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = bare.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = bare.Process.Kill()
			<-done
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		return res, nil, fmt.Errorf("baresup did not start its children: %q %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()

	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	err = h.waitRunning(wctx, names)
	cancel()
	if err != nil {
		return res, nil, err
	}

	time.Sleep(c.settle)
	h.drain()
	ev0 := h.nEvents.Load()
	pids := []int{h.pid(), bare.Process.Pid}
	var u0 [2]usage
	for i, p := range pids {
		if u0[i], err = readUsage(p); err != nil {
			return res, nil, err
		}
	}
	rss, anon := [2][]int64{}, [2][]int64{}
	tick := time.NewTicker(time.Second)
	end := time.Now().Add(c.window)
	for time.Now().Before(end) {
		<-tick.C
		for i, p := range pids {
			kb, akb, err := rssKB(p)
			if err != nil {
				tick.Stop()
				return res, nil, err
			}
			rss[i] = append(rss[i], kb)
			anon[i] = append(anon[i], akb)
		}
	}
	tick.Stop()
	var u1 [2]usage
	for i, p := range pids {
		if u1[i], err = readUsage(p); err != nil {
			return res, nil, err
		}
	}
	res.events = h.nEvents.Load() - ev0
	for i, s := range []*side{&res.host, &res.bare} {
		s.pid = pids[i]
		s.samples = len(rss[i])
		s.startRSSKB = u0[i].rssKB
		s.rssMedKB = medianInt(rss[i])
		s.rssMaxKB = slices.Max(rss[i])
		s.anonMedKB = medianInt(anon[i])
		s.anonMaxKB = slices.Max(anon[i])
		s.ticks = u1[i].ticks - u0[i].ticks
		s.cpuNS = u1[i].cpuNS - u0[i].cpuNS
		s.switches = (u1[i].switchV + u1[i].switchN) - (u0[i].switchV + u0[i].switchN)
		s.threads = u1[i].threads
		for t, n := range u1[i].wakes {
			if d := n - u0[i].wakes[t]; d > 0 {
				s.wokenThreads = append(s.wokenThreads, fmt.Sprintf("%s x%d", t, d))
			}
		}
		sort.Strings(s.wokenThreads)
		s.childrenRSSKB = childrenRSS(pids[i])
	}
	ok = true
	if keep {
		return res, h, nil
	}
	return res, nil, nil
}

// childrenRSS sums the VmRSS of pid's children.
func childrenRSS(pid int) int64 {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var sum int64
	for _, f := range stats {
		var p, ppid int
		var comm, state string
		b, err := readSmall(f)
		if err != nil {
			continue
		}
		if _, err := fmt.Sscanf(string(b), "%d %s %s %d", &p, &comm, &state, &ppid); err != nil || ppid != pid {
			continue
		}
		if kb, _, err := rssKB(p); err == nil {
			sum += kb
		}
	}
	return sum
}
