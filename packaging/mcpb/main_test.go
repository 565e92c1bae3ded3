package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/bundle"
)

// TestManifest: the manifest of each platform the Makefile packs is read
// by Switchboard's own bundle reader without a problem, names that one
// platform, and expands, as Claude Desktop expands it, to the bundled
// bridge with arguments the bridge accepts: "--profile=" (every server)
// when the profile is left empty, the profile given otherwise. The
// official CLI's checks of the packed bundle are in scripts/package-test.sh.
func TestManifest(t *testing.T) {
	for _, c := range []struct{ goos, goarch, platform, exe, dir string }{
		{"linux", "amd64", "linux", "switchboard-bridge", "/home/u/.config/Claude/Claude Extensions/switchboard"},
		{"windows", "amd64", "win32", "switchboard-bridge.exe", `C:\Users\u\AppData\Roaming\Claude\Claude Extensions\switchboard`},
		{"darwin", "arm64", "darwin", "switchboard-bridge", "/Users/u/Library/Application Support/Claude/Claude Extensions/switchboard"},
	} {
		m, err := build("1.2.3", c.goos, c.goarch)
		if err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, ps := bundle.ParseManifest(data)
		if len(ps) != 0 {
			t.Fatalf("%s: bundle.ParseManifest: %v", c.goos, ps)
		}
		if got.ManifestVersion != "0.3" || got.Name != "switchboard" || got.Version != "1.2.3" || got.Server.Type != "binary" ||
			got.Server.EntryPoint != "server/"+c.exe || !slices.Equal(got.Compatibility.Platforms, []string{c.platform}) {
			t.Errorf("%s: manifest %+v", c.goos, got)
		}
		// Claude Desktop (@anthropic-ai/mcpb's getMcpConfigForManifest)
		// keeps an argument that is a whole ${user_config.KEY} as is when
		// the value is empty: the bridge would get the literal text.
		for _, a := range got.Server.MCPConfig.Args {
			if strings.HasPrefix(a, "${user_config.") && strings.HasSuffix(a, "}") {
				t.Errorf("%s: argument %q is a whole user_config reference, which Claude Desktop leaves unexpanded when empty", c.goos, a)
			}
		}
		for _, profile := range []string{"", "work"} {
			in := bundle.Inputs{Values: map[string]any{}}
			if profile != "" {
				in.Values["profile"] = profile
			}
			l, ps := got.Expand(c.dir, bundle.Dirs{}, c.goos, in)
			if len(ps) != 0 {
				t.Fatalf("%s: Expand: %v", c.goos, ps)
			}
			if want := c.dir + "/server/" + c.exe; l.Command != want {
				t.Errorf("%s: command %q, want %q", c.goos, l.Command, want)
			}
			a, err := bridge.ParseArgs(l.Args)
			if err != nil || a.Filter.Profile != profile || !a.Filter.IsZero() != (profile != "") {
				t.Errorf("%s: profile %q: args %q parse to %+v, %v", c.goos, profile, l.Args, a, err)
			}
		}
	}
}

// TestManifestRefuses: a platform Claude Desktop does not run on, and a
// version that is not MAJOR.MINOR.PATCH, are refused with the flag named.
func TestManifestRefuses(t *testing.T) {
	for _, c := range []struct{ version, goos, goarch, want string }{
		{"1.2.3", "freebsd", "amd64", "-goos"},
		{"1.2", "linux", "amd64", "-version"},
		{"", "linux", "amd64", "-version"},
		{"1.2.3", "linux", "", "-goarch"},
	} {
		if _, err := build(c.version, c.goos, c.goarch); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("build(%q, %q, %q) = %v, want an error naming %s", c.version, c.goos, c.goarch, err, c.want)
		}
	}
}
