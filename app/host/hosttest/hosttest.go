// Package hosttest runs a real host (host.Run) in a test's process, on
// fresh directories, for the tests of the host's clients (the window, the
// tray, the journeys): one way to start it, wait for it and stop it.
package hosttest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// wait bounds the host's start and its stop.
const wait = time.Minute

// Host is a host running in the test's process.
type Host struct {
	// Opts are the options it runs with (its config file, socket, log).
	Opts host.Options
	// Store is its keyring: an in-memory store in the test's directory,
	// unless an option gave another.
	Store *secrets.Store

	done chan struct{}
	err  error
}

// Start runs a host with the servers of cfg (nil: no config file, an
// empty start) on fresh directories under a short root (a socket's path
// must fit in 107 bytes), with XDG_CONFIG_HOME, XDG_CACHE_HOME and
// SWITCHBOARD_RUNTIME_DIR pointing there for the test. opts change the
// options before it starts. It returns once the host is ready; the host
// stops when the test ends.
func Start(t testing.TB, cfg map[string]any, opts ...func(*host.Options)) *Host {
	t.Helper()
	root, err := os.MkdirTemp("", "sbh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(root, "cache"))
	t.Setenv("SWITCHBOARD_RUNTIME_DIR", filepath.Join(root, "run"))
	h := &Host{done: make(chan struct{})}
	h.Opts = host.Options{
		ConfigPath: filepath.Join(root, "config", "switchboard", "config.json"),
		RuntimeDir: filepath.Join(root, "run"),
		SocketPath: filepath.Join(root, "run", "host.sock"),
		LogPath:    filepath.Join(root, "cache", "host.log"),
		StateDir:   filepath.Join(root, "state"),
		// config.SandboxTempRoot with this XDG_CACHE_HOME, as serve has it.
		SandboxTemp: filepath.Join(root, "cache", "switchboard-sandbox"),
		Version:     "test",
	}
	for _, o := range opts {
		o(&h.Opts)
	}
	// The in-memory store switches go-keyring to its mock for the whole
	// process: made only when no option gave a keyring (a test of the
	// real one must not have it).
	if h.Opts.Secrets == nil {
		h.Opts.Secrets = secrets.NewMemoryStore(filepath.Join(root, "config", "switchboard", "secrets.json"))
	}
	h.Store = h.Opts.Secrets
	if cfg != nil {
		if err := os.MkdirAll(filepath.Dir(h.Opts.ConfigPath), 0o700); err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(map[string]any{"version": 1, "mcpServers": cfg}, "", "  ")
		if err := os.WriteFile(h.Opts.ConfigPath, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ready := make(chan struct{})
	h.Opts.Ready = func() { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		h.err = host.Run(ctx, h.Opts)
		close(h.done)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
			if h.err != nil {
				t.Errorf("host.Run: %v", h.err)
			}
		case <-time.After(wait):
			t.Errorf("the host did not stop within %v", wait)
		}
	})
	select {
	case <-ready:
	case <-h.done:
		t.Fatalf("the host stopped before it was ready: %v", h.err)
	case <-time.After(wait):
		t.Fatalf("the host was not ready within %v", wait)
	}
	return h
}

// Done is closed when the host has stopped (on its own, or at the test's
// end); [Host.Err] is then what host.Run returned.
func (h *Host) Done() <-chan struct{} { return h.done }

// Err is what host.Run returned; valid once [Host.Done] is closed.
func (h *Host) Err() error {
	<-h.done
	return h.err
}
