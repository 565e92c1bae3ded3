//go:build linux

package host

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// The connection flood of TestGatewayHTTPFlood comes from this test
// binary re-executed (floodEnv names the address), so that its
// descriptors are not the host's: the test counts the host's.
const (
	floodEnv  = "SWITCHBOARD_HOST_TEST_FLOOD"   // host:port to flood
	floodNEnv = "SWITCHBOARD_HOST_TEST_FLOOD_N" // connections held at once
)

func init() {
	if addr := os.Getenv(floodEnv); addr != "" {
		n, _ := strconv.Atoi(os.Getenv(floodNEnv))
		os.Exit(runFlood(addr, n))
	}
}

// runFlood holds n connections to addr until stdin closes: every tenth
// one sends a header byte every 100 ms (slowloris), the others send
// nothing (idle keep-alive); one the host closes is dialled again. It
// prints "flooding" once n dials have been made.
func runFlood(addr string, n int) int {
	stop := make(chan struct{})
	go func() {
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		close(stop)
	}()
	dialled := make(chan struct{}, n)
	for i := range n {
		go func() {
			first := true
			for {
				c, err := net.DialTimeout("tcp", addr, 30*time.Second)
				if first {
					first = false
					dialled <- struct{}{}
				}
				if err != nil {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
						continue
					}
				}
				gone := make(chan struct{})
				go func() { // the host closed it
					buf := make([]byte, 512)
					for {
						if _, err := c.Read(buf); err != nil {
							close(gone)
							return
						}
					}
				}()
				hdr := "POST " + gateway.HTTPPath + " HTTP/1.1\r\nHost: " + addr + "\r\nX-Pad: "
			drip:
				for j := 0; ; j++ {
					select {
					case <-stop:
						c.Close()
						return
					case <-gone:
						break drip
					case <-time.After(100 * time.Millisecond):
						if i%10 == 0 {
							b := byte('a')
							if j < len(hdr) {
								b = hdr[j]
							}
							_, _ = c.Write([]byte{b})
						}
					}
				}
				c.Close()
			}
		}()
	}
	for range n {
		<-dialled
	}
	fmt.Println("flooding")
	<-stop
	return 0
}

// openFDs counts this process's open descriptors: the host's, since it
// runs in the test's process and the flood does not.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestGatewayHTTPFlood: 2,000 connections to the HTTP endpoint that send
// nothing or drip their headers (another local user could open them: the
// endpoint is on 127.0.0.1) cost the host at most its connection cap in
// descriptors, and the API and the gateway's socket keep answering
// meanwhile.
func TestGatewayHTTPFlood(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	th := runHostWith(t, store, map[string]any{"m": gwEntry("gwmodern")}, func(o *Options) { o.GatewayHTTPPort = -1 })
	th.waitRunning(t, "m")
	var info hostapi.GatewayInfo
	th.must(t, hostapi.MethodGatewayTools.Name, nil, &info)
	u, err := url.Parse(info.HTTP)
	if err != nil || u.Host == "" {
		t.Fatalf("HTTP endpoint %q", info.HTTP)
	}
	cs := gwClient(t, th, gateway.Filter{}, "", nil) // connected before the flood
	before := openFDs(t)

	const n = 2000
	cmd := exec.Command(testExe)
	cmd.Env = append(os.Environ(), floodEnv+"="+u.Host, floodNEnv+"="+strconv.Itoa(n))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "flooding" {
		t.Fatalf("the flood helper said %q: %v", line, err)
	}

	peak := 0
	sample := func() {
		if fds := openFDs(t); fds > peak {
			peak = fds
		}
	}
	// Over a few rounds, while the flood holds on: the API's status, a
	// tools/list over the gateway's socket (an existing session and a new
	// one), and the host's descriptors.
	for round := range 5 {
		sample()
		var list []hostapi.ServerStatus
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		err := th.c.Call(ctx, hostapi.MethodServersList.Name, nil, &list)
		cancel()
		if err != nil || len(list) != 1 {
			t.Fatalf("round %d: status over the API during the flood: %v %v", round, list, err)
		}
		sample()
		if got := gwTools(t, cs); len(got) == 0 {
			t.Errorf("round %d: tools/list over the gateway's socket: none", round)
		}
		if got := gwTools(t, gwClient(t, th, gateway.Filter{}, "", nil)); len(got) == 0 {
			t.Errorf("round %d: tools/list of a new gateway client: none", round)
		}
		sample()
		time.Sleep(500 * time.Millisecond)
	}
	// The cap (256) plus the gateway clients this test opened and slack
	// for the runtime; without the cap the host held one per connection.
	if limit := before + 256 + 64; peak > limit {
		t.Errorf("the host's descriptors went from %d to %d under a flood of %d connections (limit %d)", before, peak, n, limit)
	}
	t.Logf("descriptors: %d before the flood, %d at most during it (%d connections)", before, peak, n)
}

// TestGatewayHTTPTokenReload: the endpoint's token is the one in memory;
// a new token in the keyring counts once the host is told (what 'gateway
// token --new' does), or once it is set through the host's secrets.set.
func TestGatewayHTTPTokenReload(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	th := runHostWith(t, store, map[string]any{"m": gwEntry("gwmodern")}, func(o *Options) { o.GatewayHTTPPort = -1 })
	var info hostapi.GatewayInfo
	th.must(t, hostapi.MethodGatewayTools.Name, nil, &info)
	status := func(token string) int {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
		req, _ := http.NewRequest("POST", info.HTTP, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	old, err := gateway.Token(store)
	if err != nil {
		t.Fatal(err)
	}
	if code := status(old); code != http.StatusOK {
		t.Fatalf("the token: %d", code)
	}
	renewed, err := gateway.NewToken(store)
	if err != nil {
		t.Fatal(err)
	}
	if code := status(renewed); code != http.StatusUnauthorized {
		t.Errorf("a new token the host was not told of: %d", code)
	}
	th.must(t, hostapi.MethodGatewayReloadToken.Name, nil, nil)
	if code := status(renewed); code != http.StatusOK {
		t.Errorf("the new token after gateway.reloadToken: %d", code)
	}
	if code := status(old); code != http.StatusUnauthorized {
		t.Errorf("the old token after gateway.reloadToken: %d", code)
	}
	chosen := strings.Repeat("ab", 32)
	th.must(t, hostapi.MethodSecretsSet.Name, hostapi.SecretParams{Name: gateway.TokenName, Value: chosen}, nil)
	if code := status(chosen); code != http.StatusOK {
		t.Errorf("a token set with secrets.set: %d", code)
	}
}
