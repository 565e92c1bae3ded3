//go:build linux

// Command bridgestart measures what an AI app pays to connect to an MCP
// server (spawn or dial, the initialize handshake, tools/list) through
// Switchboard's bridge, against spawning a tiny static MCP server directly
// (the baseline), in one run, and prints a table of figures (never a
// verdict):
//
//   - direct: spawn tinyserver (package tinyserver here: one tool, the
//     standard library only, CGO_ENABLED=0);
//   - switchboard-bridge: spawn the small bridge, which hands its stdin and
//     stdout to a running `switchboard serve` whose one server is the same
//     tinyserver; tools/list comes from the host's gateway;
//   - switchboard bridge: the same through the tray app's binary (what
//     entries written before switchboard-bridge run);
//   - gateway socket: no process; this process dials the gateway's socket
//     and speaks MCP on it (the floor of any bridge);
//   - mcpproxy-go HTTP (-mcpproxy): mcpproxy serve with the same
//     tinyserver, a new HTTP connection per connect to its /mcp endpoint
//     (Streamable HTTP: initialize, notifications/initialized, tools/list).
//
// Every connect is a new process (or connection); the paths alternate
// sample by sample, in an order that rotates, so that the machine's drift
// falls on all of them. The client is this process: it writes the JSON-RPC
// lines itself (no SDK), the same for every path.
//
// run.sh builds everything and runs it; `go run ./bench/bridgestart -h`
// lists the knobs.
package main

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/bench/internal/setup"
	"github.com/switchboard-mcp/switchboard/bench/internal/table"
)

const (
	initReq   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench-bridgestart","version":"1"}}}`
	initedMsg = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listReq   = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

type config struct {
	sb, bridge, tiny, mcpproxy string
	work                       string
	n, warmup                  int
	verbose                    io.Writer
}

func main() {
	var c config
	flag.StringVar(&c.sb, "switchboard", "", "the switchboard binary (required)")
	flag.StringVar(&c.bridge, "bridge", "", "the switchboard-bridge binary (required)")
	flag.StringVar(&c.tiny, "tiny", "", "the tinyserver binary (required)")
	flag.StringVar(&c.mcpproxy, "mcpproxy", "", "an mcpproxy binary (optional: the mcpproxy-go HTTP row)")
	flag.StringVar(&c.work, "work", "", "scratch directory (default: a new temporary one, removed after)")
	flag.IntVar(&c.n, "n", 200, "connects per path")
	flag.IntVar(&c.warmup, "warmup", 10, "connects per path before measuring (page cache, the host's first session)")
	quiet := flag.Bool("q", false, "no progress on stderr")
	flag.Parse()
	if c.sb == "" || c.bridge == "" || c.tiny == "" {
		fmt.Fprintln(os.Stderr, "bench/bridgestart: -switchboard, -bridge and -tiny are required (run.sh builds them)")
		os.Exit(2)
	}
	if !*quiet {
		c.verbose = os.Stderr
	}
	for _, p := range []*string{&c.sb, &c.bridge, &c.tiny, &c.mcpproxy} {
		if *p != "" {
			a, err := filepath.Abs(*p)
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench/bridgestart:", err)
				os.Exit(2)
			}
			*p = a
		}
	}
	if err := run(c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench/bridgestart:", err)
		os.Exit(1)
	}
}

type path struct {
	name    string
	connect func() (time.Duration, error)
	lat     []time.Duration
}

func run(c config, out io.Writer) error {
	cleanup, err := setup.WorkDir("bridgestart", &c.work)
	if err != nil {
		return err
	}
	defer cleanup()
	progress := setup.Progress(c.verbose, "bridgestart")
	h, err := startHost(c)
	if err != nil {
		return err
	}
	defer h.stop()
	progress("host pid %d serves tiny__echo", h.cmd.Process.Pid)

	paths := []*path{
		{name: "direct: tinyserver (static)", connect: func() (time.Duration, error) { return connectStdio(exec.Command(c.tiny), `"echo"`) }},
		{name: "switchboard-bridge", connect: func() (time.Duration, error) { return connectStdio(h.command(c.bridge), `"tiny__echo"`) }},
		{name: "switchboard bridge (tray binary)", connect: func() (time.Duration, error) { return connectStdio(h.command(c.sb, "bridge"), `"tiny__echo"`) }},
		{name: "gateway socket, dialled in-process", connect: func() (time.Duration, error) { return connectSocket(h.gw) }},
	}
	if c.mcpproxy != "" {
		p, err := startMcpproxy(c)
		if err != nil {
			return err
		}
		defer p.stop()
		progress("mcpproxy pid %d serves %s", p.cmd.Process.Pid, p.url)
		paths = append(paths, &path{name: "mcpproxy-go HTTP /mcp", connect: func() (time.Duration, error) { return connectHTTP(p.url) }})
	}
	for _, p := range paths {
		for i := 0; i < c.warmup; i++ {
			if _, err := p.connect(); err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "bridge start benchmark: %d cores, %s, %d connects per path (after %d), load before: %s\n",
		runtime.NumCPU(), runtime.Version(), c.n, c.warmup, strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Fprintf(out, "a connect: spawn (or dial) + initialize + notifications/initialized + tools/list answered\n")
	for i := 0; i < c.n; i++ {
		if i%50 == 0 {
			progress("connect %d/%d", i, c.n)
		}
		for j := range paths {
			p := paths[(i+j)%len(paths)]
			d, err := p.connect()
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			p.lat = append(p.lat, d)
		}
	}
	t := table.New(out)
	fmt.Fprintln(t, "path\tp10\tp50\tp90\tmean\tvs direct (p50)\tvs direct (mean)")
	base := paths[0]
	for _, p := range paths {
		rel, relm := "-", "-"
		if p != base {
			rel = fmt.Sprintf("%.2fx", float64(pct(p.lat, 50))/float64(pct(base.lat, 50)))
			relm = fmt.Sprintf("%.2fx", float64(mean(p.lat))/float64(mean(base.lat)))
		}
		fmt.Fprintf(t, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.name, ms(pct(p.lat, 10)), ms(pct(p.lat, 50)), ms(pct(p.lat, 90)), ms(mean(p.lat)), rel, relm)
	}
	t.Flush()
	if c.mcpproxy == "" {
		fmt.Fprintln(out, "mcpproxy-go: not measured (no binary; run.sh builds one from a fetched copy of github.com/smart-mcp-proxy/mcpproxy-go, see its header)")
	}
	load, _ = os.ReadFile("/proc/loadavg")
	fmt.Fprintf(out, "load after: %s\n\n", strings.Join(strings.Fields(string(load))[:3], " "))

	// What each binary is, and what its package initialisation costs.
	fmt.Fprintln(out, "binaries (GODEBUG=inittrace=1: package init, median of 21 runs of --version):")
	t = table.New(out)
	fmt.Fprintln(t, "binary\tsize\tlinking\tinit total\tslowest inits")
	for _, b := range []struct{ name, path, arg string }{
		{"switchboard-bridge", c.bridge, "--version"},
		{"switchboard", c.sb, "version"},
		{"tinyserver", c.tiny, ""},
	} {
		fi, err := os.Stat(b.path)
		if err != nil {
			return err
		}
		total, top := initTrace(b.path, b.arg)
		fmt.Fprintf(t, "%s\t%.1f MB\t%s\t%s\t%s\n", b.name, float64(fi.Size())/1e6, linking(b.path), ms(total), top)
	}
	t.Flush()
	return nil
}

// connectStdio runs cmd as an app runs an MCP server and returns the time
// from the spawn to the tools/list answer, which must contain want.
func connectStdio(cmd *exec.Cmd, want string) (time.Duration, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	err = session(stdin, bufio.NewReader(stdout), want)
	d := time.Since(t0)
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case werr := <-done:
		if err == nil && werr != nil {
			err = fmt.Errorf("exited with %v", werr)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		if err == nil {
			err = errors.New("did not exit within 10 s of its stdin closing")
		}
	}
	if err != nil {
		return 0, fmt.Errorf("%v (stderr: %s)", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return d, nil
}

// session runs the handshake and tools/list on a stream; the answer to
// tools/list must contain want.
func session(w io.Writer, r *bufio.Reader, want string) error {
	if _, err := io.WriteString(w, initReq+"\n"); err != nil {
		return err
	}
	if err := await(r, `"id":1`, `"protocolVersion"`); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if _, err := io.WriteString(w, initedMsg+"\n"+listReq+"\n"); err != nil {
		return err
	}
	if err := await(r, `"id":2`, want); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	return nil
}

// await reads lines until the response with id (skipping notifications)
// and checks that it contains want.
func await(r *bufio.Reader, id, want string) error {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("reading the answer: %w", err)
		}
		if !strings.Contains(line, id) {
			continue
		}
		if !strings.Contains(line, want) {
			return fmt.Errorf("answer without %s: %.300s", want, line)
		}
		return nil
	}
}

// connectSocket dials the gateway and speaks MCP on the socket itself.
func connectSocket(gw string) (time.Duration, error) {
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	nc, err := api.DialGateway(ctx, gw)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	if err := session(nc, bufio.NewReader(nc), `"tiny__echo"`); err != nil {
		return 0, err
	}
	return time.Since(t0), nil
}

// connectHTTP is a Streamable HTTP client's connect on a new connection.
func connectHTTP(url string) (time.Duration, error) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	t0 := time.Now()
	var sid string
	post := func(body, id, want string) error {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
			sid = s
		}
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("%s: %.300s", resp.Status, b)
		}
		if id != "" && (!bytes.Contains(b, []byte(id)) || !bytes.Contains(b, []byte(want))) {
			return fmt.Errorf("answer without %s: %.300s", want, b)
		}
		return nil
	}
	if err := post(initReq, `"id":1`, `"protocolVersion"`); err != nil {
		return 0, fmt.Errorf("initialize: %w", err)
	}
	if err := post(initedMsg, "", ""); err != nil {
		return 0, fmt.Errorf("notifications/initialized: %w", err)
	}
	if err := post(listReq, `"id":2`, `"tools"`); err != nil {
		return 0, fmt.Errorf("tools/list: %w", err)
	}
	d := time.Since(t0)
	if sid != "" { // end the session, untimed
		req, _ := http.NewRequest("DELETE", url, nil)
		req.Header.Set("Mcp-Session-Id", sid)
		if resp, err := hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	return d, nil
}

// host is a running `switchboard serve` with tinyserver as its server.
type host struct {
	env []string
	gw  string
	cmd *exec.Cmd
}

func startHost(c config) (*host, error) {
	dir := filepath.Join(c.work, "host")
	for _, d := range []string{"run", "cfg/switchboard", "home", "cache"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	cfg := fmt.Sprintf(`{"version": 1, "mcpServers": {"tiny": {"command": %q}}}`, c.tiny)
	if err := os.WriteFile(filepath.Join(dir, "cfg/switchboard/config.json"), []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	h := &host{gw: filepath.Join(dir, "run", api.GatewaySocketName)}
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		if strings.HasPrefix(k, "SWITCHBOARD_") || strings.HasPrefix(k, "XDG_") || k == "HOME" || k == "GODEBUG" {
			continue
		}
		h.env = append(h.env, e)
	}
	h.env = append(h.env, "SWITCHBOARD_RUNTIME_DIR="+filepath.Join(dir, "run"), "XDG_CONFIG_HOME="+filepath.Join(dir, "cfg"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "HOME="+filepath.Join(dir, "home"))
	h.cmd = exec.Command(c.sb, "serve")
	h.cmd.Env = h.env
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	h.cmd.Stdout, h.cmd.Stderr = logf, logf
	if err := h.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		// Only once its API answers may a bridge come: one that came too
		// early would start a host of its own.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		ac, err := api.Dial(ctx, filepath.Join(dir, "run", api.SocketName))
		cancel()
		if err == nil {
			ac.Close()
			if _, err = connectSocket(h.gw); err == nil {
				return h, nil
			}
		}
		if time.Now().After(deadline) {
			h.stop()
			b, _ := os.ReadFile(filepath.Join(dir, "serve.log"))
			return nil, fmt.Errorf("the host did not serve tiny__echo within 60 s: %v\n%s", err, b)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (h *host) command(argv ...string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = h.env
	return cmd
}

func (h *host) stop() { stopProc(h.cmd) }

func stopProc(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
}

// proxy is a running `mcpproxy serve` with tinyserver as its server.
type proxy struct {
	url string
	cmd *exec.Cmd
}

func startMcpproxy(c config) (*proxy, error) {
	dir := filepath.Join(c.work, "mcpproxy")
	for _, d := range []string{"data", "home"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cfg := fmt.Sprintf(`{"listen": %q, "data_dir": %q, "enable_tray": false,
  "mcpServers": [{"name": "tiny", "command": %q, "protocol": "stdio", "enabled": true, "quarantined": false}]}`,
		addr, filepath.Join(dir, "data"), c.tiny)
	cfgPath := filepath.Join(dir, "mcp_config.json")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o600); err != nil {
		return nil, err
	}
	p := &proxy{url: "http://" + addr + "/mcp"}
	p.cmd = exec.Command(c.mcpproxy, "serve", "--config", cfgPath, "--listen", addr, "--enable-socket=false", "--log-level", "error")
	var env []string
	for _, e := range os.Environ() {
		if k, _, _ := strings.Cut(e, "="); k != "HOME" && k != "GODEBUG" {
			env = append(env, e)
		}
	}
	p.cmd.Env = append(env, "HOME="+filepath.Join(dir, "home"))
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		_, err := connectHTTP(p.url)
		if err == nil {
			return p, nil
		}
		if time.Now().After(deadline) {
			p.stop()
			b, _ := os.ReadFile(filepath.Join(dir, "serve.log"))
			return nil, fmt.Errorf("mcpproxy did not answer on %s within 90 s: %v\n%.2000s", p.url, err, b)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (p *proxy) stop() { stopProc(p.cmd) }

var initLine = regexp.MustCompile(`^init (\S+) @[0-9.]+ ms, ([0-9.]+) ms clock`)

// initTrace runs bin 21 times with GODEBUG=inittrace=1 and returns the
// median of the total package-init clock time and the slowest packages of
// the median run.
func initTrace(bin, arg string) (time.Duration, string) {
	type run struct {
		total time.Duration
		top   string
	}
	var runs []run
	for i := 0; i < 21; i++ {
		var args []string
		if arg != "" {
			args = []string{arg}
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
		cmd.Stdin = strings.NewReader("") // tinyserver: exits at EOF
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		_ = cmd.Run()
		type pkg struct {
			name string
			d    time.Duration
		}
		var pkgs []pkg
		var total time.Duration
		for _, l := range strings.Split(stderr.String(), "\n") {
			m := initLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			f, _ := strconv.ParseFloat(m[2], 64)
			d := time.Duration(f * 1e6)
			total += d
			pkgs = append(pkgs, pkg{m[1], d})
		}
		sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].d > pkgs[j].d })
		var top []string
		for _, p := range pkgs[:min(3, len(pkgs))] {
			top = append(top, fmt.Sprintf("%s %.2f", p.name, float64(p.d)/1e6))
		}
		runs = append(runs, run{total, strings.Join(top, ", ")})
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].total < runs[j].total })
	m := runs[len(runs)/2]
	return m.total, m.top
}

// linking says whether bin is static or names its shared libraries.
func linking(bin string) string {
	f, err := elf.Open(bin)
	if err != nil {
		return "?"
	}
	defer f.Close()
	libs, _ := f.ImportedLibraries()
	dyn := slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
	if !dyn && len(libs) == 0 {
		return "static"
	}
	short := make([]string, len(libs))
	for i, l := range libs {
		short[i] = strings.Split(l, ".so")[0]
	}
	return fmt.Sprintf("dynamic: %d libraries (%s)", len(libs), strings.Join(short, " "))
}

func pct(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func mean(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	var sum time.Duration
	for _, x := range d {
		sum += x
	}
	return sum / time.Duration(len(d))
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/1e6) }
