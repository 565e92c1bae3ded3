// Command mcpb writes the manifest.json of switchboard.mcpb, Switchboard as
// an MCP Bundle for Claude Desktop (issue 29, docs/bundles.md "Switchboard
// as a bundle"): a bundle of server type "binary" that runs the
// switchboard-bridge packed in it, for one platform. `make dist` runs it
// once per platform it builds, then packs and validates the folder with the
// official CLI (@anthropic-ai/mcpb, pinned in engine/stdio/testdata/npm):
//
//	go run ./packaging/mcpb -version 0.1.0 -goos linux -goarch amd64 -o DIR/manifest.json
//
// The folder the Makefile packs holds manifest.json, icon.png and
// server/switchboard-bridge (.exe on Windows).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
)

// The manifest, in the keys and order of MANIFEST.md (manifest_version
// 0.3: the newest version that the Claude Desktop releases of 2025 and
// later read; 0.4 adds nothing this bundle uses).
type manifest struct {
	ManifestVersion string         `json:"manifest_version"`
	Name            string         `json:"name"`
	DisplayName     string         `json:"display_name"`
	Version         string         `json:"version"`
	Description     string         `json:"description"`
	LongDescription string         `json:"long_description"`
	Author          author         `json:"author"`
	Repository      repository     `json:"repository"`
	Homepage        string         `json:"homepage"`
	Documentation   string         `json:"documentation"`
	Support         string         `json:"support"`
	Icon            string         `json:"icon"`
	Server          server         `json:"server"`
	ToolsGenerated  bool           `json:"tools_generated"`
	Keywords        []string       `json:"keywords"`
	License         string         `json:"license"`
	Compatibility   compatibility  `json:"compatibility"`
	UserConfig      map[string]opt `json:"user_config"`
}

type author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

type repository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type server struct {
	Type       string    `json:"type"`
	EntryPoint string    `json:"entry_point"`
	MCPConfig  mcpConfig `json:"mcp_config"`
}

type mcpConfig struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

type compatibility struct {
	Platforms []string `json:"platforms"`
}

type opt struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	Default     string `json:"default"`
}

const home = "https://github.com/switchboard-mcp/switchboard"

// platforms maps GOOS to the manifest's platform names (Node's
// process.platform).
var platforms = map[string]string{"linux": "linux", "windows": "win32", "darwin": "darwin"}

// semver is what Claude Desktop's installer takes as a version.
var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// build returns the manifest of the bundle for goos/goarch.
func build(version, goos, goarch string) (*manifest, error) {
	platform, ok := platforms[goos]
	if !ok {
		return nil, fmt.Errorf("-goos %q: Claude Desktop runs on linux, windows and darwin only", goos)
	}
	if goarch == "" {
		return nil, fmt.Errorf("-goarch is empty: give the bridge's GOARCH (amd64, arm64)")
	}
	if !semver.MatchString(version) {
		return nil, fmt.Errorf("-version %q is not a semantic version (MAJOR.MINOR.PATCH): FyneApp.toml's Version is", version)
	}
	exe := "switchboard-bridge"
	if goos == "windows" {
		exe += ".exe"
	}
	return &manifest{
		ManifestVersion: "0.3",
		Name:            "switchboard",
		DisplayName:     "Switchboard",
		Version:         version,
		Description:     "Every MCP server that Switchboard runs on this computer, through one connection",
		LongDescription: "Switchboard runs your local and remote MCP servers once, sandboxed, with their secrets in the " +
			"system keyring, and serves them to every AI app. This extension connects Claude Desktop to it: it runs " +
			"switchboard-bridge, which relays to the Switchboard host's gateway (and starts the host when none runs), " +
			"so Claude sees each server's tools as SERVER__TOOL. It needs Switchboard installed: servers are added and " +
			"configured there (switchboard registry add, or the tray window), not here. Built for " + goos + "/" + goarch + ".",
		Author:        author{Name: "Switchboard maintainers", Email: "switchboard-mcp@users.noreply.github.com", URL: home},
		Repository:    repository{Type: "git", URL: home + ".git"},
		Homepage:      home,
		Documentation: home + "/blob/main/docs/bundles.md",
		Support:       home + "/issues",
		Icon:          "icon.png",
		Server: server{
			Type:       "binary",
			EntryPoint: "server/" + exe,
			MCPConfig: mcpConfig{
				Command: "${__dirname}/server/" + exe,
				// One argument, so that an empty profile (the default)
				// expands to "--profile=", every server: Claude Desktop
				// keeps a whole-argument reference to an empty value
				// unexpanded, and the bridge reads "--profile=" as none.
				Args: []string{"--profile=${user_config.profile}"},
			},
		},
		ToolsGenerated: true,
		Keywords:       []string{"mcp", "switchboard", "gateway", "sandbox", "servers"},
		License:        "Apache-2.0",
		Compatibility:  compatibility{Platforms: []string{platform}},
		UserConfig: map[string]opt{
			"profile": {
				Type:  "string",
				Title: "Profile",
				Description: "A profile of Switchboard's config (its \"profiles\"): Claude sees only that profile's " +
					"servers. Empty: every server.",
				Required: false,
				Default:  "",
			},
		},
	}, nil
}

func main() {
	version := flag.String("version", "", "the bundle's version (the Makefile's VERSION)")
	goos := flag.String("goos", "", "the platform of the bridge in the bundle: linux, windows or darwin")
	goarch := flag.String("goarch", "", "its architecture: amd64 or arm64")
	out := flag.String("o", "", "the manifest.json to write (default: stdout)")
	flag.Parse()
	m, err := build(*version, *goos, *goarch)
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcpb:", err)
		os.Exit(2)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		fmt.Fprintln(os.Stderr, "mcpb:", err)
		os.Exit(1)
	}
	if *out == "" {
		os.Stdout.Write(b.Bytes())
		return
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "mcpb:", err)
		os.Exit(1)
	}
}
