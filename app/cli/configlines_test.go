package cli

import (
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// configLines: status and doctor say what is wrong with the file, whether
// a last good config is in force or none is, and show the file's problems
// that no server's line shows already, escaped.
func TestConfigLines(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     hostapi.ConfigStatus
		shown map[problemID]bool
		want  []string
	}{
		{"fine", hostapi.ConfigStatus{OK: true}, nil, nil},
		{"broken, last good in force", hostapi.ConfigStatus{Error: "line 3: unexpected EOF"}, nil,
			[]string{"the config file cannot be used (line 3: unexpected EOF); the last good config is in force until the file is fixed"}},
		{"broken, none good since the start", hostapi.ConfigStatus{Error: "line 3: unexpected EOF", NoGoodConfig: true}, nil,
			[]string{"the config file cannot be used (line 3: unexpected EOF); the host has read no good config since it started, so no server runs: fix the file (the host reloads it when it is saved)"}},
		{"problems, one shown under its server", hostapi.ConfigStatus{OK: true, Problems: []hostapi.Problem{
			{Key: "gateway.httpPort", Message: "99999 is not a port"}, {Server: "x", Key: "cwd", Message: "missing"}}},
			map[problemID]bool{{"x", "cwd", "missing"}: true},
			[]string{"config: gateway.httpPort: 99999 is not a port"}},
		{"an older host's problems: its sentences", hostapi.ConfigStatus{OK: true, Problems: []hostapi.Problem{
			{Message: "gateway.httpPort: 99999 is not a port"}}}, nil,
			[]string{"config: gateway.httpPort: 99999 is not a port"}},
		{"a remedy as data: phrased as what to do", hostapi.ConfigStatus{OK: true, Problems: []hostapi.Problem{
			{Server: "x", Key: "arsg", Message: `unknown key "arsg": did you mean "args"?`, Fact: `unknown key "arsg"`,
				Remedy: &hostapi.Remedy{Kind: hostapi.RemedyRenameKey, From: "arsg", To: "args"}}}}, nil,
			[]string{`config: mcpServers.x.arsg: unknown key "arsg": rename "arsg" to "args" in the entry, or remove it`}},
		{"escaped", hostapi.ConfigStatus{Error: "bad \x1b[2J byte"}, nil,
			[]string{`the config file cannot be used (bad \e[2J byte); the last good config is in force until the file is fixed`}},
	} {
		if got := configLines(tc.c, tc.shown); !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
