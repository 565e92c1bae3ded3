//go:build linux

package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// Figures for servers that sleep (docs/sleep.md), measured in one run so
// that each has its baseline beside it:
//
//	go test -run XXX -bench 'Sleep' -benchtime 20x ./app/host/
//
// BenchmarkSleepFirstCall: a call to a running server, and the first call
// to a sleeping one (its start included), for a go-sdk server (this test
// binary) and server-everything (node, npm cache warm: it is installed).
// BenchmarkSleepRSS: the servers' resident memory with 10 servers (5 of
// them node) always on, and on demand once they sleep.

func benchManager(b *testing.B, lists string) *Manager {
	b.Helper()
	m := NewManager(ManagerOptions{Start: engine.StartOptions{}, Version: "bench", ListsDir: lists,
		Policy: supervisor.Policy{Initial: 50 * time.Millisecond, Max: 500 * time.Millisecond, SecretRetry: time.Hour}})
	b.Cleanup(m.StopAll)
	return m
}

func benchWait(b *testing.B, m *Manager, name string, cond func(hostapi.ServerStatus) bool) {
	b.Helper()
	testkit.Eventually(b, "server "+name, func() (bool, string) {
		st, ok := statusOf(m, name)
		return ok && cond(st), fmt.Sprintf("%+v", st)
	})
}

func BenchmarkSleepFirstCall(b *testing.B) {
	dir := b.TempDir()
	tools := filepath.Join(dir, "tools")
	if err := os.WriteFile(tools, []byte("echo\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	everything := testkit.NpmServer(b, "mcp-server-everything")
	servers := []struct {
		name  string
		entry map[string]any
		tool  string
		args  any
	}{
		{"go-sdk", sleepyEntry(tools, "3600000"), "echo", nil},
		{"everything", map[string]any{"command": everything, "stdinGrace": 300, "termGrace": 300, "start": "on-demand", "idleStop": 3600000},
			"echo", map[string]any{"message": "hi"}},
	}
	for _, sv := range servers {
		for _, mode := range []string{"running", "asleep"} {
			b.Run(sv.name+"/"+mode, func(b *testing.B) {
				m := benchManager(b, b.TempDir())
				e := with(sv.entry, "idleStop", 3600000)
				m.Apply(configs(b, map[string]any{"s": e}))
				benchWait(b, m, "s", func(st hostapi.ServerStatus) bool { return st.State == hostapi.StateSleeping })
				s, _ := m.get("s")
				call := func() {
					ctx, cancel := context.WithTimeout(context.Background(), wait)
					defer cancel()
					res, err := m.Call(ctx, "s", sv.tool, sv.args)
					if err != nil || res.IsError {
						b.Fatalf("call: %v %+v", err, res)
					}
				}
				if mode == "running" {
					call() // woken, and it stays up (idleStop 1 h)
				}
				b.ResetTimer()
				for range b.N {
					if mode == "asleep" {
						b.StopTimer()
						s.armIdle(time.Millisecond)
						benchWait(b, m, "s", func(st hostapi.ServerStatus) bool { return st.State == hostapi.StateSleeping && st.PID == 0 })
						b.StartTimer()
					}
					call()
				}
			})
		}
	}
}

// rssKB is a process's resident set in KiB (0 if it is gone).
func rssKB(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return 0
}

func BenchmarkSleepRSS(b *testing.B) {
	dir := b.TempDir()
	tools := filepath.Join(dir, "tools")
	if err := os.WriteFile(tools, []byte("echo\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	everything := testkit.NpmServer(b, "mcp-server-everything")
	for _, mode := range []string{"always", "on-demand"} {
		b.Run(mode, func(b *testing.B) {
			for range b.N {
				m := benchManager(b, b.TempDir())
				cfg := map[string]any{}
				for i := range 5 {
					cfg[fmt.Sprintf("go%d", i)] = with(sleepyEntry(tools, "3600000"), "start", mode)
					cfg[fmt.Sprintf("node%d", i)] = map[string]any{"command": everything, "stdinGrace": 300, "termGrace": 300, "start": mode, "idleStop": 1000}
				}
				m.Apply(configs(b, cfg))
				for name := range cfg {
					if mode == "always" {
						benchWait(b, m, name, func(st hostapi.ServerStatus) bool { return st.State == hostapi.StateRunning && st.Tools > 0 })
					} else {
						benchWait(b, m, name, func(st hostapi.ServerStatus) bool { return st.State == hostapi.StateSleeping && st.PID == 0 })
					}
				}
				time.Sleep(time.Second) // let the node servers settle after their start
				kb, procs := 0, 0
				for _, st := range m.Status() {
					if st.PID != 0 {
						procs++
						kb += rssKB(st.PID)
					}
				}
				b.ReportMetric(float64(kb)/1024, "servers-MiB")
				b.ReportMetric(float64(procs), "processes")
				b.ReportMetric(float64(rssKB(os.Getpid()))/1024, "host-MiB")
				m.StopAll()
			}
		})
	}
}
