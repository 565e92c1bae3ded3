package registry_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/registry"
)

func setupOpts(values map[string]string) registry.SetupOptions {
	return registry.SetupOptions{Values: values,
		Literal:   func(v string) string { return strings.ReplaceAll(v, "${", "$${") },
		SecretRef: func(key string) string { return "${keyring:x-" + key + "}" }}
}

// TestMakeSetup: the values given fill a package's argv (a named boolean
// given true is the flag alone, false leaves it out), a literal "${" is
// escaped, a secret variable inside a header's template becomes a
// reference with its value among the secrets, the first package that
// runs is chosen over a bundle, and a secret argument is refused (it
// would be in the config's args).
func TestMakeSetup(t *testing.T) {
	s := &registry.Server{Name: "io.github.a/b", Version: "1.0.0",
		Packages: []registry.Package{
			{RegistryType: "mcpb", Identifier: "https://example.com/b.mcpb", Transport: registry.Transport{Type: "stdio"}},
			{RegistryType: "npm", Identifier: "b-mcp", Version: "1.0.0", Transport: registry.Transport{Type: "stdio"},
				PackageArguments: []registry.Argument{
					{Type: "named", Name: "--verbose", Input: registry.Input{Format: "boolean"}},
					{Type: "named", Name: "--quiet", Input: registry.Input{Format: "boolean"}},
					{Type: "positional", ValueHint: "dir", Input: registry.Input{IsRequired: true}},
				},
				EnvironmentVariables: []registry.KeyValue{{Name: "NOTE", Input: registry.Input{}}}},
		},
		Remotes: []registry.Remote{{Type: "sse", URL: "https://example.com/{region}/sse",
			Variables: map[string]registry.Input{"region": {Default: "eu"}},
			Headers: []registry.KeyValue{{Name: "Authorization", Input: registry.Input{Value: "Bearer {token}",
				Variables: map[string]registry.Input{"token": {IsSecret: true, IsRequired: true}}}}}}},
	}
	st, err := registry.MakeSetup(s, nil, setupOpts(map[string]string{"verbose": "true", "--quiet": "false", "dir": "/srv", "NOTE": "a ${b}"}))
	if err != nil {
		t.Fatal(err)
	}
	if st.Command != "npx" || !slices.Equal(st.Args, []string{"-y", "b-mcp@1.0.0", "--verbose", "/srv"}) || st.Env["NOTE"] != "a $${b}" || len(st.Secrets) != 0 {
		t.Errorf("the package: %+v", st)
	}
	if _, err := registry.MakeSetup(s, nil, setupOpts(map[string]string{"token": "tok-FAKE"})); err == nil || !strings.Contains(err.Error(), "--set dir=VALUE") {
		t.Errorf("dir missing: %v", err)
	}
	o := setupOpts(map[string]string{"token": "tok-FAKE"})
	o.Remote = 1
	st, err = registry.MakeSetup(s, nil, o)
	if err != nil {
		t.Fatal(err)
	}
	if st.URL != "https://example.com/eu/sse" || st.Type != "sse" || st.Headers["Authorization"] != "Bearer ${keyring:x-token}" || st.Secrets["token"] != "tok-FAKE" {
		t.Errorf("the remote: %+v", st)
	}
	o.Values = nil
	if _, err := registry.MakeSetup(s, nil, o); err == nil || !strings.Contains(err.Error(), "needs a value for token") || !strings.Contains(err.Error(), "token is a secret") {
		t.Errorf("token missing: %v", err)
	}
	s.Packages[1].PackageArguments[2].IsSecret = true
	if _, err := registry.MakeSetup(s, nil, setupOpts(map[string]string{"dir": "x"})); err == nil || !strings.Contains(err.Error(), "dir is a secret argument") {
		t.Errorf("a secret argument: %v", err)
	}
	s.Packages = s.Packages[:1]
	s.Remotes = nil
	if _, err := registry.MakeSetup(s, nil, setupOpts(nil)); err == nil || !strings.Contains(err.Error(), "package 1: an MCP bundle") {
		t.Errorf("nothing to run: %v", err)
	}
}
