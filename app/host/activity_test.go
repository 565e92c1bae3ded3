package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/switchboard-mcp/switchboard/app/activity"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// denier is a later stage that refuses every call (as approvals will).
type denier struct{}

func (denier) Before(c *relay.Info) error {
	c.Approval = "denied by the user"
	return &relay.DeniedError{Server: c.Server, Tool: c.Tool, Reason: "the user did not approve this call"}
}
func (denier) After(*relay.Info, *relay.Result, error) {}

func openTestActivity(t *testing.T) *activityLog {
	t.Helper()
	a := newActivityLog(nil)
	a.open(t.TempDir(), config.ActivitySettings{})
	if a.log.Load() == nil {
		t.Fatalf("the log did not open: %v", a.err)
	}
	t.Cleanup(a.close)
	return a
}

func records(t *testing.T, a *activityLog) []activity.Record {
	t.Helper()
	l := a.log.Load()
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	rs, err := l.Query(context.Background(), activity.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestActivityHookOutcomes: the hook, first in a relay.Chain, records
// every way a call ends, a later stage's refusal as denied with its
// approval, and the arguments' copy taken in Before (redacted with a
// secret resolved for a server, before and after its value changed).
func TestActivityHookOutcomes(t *testing.T) {
	a := openTestActivity(t)
	a.secretResolved("TOKEN", []byte("tok-value-1"))
	a.secretResolved("TOKEN", []byte("tok-value-2"))
	big := `{"pad":"` + strings.Repeat("x", activity.ArgsCopyLimit) + `"}`
	cases := []struct {
		tool    string
		args    string
		res     *relay.Result
		err     error
		outcome activity.Outcome
		code    int
	}{
		{"ok", `{"a":"tok-value-1 and tok-value-2"}`, &relay.Result{Raw: json.RawMessage(`{"content":[]}`)}, nil, activity.OK, 0},
		{"toolerr", `{}`, &relay.Result{Raw: json.RawMessage(`{"isError":true}`), IsError: true}, nil, activity.ToolError, 0},
		{"rpc", `{}`, nil, &jsonrpc.Error{Code: -32602, Message: "bad"}, activity.ProtocolError, -32602},
		{"timeout", `{}`, nil, &relay.TimeoutError{Server: "s", Tool: "timeout", Timeout: time.Second}, activity.TimedOut, 0},
		{"withdrawn", `{}`, nil, relay.ErrWithdrawn, activity.Cancelled, 0},
		{"stopped", `{}`, nil, &relay.StoppedError{Server: "s", Tool: "stopped"}, activity.ProtocolError, int(jsonrpc.CodeInternalError)},
		{"big", big, &relay.Result{Raw: json.RawMessage(`{}`)}, nil, activity.OK, 0},
	}
	for _, c := range cases {
		info := &relay.Info{Kind: relay.KindToolCall, Server: "s", Tool: c.tool, Caller: relay.Caller{App: "app", Conn: "bridge pid 7"},
			Started: time.Now(), Arguments: json.RawMessage(c.args)}
		if err := a.Before(info); err != nil {
			t.Fatal(err)
		}
		info.Arguments = nil // valid during Before only
		a.After(info, c.res, c.err)
	}
	// A refusal by the next stage reaches the hook's After.
	h := relay.Chain(a, denier{})
	info := &relay.Info{Kind: relay.KindToolCall, Server: "s", Tool: "denied", Caller: relay.Caller{App: "app", Conn: "http"}, Started: time.Now(), Arguments: json.RawMessage(`{"x":1}`)}
	if err := h.Before(info); err == nil {
		t.Fatal("the chain let a denied call through")
	}

	rs := records(t, a)
	byTool := map[string]activity.Record{}
	for _, r := range rs {
		byTool[r.Target] = r
	}
	for _, c := range cases {
		r, ok := byTool[c.tool]
		if !ok || r.Outcome != c.outcome || r.Code != c.code || r.App != "app" || r.Conn != "bridge pid 7" || r.ArgBytes != len(c.args) {
			t.Errorf("%s: %+v, want %s %d", c.tool, r, c.outcome, c.code)
		}
		if c.res != nil && r.ResultBytes != len(c.res.Raw) {
			t.Errorf("%s: result %d bytes, want %d", c.tool, r.ResultBytes, len(c.res.Raw))
		}
	}
	if p := byTool["ok"].Preview; p != `{"a":"[secret TOKEN (before a change 1)] and [secret TOKEN]"}` {
		t.Errorf("the redacted preview is %s", p)
	}
	if p := byTool["big"].Preview; len(p) > activity.PreviewLimit || !json.Valid([]byte(p)) || !strings.HasPrefix(p, `{"pad":`) || strings.Contains(p, "xxxxxxxxxx\"}") {
		t.Errorf("the preview of %d bytes of arguments: %.80s", len(big), p)
	}
	d := byTool["denied"]
	if d.Outcome != activity.Denied || d.Approval != "denied by the user" || d.Conn != "http" || d.Preview != `{"x":1}` {
		t.Errorf("the denied call: %+v", d)
	}
	if len(rs) != len(cases)+1 {
		t.Errorf("%d records, want %d", len(rs), len(cases)+1)
	}
}

// TestActivityOffHook: with the log off the hook records nothing and
// keeps nothing.
func TestActivityOffHook(t *testing.T) {
	a := newActivityLog(nil)
	a.open(t.TempDir(), config.ActivitySettings{Off: true})
	info := &relay.Info{Tool: "t", Arguments: json.RawMessage(`{}`)}
	if err := a.Before(info); err != nil {
		t.Fatal(err)
	}
	a.After(info, nil, nil)
	n := 0
	a.args.Range(func(any, any) bool { n++; return true })
	if a.log.Load() != nil || n != 0 {
		t.Errorf("the log is open (%v) or keeps %d copies", a.log.Load() != nil, n)
	}
	if st := a.apiStatus(); st.On || st.Path != "" || st.Problem != "" {
		t.Errorf("status %+v", st)
	}
}

// TestActivityOpenProblem: a database that cannot be opened is a problem
// the status names, with the remedy, and the host goes on.
func TestActivityOpenProblem(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ActivityFile), 0o700); err != nil { // a directory where the file goes
		t.Fatal(err)
	}
	a := newActivityLog(nil)
	a.open(dir, config.ActivitySettings{})
	st := a.apiStatus()
	if st.On || !strings.Contains(st.Problem, "the host runs without it") || !strings.Contains(st.Problem, `"activity": false`) {
		t.Errorf("status %+v", st)
	}
}

// TestActivityReconfigure: a reload with the same settings keeps the open
// log; new settings reopen it; "activity": false closes it, and turning
// it on again opens the same file, with what it held.
func TestActivityReconfigure(t *testing.T) {
	dir := t.TempDir()
	a := newActivityLog(nil)
	defer a.close()
	a.open(dir, config.ActivitySettings{})
	l1 := a.log.Load()
	a.open(dir, config.ActivitySettings{})
	if l1 == nil || a.log.Load() != l1 {
		t.Fatal("an unchanged reload reopened the log")
	}
	info := &relay.Info{Kind: relay.KindToolCall, Server: "s", Tool: "kept", Started: time.Now(), Arguments: json.RawMessage(`{}`)}
	_ = a.Before(info)
	a.After(info, &relay.Result{Raw: json.RawMessage(`{}`)}, nil)
	a.open(dir, config.ActivitySettings{RetainDays: 7})
	l2 := a.log.Load()
	if l2 == nil || l2 == l1 {
		t.Fatal("new settings did not reopen the log")
	}
	a.open(dir, config.ActivitySettings{Off: true})
	if a.log.Load() != nil || a.apiStatus().On {
		t.Fatal("activity: false left the log open")
	}
	a.open(dir, config.ActivitySettings{})
	if rs := records(t, a); len(rs) != 1 || rs[0].Target != "kept" {
		t.Errorf("after off and on again: %+v", rs)
	}
}
