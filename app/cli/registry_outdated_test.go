//go:build linux

package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
)

// TestRegistryOutdatedCLI: for each server of servers.lock, 'registry
// outdated' says whether its registry's index has a newer version: a
// release 10 days old is an update, one of today is "too new to offer"
// and not counted unless --allow-new, an equal version is up to date, an
// entry the index lacks is said; --json gives the same as data.
func TestRegistryOutdatedCLI(t *testing.T) {
	sb := newSandbox(t)
	reg := registrytest.New(t)
	t0 := reg.Tick(0)
	reg.Tick(time.Now().Add(-10*24*time.Hour - time.Hour).Sub(t0))
	reg.Publish(registry.Server{Name: "io.github.t/old", Version: "1.4.0"})
	reg.Publish(registry.Server{Name: "io.github.t/same", Version: "2.0.0"})
	reg.Tick(time.Since(reg.Tick(0)))
	reg.Publish(registry.Server{Name: "io.github.t/fresh", Version: "3.1.0"})
	writeConfig(t, sb.configPath(), `{"mcpServers": {}, "registries": [{"name": "local", "url": "`+reg.URL+`"}]}`)
	sb.cli(t, "registry", "sync")
	state := filepath.Join(sb.home, ".local", "state", "switchboard")
	lock := &install.Lock{Version: 1, Servers: map[string]*install.Locked{
		"old":   {Registry: "local", Entry: "io.github.t/old", EntryVersion: "1.3.2"},
		"same":  {Registry: "local", Entry: "io.github.t/same", EntryVersion: "2.0.0"},
		"fresh": {Registry: "local", Entry: "io.github.t/fresh", EntryVersion: "3.0.0"},
		"gone":  {Registry: "local", Entry: "io.github.t/gone", EntryVersion: "1.0.0"},
	}}
	if err := install.WriteLock(state, lock); err != nil {
		t.Fatal(err)
	}

	out := sb.cli(t, "registry", "outdated")
	for name, want := range map[string]string{
		"old":   "update (published 10 days ago)",
		"fresh": "too new to offer (0 days; --allow-new)",
		"same":  "up to date",
		"gone":  "not in the registry's index",
	} {
		if l := lineWith(out, name+" "); !strings.Contains(l, want) {
			t.Errorf("%s: %q; want %q in:\n%s", name, l, want, out)
		}
	}
	if !strings.Contains(out, "1 update to review; 1 release too new to offer") {
		t.Errorf("the count:\n%s", out)
	}
	if strings.Index(out, "old ") > strings.Index(out, "fresh ") {
		t.Errorf("the update is not listed first:\n%s", out)
	}
	out = sb.cli(t, "registry", "outdated", "--allow-new")
	if !strings.Contains(out, "2 updates to review.") || !strings.Contains(lineWith(out, "fresh "), "update, too new to offer") {
		t.Errorf("--allow-new:\n%s", out)
	}
	var ups []registry.Update
	if err := json.Unmarshal([]byte(sb.cli(t, "--json", "registry", "outdated")), &ups); err != nil {
		t.Fatal(err)
	}
	if len(ups) != 4 || ups[0].Server != "old" || !ups[0].Offered || ups[0].Latest != "1.4.0" || ups[1].Server != "fresh" || !ups[1].TooNew || ups[1].Offered {
		t.Errorf("--json: %+v", ups)
	}
}
