//go:build linux

// Command dos measures what hostile or mistaken input costs the host, and
// prints figures, never a verdict (issue 11, items 5 and 10):
//
//   - flood: N connections to the gateway's HTTP endpoint (127.0.0.1, open
//     to any local user) that send nothing or drip their headers a byte at
//     a time, held for a while (re-dialled when the host closes them). It
//     reports the host's open descriptors and VmRSS before and at most
//     during the flood, and how the local API fared meanwhile (servers.list
//     every 200 ms: failures and the slowest answer).
//   - bigconfig: the host started on a 60 MB config.json (valid JSON: one
//     large unknown key). VmRSS after start, VmHWM (the peak), and what
//     the host's status says about the file.
//   - devzero: config.json a symbolic link to /dev/zero. Whether the host
//     comes up, its VmHWM, how it ended (the child runs with an address
//     space limit of 4 GiB, so that a host that reads without limit dies
//     of it quickly instead of taking the machine's memory).
//
// The host is this program re-executed with -serve: host.Run in a process
// of its own with an in-memory keyring (the HTTP endpoint needs its
// token), so that the flood's descriptors are not counted as the host's.
// Only host.Run and its Options, and app/api's client, are used, so the
// same file builds against an older tree: run.sh builds it from BASE too,
// for the figures before. That is why it names the two methods it calls
// and reads their answers into types of its own, rather than through
// app/client and app/hostapi, which older trees lack.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/secrets"
)

func main() {
	serve := flag.String("serve", "", "run a host in this directory (internal)")
	label := flag.String("label", "this tree", "the name of this build in the figures")
	conns := flag.Int("conns", 2000, "flood: connections held at once")
	hold := flag.Duration("hold", 15*time.Second, "flood: how long the flood lasts")
	bigMB := flag.Int("bigmb", 60, "bigconfig: the file's size in MB")
	only := flag.String("only", "", "run only this measurement (flood, bigconfig, devzero)")
	flag.Parse()
	if *serve != "" {
		os.Exit(runHost(*serve))
	}
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp("", "sb-bench-dos-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	if *only == "" || *only == "flood" {
		flood(self, filepath.Join(work, "flood"), *label, *conns, *hold)
	}
	if *only == "" || *only == "bigconfig" {
		bigConfig(self, filepath.Join(work, "big"), *label, *bigMB)
	}
	if *only == "" || *only == "devzero" {
		devZero(self, filepath.Join(work, "zero"), *label)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench/dos:", err)
	os.Exit(1)
}

// paths of a host in dir.
func cfgPath(dir string) string  { return filepath.Join(dir, "cfg", "config.json") }
func sockPath(dir string) string { return filepath.Join(dir, "run", "host.sock") }

// runHost is the -serve child: a host on dir until SIGTERM.
func runHost(dir string) int {
	if v := os.Getenv("SB_BENCH_AS_LIMIT"); v != "" {
		n, _ := strconv.ParseUint(v, 10, 64)
		_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
	}
	os.Setenv("SHELL", "/bin/sh")
	store := secrets.NewMemoryStore(filepath.Join(dir, "secrets.json"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err := host.Run(ctx, host.Options{
		ConfigPath: cfgPath(dir),
		RuntimeDir: filepath.Join(dir, "run"),
		SocketPath: sockPath(dir),
		LogPath:    filepath.Join(dir, "host.log"),
		Secrets:    store,
		Version:    "bench",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "host:", err)
		return 1
	}
	return 0
}

// child is a running -serve host.
type child struct {
	cmd    *exec.Cmd
	dir    string
	exited chan struct{}
	err    error
	c      *api.Client
}

func startHost(self, dir string, env ...string) (*child, error) {
	if err := os.MkdirAll(filepath.Join(dir, "run"), 0o700); err != nil {
		return nil, err
	}
	h := &child{dir: dir, exited: make(chan struct{})}
	h.cmd = exec.Command(self, "-serve", dir)
	h.cmd.Env = append(os.Environ(), env...)
	logf, err := os.Create(filepath.Join(dir, "serve.out"))
	if err != nil {
		return nil, err
	}
	h.cmd.Stdout, h.cmd.Stderr = logf, logf
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := h.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { h.err = h.cmd.Wait(); logf.Close(); close(h.exited) }()
	return h, nil
}

// dial waits (up to d) for the host's API.
func (h *child) dial(d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		c, err := api.Dial(context.Background(), sockPath(h.dir))
		if err == nil {
			h.c = c
			return nil
		}
		select {
		case <-h.exited:
			return fmt.Errorf("the host exited (%v): %s", h.err, lastLine(filepath.Join(h.dir, "serve.out")))
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no API after %v", d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (h *child) stop() {
	if h.c != nil {
		h.c.Close()
	}
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.exited:
	case <-time.After(10 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.exited
	}
}

// hostInfo is what this program reads of host.info.
type hostInfo struct {
	Config struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	} `json:"config"`
}

func (h *child) info() (hostInfo, error) {
	var inf hostInfo
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := h.c.Call(ctx, hostapi.MethodHostInfo.Name, nil, &inf)
	return inf, err
}

// lastLine is the line of the child's output that says why it ended:
// a Go runtime's "fatal error", else the last line.
func lastLine(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for _, l := range lines {
		if strings.HasPrefix(l, "fatal error") || strings.HasPrefix(l, "runtime: out of memory") {
			return l
		}
	}
	return lines[len(lines)-1]
}

// status field (kB) of /proc/PID/status.
func statusKB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return -1
}

func fds(pid int) int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(ents)
}

func mb(kb int64) string { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }

func writeConfig(dir string, doc []byte) error {
	if err := os.MkdirAll(filepath.Dir(cfgPath(dir)), 0o700); err != nil {
		return err
	}
	return os.WriteFile(cfgPath(dir), doc, 0o600)
}

func freePort() int {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		fail(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func flood(self, dir, label string, n int, hold time.Duration) {
	port := freePort()
	doc, _ := json.Marshal(map[string]any{"version": 1, "mcpServers": map[string]any{}, "gateway": map[string]any{"httpPort": port}})
	if err := writeConfig(dir, doc); err != nil {
		fail(err)
	}
	h, err := startHost(self, dir)
	if err != nil {
		fail(err)
	}
	defer h.stop()
	if err := h.dial(30 * time.Second); err != nil {
		fail(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for i := 0; ; i++ { // the endpoint comes up after the API
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if i > 500 {
			fail(fmt.Errorf("the HTTP endpoint %s never answered: %v", addr, err))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second)
	pid := h.cmd.Process.Pid
	fd0, rss0 := fds(pid), statusKB(pid, "VmRSS")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	dialErrs := 0
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hdr := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nX-Pad: "
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					mu.Lock()
					dialErrs++
					mu.Unlock()
					time.Sleep(200 * time.Millisecond)
					continue
				}
				gone := make(chan struct{})
				go func() {
					buf := make([]byte, 256)
					for {
						if _, err := c.Read(buf); err != nil {
							close(gone)
							return
						}
					}
				}()
				for j := 0; ; j++ {
					select {
					case <-stop:
						c.Close()
						return
					case <-gone:
					case <-time.After(100 * time.Millisecond):
						if i%10 == 0 { // slowloris
							b := byte('a')
							if j < len(hdr) {
								b = hdr[j]
							}
							_, _ = c.Write([]byte{b})
						}
						continue
					}
					break
				}
				c.Close()
			}
		}()
	}
	fdMax, rssMax := fd0, rss0
	calls, failed := 0, 0
	var slowest time.Duration
	end := time.Now().Add(hold)
	for time.Now().Before(end) {
		fdMax, rssMax = max(fdMax, fds(pid)), max(rssMax, statusKB(pid, "VmRSS"))
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var list []json.RawMessage
		err := h.c.Call(ctx, hostapi.MethodServersList.Name, nil, &list)
		cancel()
		calls++
		if err != nil {
			failed++
		}
		slowest = max(slowest, time.Since(t0))
		time.Sleep(200 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	time.Sleep(2 * time.Second)
	fmt.Printf("flood (%s): %d connections (1 in 10 slowloris) for %v on the HTTP endpoint\n", label, n, hold)
	fmt.Printf("  host descriptors: %d before, %d at most during, %d 2 s after\n", fd0, fdMax, fds(pid))
	fmt.Printf("  host VmRSS: %s before, %s at most during (VmHWM %s)\n", mb(rss0), mb(rssMax), mb(statusKB(pid, "VmHWM")))
	fmt.Printf("  API servers.list meanwhile: %d calls, %d failed, slowest %v; flood dial errors: %d\n", calls, failed, slowest.Round(time.Millisecond), dialErrs)
}

func bigConfig(self, dir, label string, sizeMB int) {
	pad := strings.Repeat("x", sizeMB<<20)
	doc := []byte(`{"version": 1, "mcpServers": {}, "pad": "` + pad + `"}`)
	if err := writeConfig(dir, doc); err != nil {
		fail(err)
	}
	h, err := startHost(self, dir)
	if err != nil {
		fail(err)
	}
	defer h.stop()
	fmt.Printf("bigconfig (%s): config.json of %d MB\n", label, len(doc)>>20)
	if err := h.dial(60 * time.Second); err != nil {
		fmt.Printf("  the host did not come up: %v\n", err)
		return
	}
	time.Sleep(2 * time.Second)
	pid := h.cmd.Process.Pid
	inf, _ := h.info()
	fmt.Printf("  host VmRSS %s, VmHWM (peak) %s; config ok=%v: %s\n", mb(statusKB(pid, "VmRSS")), mb(statusKB(pid, "VmHWM")), inf.Config.OK, short(inf.Config.Error))
}

func devZero(self, dir, label string) {
	if err := os.MkdirAll(filepath.Dir(cfgPath(dir)), 0o700); err != nil {
		fail(err)
	}
	if err := os.Symlink("/dev/zero", cfgPath(dir)); err != nil {
		fail(err)
	}
	h, err := startHost(self, dir, "SB_BENCH_AS_LIMIT="+strconv.Itoa(4<<30))
	if err != nil {
		fail(err)
	}
	defer h.stop()
	fmt.Printf("devzero (%s): config.json -> /dev/zero (address space limited to 4 GiB)\n", label)
	pid := h.cmd.Process.Pid
	hwm := int64(0)
	go func() {
		for {
			select {
			case <-h.exited:
				return
			default:
			}
			hwm = max(hwm, statusKB(pid, "VmHWM"))
			time.Sleep(50 * time.Millisecond)
		}
	}()
	if err := h.dial(60 * time.Second); err != nil {
		fmt.Printf("  the host did not come up: %v; VmHWM seen %s\n", short(err.Error()), mb(hwm))
		return
	}
	time.Sleep(time.Second)
	inf, _ := h.info()
	fmt.Printf("  the host is up: VmRSS %s, VmHWM %s; config ok=%v: %s\n", mb(statusKB(pid, "VmRSS")), mb(statusKB(pid, "VmHWM")), inf.Config.OK, short(inf.Config.Error))
}

func short(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}
