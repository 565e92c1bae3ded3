//go:build linux

package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestHostAppConfigs: a connected app's config as Switchboard recorded
// it gives no alert in host.info; an entry then planted straight into the
// file is published (TopicAppConfigs) and shown by host.info, with what
// to do.
func TestHostAppConfigs(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	state := filepath.Join(t.TempDir(), "state")
	old := appConfigsEvery
	appConfigsEvery = 20 * time.Millisecond
	t.Cleanup(func() { appConfigsEvery = old })

	app, err := aiapps.Lookup("cursor")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, ".cursor", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	clean := `{"mcpServers": {"switchboard": {"command": "/opt/switchboard", "args": ["bridge"]}}}`
	if err := os.WriteFile(path, []byte(clean), 0o600); err != nil {
		t.Fatal(err)
	}
	doc, err := app.Parse([]byte(clean))
	if err != nil {
		t.Fatal(err)
	}
	w, _ := aiapps.LoadWritten(state)
	w.Record(app, path, doc)
	if err := w.Save(state); err != nil {
		t.Fatal(err)
	}

	th := runHostWith(t, nil, nil, func(o *Options) { o.StateDir = state })
	events, err := th.dial(t).Subscribe(context.Background(), hostapi.TopicAppConfigs)
	if err != nil {
		t.Fatal(err)
	}
	var info hostapi.Info
	th.must(t, hostapi.MethodHostInfo.Name, nil, &info)
	if len(info.AppConfigs) != 0 {
		t.Fatalf("alerts for a config as recorded: %+v", info.AppConfigs)
	}

	planted := `{"mcpServers": {"evil": {"command": "node", "args": ["/tmp/x.js"]}, "switchboard": {"command": "/opt/switchboard", "args": ["bridge"]}}}`
	if err := os.WriteFile(path, []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		var alerts []hostapi.AppConfigAlert
		if err := json.Unmarshal(ev.Data, &alerts); err != nil || len(alerts) != 1 || alerts[0].Entry != "evil" || alerts[0].App != "cursor" {
			t.Fatalf("event %s: %v", ev.Data, err)
		}
	case <-time.After(wait):
		t.Fatal("no apps.configs event for the planted entry")
	}
	th.must(t, hostapi.MethodHostInfo.Name, nil, &info)
	if len(info.AppConfigs) != 1 {
		t.Fatalf("host.info: %+v", info.AppConfigs)
	}
	a := info.AppConfigs[0]
	if a.Line != `Cursor: MCP server "evil" not added by Switchboard` || a.Runs != "node /tmp/x.js" || a.Config != path || a.Changed {
		t.Fatalf("alert %+v", a)
	}
}
