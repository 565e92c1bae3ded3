package install_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
)

// TestSandboxPreset: each rule of the sandbox an entry's inputs imply,
// through install.Add (unlocked: no npm needed), read back from the
// config entry it writes.
func TestSandboxPreset(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	data := filepath.Join(home, "data")
	docs := filepath.Join(home, "docs")
	for _, d := range []string{data, docs} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	npm := func(args []registry.Argument, env ...registry.KeyValue) *registry.Entry {
		return &registry.Entry{Registry: "local", Server: registry.Server{Name: "io.example/srv", Version: "1.0.0",
			Packages: []registry.Package{{RegistryType: "npm", Identifier: "srv", Version: "1.0.0", Transport: registry.Transport{Type: "stdio"},
				PackageArguments: args, EnvironmentVariables: env}}}}
	}
	fp := registry.Input{Format: "filepath", IsRequired: true}
	cases := []struct {
		name   string
		entry  *registry.Entry
		values map[string]string
		noSbx  bool
		want   string // the entry's "sandbox" as JSON ("" none)
		why    string // in SandboxWhy (or Unconfined)
		fails  string
	}{
		{name: "strict", entry: npm(nil, registry.KeyValue{Name: "LOG_LEVEL", Input: registry.Input{Default: "info"}}),
			want: `"strict"`, why: "strict (no network"},
		{name: "filepath env, read and write", entry: npm(nil, registry.KeyValue{Name: "DATA_DIR", Input: fp}),
			values: map[string]string{"DATA_DIR": data}, want: `{"preset":"strict","write":["` + data + `"]}`, why: "DATA_DIR (a file path you chose)"},
		{name: "filepath argument described read-only", entry: npm([]registry.Argument{{Type: "positional", ValueHint: "notes",
			Input: registry.Input{Format: "filepath", IsRequired: true, Description: "Folder of notes (read-only)"}}}),
			values: map[string]string{"notes": "~/docs"}, want: `{"preset":"strict","read":["` + docs + `"]}`, why: "read only"},
		{name: "an argument that is a folder", entry: npm([]registry.Argument{{Type: "positional", ValueHint: "target_dir", Input: registry.Input{IsRequired: true}}}),
			values: map[string]string{"target_dir": data}, want: `{"preset":"strict","write":["` + data + `"]}`, why: "argument 1 is the folder"},
		{name: "a secret: a web API", entry: npm(nil, registry.KeyValue{Name: "AIRTABLE_KEY", Input: registry.Input{IsSecret: true, IsRequired: true}}),
			values: map[string]string{"AIRTABLE_KEY": "k"}, want: `"network"`, why: "AIRTABLE_KEY is a secret"},
		{name: "a URL's name", entry: npm(nil, registry.KeyValue{Name: "GRAFANA_URL", Input: registry.Input{IsRequired: true}}),
			values: map[string]string{"GRAFANA_URL": "grafana.local:3000"}, want: `"network"`, why: "GRAFANA_URL names a service"},
		{name: "a URL's value", entry: npm([]registry.Argument{{Type: "named", Name: "--server", Input: registry.Input{Default: "https://api.example.com"}}}),
			want: `"network"`, why: "--server is a URL"},
		{name: "network and a folder", entry: npm(nil, registry.KeyValue{Name: "OUT", Input: fp}, registry.KeyValue{Name: "TOKEN_X", Input: registry.Input{IsSecret: true, IsRequired: true}}),
			values: map[string]string{"OUT": data, "TOKEN_X": "t"}, want: `{"preset":"network","write":["` + data + `"]}`, why: "TOKEN_X is a secret"},
		{name: "no sandbox here", entry: npm(nil), noSbx: true, why: "runs unconfined"},
		{name: "the home folder is refused", entry: npm(nil, registry.KeyValue{Name: "ROOT", Input: fp}),
			values: map[string]string{"ROOT": home}, fails: "the home folder"},
		{name: "a remote has none", entry: remoteEntry(), values: map[string]string{"token": "a", "X-Api-Key": "b"}},
		{name: "docker has none", entry: &registry.Entry{Registry: "local", Server: registry.Server{Name: "io.example/d", Version: "1",
			Packages: []registry.Package{{RegistryType: "oci", Identifier: "docker.io/x/y", Version: "1", Transport: registry.Transport{Type: "stdio"}}}}},
			why: "Docker isolates it"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &memTarget{entries: map[string]json.RawMessage{}, secrets: map[string]string{}}
			added, err := install.Add(context.Background(), m, install.AddRequest{Entry: c.entry, StateDir: t.TempDir(),
				Values: c.values, Unlocked: true, Sandbox: !c.noSbx, LookPath: func(string) (string, error) { return "/usr/bin/x", nil }})
			if c.fails != "" {
				if err == nil || !strings.Contains(err.Error(), c.fails) || len(m.entries) != 0 {
					t.Fatalf("want an error with %q, got %v (entries %v)", c.fails, err, m.entries)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var entry map[string]json.RawMessage
			if err := json.Unmarshal(m.entries[added.Local], &entry); err != nil {
				t.Fatal(err)
			}
			if got := string(entry["sandbox"]); got != c.want {
				t.Errorf("sandbox %s, want %s", got, c.want)
			}
			why := strings.Join(added.SandboxWhy, "\n") + added.Unconfined
			if !strings.Contains(why, c.why) {
				t.Errorf("why %q, want %q", why, c.why)
			}
			if c.want != "" {
				s, err := config.ParseServer("x", m.entries[added.Local])
				if err != nil || len(s.Problems()) > 0 {
					t.Errorf("the entry is not valid: %v %v", err, s.Problems())
				}
			}
		})
	}
}
