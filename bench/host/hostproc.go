//go:build linux

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// entry is one server of the config file.
type entry struct {
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
}

// hostProc is a `switchboard serve` child, isolated in a directory of its
// own, and the harness's API client subscribed to its server.state events.
type hostProc struct {
	dir     string
	cmd     *exec.Cmd
	cfgPath string
	client  *client.Conn
	events  chan stateEvent
	nEvents atomic.Int64
	cancel  context.CancelFunc
	exited  chan struct{}
	state   map[string]hostapi.ServerStatus // as last seen by the consumer
}

// stateEvent is a server.state event with the time the harness read it.
type stateEvent struct {
	at time.Time
	st hostapi.ServerStatus
}

// hostEnv is the environment of an isolated host in dir.
func hostEnv(dir string) []string {
	over := map[string]string{
		api.RuntimeDirEnv: filepath.Join(dir, "run"),
		"XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"XDG_CACHE_HOME":  filepath.Join(dir, "cache"),
		"SHELL":           "/bin/sh",
	}
	drop := map[string]bool{"SWITCHBOARD_CONFIG": true, "DBUS_SESSION_BUS_ADDRESS": true}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := over[k]; ok || drop[k] {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range over {
		env = append(env, k+"="+v)
	}
	return env
}

// writeConfig writes the config file atomically: a temporary file in the
// same directory, fsync, then rename over config.json. It returns the
// time just before the rename, which is when the change becomes visible.
func writeConfig(path string, servers map[string]entry) (time.Time, error) {
	b, err := json.MarshalIndent(map[string]any{"version": 1, "mcpServers": servers}, "", "  ")
	if err != nil {
		return time.Time{}, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return time.Time{}, err
	}
	tmp := path + ".bench-tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return time.Time{}, err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return time.Time{}, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return time.Time{}, err
	}
	if err := f.Close(); err != nil {
		return time.Time{}, err
	}
	t0 := time.Now()
	return t0, os.Rename(tmp, path)
}

// startHost writes the config, runs `switchboard serve` in dir, connects
// to it and subscribes to server.state.
func startHost(ctx context.Context, bin, dir string, servers map[string]entry) (*hostProc, error) {
	env := hostEnv(dir)
	getenv := func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	h := &hostProc{dir: dir, cfgPath: filepath.Join(dir, "config", "switchboard", "config.json"),
		events: make(chan stateEvent, 1<<16), exited: make(chan struct{}), state: map[string]hostapi.ServerStatus{}}
	if err := os.MkdirAll(filepath.Join(dir, "run"), 0o700); err != nil {
		return nil, err
	}
	if _, err := writeConfig(h.cfgPath, servers); err != nil {
		return nil, err
	}
	sock, err := api.SocketPath(getenv, "linux", api.Identity{UID: os.Getuid()})
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return nil, err
	}
	h.cmd = exec.Command(bin, "serve")
	h.cmd.Env = env
	h.cmd.Dir = dir
	h.cmd.Stdout, h.cmd.Stderr = logf, logf
	// The host dies with the harness (it kills its servers in turn).
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := h.cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	go func() { _ = h.cmd.Wait(); logf.Close(); close(h.exited) }()

	// Wait for the socket: polling here is the harness's, before any
	// measurement.
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := client.Dial(ctx, sock)
		if err == nil {
			h.client = c
			break
		}
		select {
		case <-h.exited:
			return nil, fmt.Errorf("switchboard serve exited: %s", tail(filepath.Join(dir, "serve.log")))
		default:
		}
		if time.Now().After(deadline) {
			h.kill()
			return nil, fmt.Errorf("no host on %s after 30 s: %v", sock, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	sctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	sub, err := h.client.Subscribe(sctx, hostapi.TopicState)
	if err != nil {
		h.kill()
		return nil, err
	}
	go func() {
		for ev := range sub {
			at := time.Now()
			var st hostapi.ServerStatus
			if json.Unmarshal(ev.Data, &st) != nil {
				continue
			}
			h.nEvents.Add(1)
			select {
			case h.events <- stateEvent{at, st}:
			default: // the consumer is far behind; never block the client
			}
		}
	}()
	// The state before the subscription took effect.
	list, err := h.client.Servers(ctx)
	if err != nil {
		h.kill()
		return nil, err
	}
	for _, st := range list {
		h.state[st.Name] = st
	}
	return h, nil
}

func (h *hostProc) pid() int { return h.cmd.Process.Pid }

// next returns the next state event, updating h.state.
func (h *hostProc) next(ctx context.Context) (stateEvent, error) {
	select {
	case ev := <-h.events:
		h.state[ev.st.Name] = ev.st
		return ev, nil
	case <-h.exited:
		return stateEvent{}, errors.New("the host exited: " + tail(filepath.Join(h.dir, "serve.log")))
	case <-ctx.Done():
		return stateEvent{}, ctx.Err()
	}
}

// drain applies the events already queued.
func (h *hostProc) drain() {
	for {
		select {
		case ev := <-h.events:
			h.state[ev.st.Name] = ev.st
		default:
			return
		}
	}
}

// waitRunning waits until every named server is running with a pid.
func (h *hostProc) waitRunning(ctx context.Context, names []string) error {
	for {
		h.drain()
		missing := ""
		for _, n := range names {
			if st := h.state[n]; st.State != "running" || st.PID == 0 {
				missing = n
				break
			}
		}
		if missing == "" {
			return nil
		}
		if _, err := h.next(ctx); err != nil {
			st := h.state[missing]
			return fmt.Errorf("server %s is %q (%s): %w", missing, st.State, st.LastError, err)
		}
	}
}

// stop asks the host to stop (SIGTERM) and waits for it.
func (h *hostProc) stop() {
	if h.cancel != nil {
		h.cancel()
	}
	if h.client != nil {
		h.client.Close()
	}
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.exited:
	case <-time.After(30 * time.Second):
		h.kill()
	}
}

func (h *hostProc) kill() {
	_ = h.cmd.Process.Kill()
	<-h.exited
}

// tail returns the last lines of a log file, for an error message.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}
