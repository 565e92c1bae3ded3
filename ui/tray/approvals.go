package tray

import (
	"fmt"

	"fyne.io/fyne/v2"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Approvals (issue 14): the menu's line under its header while tool calls
// wait for the user ("1 request waiting: review"), which opens the
// window's Approvals place, and a desktop notification for each new one.

// ApprovalsLine is the menu's line for the waiting calls, or "" when none
// waits.
func ApprovalsLine(s client.Snapshot) string {
	return waitingLine(len(s.Approvals), "request", "review")
}

// waitingLine is "1 THING waiting: ACTION", "N THINGs waiting: ACTION",
// or "" for none.
func waitingLine(n int, thing, action string) string {
	switch n {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("1 %s waiting: %s", thing, action)
	default:
		return fmt.Sprintf("%d %ss waiting: %s", n, thing, action)
	}
}

// approvalsItem is the menu's item for the waiting calls, or nil.
func approvalsItem(s client.Snapshot, a Actions) *fyne.MenuItem {
	return waitingItem(ApprovalsLine(s), s, a)
}

// waitingItem is the menu's item of a waiting line, which opens the
// window's Approve place; nil for no line.
func waitingItem(line string, s client.Snapshot, a Actions) *fyne.MenuItem {
	if line == "" || !s.Connected {
		return nil
	}
	open := a.OpenApprovals
	if open == nil {
		open = a.Open
	}
	return item(line, open, true)
}

// ApprovalNotification is the desktop notification of a call that waits
// for the user.
func ApprovalNotification(ap hostapi.Approval) *fyne.Notification {
	app := ap.App
	if app == "" {
		app = "An app"
	}
	return fyne.NewNotification(fmt.Sprintf("%s asks to run %s", app, ap.Tool),
		fmt.Sprintf("%s's tool %s waits for your approval (%s). Open Switchboard to allow or deny it.", ap.Server, ap.Tool, ap.Why))
}

// newlyWaiting returns the calls that wait since the last snapshot (every
// waiting call, the first time a host is seen: each needs the user).
func (t *Tray) newlyWaiting(s client.Snapshot) []hostapi.Approval {
	if !s.Connected {
		return nil
	}
	var out []hostapi.Approval
	next := make(map[string]bool, len(s.Approvals))
	for _, ap := range s.Approvals {
		next[ap.ID] = true
		if !t.asked[ap.ID] {
			out = append(out, ap)
		}
	}
	t.asked = next
	return out
}

// Questions (issue 30 §2): a server's question for the user that the app
// which made the call cannot ask (an MCP elicitation) waits in the host;
// the menu says so under the approvals' line ("1 question waiting:
// answer"), which opens the window's Approve place, where its form is,
// and a desktop notification tells of each new one.

// QuestionsLine is the menu's line for the waiting questions, or "" when
// none waits.
func QuestionsLine(s client.Snapshot) string {
	return waitingLine(len(s.Requests), "question", "answer")
}

// questionsItem is the menu's item for the waiting questions, or nil.
func questionsItem(s client.Snapshot, a Actions) *fyne.MenuItem {
	return waitingItem(QuestionsLine(s), s, a)
}

// QuestionNotification is the desktop notification of a server's question
// that waits for the user.
func QuestionNotification(q hostapi.InputRequest) *fyne.Notification {
	what := "a question"
	if q.Mode == hostapi.InputURL {
		what = "you to open a page on " + q.URLHost
	}
	content := "Open Switchboard to answer it: " + short(q.Message)
	if q.Message == "" {
		content = "Open Switchboard to answer it."
	}
	return fyne.NewNotification(fmt.Sprintf("%s asks %s", q.Server, what), content)
}

// newQuestions returns the questions that wait since the last snapshot
// (every waiting one, the first time a host is seen).
func (t *Tray) newQuestions(s client.Snapshot) []hostapi.InputRequest {
	if !s.Connected {
		return nil
	}
	var out []hostapi.InputRequest
	next := make(map[string]bool, len(s.Requests))
	for _, q := range s.Requests {
		next[q.ID] = true
		if !t.questioned[q.ID] {
			out = append(out, q)
		}
	}
	t.questioned = next
	return out
}
