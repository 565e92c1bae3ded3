//go:build linux

package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/trust"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestPinsHost: a real host with a pin file. A damaged pin file is moved
// aside and reported in host.info (and the host pins from an empty file);
// a tool that a running server adds with list_changed is held (a new tool
// on a trusted server), with the server.trust event and the status's
// Held; accept shows it; its pins follow a rename of the entry and are
// forgotten when the entry is removed.
func TestPinsHost(t *testing.T) {
	dir := t.TempDir()
	pinsPath := filepath.Join(dir, "state", "pins.json")
	if err := os.MkdirAll(filepath.Dir(pinsPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pinsPath, []byte("{not a pin file"), 0o600); err != nil {
		t.Fatal(err)
	}
	store := secrets.NewMemoryStore(filepath.Join(dir, "secrets.json"))
	th := runHostWith(t, store, map[string]any{"a": helperEntry("modern", "a")}, func(o *Options) { o.PinsPath = pinsPath })
	ctx, cancel := context.WithTimeout(context.Background(), 3*wait)
	defer cancel()
	c, err := client.Dial(ctx, th.opts.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.PinsPath != pinsPath || !strings.Contains(info.PinsError, "damaged") || !strings.Contains(info.PinsError, "moved to") {
		t.Errorf("host.info: pins %q, error %q", info.PinsPath, info.PinsError)
	}
	if aside, _ := filepath.Glob(pinsPath + ".damaged-*"); len(aside) != 1 {
		t.Errorf("the damaged file was not moved aside: %v", aside)
	}
	events, err := c.Subscribe(ctx, hostapi.TopicTrust)
	if err != nil {
		t.Fatal(err)
	}

	mapped := func(exposed string) (hostapi.MappedName, bool) {
		t.Helper()
		gi, err := c.Gateway(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range gi.Mapping.Tools {
			if m.Exposed == exposed {
				return m, true
			}
		}
		return hostapi.MappedName{}, false
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		testkit.Eventually(t, what, cond)
	}
	waitFor("a's tools, trusted on first use", func() bool { m, ok := mapped("a__echo"); return ok && m.Hidden == "" })

	// grow adds the tool "grown" and sends list_changed.
	if _, err := c.Call(ctx, "a", "grow", nil); err != nil {
		t.Fatal(err)
	}
	waitFor("grown, held", func() bool { m, ok := mapped("a__grown"); return ok && m.Trust == string(trust.HeldNew) })
	if m, _ := mapped("a__grown"); !strings.Contains(m.Hidden, "awaits review") {
		t.Errorf("the held tool's reason: %q", m.Hidden)
	}
	select {
	case ev := <-events:
		var te hostapi.TrustEvent
		if err := json.Unmarshal(ev.Data, &te); err != nil || te.Held["a"] != 1 {
			t.Errorf("server.trust event: %s (%v)", ev.Data, err)
		}
	case <-ctx.Done():
		t.Fatal("no server.trust event")
	}
	if st := pinStatus(t, c, "a"); st.Held != 1 {
		t.Errorf("status: held %d", st.Held)
	}
	held, enabled, err := c.ReviewTools(ctx, "a")
	if err != nil || !enabled || len(held) != 1 || held[0].Tool != "grown" || held[0].Old != "" {
		t.Fatalf("review: %+v %v %v", held, enabled, err)
	}

	// The pins follow a rename: the held tool stays held under the new name.
	if err := c.RenameServer(ctx, "a", "b"); err != nil {
		t.Fatal(err)
	}
	waitFor("b's echo", func() bool { m, ok := mapped("b__echo"); return ok && m.Hidden == "" })
	// The new process has no grown tool until grow again: its pin is
	// kept, unlisted, and review shows only what the server lists.
	if held, _, err := c.ReviewTools(ctx, "b"); err != nil || len(held) != 0 {
		t.Errorf("review of b before grow: %+v %v", held, err)
	}
	if _, err := c.Call(ctx, "b", "grow", nil); err != nil {
		t.Fatal(err)
	}
	waitFor("b__grown, still held after the rename", func() bool { m, ok := mapped("b__grown"); return ok && m.Trust == string(trust.HeldNew) })
	if err := c.AcceptTool(ctx, "b", "grown"); err != nil {
		t.Fatal(err)
	}
	// The view is rebuilt before accept answers.
	if m, ok := mapped("b__grown"); !ok || m.Hidden != "" {
		t.Errorf("after accept: %+v", m)
	}
	if st := pinStatus(t, c, "b"); st.Held != 0 {
		t.Errorf("status after accept: held %d", st.Held)
	}

	// Removed: forgotten.
	if err := c.RemoveServer(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	waitFor("b forgotten in the pin file", func() bool {
		raw, err := os.ReadFile(pinsPath)
		return err == nil && !strings.Contains(string(raw), `"b"`)
	})
}

func pinStatus(t *testing.T, c *client.Conn, name string) hostapi.ServerStatus {
	t.Helper()
	list, err := c.Servers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range list {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no server %s", name)
	return hostapi.ServerStatus{}
}
