//go:build unix

package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestLiveFoldsEvents: the view's snapshot follows the host's events
// (server.state, config) without a call of its own: a server that starts,
// one stopped, one added and one removed, and a config file that breaks;
// and the typed methods reach every kind of method through the view.
func TestLiveFoldsEvents(t *testing.T) {
	d := newDirs(t)
	d.writeConfig(t, map[string]any{"a": helperEntry()})
	startHost(t, d)
	l := runLive(t, client.Options{Socket: d.socket})
	ctx := ctxT(t)

	s := waitSnap(t, l, "a running with its tool", func(s client.Snapshot) bool {
		st, ok := server(s, "a")
		return s.Connected && ok && st.State == hostapi.StateRunning && st.Tools == 1
	})
	if s.Info.ConfigPath != d.config || !s.Info.Config.OK {
		t.Errorf("the snapshot's info: config %q ok %v, want %q ok", s.Info.ConfigPath, s.Info.Config.OK, d.config)
	}

	// Methods with a result.
	info, err := l.Info(ctx)
	if err != nil || info.Socket != d.socket {
		t.Errorf("Info: %+v, %v", info, err)
	}
	tools, err := l.Tools(ctx, "a")
	if err != nil || len(tools) != 1 || tools[0].Name != "echo" {
		t.Errorf("Tools: %v, %v", tools, err)
	}
	raw, err := l.Call(ctx, "a", "echo", json.RawMessage(`{"message":"hello"}`))
	if err != nil {
		t.Fatalf("Call: %v", err)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(raw, &res); err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "hello" {
		t.Errorf("Call's result %s: %v", raw, err)
	}
	lines, err := l.Logs(ctx, "a")
	if err != nil || !slices.Contains(lines, "client test server: serving") {
		t.Errorf("Logs: %q, %v", lines, err)
	}
	// The same lines with their times: each read by the host, in order,
	// the run's marker first.
	entries, err := l.LogLines(ctx, "a")
	if err != nil || len(entries) < 2 || !strings.HasPrefix(entries[0].Line, "--- started, pid ") {
		t.Fatalf("LogLines: %v, %v", entries, err)
	}
	for i, e := range entries {
		if e.Server != "a" || e.Time.IsZero() || e.Time.After(time.Now()) || i > 0 && e.Time.Before(entries[i-1].Time) {
			t.Errorf("LogLines[%d] = %+v: want a's line with a time, not after now nor before the line above", i, e)
		}
	}
	entry, err := l.GetServer(ctx, "a")
	if err != nil || !strings.Contains(string(entry), testExe) {
		t.Errorf("GetServer: %s, %v", entry, err)
	}
	var ae *api.Error
	if _, err := l.GetServer(ctx, "nope"); !errors.As(err, &ae) || ae.Code != api.CodeNotFound {
		t.Errorf("GetServer of a missing server: %v, want a not-found api.Error", err)
	}

	// A stop, folded from its events.
	if err := l.Stop(ctx, "a", true); err != nil {
		t.Fatal(err)
	}
	waitSnap(t, l, "a stopped by the user", func(s client.Snapshot) bool {
		st, _ := server(s, "a")
		return st.State == hostapi.StateStopped && st.UserStopped
	})

	// An entry added, then removed.
	b, _ := json.Marshal(helperEntry())
	if err := l.PutServer(ctx, "b", b, true); err != nil {
		t.Fatal(err)
	}
	waitSnap(t, l, "b running", func(s client.Snapshot) bool {
		st, ok := server(s, "b")
		return ok && st.State == hostapi.StateRunning
	})
	if err := l.SetDisabled(ctx, "b", true); err != nil {
		t.Fatal(err)
	}
	waitSnap(t, l, "b disabled", func(s client.Snapshot) bool {
		st, _ := server(s, "b")
		return st.State == hostapi.StateDisabled
	})
	if err := l.RemoveServer(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	waitSnap(t, l, "b gone", func(s client.Snapshot) bool {
		_, ok := server(s, "b")
		return !ok
	})

	// The config file broken on disk: the config event says so.
	if err := os.WriteFile(d.config, []byte("{ not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	waitSnap(t, l, "the config's error", func(s client.Snapshot) bool {
		return !s.Info.Config.OK && s.Info.Config.Error != ""
	})
	// The last good config is in force: a still listed.
	if _, ok := server(l.Snapshot(), "a"); !ok {
		t.Error("a left the snapshot when the file broke")
	}
}

// TestLiveReconnects: when the host goes away the view says so, and it
// connects to the next host on the same socket by itself, with that
// host's servers and info.
func TestLiveReconnects(t *testing.T) {
	d := newDirs(t)
	d.writeConfig(t, map[string]any{"a": helperEntry()})
	first := startHost(t, d)
	l := runLive(t, client.Options{Socket: d.socket})
	s1 := waitSnap(t, l, "a running", func(s client.Snapshot) bool {
		st, ok := server(s, "a")
		return s.Connected && ok && st.State == hostapi.StateRunning
	})

	first.stop(t)
	waitSnap(t, l, "not connected", func(s client.Snapshot) bool { return !s.Connected && s.Err != "" })
	if _, err := l.Info(context.Background()); !errors.Is(err, client.ErrNotConnected) {
		t.Errorf("Info with no host: %v, want ErrNotConnected", err)
	}

	d.writeConfig(t, map[string]any{"b": helperEntry()})
	startHost(t, d)
	s2 := waitSnap(t, l, "connected to the second host, b running", func(s client.Snapshot) bool {
		st, ok := server(s, "b")
		return s.Connected && ok && st.State == hostapi.StateRunning
	})
	if _, ok := server(s2, "a"); ok {
		t.Errorf("the first host's server a is still in the snapshot: %+v", s2.Servers)
	}
	if !s2.Info.StartedAt.After(s1.Info.StartedAt) {
		t.Errorf("the info is the first host's: started %v, then %v", s1.Info.StartedAt, s2.Info.StartedAt)
	}
	if _, err := l.Servers(ctxT(t)); err != nil {
		t.Errorf("a call after the reconnection: %v", err)
	}
}

// TestLiveStartsHostOnDemand: with no host, the view calls StartHost, then
// connects to the host it started; without StartHost it waits.
func TestLiveStartsHostOnDemand(t *testing.T) {
	d := newDirs(t)
	d.writeConfig(t, map[string]any{"a": helperEntry()})

	// Without StartHost: no host, and none started.
	idle := runLive(t, client.Options{Socket: d.socket})
	waitSnap(t, idle, "the first attempt failed", func(s client.Snapshot) bool { return !s.Connected && s.Err != "" })
	if _, err := os.Stat(d.socket); err == nil {
		t.Fatal("a host was started without StartHost")
	}

	var starts atomic.Int32
	l := runLive(t, client.Options{Socket: d.socket, StartHost: func(ctx context.Context) error {
		if starts.Add(1) > 1 {
			return nil // the first one's host is there
		}
		_, err := launchHost(t, d)
		return err
	}})
	waitSnap(t, l, "a running on the host started on demand", func(s client.Snapshot) bool {
		st, ok := server(s, "a")
		return s.Connected && ok && st.State == hostapi.StateRunning
	})
	if n := starts.Load(); n != 1 {
		t.Errorf("StartHost called %d times, want 1", n)
	}
	// The view without StartHost finds that host too.
	waitSnap(t, idle, "the other view connected", func(s client.Snapshot) bool { return s.Connected })
}
