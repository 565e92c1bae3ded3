package window

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/client"
)

// TestApprovalsPlace: a call of a server whose policy asks (through the
// host's servers.call) shows in the Approvals place with its app, tool
// and pretty-printed arguments; Allow once lets it reach the server, Deny
// gives the caller the denial as a tool error. The window's live view is
// the approver.
func TestApprovalsPlace(t *testing.T) {
	e := helperEntry()
	e["policy"] = map[string]any{"default": "ask"}
	h := start(t, map[string]any{"a": e})
	w := h.w
	h.state("a", "running")
	w.showPlace(placeApprovals)
	v := w.approvals
	if v == nil || !v.empty.Visible() {
		t.Fatal("the Approvals place is not shown, or not empty")
	}

	call := func(msg string) <-chan *mcp.CallToolResult {
		out := make(chan *mcp.CallToolResult, 1)
		go func() {
			var raw json.RawMessage
			err := h.call(func(ctx context.Context, c *client.Live) (err error) {
				raw, err = c.Call(ctx, "a", "echo", json.RawMessage(`{"message":"`+msg+`"}`))
				return err
			})
			var res mcp.CallToolResult
			if err != nil || json.Unmarshal(raw, &res) != nil {
				t.Errorf("the call: %v (%s)", err, raw)
				out <- nil
				return
			}
			out <- &res
		}()
		return out
	}
	text := func(res *mcp.CallToolResult) string {
		if res == nil || len(res.Content) == 0 {
			return ""
		}
		tc, _ := res.Content[0].(*mcp.TextContent)
		if tc == nil {
			return ""
		}
		return tc.Text
	}
	result := func(ch <-chan *mcp.CallToolResult) *mcp.CallToolResult {
		var res *mcp.CallToolResult
		h.until("the call ends", func() bool {
			select {
			case res = <-ch:
				return true
			default:
				return false
			}
		})
		return res
	}
	card := func() *approvalCard {
		h.until("a waiting call shows", func() bool { return len(v.shown) == 1 })
		return v.cards[v.shown[0]]
	}

	res := call("hello")
	c := card()
	if w.nav[placeApprovals].Icon != theme.WarningIcon() || !strings.Contains(v.title.Text, "1 call waiting") {
		t.Errorf("the count: button icon %v, title %q", w.nav[placeApprovals].Icon, v.title.Text)
	}
	shown := strings.Join(texts(c.obj), "\n")
	if !strings.Contains(shown, "wants to call echo on a") || !strings.Contains(shown, "\"message\": \"hello\"") {
		t.Errorf("the card shows:\n%s", shown)
	}
	test.Tap(c.once)
	if r := result(res); r == nil || r.IsError || text(r) != "hello" {
		t.Fatalf("allowed once: %+v", r)
	}
	h.until("nothing waits", func() bool { return len(v.shown) == 0 && v.empty.Visible() })

	res = call("no")
	c = card()
	test.Tap(c.no)
	if r := result(res); r == nil || !r.IsError || !strings.Contains(text(r), "the user denied this request") {
		t.Fatalf("denied: %+v %q", r, text(r))
	}
}
