//go:build linux

package cli

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestRegistryUpgradeUnlocked: servers added from a loopback registry
// with no locked install (npx, uvx and docker with their version in the
// argv, and a remote with it in its URL) get a new version; 'registry
// upgrade' shows the server.json diff, asks for the required secret the
// new npm version adds (stored in a private keyring, never in the
// config), rewrites the exact pin the add wrote (docker with the new
// variable's -e) and the lock record together; a hand-edited pin or
// URL and a remote whose headers change are refused; 'registry rollback' returns
// each entry and record.
func TestRegistryUpgradeUnlocked(t *testing.T) {
	sb := newSandbox(t)
	addr := privateKeyring(t, sb)
	sb.env = sb.with("DBUS_SESSION_BUS_ADDRESS=" + addr)
	reg := registrytest.New(t)
	pkgDoc := func(name, typ, id, v string, env ...registry.KeyValue) registry.Server {
		return registry.Server{Name: "io.github.example/" + name, Description: "a server to upgrade", Version: v,
			Packages: []registry.Package{{RegistryType: typ, Identifier: id, Version: v, Transport: registry.Transport{Type: "stdio"},
				EnvironmentVariables: env}}}
	}
	remoteDoc := func(name, v string, headers ...registry.KeyValue) registry.Server {
		return registry.Server{Name: "io.github.example/" + name, Description: "a remote to upgrade", Version: v,
			Remotes: []registry.Remote{{Type: "streamable-http", URL: "https://api.example.com/" + v + "/mcp", Headers: headers}}}
	}
	reg.Publish(pkgDoc("unl-npm", "npm", "unl-pkg", "1.0.0"))
	reg.Publish(pkgDoc("unl-py", "pypi", "unl-py", "1.0"))
	reg.Publish(pkgDoc("unl-oci", "oci", "ghcr.io/example/unl-img", "1.0.0"))
	reg.Publish(remoteDoc("unl-remote", "1.0.0"))
	reg.Publish(remoteDoc("unl-hdr", "1.0.0"))
	writeConfig(t, sb.configPath(), `{"mcpServers": {}, "registries": [{"name": "local", "url": "`+reg.URL+`"}]}`)
	sb.cli(t, "registry", "sync")
	for _, n := range []string{"unl-npm", "unl-py", "unl-oci", "unl-remote", "unl-hdr"} {
		sb.cli(t, "registry", "add", "io.github.example/"+n, "--name", n, "--unlocked", "--no-start")
	}
	load := func() *config.File {
		t.Helper()
		f, err := config.Load(sb.configPath())
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	state := config.StateDir(func(k string) string {
		if k == "HOME" {
			return sb.home
		}
		return ""
	})
	f := load()
	if a := f.Servers["unl-npm"].Args; !slices.Equal(a, []string{"-y", "unl-pkg@1.0.0"}) {
		t.Fatalf("the npx entry: %v", a)
	}
	argsBefore := map[string][]string{}
	for _, n := range []string{"unl-npm", "unl-py", "unl-oci"} {
		argsBefore[n] = f.Servers[n].Args
	}
	urlBefore := f.Servers["unl-remote"].URL

	reg.Tick(time.Since(reg.Tick(0)) - time.Hour)
	const secret = "tok-FAKE-0123456789"
	reg.Publish(pkgDoc("unl-npm", "npm", "unl-pkg", "2.0.0", registry.KeyValue{Name: "API_TOKEN", Input: registry.Input{IsRequired: true, IsSecret: true}}))
	reg.Publish(pkgDoc("unl-py", "pypi", "unl-py", "1.1"))
	reg.Publish(pkgDoc("unl-oci", "oci", "ghcr.io/example/unl-img", "2.0.0", registry.KeyValue{Name: "MODE", Input: registry.Input{Default: "fast"}}))
	reg.Publish(remoteDoc("unl-remote", "2.0.0"))
	reg.Publish(remoteDoc("unl-hdr", "2.0.0", registry.KeyValue{Name: "X-Key", Input: registry.Input{IsRequired: true, IsSecret: true}}))
	sb.cli(t, "registry", "sync")

	// npm (npx): the new required secret is asked for.
	r := sb.run(t, "", "registry", "upgrade", "unl-npm", "--allow-new", "--yes")
	if r.code != 1 || !strings.Contains(r.stdout, "environment variable API_TOKEN: added (required, secret)") || !strings.Contains(r.stderr, "give --set API_TOKEN=VALUE") {
		t.Errorf("an upgrade lacking a required secret: %s", r)
	}
	r = sb.run(t, "", "registry", "upgrade", "unl-npm", "--allow-new", "--set", "API_TOKEN="+secret)
	if r.code != 1 || !strings.Contains(r.stderr, "stdin is not a terminal") {
		t.Errorf("an upgrade without --yes: %s", r)
	}
	out := sb.cli(t, "registry", "upgrade", "unl-npm", "--allow-new", "--yes", "--set", "API_TOKEN="+secret)
	if !strings.Contains(out, "unl-npm: io.github.example/unl-npm 1.0.0 -> 2.0.0 (package unl-pkg 1.0.0 -> 2.0.0, unlocked)") || !strings.Contains(out, "switched unl-npm") {
		t.Errorf("the npx upgrade:\n%s", out)
	}
	if s := load().Servers["unl-npm"]; !slices.Equal(s.Args, []string{"-y", "unl-pkg@2.0.0"}) || s.Env["API_TOKEN"] != "${keyring:unl-npm-api_token}" {
		t.Errorf("the npx entry after the upgrade: %+v", s)
	}
	if b, _ := os.ReadFile(sb.configPath()); strings.Contains(string(b), secret) {
		t.Errorf("the config holds the secret")
	}
	if _, err := exec.LookPath("secret-tool"); err != nil {
		testkit.SkipOrFail(t, "the keyring's values are read back with secret-tool (Debian: apt-get install libsecret-tools): %v", err)
	}
	cmd := exec.Command("secret-tool", "lookup", "service", "switchboard", "username", "unl-npm-api_token")
	cmd.Env = sb.env
	if got, err := cmd.Output(); err != nil || string(got) != secret {
		t.Errorf("the secret in the keyring: %q %v", got, err)
	}

	// PyPI (uvx) and OCI (docker, the new variable passed with -e).
	sb.cli(t, "registry", "upgrade", "unl-py", "--allow-new", "--yes")
	sb.cli(t, "registry", "upgrade", "unl-oci", "--allow-new", "--yes")
	f = load()
	if a := f.Servers["unl-py"].Args; !slices.Contains(a, "unl-py==1.1") || slices.Contains(a, "unl-py==1.0") {
		t.Errorf("the uvx entry after the upgrade: %v", a)
	}
	if s := f.Servers["unl-oci"]; !slices.Contains(s.Args, "ghcr.io/example/unl-img:2.0.0") || !strings.Contains(strings.Join(s.Args, " "), "-e MODE ghcr.io/example/unl-img:2.0.0") || s.Env["MODE"] != "fast" {
		t.Errorf("the docker entry after the upgrade: %+v", s)
	}

	// A remote: only the version in its URL changed.
	out = sb.cli(t, "registry", "upgrade", "unl-remote", "--allow-new", "--yes")
	if u := load().Servers["unl-remote"].URL; u != "https://api.example.com/2.0.0/mcp" {
		t.Errorf("the remote's URL after the upgrade: %q\n%s", u, out)
	}
	// A remote that adds a header: refused, with the remedy.
	r = sb.run(t, "", "registry", "upgrade", "unl-hdr", "--allow-new", "--yes")
	if r.code != 1 || !strings.Contains(r.stdout, "headers none -> X-Key (required, secret)") || !strings.Contains(r.stderr, "remove unl-hdr and 'registry add' the new version") {
		t.Errorf("a remote adding a header: %s", r)
	}

	lock, err := install.ReadLock(state)
	if err != nil {
		t.Fatal(err)
	}
	for n, v := range map[string]string{"unl-npm": "2.0.0", "unl-py": "1.1", "unl-oci": "2.0.0", "unl-remote": "2.0.0", "unl-hdr": "1.0.0"} {
		l := lock.Servers[n]
		if l == nil || l.EntryVersion != v || (v != "1.0.0" && (l.Previous == nil || !strings.HasPrefix(l.Previous.EntryVersion, "1.0"))) {
			t.Errorf("the lock's %s: %+v", n, l)
		}
	}

	// Rollback returns each entry and record.
	for _, n := range []string{"unl-npm", "unl-py", "unl-oci", "unl-remote"} {
		sb.cli(t, "registry", "rollback", n)
	}
	f = load()
	lock, _ = install.ReadLock(state)
	for n, a := range argsBefore {
		if got := f.Servers[n].Args; n != "unl-oci" && !slices.Equal(got, a) {
			t.Errorf("%s after the rollback: %v, want %v", n, got, a)
		}
		if l := lock.Servers[n]; l == nil || !strings.HasPrefix(l.EntryVersion, "1.0") || l.Previous != nil {
			t.Errorf("the lock's %s after the rollback: %+v", n, l)
		}
	}
	if a := f.Servers["unl-oci"].Args; !slices.Contains(a, "ghcr.io/example/unl-img:1.0.0") {
		t.Errorf("unl-oci after the rollback: %v", a)
	}
	if u := f.Servers["unl-remote"].URL; u != urlBefore {
		t.Errorf("the remote's URL after the rollback: %q, want %q", u, urlBefore)
	}

	// A remote's URL edited by hand: refused, nothing changed.
	b, err := os.ReadFile(sb.configPath())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sb.configPath(), []byte(strings.Replace(string(b), urlBefore, "https://api.example.com/mcp", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	r = sb.run(t, "", "registry", "upgrade", "unl-remote", "--allow-new", "--yes")
	if r.code != 1 || !strings.Contains(r.stderr, "does not hold the version 1.0.0 its registry's URL did") {
		t.Errorf("a hand-edited URL: %s", r)
	}
	if u := load().Servers["unl-remote"].URL; u != "https://api.example.com/mcp" {
		t.Errorf("a refused upgrade changed the URL: %q", u)
	}

	// A hand-edited pin: refused, nothing changed.
	raw := `{"command": "npx", "args": ["-y", "unl-pkg@latest"]}`
	sb.cli(t, "servers", "remove", "unl-npm")
	writeRaw := func() {
		t.Helper()
		b, err := os.ReadFile(sb.configPath())
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(b), `"mcpServers": {`, `"mcpServers": {"unl-npm": `+raw+`,`, 1)
		if err := os.WriteFile(sb.configPath(), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeRaw()
	if err := install.UpdateLock(state, func(l *install.Lock) { l.Servers["unl-npm"] = lock.Servers["unl-npm"] }); err != nil {
		t.Fatal(err)
	}
	r = sb.run(t, "", "registry", "upgrade", "unl-npm", "--allow-new", "--yes", "--set", "API_TOKEN="+secret)
	if r.code != 1 || !strings.Contains(r.stderr, "does not hold its pin unl-pkg@1.0.0 once in its args (it was edited since)") {
		t.Errorf("a hand-edited pin: %s", r)
	}
	if a := load().Servers["unl-npm"].Args; !slices.Equal(a, []string{"-y", "unl-pkg@latest"}) {
		t.Errorf("a refused upgrade changed the entry: %v", a)
	}
}
