//go:build linux

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// setRegistrySync sets the background sync's periods for a test (the
// host reads them before its goroutine starts, and awaits it at its end).
func setRegistrySync(t *testing.T, every, delay, retry time.Duration) {
	oe, od, or := registrySyncEvery, registrySyncDelay, registrySyncRetry
	registrySyncEvery, registrySyncDelay, registrySyncRetry = every, delay, retry
	t.Cleanup(func() { registrySyncEvery, registrySyncDelay, registrySyncRetry = oe, od, or })
}

func testServer(name, version string) registry.Server {
	return registry.Server{Name: name, Version: version, Description: "a test server",
		Packages: []registry.Package{{RegistryType: "npm", Identifier: "@test/" + name[strings.IndexByte(name, '/')+1:], Version: version, Transport: registry.Transport{Type: "stdio"}}}}
}

// TestHostRegistrySync: the host syncs a registry of its config in the
// background (a loopback v0.1 registry of 150+ servers: two pages), first
// in full, then with updated_since each period; host.info gives each
// registry's last sync, entries and last error, and the count of updates
// to review (a newer release older than 3 days; a younger one is not
// counted); an entry deprecated in the registry gives a notice and its
// server keeps running; an entry deleted disables its server ("disabled":
// true, the rest of the config as it was) with the registry's message
// in a notice and the registry event; a failing registry is in
// LastError with what to do, and cleared by the next good sync.
func TestHostRegistrySync(t *testing.T) {
	setRegistrySync(t, 300*time.Millisecond, 0, 20*time.Millisecond)
	reg := registrytest.New(t)
	// The registry's clock: releases 10 days old.
	t0 := reg.Tick(0)
	reg.Tick(time.Now().Add(-10 * 24 * time.Hour).Sub(t0))
	for _, d := range registrytest.Synthetic(150) {
		reg.Publish(d)
	}
	reg.Publish(testServer("io.github.test/alpha", "1.0.0"))
	reg.Publish(testServer("io.github.test/beta", "2.0.0"))
	reg.Publish(testServer("io.github.test/gamma", "1.2.0"))
	total := 153

	state := t.TempDir()
	lock := &install.Lock{Version: 1, Servers: map[string]*install.Locked{
		"alpha": {Registry: "test", Entry: "io.github.test/alpha", EntryVersion: "1.0.0", Ecosystem: "npm"},
		"beta":  {Registry: "test", Entry: "io.github.test/beta", EntryVersion: "2.0.0", Ecosystem: "npm"},
		"gamma": {Registry: "test", Entry: "io.github.test/gamma", EntryVersion: "1.1.9", Ecosystem: "npm"},
	}}
	if err := install.WriteLock(state, lock); err != nil {
		t.Fatal(err)
	}
	entry := map[string]any{"command": testExe, "env": map[string]string{helperEnv: "modern"}, "stdinGrace": 1000}
	servers := map[string]any{"alpha": entry, "beta": entry, "gamma": entry, "other": entry}
	var configPath string
	th := runHostWith(t, nil, nil, func(o *Options) {
		o.StateDir, o.RegistrySync = state, true
		configPath = o.ConfigPath
		b, _ := json.Marshal(map[string]any{"version": 1, "registries": []any{map[string]string{"name": "test", "url": reg.URL}}, "mcpServers": servers})
		if err := os.MkdirAll(filepath.Dir(o.ConfigPath), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(o.ConfigPath, b, 0o600); err != nil {
			t.Fatal(err)
		}
	})
	events, err := th.dial(t).Subscribe(context.Background(), hostapi.TopicRegistry)
	if err != nil {
		t.Fatal(err)
	}
	info := func() hostapi.Info {
		var in hostapi.Info
		th.must(t, hostapi.MethodHostInfo.Name, nil, &in)
		return in
	}
	waitInfo := func(what string, cond func(hostapi.Info) bool) hostapi.Info {
		t.Helper()
		var in hostapi.Info
		testkit.Eventually(t, what, func() (bool, string) {
			in = info()
			b, _ := json.Marshal(struct {
				R []hostapi.RegistryStatus
				U int
				N []hostapi.RegistryNotice
			}{in.Registries, in.Updates, in.RegistryNotices})
			return cond(in), string(b)
		})
		return in
	}

	in := waitInfo("the first sync", func(in hostapi.Info) bool {
		return len(in.Registries) == 1 && in.Registries[0].Entries == total && !in.Registries[0].SyncedAt.IsZero()
	})
	if r := in.Registries[0]; r.Name != "test" || r.URL != reg.URL || r.LastError != "" || r.NextSync.Before(r.SyncedAt) {
		t.Errorf("status %+v", r)
	}
	// gamma 1.1.9 → 1.2.0, published 10 days ago: one update to review.
	in = waitInfo("one update to review", func(in hostapi.Info) bool { return in.Updates == 1 })
	select {
	case ev := <-events:
		var re hostapi.RegistryEvent
		if err := json.Unmarshal(ev.Data, &re); err != nil || len(re.Registries) != 1 {
			t.Fatalf("registry event %s: %v", ev.Data, err)
		}
	case <-time.After(wait):
		t.Fatal("no registry event")
	}
	// Then every period, only what changed since.
	var full, cursor, since int
	testkit.Eventually(t, "a full sync in two pages, then incremental ones", func() (bool, string) {
		qs := reg.Requests() // forgets what it returns: counted across the calls
		for _, q := range qs {
			switch {
			case q.Get("updated_since") != "":
				since++
			case q.Get("cursor") != "":
				cursor++
			default:
				full++
			}
		}
		return full == 1 && cursor == 1 && since >= 2, fmt.Sprintf("%d full syncs, %d second pages, %d incremental syncs", full, cursor, since)
	})

	// A deprecation: a notice, the server keeps running.
	reg.SetStatus("io.github.test/beta", registry.StatusDeprecated, "use io.github.test/beta2")
	in = waitInfo("a notice of beta's deprecation", func(in hostapi.Info) bool { return len(in.RegistryNotices) == 1 })
	if n := in.RegistryNotices[0]; n.Server != "beta" || n.Status != registry.StatusDeprecated || n.Disabled ||
		n.Line != "beta is deprecated in the registry test: use io.github.test/beta2; it keeps running" {
		t.Errorf("notice %+v", n)
	}
	if st := th.statusOf(t, "beta"); st.Disabled {
		t.Errorf("beta was disabled for a deprecation: %+v", st)
	}

	// A deletion: the server is disabled, nothing else of the config
	// changes.
	before := readJSON(t, configPath)
	reg.SetStatus("io.github.test/alpha", registry.StatusDeleted, "malware found")
	in = waitInfo("a notice of alpha's deletion", func(in hostapi.Info) bool { return len(in.RegistryNotices) == 2 })
	if n := in.RegistryNotices[1]; n.Server != "alpha" || n.Status != registry.StatusDeleted || !n.Disabled || n.ID <= in.RegistryNotices[0].ID ||
		n.Line != "alpha was removed from the registry test: malware found; it is disabled" {
		t.Errorf("notice %+v", n)
	}
	th.waitServer(t, "alpha", "disabled", func(st hostapi.ServerStatus) bool { return st.Disabled && st.State == hostapi.StateDisabled })
	after := readJSON(t, configPath)
	want := before
	want["mcpServers"].(map[string]any)["alpha"].(map[string]any)["disabled"] = true // as servers disable writes it
	if !reflect.DeepEqual(after, want) {
		t.Errorf("the config after the deletion:\n%v\nwant\n%v", after, want)
	}
	ix, err := registry.Load(registry.Dir(state), "test", reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ix.Entries {
		if e.Server.Name == "io.github.test/alpha" {
			t.Errorf("the deleted entry is still in the index: %+v", e)
		}
	}
	if len(ix.Entries) != total-1 {
		t.Errorf("the index has %d entries, want %d", len(ix.Entries), total-1)
	}

	// A release of today is too new to offer: not counted.
	reg.Tick(time.Since(reg.Tick(0)))
	reg.Publish(testServer("io.github.test/gamma", "1.3.0"))
	waitInfo("no update to review (1.3.0 is too new)", func(in hostapi.Info) bool { return in.Updates == 0 })

	// Failures: said with what to do, then cleared.
	reg.Fail(func(string) bool { return true })
	in = waitInfo("the failure in host.info", func(in hostapi.Info) bool { return in.Registries[0].LastError != "" })
	if e := in.Registries[0].LastError; !strings.Contains(e, "503") || !strings.Contains(e, "'switchboard registry sync test'") {
		t.Errorf("LastError %q", e)
	}
	reg.Fail(nil)
	waitInfo("the failure cleared", func(in hostapi.Info) bool { return in.Registries[0].LastError == "" })
	if got := maps.Keys(readJSON(t, configPath)["mcpServers"].(map[string]any)); len(collect(got)) != 4 {
		t.Errorf("servers lost: %v", collect(got))
	}
}

func collect[T any](seq func(func(T) bool)) []T {
	var out []T
	for v := range seq {
		out = append(out, v)
	}
	return out
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
