//go:build linux

// Command httppeer measures 1 MiB tool-call results over HTTP against a
// peer, in one run (issue 12, section 3: "the HTTP endpoint's 1 MiB
// throughput at least mcp-hub's in the same run"). It prints figures,
// never a verdict.
//
// The server is bench/bridgestart/tinyserver (the standard library; its
// echo tool answers {"size":1048576} with 1 MiB of text). Three paths,
// each a hand-written client (no go-sdk on the client side), sequential,
// one call at a time:
//
//   - direct: the tiny server over stdio (the baseline);
//   - switchboard: a host (this program re-executed with -serve: host.Run
//     with an in-memory keyring holding the bearer token) with
//     "gateway": {"httpPort": N}; Streamable HTTP, one POST per call, the
//     answer read to its end (SSE or JSON, as the endpoint chooses);
//   - mcp-hub: `mcp-hub --port N --config FILE` (its /mcp endpoint is the
//     older HTTP+SSE transport: a GET stream that carries the answers of
//     the POSTs to /messages?sessionId=...).
//
// Each round measures every path (starting with the next path each
// round); the table has the median calls/s of the rounds and its ratio to
// direct, then every round's rates and the machine's load before and
// after.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/bench/internal/stats"
	"github.com/switchboard-mcp/switchboard/bench/internal/table"
	"github.com/switchboard-mcp/switchboard/secrets"
)

func main() {
	serve := flag.String("serve", "", "run a host in this directory (internal)")
	tiny := flag.String("tiny", "", "the tinyserver binary")
	hub := flag.String("hub", "", "the mcp-hub command (dist/cli.js); empty: no mcp-hub row")
	work := flag.String("work", "", "a scratch directory")
	rounds := flag.Int("rounds", 5, "rounds")
	calls := flag.Int("calls", 40, "1 MiB calls per path per round")
	size := flag.Int("size", 1<<20, "the result's text, bytes")
	base := flag.String("base", "", "this program built from an earlier tree: its host is a row too")
	flag.Parse()
	if *serve != "" {
		os.Exit(runHost(*serve))
	}
	if err := run(*tiny, *hub, *base, *work, *rounds, *calls, *size); err != nil {
		fmt.Fprintln(os.Stderr, "httppeer:", err)
		os.Exit(1)
	}
}

const token = "bench-httppeer-token-0123456789abcdef"

func runHost(dir string) int {
	os.Setenv("SHELL", "/bin/sh")
	store := secrets.NewMemoryStore(filepath.Join(dir, "secrets.json"))
	if err := store.Set(gateway.TokenName, secrets.New(token)); err != nil {
		fmt.Fprintln(os.Stderr, "host:", err)
		return 1
	}
	// SIGTERM ends the host (stopChild), so that a profile is written.
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer cancel()
	if p := os.Getenv("HTTPPEER_CPUPROFILE"); p != "" {
		f, err := os.Create(p)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	err := host.Run(ctx, host.Options{
		ConfigPath: filepath.Join(dir, "cfg", "config.json"),
		RuntimeDir: filepath.Join(dir, "run"),
		SocketPath: filepath.Join(dir, "run", "host.sock"),
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

// caller makes one tools/call with a result of size bytes and returns the
// answer's length.
type caller interface {
	call(size int) (int, error)
	close()
}

type path struct {
	name  string
	c     caller
	rates []float64
}

func run(tiny, hub, base, work string, rounds, calls, size int) error {
	if tiny == "" || work == "" {
		return errors.New("-tiny and -work are needed")
	}
	load0 := loadavg()
	direct, err := startDirect(tiny)
	if err != nil {
		return fmt.Errorf("direct: %w", err)
	}
	paths := []*path{{name: "direct (stdio)", c: direct}}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	sb, err := startSwitchboard(filepath.Join(work, "sb"), self, tiny)
	if err != nil {
		return fmt.Errorf("switchboard: %w", err)
	}
	paths = append(paths, &path{name: "switchboard HTTP", c: sb})
	if base != "" {
		sb, err := startSwitchboard(filepath.Join(work, "sb-base"), base, tiny)
		if err != nil {
			return fmt.Errorf("switchboard (base): %w", err)
		}
		paths = append(paths, &path{name: "switchboard HTTP (base)", c: sb})
	}
	if hub != "" {
		h, err := startHub(filepath.Join(work, "hub"), hub, tiny)
		if err != nil {
			return fmt.Errorf("mcp-hub: %w", err)
		}
		paths = append(paths, &path{name: "mcp-hub HTTP (SSE)", c: h})
	}
	defer func() {
		for _, p := range paths {
			p.c.close()
		}
	}()
	for _, p := range paths { // warm-up, and a check that the answer is whole
		for range max(calls/10, 2) {
			n, err := p.c.call(size)
			if err != nil {
				return fmt.Errorf("%s: %w", p.name, err)
			}
			if n < size {
				return fmt.Errorf("%s: an answer of %d bytes for a %d-byte result", p.name, n, size)
			}
		}
	}
	for r := range rounds {
		fmt.Fprintf(os.Stderr, "round %d/%d\n", r+1, rounds)
		order := append(append([]*path(nil), paths[r%len(paths):]...), paths[:r%len(paths)]...)
		for _, p := range order {
			t0 := time.Now()
			for range calls {
				if _, err := p.c.call(size); err != nil {
					return fmt.Errorf("%s: %w", p.name, err)
				}
			}
			p.rates = append(p.rates, float64(calls)/time.Since(t0).Seconds())
		}
	}
	fmt.Printf("\n%d-byte tool results, sequential; %d cores, %s; %d rounds x %d calls; load before %s, after %s\n",
		size, runtime.NumCPU(), runtime.Version(), rounds, calls, load0, loadavg())
	t := table.New(os.Stdout)
	fmt.Fprintln(t, "path\tcalls/s (median)\tMB/s\tvs direct")
	d := stats.Median(paths[0].rates)
	for _, p := range paths {
		m := stats.Median(p.rates)
		fmt.Fprintf(t, "%s\t%.1f\t%.1f\t%.2fx\n", p.name, m, m*float64(size)/1e6, m/d)
	}
	t.Flush()
	fmt.Println("rounds' rates (calls/s):")
	for _, p := range paths {
		parts := make([]string, len(p.rates))
		for i, r := range p.rates {
			parts[i] = fmt.Sprintf("%.1f", r)
		}
		fmt.Printf("  %-24s %s\n", p.name, strings.Join(parts, " "))
	}
	return nil
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func bigCall(id int, tool string, size int) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"size":%d}}}`, id, tool, size)
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"%s","capabilities":{},"clientInfo":{"name":"bench-httppeer","version":"1"}}}`

// checkAnswer returns an error unless msg is the result of request id.
func checkAnswer(msg []byte, id int) error {
	if !bytes.Contains(msg, fmt.Appendf(nil, `"id":%d`, id)) || !bytes.Contains(msg, []byte(`"result"`)) || bytes.Contains(msg, []byte(`"isError":true`)) {
		return fmt.Errorf("not the result of call %d: %.300s", id, msg)
	}
	return nil
}

// direct: a line client of the tiny server.
type directConn struct {
	cmd *exec.Cmd
	w   io.WriteCloser
	r   *bufio.Reader
	id  int
}

func startDirect(tiny string) (*directConn, error) {
	cmd := exec.Command(tiny)
	w, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &directConn{cmd: cmd, w: w, r: bufio.NewReaderSize(r, 4<<20)}
	if _, err := fmt.Fprintf(w, initialize+"\n", "2025-06-18"); err != nil {
		return nil, err
	}
	if _, err := c.r.ReadBytes('\n'); err != nil {
		return nil, err
	}
	_, err = io.WriteString(w, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return c, err
}

func (c *directConn) call(size int) (int, error) {
	c.id++
	if _, err := c.w.Write(append(bigCall(c.id, "echo", size), '\n')); err != nil {
		return 0, err
	}
	line, err := c.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		var more []byte
		more, err = c.r.ReadBytes('\n')
		line = append(append([]byte(nil), line...), more...)
	}
	if err != nil {
		return 0, err
	}
	return len(line), checkAnswer(line, c.id)
}

func (c *directConn) close() {
	c.w.Close()
	_ = c.cmd.Wait()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startChild(cmd *exec.Cmd, logPath string) error {
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	return cmd.Start()
}

func stopChild(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // its group: mcp-hub's servers too
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// tail is the end of a child's log, for an error.
func tail(p string) string {
	b, _ := os.ReadFile(p)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// Switchboard's Streamable HTTP endpoint.
type sbConn struct {
	cmd     *exec.Cmd
	url     string
	session string
	hc      *http.Client
	id      int
}

func startSwitchboard(dir, self, tiny string) (*sbConn, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	for _, d := range []string{"cfg", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	doc, _ := json.Marshal(map[string]any{"version": 1, "mcpServers": map[string]any{"tiny": map[string]any{"command": tiny}},
		"gateway": map[string]any{"httpPort": port}})
	if err := os.WriteFile(filepath.Join(dir, "cfg", "config.json"), doc, 0o600); err != nil {
		return nil, err
	}
	c := &sbConn{cmd: exec.Command(self, "-serve", dir), url: "http://127.0.0.1:" + strconv.Itoa(port) + gateway.HTTPPath,
		hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}}
	c.cmd.Env = os.Environ()
	if err := startChild(c.cmd, filepath.Join(dir, "serve.out")); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		err = c.connect()
		if err == nil {
			_, err = c.call(16)
		}
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			c.close()
			return nil, fmt.Errorf("no answer in 60 s: %v\n%s", err, tail(filepath.Join(dir, "serve.out")))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func (c *sbConn) post(body []byte) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	return c.hc.Do(req)
}

func (c *sbConn) connect() error {
	c.session = ""
	resp, err := c.post(fmt.Appendf(nil, initialize, "2025-06-18"))
	if err != nil {
		return err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("initialize: %s: %.300s", resp.Status, b)
	}
	c.session = resp.Header.Get("Mcp-Session-Id")
	resp, err = c.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return nil
}

func (c *sbConn) call(size int) (int, error) {
	c.id++
	resp, err := c.post(bigCall(c.id, "tiny__echo", size))
	if err != nil {
		return 0, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %.300s", resp.Status, b)
	}
	return len(b), checkAnswer(b, c.id)
}

func (c *sbConn) close() { stopChild(c.cmd) }

// mcp-hub's /mcp endpoint: HTTP+SSE.
type hubConn struct {
	cmd    *exec.Cmd
	base   string
	post   string
	stream io.ReadCloser
	r      *bufio.Reader
	hc     *http.Client
	id     int
}

func startHub(dir, hub, tiny string) (*hubConn, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "home"), 0o700); err != nil {
		return nil, err
	}
	cfg := filepath.Join(dir, "mcp-servers.json")
	doc, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"tiny": map[string]any{"command": tiny}}})
	if err := os.WriteFile(cfg, doc, 0o600); err != nil {
		return nil, err
	}
	c := &hubConn{cmd: exec.Command("node", hub, "--port", strconv.Itoa(port), "--config", cfg),
		base: "http://127.0.0.1:" + strconv.Itoa(port), hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}}}
	c.cmd.Env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_STATE_HOME="+filepath.Join(dir, "home", "state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "home", "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "home", "config"))
	log := filepath.Join(dir, "hub.out")
	if err := startChild(c.cmd, log); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(90 * time.Second)
	for {
		err = c.connect()
		if err == nil {
			_, err = c.call(16)
		}
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			c.close()
			return nil, fmt.Errorf("no answer in 90 s: %v\n%s", err, tail(log))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// event reads the stream's next SSE event of the given type.
func (c *hubConn) event(want string) ([]byte, error) {
	var typ string
	var data []byte
	for {
		line, err := c.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			var more []byte
			more, err = c.r.ReadBytes('\n')
			line = append(append([]byte(nil), line...), more...)
		}
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if typ == "" {
				typ = "message"
			}
			if typ == want && data != nil {
				return data, nil
			}
			typ, data = "", nil
		case bytes.HasPrefix(line, []byte("event:")):
			typ = string(bytes.TrimSpace(line[6:]))
		case bytes.HasPrefix(line, []byte("data:")):
			d := line[5:]
			if len(d) > 0 && d[0] == ' ' {
				d = d[1:]
			}
			data = append(data, d...)
		}
	}
}

func (c *hubConn) connect() error {
	if c.stream != nil {
		c.stream.Close()
		c.stream = nil
	}
	resp, err := c.hc.Get(c.base + "/mcp")
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return fmt.Errorf("GET /mcp: %s", resp.Status)
	}
	c.stream, c.r = resp.Body, bufio.NewReaderSize(resp.Body, 4<<20)
	ep, err := c.event("endpoint")
	if err != nil {
		return err
	}
	c.post = c.base + string(ep)
	if err := c.send(fmt.Appendf(nil, initialize, "2025-03-26")); err != nil {
		return err
	}
	if _, err := c.event("message"); err != nil {
		return err
	}
	return c.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

func (c *hubConn) send(body []byte) error {
	resp, err := c.hc.Post(c.post, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %s: %.300s", c.post, resp.Status, b)
	}
	return nil
}

func (c *hubConn) call(size int) (int, error) {
	c.id++
	if err := c.send(bigCall(c.id, "tiny__echo", size)); err != nil {
		return 0, err
	}
	for {
		msg, err := c.event("message")
		if err != nil {
			return 0, err
		}
		if bytes.Contains(msg, []byte(`"method":`)) && !bytes.Contains(msg, []byte(`"result"`)) {
			continue // a notification (list_changed)
		}
		return len(msg), checkAnswer(msg, c.id)
	}
}

func (c *hubConn) close() {
	if c.stream != nil {
		c.stream.Close()
	}
	stopChild(c.cmd)
}
