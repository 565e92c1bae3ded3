package tray

import (
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"github.com/switchboard-mcp/switchboard/ui/phrase"
)

// The health in words when there is nothing to count.
const (
	SummaryNotConnected = "Not connected to Switchboard's host"
	SummaryNoServers    = "No servers yet"
)

// Summary is the host's health in words, for the tooltip and the menu's
// header: "3 running, 1 failed", "No servers yet", "Not connected to
// Switchboard's host". The servers are counted by their state, the one
// the host gives (app/host's PublicState), in the groups of [tallies]:
// running, on their way ("starting"), needing the user (a secret, a
// sign-in), unreachable, failed (a failed server and an invalid entry
// alike), sleeping, and last the ones not meant to run ("stopped",
// disabled ones included).
func Summary(s client.Snapshot) string {
	if !s.Connected {
		return SummaryNotConnected
	}
	if len(s.Servers) == 0 {
		return SummaryNoServers
	}
	n := make([]int, len(tallies))
	for _, st := range s.Servers {
		if st.Broken {
			n[brokenTally]++
			continue
		}
		if i := tallyOf(st.State); i >= 0 {
			n[i]++
		}
	}
	var parts []string
	for i, t := range tallies {
		if n[i] > 0 {
			parts = append(parts, english.Plural(n[i], t.one, t.many))
		}
	}
	return strings.Join(parts, ", ")
}

type tally struct {
	one, many string
	states    []hostapi.State
}

// tallies are the groups [Summary] counts servers in, in its order. Each
// state of hostapi.States() is in exactly one, and a group's states have
// the same severity (TestSummaryCountsEveryState).
var tallies = []tally{
	{"running", "running", []hostapi.State{hostapi.StateRunning}},
	{"starting", "starting", []hostapi.State{hostapi.StateStarting, hostapi.StateRestarting, hostapi.StateStopping}},
	{"signing in", "signing in", []hostapi.State{hostapi.StateSigningIn}},
	{"needs a secret", "need a secret", []hostapi.State{hostapi.StateWaiting}},
	{"needs a sign-in", "need a sign-in", []hostapi.State{hostapi.StateSignInNeeded}},
	{"unreachable", "unreachable", []hostapi.State{hostapi.StateUnreachable}},
	{"broken", "broken", nil}, // ServerStatus.Broken: on its way, but no attempt can succeed
	{"failed", "failed", []hostapi.State{hostapi.StateFailed, hostapi.StateInvalid, hostapi.StateUnauthorized}},
	{"sleeping", "sleeping", []hostapi.State{hostapi.StateSleeping}}, // idle, but counted apart: they start on first use
	{"stopped", "stopped", []hostapi.State{hostapi.StateStopped, hostapi.StateDisabled}},
}

// brokenTally is the index in tallies of the broken servers.
var brokenTally = slices.IndexFunc(tallies, func(t tally) bool { return t.one == "broken" })

// tallyOf is the index in tallies of a state's group; -1 for a state it
// does not know.
func tallyOf(s hostapi.State) int {
	for i, t := range tallies {
		if slices.Contains(t.states, s) {
			return i
		}
	}
	return -1
}

// Tooltip is the tray icon's tooltip: the app's name and its [Summary].
func Tooltip(s client.Snapshot) string {
	return "Switchboard — " + Summary(s)
}

// FailureReason is why a server is failed (or waits for the user, or is
// broken: ServerStatus.Broken), in words short enough for a menu line; ""
// when its state needs no reason.
// It is built from the status's data where there is some (the problem's
// remedy, the missing command, how the connection ended) and falls back
// on the first line of the host's message (LastError) without its
// `server "name": ` prefix, which the menu already says.
func FailureReason(st hostapi.ServerStatus) string {
	switch st.State.Severity() {
	case hostapi.SeverityFailed, hostapi.SeverityWarning:
	default:
		if !st.Broken {
			return ""
		}
	}
	return short(termtext.Escape(reasonOf(st))) // it may quote the server's stderr
}

// BrokenRemedy is what the user can do about a broken server
// (ServerStatus.Broken), in the window's words (phrase.Remedy); "" for a
// server that is not broken or whose issue has no remedy.
func BrokenRemedy(st hostapi.ServerStatus) string {
	if !st.Broken {
		return ""
	}
	for _, p := range st.Issues {
		if !p.Warning && p.Remedy != nil {
			return phrase.Remedy(*p.Remedy)
		}
	}
	return ""
}

func reasonOf(st hostapi.ServerStatus) string {
	for _, p := range st.Issues {
		if p.Warning && p.Key == "sandbox" {
			continue // the strict note (no folders given), not why it is not running
		}
		if r := problemWords(st, p); r != "" {
			return r
		}
	}
	if st.State == hostapi.StateInvalid {
		if len(st.Problems) > 0 {
			return "Its entry has a problem: " + phrase.Problem(st.Problems[0])
		}
		return "Its entry in the config file has a problem"
	}
	if st.ResolveError != "" && st.Resolved == "" {
		if strings.ContainsAny(st.Command, `/\`) {
			return fmt.Sprintf("Cannot run %s", st.Command)
		}
		return fmt.Sprintf("Command not found: %s", st.Command)
	}
	if r := closeWords(st); r != "" {
		return r
	}
	if e := firstLine(st.LastError); e != "" {
		return capital(e)
	}
	return "It gave no reason; its logs may say more"
}

// problemWords phrases a problem by its remedy's kind; "" when the
// problem has no words at all.
func problemWords(st hostapi.ServerStatus, p hostapi.Problem) string {
	if r := p.Remedy; r != nil {
		switch r.Kind {
		case hostapi.RemedySetSecret:
			if r.Secret != "" {
				return "Needs the secret " + r.Secret
			}
		case hostapi.RemedyUnlockKeyring:
			return "The keyring is locked"
		case hostapi.RemedyInstall:
			if st.Broken && p.Fact != "" {
				// It retries: say why from the first attempt, as status does.
				return capital(p.Fact)
			}
			if r.Command != "" {
				return "Command not found: " + r.Command
			}
		case hostapi.RemedyEnable:
			return "It is disabled"
		case hostapi.RemedyRenameKey:
			if r.From != "" && r.To != "" {
				return fmt.Sprintf("Its entry has %q where %q was meant", r.From, r.To)
			}
		}
	}
	if t := firstLine(p.Text()); t != "" {
		return capital(t)
	}
	return ""
}

// closeWords phrases how the server's connection ended (LastReason, the
// engine's close reason), with the last line of its stderr when it
// exited; "" for a reason it does not know.
func closeWords(st hostapi.ServerStatus) string {
	switch st.LastReason {
	case "exited":
		if line := lastLine(st.Stderr); line != "" {
			return "It exited: " + line
		}
		return "It exited at start"
	case "handshake timeout":
		return "It did not answer the MCP handshake in time"
	case "junk output":
		return "It wrote text that is not MCP on its output"
	case "message too large":
		return "It sent a message over the size limit"
	case "write queue full":
		return "It stopped reading its input"
	case "flood":
		return "It sent messages faster than the limit"
	case "i/o error":
		return "Its connection failed"
	}
	return ""
}

// lastLine is the last line of stderr that is not blank.
func lastLine(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// firstLine is msg's first line. (The host's messages begin with
// `server "name": `; the tray shows them as they are rather than cut
// them apart: no front end parses an error's words, see the window's
// TestNoFrontEndParsesErrorStrings.)
func firstLine(msg string) string {
	msg = strings.TrimSpace(msg)
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = strings.TrimSpace(msg[:i])
	}
	return msg
}

// capital upper-cases the first letter of an ASCII sentence.
func capital(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}
