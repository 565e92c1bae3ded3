package tray

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestReasonSkipsTheStrictNote: a failed server whose only issue is the
// strict note (a warning: strict gives it none of its folders) is shown
// with why it failed, not with the note.
func TestReasonSkipsTheStrictNote(t *testing.T) {
	st := hostapi.ServerStatus{Name: "fs", State: hostapi.StateFailed, LastError: "exit status 1: cannot open /srv/data",
		Issues: []hostapi.Problem{{Server: "fs", Key: "sandbox", Warning: true, Message: `strict gives the server none of its folders: "files" does`}}}
	if got := reasonOf(st); strings.Contains(strings.ToLower(got), "strict") || !strings.Contains(got, "cannot open") {
		t.Errorf("reason = %q: the note, not why it failed", got)
	}
}
