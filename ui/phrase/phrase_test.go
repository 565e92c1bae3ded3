package phrase

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestProblem: each remedy kind is worded for a person (no command to
// run), beside the problem's fact and key; a problem without a remedy, or
// with a kind this version does not know, is its message; what a message
// quotes is escaped.
func TestProblem(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    hostapi.Problem
		want string
	}{
		{"no remedy", hostapi.Problem{Server: "x", Key: "cwd", Message: `"rel" is not absolute: give an absolute path`},
			`cwd: "rel" is not absolute: give an absolute path`},
		{"an older host's sentence", hostapi.Problem{Message: "mcpServers.x.cwd: missing"}, "mcpServers.x.cwd: missing"},
		{"set secret", hostapi.Problem{Server: "gh", Key: "env.TOKEN", Message: "... run 'switchboard secret set gh'",
			Fact: `server "gh" waits for secret "gh" (env.TOKEN), which could not be read`, Remedy: &hostapi.Remedy{Kind: hostapi.RemedySetSecret, Secret: "gh"}},
			`env.TOKEN: server "gh" waits for secret "gh" (env.TOKEN), which could not be read. Store the secret gh in the keyring.`},
		{"rename", hostapi.Problem{Server: "x", Key: "arsg", Message: `is not a known key: did you mean "args"?`, Fact: `is not a known key: did you mean "args"?`,
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedyRenameKey, From: "arsg", To: "args"}},
			`arsg: is not a known key: did you mean "args"? Rename "arsg" to "args" in the entry, or remove it.`},
		{"already exists", hostapi.Problem{Server: "a", Key: hostapi.KeyName, Message: "... 'switchboard servers set a' ...", Fact: `server "a" already exists`,
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedyEdit, Server: "a"}},
			`server "a" already exists. Change the existing a, or choose another name.`},
		{"disabled", hostapi.Problem{Message: "m", Fact: `server "off" is disabled`, Remedy: &hostapi.Remedy{Kind: hostapi.RemedyEnable, Server: "off"}},
			`server "off" is disabled. Enable off first.`},
		{"not running", hostapi.Problem{Message: "m", Fact: `server "a" is not running`, Remedy: &hostapi.Remedy{Kind: hostapi.RemedyStart, Server: "a"}},
			`server "a" is not running. Start a first.`},
		{"sign in", hostapi.Problem{Message: "m", Fact: `server "gh" is sign-in needed`, Remedy: &hostapi.Remedy{Kind: hostapi.RemedySignIn, Server: "gh"}},
			`server "gh" is sign-in needed. Sign in to gh (its Overview has a Sign in button).`},
		{"install a launcher", hostapi.Problem{Server: "n", Key: "command", Message: "m", Fact: `"npx" was not found in the PATH the host gives servers`,
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedyInstall, Command: "npx", Program: "Node.js", URL: "https://nodejs.org/en/download"}},
			`command: "npx" was not found in the PATH the host gives servers. Install Node.js (it provides npx), or add the folder that has npx to the PATH the host gives servers: ` +
				`a host started at login or as a service may not have your terminal's PATH.`},
		{"install, the entry's PATH", hostapi.Problem{Key: "env.PATH", Message: "m", Fact: `"npx" was not found in the PATH the entry sets (env.PATH)`,
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedyInstall, Command: "npx", Program: "Node.js", EntryPATH: true}},
			`env.PATH: "npx" was not found in the PATH the entry sets (env.PATH). Install Node.js (it provides npx), or add the folder that has npx to the PATH the server's settings set (its PATH variable replaces the host's).`},
		{"install a command", hostapi.Problem{Message: "m", Fact: `"sb-x" was not found`, Remedy: &hostapi.Remedy{Kind: hostapi.RemedyInstall, Command: "sb-x"}},
			`"sb-x" was not found. Install sb-x, or add the folder that has sb-x to the PATH the host gives servers: a host started at login or as a service may not have your terminal's PATH.`},
		{"unknown kind", hostapi.Problem{Message: "the message says it", Fact: "fact", Remedy: &hostapi.Remedy{Kind: "teleport", Text: "t"}},
			"the message says it"},
		{"a remedy without its argument", hostapi.Problem{Message: "the message", Fact: "fact", Remedy: &hostapi.Remedy{Kind: hostapi.RemedySetSecret}},
			"the message"},
		{"escaped", hostapi.Problem{Message: "bad \x1b[2J byte"}, `bad \e[2J byte`},
	} {
		if got := Problem(tc.p); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
		if strings.Contains(Problem(tc.p), "'switchboard") {
			t.Errorf("%s: the command line's words: %q", tc.name, Problem(tc.p))
		}
	}
	what, do := Parts(hostapi.Problem{Key: "arsg", Message: "m", Fact: "fact", Remedy: &hostapi.Remedy{Kind: hostapi.RemedyRenameKey, From: "arsg", To: "args"}})
	if what != "arsg: fact." || do != `Rename "arsg" to "args" in the entry, or remove it.` {
		t.Errorf("Parts = %q, %q", what, do)
	}
	if got := Beside(hostapi.Problem{Key: "arsg", Message: "m", Fact: "fact", Remedy: &hostapi.Remedy{Kind: hostapi.RemedyRenameKey, From: "arsg", To: "args"}}); got != `fact. Rename "arsg" to "args" in the entry, or remove it.` {
		t.Errorf("Beside = %q", got)
	}
	if what, do := Parts(hostapi.Problem{Key: "cwd", Message: "m"}); what != "cwd: m" || do != "" {
		t.Errorf("Parts without a remedy = %q, %q", what, do)
	}
	if got := Problems([]hostapi.Problem{{Message: "a"}, {Message: "b"}}); got != "a\nb" {
		t.Errorf("Problems = %q", got)
	}
}
