package window

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// askSchema is the form the asker's "ask" tool sends: each kind of field
// a question's form holds.
const askSchema = `{"type": "object", "properties": {
	"name": {"type": "string", "title": "Your name", "description": "As you want to be called."},
	"age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150},
	"email": {"type": "string", "title": "Email", "format": "email"},
	"subscribe": {"type": "boolean", "title": "Subscribe", "default": true},
	"color": {"type": "string", "title": "Colour", "enum": ["red", "green"], "enumNames": ["Red", "Green"], "default": "green"},
	"tags": {"type": "array", "title": "Instruments", "items": {"type": "string", "oneOf": [{"const": "piano", "title": "Piano"}, {"const": "drums", "title": "Drums"}]}}
}, "required": ["name"]}`

// runAsker is a go-sdk MCP server whose tools ask the user through its
// client, the 2026-07-28 way (an input_required round: the host speaks
// that era to it): ask (a form, askSchema) and pay (a page to open); each
// returns the answer as JSON.
func runAsker() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "window-test-asker", Version: "1"}, nil)
	asking := func(p *mcp.ElicitParams) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			answer, ok := req.Params.InputResponses["user"]
			if !ok || req.Params.RequestState != "asked" {
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"user": p}, RequestState: "asked"}, nil
			}
			b, _ := json.Marshal(answer)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil
		}
	}
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}},
		asking(&mcp.ElicitParams{Mode: "form", Message: "Tell me about you", RequestedSchema: json.RawMessage(askSchema)}))
	s.AddTool(&mcp.Tool{Name: "pay", InputSchema: map[string]any{"type": "object"}},
		asking(&mcp.ElicitParams{Mode: "url", Message: "Pay for the lookup", URL: "https://pay.example.com/checkout?id=7", ElicitationID: "e7"}))
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "asker:", err)
	}
	return 0
}

// TestQuestionsPlace (issue 30 §2): a server's question, asked while the
// host calls its tool (servers.call: no app that can ask), waits in the
// Approvals place as a form built from its fields, defaults filled in;
// a wrong answer shows the host's problems beside their fields and
// sends nothing; Answer sends the values, which the server gets; Decline
// declines; a page to open is confirmed by its host, opened in the
// browser and accepted.
func TestQuestionsPlace(t *testing.T) {
	h := start(t, map[string]any{"asker": map[string]any{"command": testExe, "env": map[string]string{helperEnv: "asker"}}})
	w := h.w
	app := &urlApp{App: w.app}
	w.app = app
	h.state("asker", "running")
	w.showPlace(placeApprovals)
	v := w.approvals

	call := func(tool string) <-chan string {
		out := make(chan string, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
			defer cancel()
			raw, err := h.live.Call(ctx, "asker", tool, json.RawMessage(`{}`))
			var res mcp.CallToolResult
			if err != nil || json.Unmarshal(raw, &res) != nil || len(res.Content) == 0 {
				out <- fmt.Sprintf("the call: %v (%s)", err, raw)
				return
			}
			tc, _ := res.Content[0].(*mcp.TextContent)
			if tc == nil {
				out <- fmt.Sprintf("no text: %s", raw)
				return
			}
			out <- tc.Text
		}()
		return out
	}
	result := func(ch <-chan string) map[string]any {
		t.Helper()
		var text string
		h.until("the call ends", func() bool {
			select {
			case text = <-ch:
				return true
			default:
				return false
			}
		})
		var m map[string]any
		if json.Unmarshal([]byte(text), &m) != nil {
			t.Fatalf("the server's answer: %s", text)
		}
		return m
	}
	card := func(not string, res <-chan string) *questionCard {
		t.Helper()
		h.until("a question shows", func() bool {
			select {
			case text := <-res:
				t.Fatalf("the call ended before its question showed: %s", text)
			default:
			}
			return len(v.asked) == 1 && v.asked[0] != not
		})
		return v.questions[v.asked[0]]
	}
	field := func(c *questionCard, name string) *questionField {
		t.Helper()
		i := slices.IndexFunc(c.fields, func(qf *questionField) bool { return qf.f.Name == name })
		if i < 0 {
			t.Fatalf("no field %s", name)
		}
		return c.fields[i]
	}

	res := call("ask")
	c := card("", res)
	if w.nav[placeApprovals].Icon != theme.WarningIcon() || v.title.Text != "Approvals: 1 question waiting" || v.empty.Visible() {
		t.Errorf("the count: button icon %v, title %q, empty shown %v", w.nav[placeApprovals].Icon, v.title.Text, v.empty.Visible())
	}
	shown := strings.Join(texts(c.obj), "\n")
	for _, want := range []string{"asker asks you", "Tell me about you", "Your name *", "As you want to be called.", "Colour", "Instruments", "* required"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the card does not show %q:\n%s", want, shown)
		}
	}
	name, age, email := field(c, "name"), field(c, "age"), field(c, "email")
	subscribe, color, tags := field(c, "subscribe"), field(c, "color"), field(c, "tags")
	if name.entry == nil || age.entry == nil || email.entry == nil || subscribe.check == nil || color.choice == nil || tags.group == nil {
		t.Fatalf("the widgets: name %v age %v email %v subscribe %v color %v tags %v", name.entry, age.entry, email.entry, subscribe.check, color.choice, tags.group)
	}
	if age.entry.PlaceHolder != "a whole number from 0 to 150" || !strings.Contains(email.entry.PlaceHolder, "name@example.com") {
		t.Errorf("the hints: age %q, email %q", age.entry.PlaceHolder, email.entry.PlaceHolder)
	}
	if !subscribe.check.Checked || color.choice.Selected != "Green" || !slices.Equal(color.choice.Options, []string{"Red", "Green"}) || !slices.Equal(tags.group.Options, []string{"Piano", "Drums"}) {
		t.Errorf("the defaults and choices: subscribe %v, colour %q of %q, instruments %q", subscribe.check.Checked, color.choice.Selected, color.choice.Options, tags.group.Options)
	}

	// Wrong: every problem beside its field, nothing sent.
	age.entry.SetText("500")
	email.entry.SetText("nope")
	test.Tap(c.answer)
	h.until("the problems show", func() bool { return name.err.Visible() })
	for _, f := range []struct {
		qf   *questionField
		want string
	}{{name, "Your name is required"}, {age, "Age must be at most 150"}, {email, "Email must be an email address"}} {
		if !f.qf.err.Visible() || f.qf.err.Text != f.want {
			t.Errorf("beside %s: %q (shown %v), want %q", f.qf.f.Name, f.qf.err.Text, f.qf.err.Visible(), f.want)
		}
	}
	if color.err.Visible() || !c.problem.Visible() || len(v.asked) != 1 {
		t.Errorf("after a wrong answer: colour's problem %q, the card's %q, %d waiting", color.err.Text, c.problem.Text, len(v.asked))
	}

	name.entry.SetText("Ada")
	age.entry.SetText("36")
	email.entry.SetText("ada@example.com")
	color.choice.SetSelected("Red")
	tags.group.SetSelected([]string{"Drums"})
	test.Tap(c.answer)
	got := result(res)
	b, _ := json.Marshal(got["content"])
	if got["action"] != "accept" || string(b) != `{"age":36,"color":"red","email":"ada@example.com","name":"Ada","subscribe":true,"tags":["drums"]}` {
		t.Errorf("the server got %v %s", got["action"], b)
	}
	h.until("nothing waits", func() bool { return len(v.asked) == 0 && v.empty.Visible() && v.title.Text == "Approvals" })
	if w.nav[placeApprovals].Icon != theme.QuestionIcon() {
		t.Errorf("the button's icon with nothing waiting: %v", w.nav[placeApprovals].Icon)
	}

	res = call("ask")
	c = card(c.q.ID, res)
	test.Tap(c.decline)
	if got := result(res); got["action"] != "decline" {
		t.Errorf("declined: the server got %v", got)
	}

	// A page: its host confirmed, then opened and accepted.
	res = call("pay")
	c = card(c.q.ID, res)
	shown = strings.Join(texts(c.obj), "\n")
	if c.answer.Text != "Open page on pay.example.com…" || !strings.Contains(shown, "https://pay.example.com/checkout?id=7") {
		t.Errorf("the page's card: button %q:\n%s", c.answer.Text, shown)
	}
	test.Tap(c.answer)
	top := w.win.Canvas().Overlays().Top()
	if ask := strings.Join(texts(top), "\n"); w.confirm == nil || !strings.Contains(ask, "Open a page on pay.example.com?") || !strings.Contains(ask, "Open pay.example.com") {
		t.Fatalf("no confirmation naming the host: %v:\n%s", w.confirm, ask)
	}
	app.mu.Lock()
	opened := len(app.opened)
	app.mu.Unlock()
	if opened != 0 {
		t.Fatalf("the page opened before it was confirmed: %q", app.opened)
	}
	w.confirm.Confirm()
	if got := result(res); got["action"] != "accept" {
		t.Errorf("the page: the server got %v", got)
	}
	app.mu.Lock()
	defer app.mu.Unlock()
	if !slices.Equal(app.opened, []string{"https://pay.example.com/checkout?id=7"}) {
		t.Errorf("opened: %q", app.opened)
	}
}

// goldenQuestion is a waiting question with each kind of field.
func goldenQuestion(t *testing.T) hostapi.InputRequest {
	t.Helper()
	var fields []hostapi.InputField
	f := func(s string) json.RawMessage { return json.RawMessage(s) }
	lo, hi := 0.0, 150.0
	fields = append(fields,
		hostapi.InputField{Name: "name", Title: "Your name", Description: "As you want to be called.", Type: "string", Required: true},
		hostapi.InputField{Name: "age", Title: "Age", Type: "integer", Minimum: &lo, Maximum: &hi},
		hostapi.InputField{Name: "email", Title: "Email", Type: "string", Format: "email"},
		hostapi.InputField{Name: "subscribe", Title: "Subscribe", Type: "boolean", Default: f("true")},
		hostapi.InputField{Name: "color", Title: "Colour", Type: "string", Enum: []string{"red", "green"}, EnumNames: []string{"Red", "Green"}, Default: f(`"green"`)},
		hostapi.InputField{Name: "tags", Title: "Instruments", Type: "array", Enum: []string{"piano", "drums"}, EnumNames: []string{"Piano", "Drums"}},
	)
	return hostapi.InputRequest{ID: "q1", Server: "everything", App: "claude-code", Mode: hostapi.InputForm, Message: "Tell me about you",
		Fields: fields, Since: goldenNow, Deadline: goldenNow.Add(5 * time.Minute)}
}

// TestGoldenQuestions is the Approvals place with a form question and a
// page to open above a waiting call.
func TestGoldenQuestions(t *testing.T) {
	w, _ := goldenWindow(t)
	questionsScene(t, w)
	assertMarkup(t, w, "questions.xml")
}

// questionsScene is the Approvals place with a form question whose
// answer the host refused, a page to open, and a waiting call.
func questionsScene(t *testing.T, w *Window) {
	s := goldenSnapshot()
	s.Requests = []hostapi.InputRequest{goldenQuestion(t), {ID: "q2", Server: "shop", Mode: hostapi.InputURL, Message: "Pay for the lookup",
		URL: "https://pay.example.com/checkout?id=7", URLHost: "pay.example.com", Since: goldenNow, Deadline: goldenNow.Add(5 * time.Minute)}}
	s.Approvals = []hostapi.Approval{{ID: "1", App: "claude-code", Server: "files", Tool: "delete", Why: "the tool says it is destructive",
		Arguments: json.RawMessage(`{"path": "/tmp/x"}`), Deadline: goldenNow.Add(5 * time.Minute)}}
	w.approvalsView().loc = time.UTC // the zone of goldenNow, whatever the machine's
	w.apply(s)
	w.showPlace(placeApprovals)
	w.approvals.questions["q1"].fields[1].entry.SetText("500")
	w.approvals.questions["q1"].showProblems(&hostapi.Error{Code: hostapi.CodeBadRequest, Message: "not sent",
		Problems: []hostapi.Problem{{Key: "age", Message: "must be at most 150"}, {Key: "name", Message: "is required"}}})
}
