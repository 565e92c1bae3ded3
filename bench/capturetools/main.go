// Command capturetools captures the real tool lists of pinned npm MCP
// servers for the tool-search corpus (app/toolsearch/testdata/servers).
// scripts/capture-tool-lists.sh installs the packages and runs it:
//
//	go run ./bench/capturetools -modules DIR/node_modules -out app/toolsearch/testdata/servers
//
// Each server is started over stdio with placeholder credentials (none of
// them calls its service to list tools), initialized, asked tools/list
// (every page), and stopped. The list is written as
// SERVER.json: {"server", "package", "tools": [...]}, the tools as the
// go-sdk decodes them (what the gateway forwards). CI does not re-capture:
// the JSON is committed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is one pinned npm package and how to start it without a real
// account. The placeholder values are not credentials.
type server struct {
	name string
	pkg  string // name@version, as pinned in scripts/capture-tool-lists.sh
	bin  string // node_modules/.bin entry
	args []string
	env  []string
	// files are written into the temp directory before the start.
	files map[string]string
}

// kubeconfig points at a cluster that is not there: mcp-server-kubernetes
// needs one to start, not to list its tools.
const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- cluster: {server: "https://127.0.0.1:1"}
  name: placeholder
contexts:
- context: {cluster: placeholder, user: placeholder}
  name: placeholder
current-context: placeholder
users:
- name: placeholder
  user: {token: placeholder}
`

// Servers lists the captured servers; keep it in step with the script's
// pinned versions.
var servers = []server{
	{name: "everything", pkg: "@modelcontextprotocol/server-everything@2026.8.31", bin: "mcp-server-everything", args: []string{"stdio"}},
	{name: "filesystem", pkg: "@modelcontextprotocol/server-filesystem@2026.8.31", bin: "mcp-server-filesystem", args: []string{"{tmp}"}},
	{name: "memory", pkg: "@modelcontextprotocol/server-memory@2026.8.31", bin: "mcp-server-memory", env: []string{"MEMORY_FILE_PATH={tmp}/memory.jsonl"}},
	{name: "sequential-thinking", pkg: "@modelcontextprotocol/server-sequential-thinking@2026.8.31", bin: "mcp-server-sequential-thinking"},
	{name: "playwright", pkg: "@playwright/mcp@0.0.83", bin: "playwright-mcp", args: []string{"--headless"}},
	{name: "context7", pkg: "@upstash/context7-mcp@4.1.1", bin: "context7-mcp"},
	{name: "github", pkg: "@modelcontextprotocol/server-github@2025.4.8", bin: "mcp-server-github", env: []string{"GITHUB_PERSONAL_ACCESS_TOKEN=placeholder"}},
	{name: "postgres", pkg: "@modelcontextprotocol/server-postgres@0.6.2", bin: "mcp-server-postgres", args: []string{"postgresql://127.0.0.1:1/placeholder"}},
	{name: "brave-search", pkg: "@modelcontextprotocol/server-brave-search@0.6.2", bin: "mcp-server-brave-search", env: []string{"BRAVE_API_KEY=placeholder"}},
	{name: "gitlab", pkg: "@modelcontextprotocol/server-gitlab@2025.4.25", bin: "mcp-server-gitlab", env: []string{"GITLAB_PERSONAL_ACCESS_TOKEN=placeholder"}},
	{name: "slack", pkg: "@modelcontextprotocol/server-slack@2025.4.25", bin: "mcp-server-slack", env: []string{"SLACK_BOT_TOKEN=placeholder", "SLACK_TEAM_ID=T0PLACEHOLDER"}},
	{name: "google-maps", pkg: "@modelcontextprotocol/server-google-maps@0.6.2", bin: "mcp-server-google-maps", env: []string{"GOOGLE_MAPS_API_KEY=placeholder"}},
	{name: "puppeteer", pkg: "@modelcontextprotocol/server-puppeteer@2025.5.12", bin: "mcp-server-puppeteer"},
	{name: "firecrawl", pkg: "firecrawl-mcp@3.26.0", bin: "firecrawl-mcp", env: []string{"FIRECRAWL_API_KEY=fc-placeholder"}},
	{name: "tavily", pkg: "tavily-mcp@0.2.22", bin: "tavily-mcp", env: []string{"TAVILY_API_KEY=tvly-placeholder"}},
	{name: "kubernetes", pkg: "mcp-server-kubernetes@4.1.7", bin: "mcp-server-kubernetes", env: []string{"KUBECONFIG={tmp}/kubeconfig"}, files: map[string]string{"kubeconfig": kubeconfig}},
	{name: "exa", pkg: "exa-mcp-server@3.4.1", bin: "exa-mcp-server", env: []string{"EXA_API_KEY=placeholder"}},
	{name: "notion", pkg: "@notionhq/notion-mcp-server@2.5.2", bin: "notion-mcp-server", env: []string{"NOTION_TOKEN=ntn_placeholder"}},
}

// File is the JSON of one captured server.
type File struct {
	Server  string      `json:"server"`
	Package string      `json:"package"`
	Tools   []*mcp.Tool `json:"tools"`
}

func main() {
	modules := flag.String("modules", "", "the node_modules directory the packages are installed in")
	out := flag.String("out", "app/toolsearch/testdata/servers", "directory to write SERVER.json into")
	only := flag.String("only", "", "capture only these servers (comma-separated names)")
	flag.Parse()
	if *modules == "" {
		fmt.Fprintln(os.Stderr, "capturetools: -modules is required (the node_modules directory of the installed packages)")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "capturetools:", err)
		os.Exit(1)
	}
	failed := 0
	for _, s := range servers {
		if *only != "" && !contains(strings.Split(*only, ","), s.name) {
			continue
		}
		tools, err := capture(*modules, s)
		if err != nil {
			fmt.Fprintf(os.Stderr, "capturetools: %s (%s): %v\n", s.name, s.pkg, err)
			failed++
			continue
		}
		b, err := json.MarshalIndent(File{Server: s.name, Package: s.pkg, Tools: tools}, "", "  ")
		if err == nil {
			err = os.WriteFile(filepath.Join(*out, s.name+".json"), append(b, '\n'), 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "capturetools: %s: %v\n", s.name, err)
			failed++
			continue
		}
		fmt.Printf("%-20s %3d tools  %s\n", s.name, len(tools), s.pkg)
	}
	if failed > 0 {
		os.Exit(1)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func capture(modules string, s server) ([]*mcp.Tool, error) {
	tmp, err := os.MkdirTemp("", "capturetools-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	sub := func(v string) string { return strings.ReplaceAll(v, "{tmp}", tmp) }
	for name, body := range s.files {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(body), 0o600); err != nil {
			return nil, err
		}
	}
	args := make([]string, len(s.args))
	for i, a := range s.args {
		args[i] = sub(a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.Command(filepath.Join(modules, ".bin", s.bin), args...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "HOME="+tmp, "PUPPETEER_SKIP_DOWNLOAD=1")
	for _, e := range s.env {
		cmd.Env = append(cmd.Env, sub(e))
	}
	cmd.Stderr = nil
	c := mcp.NewClient(&mcp.Implementation{Name: "switchboard-capturetools", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 3 * time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	defer cs.Close()
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, t)
	}
	if len(tools) == 0 {
		return nil, fmt.Errorf("tools/list returned no tools")
	}
	return tools, nil
}
