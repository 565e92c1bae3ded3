package window

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

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

// TestGoldenOverviewSandbox is the Overview of a confined server: the
// Sandbox row says what the host says of it (hostapi.SandboxStatus.Line,
// as 'switchboard status' prints it), and the note of a strict sandbox
// that gives none of the folders its arguments name, in the warning
// colour (issue 27 §19).
func TestGoldenOverviewSandbox(t *testing.T) {
	w, _ := goldenWindow(t)
	snap := goldenSnapshot()
	ev := &snap.Servers[0]
	ev.PID = 4242
	ev.Sandbox = &hostapi.SandboxStatus{Preset: "strict", Mechanism: "landlock", ABI: 6, Net: "landlock+seccomp",
		NotEnforced: []string{"Unix sockets: seccomp is not available"}}
	note := `strict gives the server none of its folders: "files" does (/home/me/Notes, from its args), or list them in the sandbox's "read" or "write"`
	ev.Issues = []hostapi.Problem{{Server: "everything", Key: "sandbox", Warning: true, Message: note}}
	w.apply(snap)
	w.servers.choose("everything")
	ov := w.servers.detail.ov
	if want := "strict: landlock ABI 6, network by landlock+seccomp; not enforced: Unix sockets: seccomp is not available"; ov.sandbox.Text != want || ev.Sandbox.Line() != want {
		t.Errorf("the Sandbox row: %q\nwant (the host's line) %q", ov.sandbox.Text, want)
	}
	if ov.sandboxNote.Text != note || !ov.sandboxNote.Visible() || ov.sandboxNote.Importance != widget.WarningImportance {
		t.Errorf("the strict note: %q (shown %v, importance %v)", ov.sandboxNote.Text, ov.sandboxNote.Visible(), ov.sandboxNote.Importance)
	}
	assertMarkup(t, w, "overview-sandbox.xml")
	for _, size := range []fyne.Size{{Width: 1120, Height: 720}, {Width: 800, Height: 600}} {
		shoot(t, w, "overview-sandbox", size, func() {
			snap.Info.Config.Error = ""
			w.apply(snap)
		})
	}
}
