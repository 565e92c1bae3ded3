package aiapps

import (
	"slices"
	"strings"
)

// handshakeNames are the names that AI apps give in their MCP handshake
// (clientInfo.name), with the names their users know them by.
var handshakeNames = map[string]string{
	"claude-ai":          "Claude Desktop", // a bridge is a local command: the desktop app, not the web
	"claude-code":        "Claude Code",
	"cursor-vscode":      "Cursor",
	"Visual Studio Code": "VS Code",
}

// Titles turns the names AI apps gave in their MCP handshake into the
// names their users know them by (others as the apps gave them), each
// once, sorted.
func Titles(handshake []string) []string {
	var out []string
	for _, n := range handshake {
		n = strings.TrimSpace(n)
		if t, ok := handshakeNames[n]; ok {
			n = t
		}
		if n != "" {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
