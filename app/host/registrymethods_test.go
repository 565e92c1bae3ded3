//go:build linux

package host

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// registryHost is a host whose config names one registry, the loopback
// registry reg, synced into the host's state directory; binDir is put
// first in the PATH the host gives servers (a fake npm there).
func registryHost(t *testing.T, store *secrets.Store, reg *registrytest.Registry, binDir string) *testHost {
	t.Helper()
	return runHostWith(t, store, nil, func(o *Options) {
		o.StateDir = filepath.Join(filepath.Dir(filepath.Dir(o.ConfigPath)), "state")
		reg.Seed(t, "test", o.ConfigPath, o.StateDir)
		if binDir != "" {
			// The host asks the login shell for the servers' PATH: this
			// one answers the test's PATH, binDir first.
			sh := filepath.Join(binDir, "loginsh")
			if err := os.WriteFile(sh, []byte("#!/bin/sh\nexec /bin/sh -c \"$3\"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("SHELL", sh)
			t.Setenv("PATH", binDir+":"+os.Getenv("PATH"))
		}
	})
}

func newRegistry(t *testing.T) *registrytest.Registry {
	reg := registrytest.New(t)
	for _, d := range registrytest.Documents(t) {
		reg.Publish(d)
	}
	return reg
}

// TestRegistryMethods: registry.search finds the loopback registry's
// entries and the catalog's templates in the host's synced index, with
// their badges; registry.show is the card; registry.add with a required
// secret missing names it (nothing added), given, stores it in the
// keyring and in no file under the config or state directory nor the
// host's log, the config entry holding only the reference; the same name
// again is already_exists naming the remedy, with nothing changed.
func TestRegistryMethods(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	reg := newRegistry(t)
	th := registryHost(t, store, reg, "")

	reg.Requests() // the sync's
	var sr hostapi.RegistrySearchResult
	th.must(t, hostapi.MethodRegistrySearch.Name, hostapi.RegistrySearchParams{Query: "airtable"}, &sr)
	if len(sr.Results) == 0 || sr.Results[0].Name != "io.github.domdomegg/airtable-mcp-server" || sr.Results[0].Registry != "test" ||
		!sr.Results[0].Runnable || !slices.Contains(sr.Results[0].Packages, "npm:airtable-mcp-server") || sr.Results[0].Version != "1.7.3" {
		t.Fatalf("registry.search airtable: %+v", sr.Results)
	}
	if len(sr.Notes) != 0 {
		t.Errorf("a synced index has notes: %q", sr.Notes)
	}
	th.must(t, hostapi.MethodRegistrySearch.Name, hostapi.RegistrySearchParams{Query: "filesystem", Limit: 5}, &sr)
	var regs []string
	for _, r := range sr.Results {
		regs = append(regs, r.Registry)
	}
	if !slices.Contains(regs, "test") || !slices.Contains(regs, registry.CatalogRegistry) || len(sr.Results) > 5 {
		t.Errorf("registry.search filesystem: the registry's entry and the catalog's template, at most 5: %+v", sr.Results)
	}
	if err := th.call(t, hostapi.MethodRegistrySearch.Name, hostapi.RegistrySearchParams{}, nil); apiCode(err) != api.CodeBadRequest {
		t.Errorf("an empty query: %v", err)
	}

	var show hostapi.RegistryShowResult
	th.must(t, hostapi.MethodRegistryShow.Name, hostapi.RegistryShowParams{Name: "airtable-mcp-server"}, &show)
	var card registry.Card
	if err := json.Unmarshal(show.Card, &card); err != nil {
		t.Fatal(err)
	}
	if card.Name != "io.github.domdomegg/airtable-mcp-server" || card.Verified != "github" || len(card.Packages) != 3 ||
		!slices.Equal(card.Packages[0].Argv, []string{"npx", "-y", "airtable-mcp-server@1.7.3"}) || card.Age == "" {
		t.Errorf("registry.show: %s", show.Card)
	}
	if err := th.call(t, hostapi.MethodRegistryShow.Name, hostapi.RegistryShowParams{Name: "no-such-server"}, nil); apiCode(err) != hostapi.CodeNotFound {
		t.Errorf("registry.show of no entry: %v", err)
	}

	if r := reg.Requests(); len(r) > 0 {
		t.Errorf("search and show asked the registry: %v", r)
	}

	// A required secret missing: every problem named, nothing added.
	const pat = "patFAKE0123.abcdef456789"
	err := th.call(t, hostapi.MethodRegistryAdd.Name, hostapi.RegistryAddParams{Name: "airtable-mcp-server", Unlocked: true,
		Values: map[string]string{"NO_SUCH": "x"}}, nil)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != api.CodeBadRequest || !strings.Contains(ae.Message, "AIRTABLE_API_KEY") ||
		!strings.Contains(ae.Message, "NO_SUCH") || !strings.Contains(string(ae.Data), "AIRTABLE_API_KEY") {
		t.Fatalf("registry.add without its secret: %v", err)
	}
	cfgBefore, _ := os.ReadFile(th.opts.ConfigPath)
	if strings.Contains(string(cfgBefore), "airtable") {
		t.Fatalf("a refused add wrote the config:\n%s", cfgBefore)
	}

	var added hostapi.RegistryAddResult
	th.must(t, hostapi.MethodRegistryAdd.Name, hostapi.RegistryAddParams{Name: "airtable-mcp-server", Unlocked: true,
		Values: map[string]string{"AIRTABLE_API_KEY": pat}}, &added)
	const secretName = "airtable-mcp-server-airtable_api_key"
	if added.Local != "airtable-mcp-server" || !slices.Equal(added.Secrets, []string{secretName}) ||
		!slices.Equal(added.Argv, []string{"npx", "-y", "airtable-mcp-server@1.7.3"}) || added.Locked != nil {
		t.Errorf("registry.add: %+v", added)
	}
	if v, err := store.Get(secretName); err != nil || v.Reveal() != pat {
		t.Errorf("the keyring's %s: %v", secretName, err)
	}
	f, err := config.Load(th.opts.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if s := f.Servers["airtable-mcp-server"]; s == nil || s.Env["AIRTABLE_API_KEY"] != config.KeyringRef(secretName) {
		t.Errorf("the config's entry: %+v", s)
	}
	for _, dir := range []string{filepath.Dir(th.opts.ConfigPath), th.opts.StateDir, filepath.Dir(th.opts.LogPath)} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), pat) {
					t.Errorf("the secret is in %s", p)
				}
			}
			return nil
		})
	}
	testkit.Eventually(t, "the new server in servers.list", func() (bool, string) {
		var list []hostapi.ServerStatus
		th.must(t, hostapi.MethodServersList.Name, nil, &list)
		return slices.ContainsFunc(list, func(s hostapi.ServerStatus) bool { return s.Name == "airtable-mcp-server" }), ""
	})

	// The name taken: the remedy named, nothing changed (the file, the
	// secret).
	cfgBefore, _ = os.ReadFile(th.opts.ConfigPath)
	err = th.call(t, hostapi.MethodRegistryAdd.Name, hostapi.RegistryAddParams{Name: "airtable-mcp-server", Unlocked: true,
		Values: map[string]string{"AIRTABLE_API_KEY": "other-value"}}, nil)
	if apiCode(err) != hostapi.CodeAlreadyExists || !strings.Contains(err.Error(), "give another name") {
		t.Errorf("the name taken: %v", err)
	}
	if after, _ := os.ReadFile(th.opts.ConfigPath); string(after) != string(cfgBefore) {
		t.Errorf("a refused add changed the config:\n%s", after)
	}
	if v, _ := store.Get(secretName); v.Reveal() != pat {
		t.Errorf("a refused add changed the secret")
	}
	// Another name: a second server.
	th.must(t, hostapi.MethodRegistryAdd.Name, hostapi.RegistryAddParams{Name: "io.github.domdomegg/airtable-mcp-server", Registry: "test",
		Local: "air2", Unlocked: true, Values: map[string]string{"AIRTABLE_API_KEY": "other-value"}}, &added)
	if added.Local != "air2" || !slices.Equal(added.Secrets, []string{"air2-airtable_api_key"}) {
		t.Errorf("registry.add as air2: %+v", added)
	}
}

// TestRegistryAddConcurrent: while registry.add waits on a locked
// install (an npm that does not answer until the test lets it), the
// host answers its other methods; npm failing then adds nothing.
func TestRegistryAddConcurrent(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	reg := newRegistry(t)
	bin := t.TempDir()
	started, release := filepath.Join(bin, "started"), filepath.Join(bin, "release")
	npm := "#!/bin/sh\n: > " + started + "\nwhile [ ! -e " + release + " ]; do sleep 0.05; done\necho 'npm error: no network' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	th := registryHost(t, store, reg, bin)

	done := make(chan error, 1)
	go func() {
		done <- th.call(t, hostapi.MethodRegistryAdd.Name, hostapi.RegistryAddParams{Name: "filesystem", Registry: "test",
			Values: map[string]string{"target_dir": t.TempDir()}}, nil)
	}()
	testkit.Eventually(t, "npm started", func() (bool, string) {
		_, err := os.Stat(started)
		return err == nil, ""
	})
	// The add waits on npm: the other methods answer meanwhile.
	var list []hostapi.ServerStatus
	th.must(t, hostapi.MethodServersList.Name, nil, &list)
	var sr hostapi.RegistrySearchResult
	th.must(t, hostapi.MethodRegistrySearch.Name, hostapi.RegistrySearchParams{Query: "time"}, &sr)
	select {
	case err := <-done:
		t.Fatalf("registry.add answered before npm did: %v", err)
	default:
	}
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "nothing was added") {
		t.Errorf("registry.add with a failing npm: %v", err)
	}
	f, _ := config.Load(th.opts.ConfigPath)
	if len(f.Servers) != 0 {
		t.Errorf("a failed install added %v", f.Names())
	}
}

// TestRegistryAddSecretNotEchoed: a secret value the entry refuses (a
// secret port that must be a number) is named by its key in the error,
// never by its value, in the answer and in the host's log.
func TestRegistryAddSecretNotEchoed(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	reg := registrytest.New(t)
	reg.Publish(registry.Server{Name: "io.github.example/secret-number", Version: "1.0.0", Description: "a secret that must be a number",
		Packages: []registry.Package{{RegistryType: "npm", Identifier: "secret-number", Version: "1.0.0", Transport: registry.Transport{Type: "stdio"},
			EnvironmentVariables: []registry.KeyValue{{Name: "PIN", Input: registry.Input{IsSecret: true, IsRequired: true, Format: "number"}}}}}})
	th := registryHost(t, store, reg, "")
	const value = "not-a-number-SECRET-4711"
	err := th.call(t, hostapi.MethodRegistryAdd.Name, hostapi.RegistryAddParams{Name: "secret-number", Unlocked: true,
		Values: map[string]string{"PIN": value}}, nil)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != api.CodeBadRequest || !strings.Contains(ae.Message, "PIN") || !strings.Contains(ae.Message, "not a number") {
		t.Fatalf("registry.add with a bad secret: %v", err)
	}
	if strings.Contains(ae.Message, value) || strings.Contains(string(ae.Data), value) {
		t.Errorf("the answer holds the secret value: %s %s", ae.Message, ae.Data)
	}
	if strings.Contains(th.log(t), value) {
		t.Errorf("the host's log holds the secret value")
	}
}
