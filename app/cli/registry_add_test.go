//go:build linux

package cli

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestRegistryAddCLI: 'registry add' turns an entry into a config entry.
// From the built-in snapshot (offline): a required secret not given is
// one error naming it and --set; given, its value is stored in a private
// gnome-keyring under the entry's name and the config holds only the
// reference, with the card's exact argv; the same name again is refused
// with --name as the remedy. Against a v0.1 registry on loopback: every
// problem of the values at once (a missing required value, a secret
// missing, a value not among the choices, an unknown key), then the OCI
// package with its defaults and secret; a remote with its URL variable
// and secret header; a version other than the indexed one read from the
// registry (and a clear error when the registry has no such version or
// cannot be reached); with a host running, the entry is added through it.
func TestRegistryAddCLI(t *testing.T) {
	sb := newSandbox(t)
	addr := privateKeyring(t, sb)
	sb.env = sb.with("DBUS_SESSION_BUS_ADDRESS=" + addr)
	secretIs := func(t *testing.T, name, want string) {
		t.Helper()
		if _, err := exec.LookPath("secret-tool"); err != nil {
			testkit.SkipOrFail(t, "the keyring's values are read back with secret-tool (Debian: apt-get install libsecret-tools): %v", err)
		}
		cmd := exec.Command("secret-tool", "lookup", "service", "switchboard", "username", name)
		cmd.Env = sb.env
		if got, err := cmd.Output(); err != nil || string(got) != want {
			t.Errorf("secret-tool lookup %s: %q %v, want %q", name, got, err, want)
		}
	}
	load := func(t *testing.T) *config.File {
		t.Helper()
		f, err := config.Load(sb.configPath())
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	notInFile := func(t *testing.T, values ...string) {
		t.Helper()
		b, err := os.ReadFile(sb.configPath())
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range values {
			if strings.Contains(string(b), v) {
				t.Errorf("the config holds the secret %q:\n%s", v, b)
			}
		}
	}

	// The snapshot, offline, no config yet.
	r := sb.run(t, "", "registry", "add", "airtable-mcp-server")
	if r.code != 1 || !strings.Contains(r.stderr, "needs a value for AIRTABLE_API_KEY: give --set AIRTABLE_API_KEY=VALUE") ||
		!strings.Contains(r.stderr, "secret: stored in the keyring") {
		t.Fatalf("a required secret missing: %s", r)
	}
	if _, err := os.Stat(sb.configPath()); !os.IsNotExist(err) {
		t.Fatalf("a refused add wrote the config (%v)", err)
	}
	const pat = "patFAKE0123.abcdef456789"
	out := sb.cli(t, "registry", "add", "airtable-mcp-server", "--unlocked", "--set", "AIRTABLE_API_KEY="+pat)
	if !strings.Contains(out, "added airtable-mcp-server: io.github.domdomegg/airtable-mcp-server 1.7.3, package 1 (npm airtable-mcp-server 1.7.3)") ||
		!strings.Contains(out, "runs:   npx -y airtable-mcp-server@1.7.3") {
		t.Errorf("add from the snapshot:\n%s", out)
	}
	s := load(t).Servers["airtable-mcp-server"]
	if s == nil || s.Command != "npx" || !slices.Equal(s.Args, []string{"-y", "airtable-mcp-server@1.7.3"}) ||
		s.Env["AIRTABLE_API_KEY"] != "${keyring:airtable-mcp-server-airtable_api_key}" || len(s.Problems()) > 0 {
		t.Fatalf("the entry: %+v", s)
	}
	notInFile(t, pat)
	secretIs(t, "airtable-mcp-server-airtable_api_key", pat)

	r = sb.run(t, "", "registry", "add", "airtable-mcp-server", "--set", "AIRTABLE_API_KEY=other")
	if r.code != 1 || !strings.Contains(r.stderr, `a server named "airtable-mcp-server" is in the config already`) || !strings.Contains(r.stderr, "--name LOCAL") {
		t.Errorf("a clash: %s", r)
	}
	secretIs(t, "airtable-mcp-server-airtable_api_key", pat) // the refused add left the first one's secret alone

	// A registry on loopback.
	reg := registrytest.New(t)
	for _, d := range registrytest.Documents(t) {
		reg.Publish(d)
	}
	writeConfig(t, sb.configPath(), `{"mcpServers": {}, "defaults": {"start": "on-demand"}, "registries": [{"name": "local", "url": "`+reg.URL+`"}]}`)
	sb.cli(t, "registry", "sync")

	r = sb.run(t, "", "registry", "add", "database-manager", "--set", "SSL_MODE=sometimes", "--set", "DB_USER=bob",
		"--set", "db_type=oracle", "--set", "port=fifty")
	for _, want := range []string{
		"5 problems:",
		"package 1 (oci docker.io/example/database-manager-mcp:3.1.0) needs a value for database_name, DB_USERNAME, DB_PASSWORD: give --set database_name=VALUE --set DB_USERNAME=VALUE --set DB_PASSWORD=VALUE (DB_PASSWORD is a secret",
		`SSL_MODE="sometimes" is not one of its choices: disable, prefer, require`,
		`db_type="oracle" is not one of its choices: postgres, mysql, mongodb, redis`,
		`port="fifty" is not a number`,
		"--set DB_USER: package 1 (oci docker.io/example/database-manager-mcp:3.1.0) has no input DB_USER; its inputs are ",
	} {
		if r.code != 1 || !strings.Contains(r.stderr, want) {
			t.Errorf("problems of the values: lacks %q: %s", want, r)
		}
	}
	// --unlocked: the tag as the card shows it (a digest needs Docker and its registry; install's TestAddOCI).
	out = sb.cli(t, "registry", "add", "io.github.example/database-manager", "--unlocked", "--name", "db", "--set", "DB_USERNAME=bob", "--set", "DB_PASSWORD=hunter2-FAKE",
		"--set", "db_type=postgres", "--set", "database_name=orders", "--set", "port=5432")
	if !strings.Contains(out, "added db:") {
		t.Errorf("add database-manager:\n%s", out)
	}
	s = load(t).Servers["db"]
	wantArgs := []string{"run", "-i", "--rm", "-e", "DB_USERNAME", "-e", "DB_PASSWORD", "-e", "SSL_MODE", "--network", "host", "-e", "DB_TYPE=postgres",
		"docker.io/example/database-manager-mcp:3.1.0", "--host", "localhost", "--port", "5432", "orders"}
	if s == nil || s.Command != "docker" || !slices.Equal(s.Args, wantArgs) ||
		s.Env["DB_USERNAME"] != "bob" || s.Env["SSL_MODE"] != "prefer" || s.Env["DB_PASSWORD"] != "${keyring:db-db_password}" {
		t.Errorf("the docker entry: %+v", s)
	}
	notInFile(t, "hunter2-FAKE")
	secretIs(t, "db-db_password", "hunter2-FAKE")

	// A remote, its URL variable and secret header.
	out = sb.cli(t, "registry", "add", "hybrid-mcp", "--remote", "1", "--set", "tenant_id=acme", "--set", "X-API-Key=key-FAKE-42")
	s = load(t).Servers["hybrid-mcp"]
	if s == nil || s.URL != "https://acme.mcp.anonymous.modelcontextprotocol.io/http" || s.Type != config.RemoteHTTP ||
		s.Headers["X-Api-Key"] != "${keyring:hybrid-mcp-x-api-key}" {
		t.Errorf("the remote entry: %+v\n%s", s, out)
	}
	notInFile(t, "key-FAKE-42")
	secretIs(t, "hybrid-mcp-x-api-key", "key-FAKE-42")

	// Another version than the index's: from the registry.
	docs := registrytest.Documents(t)
	weather := docs[slices.IndexFunc(docs, func(d registry.Server) bool { return d.Name == "io.github.example/weather-mcp" })]
	weather.Version, weather.Packages[0].Version = "0.6.0", "0.6.0"
	reg.Publish(weather)
	out = sb.cli(t, "registry", "add", "weather-mcp@0.6.0", "--unlocked", "--set", "WEATHER_API_KEY=w-FAKE") // uvx: PyPI is not reachable here (install's TestAddPyPI)
	if s := load(t).Servers["weather-mcp"]; s == nil || s.Command != "uvx" || !slices.Equal(s.Args, []string{"weather-mcp-server==0.6.0"}) || s.Env["WEATHER_UNITS"] != "celsius" {
		t.Errorf("weather-mcp@0.6.0: %+v\n%s", s, out)
	}
	// A secret of the name it would take, used by another server: refused, kept.
	sb.cli(t, "servers", "add", "other", "--secret-env", "K=w2-weather_api_key", "--", "true")
	if r := sb.run(t, "theirs", "secret", "set", "w2-weather_api_key"); r.code != 0 {
		t.Fatal(r)
	}
	r = sb.run(t, "", "registry", "add", "weather-mcp", "--unlocked", "--name", "w2", "--set", "WEATHER_API_KEY=mine")
	if r.code != 1 || !strings.Contains(r.stderr, `the keyring's secret "w2-weather_api_key", where WEATHER_API_KEY would go, is used by other`) {
		t.Errorf("a secret of another server: %s", r)
	}
	secretIs(t, "w2-weather_api_key", "theirs")
	r = sb.run(t, "", "registry", "add", "weather-mcp@9.9.9", "--name", "w2", "--set", "WEATHER_API_KEY=w-FAKE")
	if r.code != 1 || !strings.Contains(r.stderr, "version 9.9.9 of io.github.example/weather-mcp is not in the local index (which has 0.5.0)") || !strings.Contains(r.stderr, "404") {
		t.Errorf("a version the registry lacks: %s", r)
	}

	// A runtime the host's PATH lacks: a warning, not a failure.
	if _, err := exec.LookPath("dnx"); err == nil {
		t.Log("dnx is installed here: the missing-runtime warning is not checked")
	} else {
		out = sb.cli(t, "registry", "add", "time-mcp-nuget")
		if !strings.Contains(out, "added time-mcp-nuget") || !strings.Contains(out, "warning: dnx (.NET 10 SDK) is not in the PATH the host gives servers: install it from https://dotnet.microsoft.com/download") {
			t.Errorf("a missing runtime:\n%s", out)
		}
	}

	// With a host running: through its API.
	sb.serve(t)
	out = sb.cli(t, "registry", "add", "filesystem", "--registry", "local", "--name", "files", "--unlocked")
	if s := load(t).Servers["files"]; s == nil || s.Command != "npx" || !slices.Equal(s.Args, []string{"-y", "@modelcontextprotocol/server-filesystem@1.0.2", "/Users/username/Desktop"}) || s.Env["LOG_LEVEL"] != "info" {
		t.Errorf("add through the host: %+v\n%s", s, out)
	}

	reg.Close()
	r = sb.run(t, "", "registry", "add", "weather-mcp@0.7.0", "--name", "w3")
	if r.code != 1 || !strings.Contains(r.stderr, "could not give it") || !strings.Contains(r.stderr, "try again online") {
		t.Errorf("offline, another version: %s", r)
	}
}
