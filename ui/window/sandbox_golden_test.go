package window

import "testing"

// TestGoldenSettingsSandbox is the Settings tab's Sandbox section with
// Files chosen: the sentence, the folders it may read and change, the
// network choice with an allow-list.
func TestGoldenSettingsSandbox(t *testing.T) {
	w, _ := goldenWindow(t)
	w.showServer("everything", tabSettings)
	d := w.servers.detail
	w.embedIn = d.boxes[tabSettings]
	f := formFor(t, w, `{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "/home/me/Projects"],
		"sandbox": {"preset": "files", "read": ["/home/me/Notes"], "write": ["/home/me/Projects"], "net": ["api.github.com:443"]}}`)
	w.embedIn = nil
	f.advanced.CloseAll()
	// The section is below the fields: scroll it into view.
	for _, sc := range scrollsIn(f.obj) {
		sc.ScrollToBottom()
	}
	assertMarkup(t, w, "settings-sandbox.xml")
}
