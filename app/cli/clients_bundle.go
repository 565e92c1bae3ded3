package cli

import (
	"fmt"
	"path/filepath"
	"runtime"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
)

// bundleName is Switchboard as an MCP Bundle for Claude Desktop, as `make
// dist` builds it and the packages install it (docs/bundles.md,
// "Switchboard as a bundle").
const bundleName = "switchboard.mcpb"

// bundleFile returns the switchboard.mcpb installed with the switchboard
// program whose folder holds exe (switchboard or its bridge), or "": beside
// it (the MSI's install folder, a release's platform folder), in
// ../share/switchboard/ (the .deb and the .rpm: /usr/bin and /usr/share)
// or, on macOS, in the app's Contents/Resources/.
func bundleFile(exe, goos string, exists func(string) bool) string {
	dir := filepath.Dir(exe)
	candidates := []string{filepath.Join(dir, bundleName)}
	switch goos {
	case "windows":
	case "darwin":
		candidates = append(candidates, filepath.Join(dir, "..", "Resources", bundleName))
	default:
		candidates = append(candidates, filepath.Join(dir, "..", "share", "switchboard", bundleName))
	}
	for _, p := range candidates {
		if exists(p) {
			return p
		}
	}
	return ""
}

// noteBundle offers Claude Desktop's own way to add Switchboard: the
// bundle, an extension that Claude keeps in its own store, where its
// rewrites of claude_desktop_config.json cannot drop it.
func (e *env) noteBundle(app *aiapps.App, exe string) {
	if app.ID != "claude-desktop" {
		return
	}
	how := "double-click it, or in Claude Desktop: Settings > Extensions > Advanced settings > Install Extension"
	where := "switchboard.mcpb (in each release's folder for your platform; 'make mcpb' builds it)"
	if p := bundleFile(exe, runtime.GOOS, pathExists); p != "" {
		where = p
	}
	fmt.Fprintf(e.stdout, "note: Claude Desktop can also run Switchboard as an extension, kept in its own store (it has been seen to rewrite %s and drop mcpServers): open %s (%s), then 'switchboard clients disconnect claude-desktop' so that Claude does not run the bridge twice\n",
		"claude_desktop_config.json", where, how)
}
