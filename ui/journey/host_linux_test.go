//go:build linux && cgo && !ci

package journey

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/host/hosttest"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// hostRun is a real host (host.Run in this process, on fresh directories,
// with the in-memory keyring) and a client.Live following it, as the app
// has.
type hostRun struct {
	t     *testing.T
	opts  host.Options
	store *secrets.Store
	live  *client.Live
}

// startHost runs a host with the servers of cfg (nil: no config file, an
// empty start); env is set first (the host reads SHELL and PATH when it
// starts). Everything stops with the test.
func startHost(t *testing.T, cfg map[string]any, env ...string) *hostRun {
	t.Helper()
	for i := 0; i+1 < len(env); i += 2 {
		t.Setenv(env[i], env[i+1])
	}
	return followHost(t, hosttest.Start(t, cfg, func(o *host.Options) { o.Version = "journey" }))
}

// followHost is a started host with a client.Live following it, connected.
func followHost(t *testing.T, th *hosttest.Host) *hostRun {
	t.Helper()
	h := &hostRun{t: t, opts: th.Opts, store: th.Store}
	h.live = client.New(client.Options{Socket: h.opts.SocketPath})
	lctx, lcancel := context.WithCancel(context.Background())
	ldone := make(chan struct{})
	go func() { h.live.Run(lctx); close(ldone) }()
	t.Cleanup(func() { lcancel(); <-ldone })
	testkit.Eventually(t, "the client is connected to the host", func() bool { return h.live.Snapshot().Connected })
	return h
}

// server returns the host's status of a server, and whether it has one.
func (h *hostRun) server(name string) (hostapi.ServerStatus, bool) {
	for _, s := range h.live.Snapshot().Servers {
		if s.Name == name {
			return s, true
		}
	}
	return hostapi.ServerStatus{}, false
}

// waitState waits until the host says the server is in the state.
func (h *hostRun) waitState(name string, want hostapi.State) hostapi.ServerStatus {
	h.t.Helper()
	var st hostapi.ServerStatus
	testkit.Eventually(h.t, fmt.Sprintf("the host runs %s (%s)", name, want), func() (bool, string) {
		s, ok := h.server(name)
		st = s
		return ok && s.State == want, fmt.Sprintf("%+v", s)
	})
	return st
}

// entry returns the server's entry in the config file on disk.
func (h *hostRun) entry(name string) map[string]any {
	h.t.Helper()
	b, err := os.ReadFile(h.opts.ConfigPath)
	if err != nil {
		h.t.Fatal(err)
	}
	var f struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		h.t.Fatalf("%v:\n%s", err, b)
	}
	return f.MCPServers[name]
}
