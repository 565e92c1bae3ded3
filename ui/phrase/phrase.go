// Package phrase words the host's problems (hostapi.Problem: what is
// wrong, where, and the remedy as data) for the graphical front ends, the
// tray and the window, as the command line words them for a terminal
// (app/cli's problems.go). A front end that can carry a remedy out (the
// window's buttons) offers it beside these words; the words say it either
// way, in a person's terms rather than as a command to run.
//
// Nothing here reads a message to decide anything: the words come from
// the remedy's kind and arguments, and a problem without a remedy (or of
// a kind this version does not know) is shown as its Message.
package phrase

import (
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// Problem is one problem in words: the key it is about (as the entry
// names it: "cwd", "env.TOKEN"), what is wrong and what to do about it,
// escaped (a message may quote what a user or a server wrote). A problem
// whose remedy is data has its Fact worded with the remedy's sentence; any
// other is its Message, which says both.
func Problem(p hostapi.Problem) string {
	what, do := Parts(p)
	if do == "" {
		return what
	}
	return what + " " + do
}

// Parts is [Problem] in its two parts, for a front end that shows them
// apart (the tray, a line each): what is wrong, with its key, and what to
// do, a sentence; do is "" where what says both (the problem's Message).
func Parts(p hostapi.Problem) (what, do string) {
	what, do = parts(p)
	if p.Key != "" && p.Key != hostapi.KeyName {
		what = p.Key + ": " + what
	}
	return termtext.Escape(what), termtext.Escape(do)
}

// Beside is [Problem] without its key, for a form that shows it beside the
// field the key names.
func Beside(p hostapi.Problem) string {
	what, do := parts(p)
	if do != "" {
		what += " " + do
	}
	return termtext.Escape(what)
}

func parts(p hostapi.Problem) (what, do string) {
	if p.Remedy != nil && p.Fact != "" {
		if r := Remedy(*p.Remedy); r != "" {
			return sentence(p.Fact), r
		}
	}
	return p.Message, ""
}

// Problems are the problems in words, one a line.
func Problems(ps []hostapi.Problem) string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = Problem(p)
	}
	return strings.Join(lines, "\n")
}

// Remedy is what to do in a person's words, a sentence; "" for a kind
// this version does not know, or a remedy that lacks what it names (the
// problem's Message says it then).
func Remedy(r hostapi.Remedy) string {
	switch r.Kind {
	case hostapi.RemedySetSecret:
		if r.Secret != "" {
			return fmt.Sprintf("Store the secret %s in the keyring.", r.Secret)
		}
	case hostapi.RemedyUnlockKeyring:
		return "Unlock the keyring (your desktop's passwords app), then start the server again."
	case hostapi.RemedyEnable:
		if r.Server != "" {
			return fmt.Sprintf("Enable %s first.", r.Server)
		}
	case hostapi.RemedyStart:
		if r.Server != "" {
			return fmt.Sprintf("Start %s first.", r.Server)
		}
	case hostapi.RemedySignIn:
		if r.Server != "" {
			return fmt.Sprintf("Sign in to %s (its Overview has a Sign in button).", r.Server)
		}
	case hostapi.RemedyEdit:
		if r.Server != "" {
			return fmt.Sprintf("Change the existing %s, or choose another name.", r.Server)
		}
	case hostapi.RemedyRenameKey:
		if r.From != "" && r.To != "" {
			return fmt.Sprintf("Rename %q to %q in the entry, or remove it.", r.From, r.To)
		}
	case hostapi.RemedyInstall:
		if r.Command != "" {
			return Install(r)
		}
	}
	return ""
}

// Install words the install remedy: the program that provides the command
// where the host knows it, and the other way out, the host's PATH (the
// host looks commands up in its own PATH, which for a host started at
// login or as a service may not be a terminal's).
func Install(r hostapi.Remedy) string {
	what := r.Command
	if r.Program != "" {
		what = fmt.Sprintf("%s (it provides %s)", r.Program, r.Command)
	}
	if r.EntryPATH {
		return fmt.Sprintf("Install %s, or add the folder that has %s to the PATH the server's settings set (its PATH variable replaces the host's).", what, r.Command)
	}
	return fmt.Sprintf("Install %s, or add the folder that has %s to the PATH the host gives servers: "+
		"a host started at login or as a service may not have your terminal's PATH.", what, r.Command)
}

// sentence ends s with a full stop, so that the remedy's sentence can
// follow it.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "?") || strings.HasSuffix(s, "!") {
		return s
	}
	return s + "."
}
