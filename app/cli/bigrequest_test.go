//go:build linux

package cli

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestBridgeRequestOverLimit: a request over the gateway's 8 MiB limit is
// answered with a JSON-RPC error carrying its id, the bridge says why on
// its stderr, and the session goes on (the next request is answered), in
// both of the bridge's modes: stdin and stdout handed to the host, and
// relayed.
func TestBridgeRequestOverLimit(t *testing.T) {
	sb := newSandbox(t)
	sb.serve(t)
	for _, mode := range []struct{ name, env string }{{"handoff", ""}, {"relay", bridgeRelayEnv + "=1"}} {
		t.Run(mode.name, func(t *testing.T) {
			cmd := exec.Command(sbBin, "bridge")
			cmd.Env = sb.env
			if mode.env != "" {
				cmd.Env = sb.with(mode.env)
			}
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			in, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			outR, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
			out := bufio.NewReader(outR)
			type resp struct {
				ID    json.RawMessage `json:"id"`
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
				Result json.RawMessage `json:"result"`
			}
			next := func() resp {
				t.Helper()
				line, err := out.ReadBytes('\n')
				if err != nil {
					t.Fatalf("reading the bridge's stdout: %v\nstderr: %s", err, stderr.String())
				}
				var r resp
				if err := json.Unmarshal(line, &r); err != nil {
					t.Fatalf("not JSON-RPC: %q", line)
				}
				return r
			}
			send := func(s string) {
				t.Helper()
				if _, err := io.WriteString(in, s+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"big-test","version":"1"}}}`)
			if r := next(); string(r.ID) != "1" || r.Error != nil {
				t.Fatalf("initialize: %+v", r)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

			big := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"pad":"` + strings.Repeat("x", 9<<20) + `"}}}`
			go func() { send(big); send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`) }()
			r := next()
			if string(r.ID) != "7" || r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, "larger than the gateway's limit of 8 MiB") {
				t.Fatalf("the big request's answer: %+v", r)
			}
			if r := next(); string(r.ID) != "8" || r.Error != nil {
				t.Fatalf("the session did not go on after the big request: %+v", r)
			}
			testkit.Eventually(t, "the bridge's stderr says why", func() (bool, string) {
				s := stderr.String()
				return strings.Contains(s, "larger than the gateway's limit of 8 MiB"), s
			})

			if mode.name == "handoff" && !strings.Contains(stderr.String(), "request 7 from the app was refused") {
				t.Errorf("the bridge's stderr does not name the request: %s", stderr.String())
			}
			in.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("the bridge exited with %v after the app closed stdin\nstderr: %s", err, stderr.String())
				}
			case <-time.After(wait):
				t.Fatal("the bridge did not exit after the app closed stdin")
			}
		})
	}
}
