package tray

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

func TestApprovalsInMenu(t *testing.T) {
	s := client.Snapshot{Connected: true, Info: hostapi.Info{PID: 1}}
	opened := ""
	a := Actions{Open: func() { opened = "window" }, OpenApprovals: func() { opened = "approvals" }}
	for _, it := range BuildMenu(s, nil, a).Items {
		if strings.Contains(it.Label, "waiting") {
			t.Fatalf("a line for no waiting call: %q", it.Label)
		}
	}
	s.Approvals = []hostapi.Approval{{ID: "1", Server: "fs", Tool: "delete"}}
	m := BuildMenu(s, nil, a)
	if len(m.Items) < 2 || m.Items[1].Label != "1 request waiting: review" || m.Items[1].Disabled {
		t.Fatalf("the menu's second line: %+v", m.Items[1])
	}
	m.Items[1].Action()
	if opened != "approvals" {
		t.Fatalf("the line opened %q", opened)
	}
	s.Approvals = append(s.Approvals, hostapi.Approval{ID: "2"})
	a.OpenApprovals = nil
	m = BuildMenu(s, nil, a)
	if m.Items[1].Label != "2 requests waiting: review" {
		t.Fatalf("two waiting: %q", m.Items[1].Label)
	}
	m.Items[1].Action()
	if opened != "window" {
		t.Fatalf("without OpenApprovals the line opened %q", opened)
	}
}

func TestApprovalNotifications(t *testing.T) {
	tr := &Tray{}
	var got []string
	notify := func(n *fyne.Notification) { got = append(got, n.Title+" | "+n.Content) }
	do := func(f func()) { f() }
	s := client.Snapshot{Connected: true, Info: hostapi.Info{PID: 1},
		Approvals: []hostapi.Approval{{ID: "1", App: "claude-ai", Server: "fs", Tool: "delete", Why: "the tool says it is destructive"}}}
	tr.update(nil, s, Actions{}, notify, do)
	if len(got) != 1 || !strings.Contains(got[0], "claude-ai asks to run delete") || !strings.Contains(got[0], "destructive") {
		t.Fatalf("notifications: %q", got)
	}
	tr.update(nil, s, Actions{}, notify, do)
	if len(got) != 1 {
		t.Fatalf("a waiting call was notified twice: %q", got)
	}
	s.Approvals = append(s.Approvals, hostapi.Approval{ID: "2", Server: "fs", Tool: "move"})
	tr.update(nil, s, Actions{}, notify, do)
	if len(got) != 2 || !strings.Contains(got[1], "An app asks to run move") {
		t.Fatalf("the second call: %q", got)
	}
}

// TestQuestionsInMenu (issue 30 §2): a server's waiting questions have a
// line of their own under the approvals' line, which opens the window's
// Approve place.
func TestQuestionsInMenu(t *testing.T) {
	s := client.Snapshot{Connected: true, Info: hostapi.Info{PID: 1}}
	opened := ""
	a := Actions{Open: func() { opened = "window" }, OpenApprovals: func() { opened = "approvals" }}
	for _, it := range BuildMenu(s, nil, a).Items {
		if strings.Contains(it.Label, "question") {
			t.Fatalf("a line for no waiting question: %q", it.Label)
		}
	}
	s.Requests = []hostapi.InputRequest{{ID: "q1", Server: "everything", Mode: hostapi.InputForm}}
	m := BuildMenu(s, nil, a)
	if len(m.Items) < 2 || m.Items[1].Label != "1 question waiting: answer" || m.Items[1].Disabled {
		t.Fatalf("the menu's second line: %+v", m.Items[1])
	}
	m.Items[1].Action()
	if opened != "approvals" {
		t.Fatalf("the line opened %q", opened)
	}
	s.Approvals = []hostapi.Approval{{ID: "1", Server: "fs", Tool: "delete"}}
	s.Requests = append(s.Requests, hostapi.InputRequest{ID: "q2"})
	m = BuildMenu(s, nil, a)
	if m.Items[1].Label != "1 request waiting: review" || m.Items[2].Label != "2 questions waiting: answer" {
		t.Fatalf("a call and two questions waiting: %q, %q", m.Items[1].Label, m.Items[2].Label)
	}
}

// TestQuestionNotifications: each new question is notified once, with
// its server's words; a page to open names its host.
func TestQuestionNotifications(t *testing.T) {
	tr := &Tray{}
	var got []string
	notify := func(n *fyne.Notification) { got = append(got, n.Title+" | "+n.Content) }
	do := func(f func()) { f() }
	s := client.Snapshot{Connected: true, Info: hostapi.Info{PID: 1},
		Requests: []hostapi.InputRequest{{ID: "q1", Server: "everything", Mode: hostapi.InputForm, Message: "Please provide your name"}}}
	tr.update(nil, s, Actions{}, notify, do)
	if len(got) != 1 || !strings.Contains(got[0], "everything asks a question") || !strings.Contains(got[0], "Please provide your name") {
		t.Fatalf("notifications: %q", got)
	}
	tr.update(nil, s, Actions{}, notify, do)
	if len(got) != 1 {
		t.Fatalf("a waiting question was notified twice: %q", got)
	}
	s.Requests = append(s.Requests, hostapi.InputRequest{ID: "q2", Server: "pay", Mode: hostapi.InputURL, URL: "https://pay.example.com/x", URLHost: "pay.example.com"})
	tr.update(nil, s, Actions{}, notify, do)
	if len(got) != 2 || !strings.Contains(got[1], "pay asks you to open a page on pay.example.com") {
		t.Fatalf("the second question: %q", got)
	}
}
