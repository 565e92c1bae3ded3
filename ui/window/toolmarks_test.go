package window

import (
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// markedTools shows everything's Tools tab with a tool held for review,
// one the filter hides, one whose policy asks and one that says it is
// destructive.
func markedTools(t *testing.T) *Window {
	t.Helper()
	w, _ := goldenWindow(t)
	w.showServer("everything", tabTools)
	entry, err := config.ParseServer("everything", []byte(`{"command": "npx", "tools": {"deny": ["secret_*"]}, "policy": {"tools": {"delete_*": "deny", "echo": "ask"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	w.tools.entry = entry
	w.tools.held = map[string]hostapi.HeldTool{"add": {Server: "everything", Tool: "add", State: hostapi.TrustHeldNew}}
	schema := json.RawMessage(`{"type":"object","properties":{"message":{"type":"string"}}}`)
	yes := true
	w.tools.setTools([]toolInfo{
		{Name: "add", Description: "Adds two numbers.", InputSchema: schema},
		{Name: "delete_all", Description: "Deletes everything.", InputSchema: schema},
		{Name: "echo", Description: "Echoes back the input.", InputSchema: schema},
		{Name: "reset", Description: "Resets the counters.", InputSchema: schema, Annotations: &toolAnnotations{DestructiveHint: &yes}},
		{Name: "secret_read", Description: "Reads a secret.", InputSchema: schema},
		{Name: "time", Description: "Tells the time.", InputSchema: schema},
	})
	return w
}

// TestToolsMarkHiddenAndHeld: the Tools tab marks a tool held for
// review, one the server's filter hides from apps, and what a call of
// each from an app does (its policy); Try it is off for a held tool (with
// the reason and a Review button) and asks before calling a hidden one
// (issue 27 items 15 and 18).
func TestToolsMarkHiddenAndHeld(t *testing.T) {
	w := markedTools(t)
	v := w.tools
	for name, want := range map[string]string{
		"add":         "add (held for review)",
		"delete_all":  "delete_all (denied)",
		"echo":        "echo (asks first)",
		"reset":       "reset (asks first)",
		"secret_read": "secret_read (hidden from apps)",
		"time":        "time",
	} {
		if got := v.buttons[name].Text; got != want {
			t.Errorf("the list says %q, want %q", got, want)
		}
	}

	// A held tool: why, a way to review it, and no Call.
	test.Tap(v.buttons["add"])
	p := v.try
	if p.heldNote == nil || !strings.Contains(p.heldNote.Text, "Held for review: it is new on this server") {
		t.Errorf("a held tool's note: %v", p.heldNote)
	}
	if !p.call.Disabled() || p.gate == nil || !strings.Contains(p.gate.Text, "Review the tool first") {
		t.Errorf("Try it on a held tool: call disabled %v, gate %v", p.call.Disabled(), p.gate)
	}
	if p.review == nil || p.review.Text != "Review" {
		t.Errorf("no Review button for a held tool: %v", p.review)
	}

	// A hidden tool: said, and Call only once the user ticks.
	test.Tap(v.buttons["secret_read"])
	p = v.try
	if !slicesContains(labelsIn(p.obj), hiddenText) || !p.call.Disabled() || p.anyway == nil {
		t.Fatalf("a hidden tool: labels %q, call disabled %v", labelsIn(p.obj), p.call.Disabled())
	}
	test.Tap(p.anyway)
	if p.call.Disabled() {
		t.Error("ticking 'call it here' did not enable Call")
	}

	// The policies, and where each comes from.
	for name, want := range map[string][2]string{
		"echo":       {"Ask me first", "Set for this tool."},
		"delete_all": {"Deny", "Set for this tool."},
		"reset":      {"Ask me first", "It says it is destructive: asked first unless a policy names it."},
		"time":       {"Allow", "The default: no policy names it."},
	} {
		test.Tap(v.buttons[name])
		if got := [2]string{v.try.policy.Selected, v.try.policyHint.Text}; got != want {
			t.Errorf("%s's policy: %q, want %q", name, got, want)
		}
		if v.try.call.Disabled() {
			t.Errorf("%s: Call is disabled", name)
		}
	}
	test.Tap(v.buttons["add"])
	assertMarkup(t, w, "tools-held.xml")
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
