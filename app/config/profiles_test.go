package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const profilesFile = `{
  "version": 1,
  "mcpServers": {
    "git": {"command": "git-mcp"},
    "files": {"command": "files-mcp"}
  },
  "profiles": {
    "coding": {"servers": ["git", "files", "github"], "tools": {"deny": ["files__write_*"]}, "toolMode": "search", "colour": "blue"},
    "Bad Name": {},
    "broken": {"tools": {"allow": ["[x"]}, "toolMode": "fast"},
    "all": {}
  },
  "futureKey": {"kept": true}
}
`

func TestProfilesParseAndValidate(t *testing.T) {
	f, err := Parse([]byte(profilesFile))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.ProfileNames(), ","); got != "coding,Bad Name,broken,all" {
		t.Fatalf("names %q", got)
	}
	c := f.Profile("coding")
	if c == nil || strings.Join(c.Servers, ",") != "git,files,github" || c.Tools == nil || c.Tools.Deny[0] != "files__write_*" || c.Mode() != ToolModeSearch {
		t.Fatalf("coding = %+v", c)
	}
	if !c.SeesTool("files", "read_file", "files__read_file") || c.SeesTool("files", "write_file", "files__write_file") {
		t.Error("coding's deny pattern does not apply to exposed names")
	}
	if c.SeesServer("other") {
		t.Error("coding sees a server it does not name")
	}
	// A shortened exposed name matches through its full form.
	if c.SeesTool("files", "write_a_very_long_name", "files__write_a_ve-1234") {
		t.Error("a shortened name escaped the deny pattern")
	}
	if a := f.Profile("all"); a == nil || !a.Valid() || a.Servers != nil || !a.SeesTool("x", "y", "x__y") || a.Mode() != ToolModeAll {
		t.Errorf("the empty profile is not every server and tool: %+v", a)
	}
	if f.Profile("broken").Valid() {
		t.Error("a profile with a malformed pattern is valid")
	}

	byKey := map[string]Problem{}
	for _, p := range f.Report().File {
		byKey[p.Key] = p
	}
	for key, want := range map[string]string{
		"profiles.coding.servers":        `"github", which is not in mcpServers`,
		"profiles.coding.colour":         "is not a known key",
		`profiles["Bad Name"]`:           "is not valid",
		"profiles.broken.tools.allow[0]": "not a valid pattern",
		"profiles.broken.toolMode":       "not a tool mode",
	} {
		p, ok := byKey[key]
		if !ok {
			t.Errorf("no problem at %s; problems: %v", key, f.Report().File)
			continue
		}
		if !strings.Contains(p.Message, want) {
			t.Errorf("%s: %q lacks %q", key, p.Message, want)
		}
	}
	if !byKey["profiles.coding.servers"].Warning || byKey["profiles.broken.toolMode"].Warning {
		t.Error("only the missing server is a warning")
	}
	if got := f.MissingServers("coding"); len(got) != 1 || got[0] != "github" {
		t.Errorf("missing %v", got)
	}
	// The servers are untouched by the profiles' problems.
	if len(f.Report().Servers) != 0 || !f.Servers["git"].Valid() {
		t.Errorf("a profile's problem reached the servers: %v", f.Report().Servers)
	}
}

func TestProfilesNotAnObject(t *testing.T) {
	f, err := Parse([]byte(`{"version": 1, "mcpServers": {"git": {"command": "g"}}, "profiles": ["coding"]}`))
	if err != nil {
		t.Fatal(err)
	}
	ps := f.ProfileProblems()
	if len(ps) != 1 || ps[0].Key != "profiles" || !strings.Contains(ps[0].Message, "not an object") {
		t.Fatalf("problems %v", ps)
	}
	if !f.Servers["git"].Valid() {
		t.Error("the server was dropped")
	}
	if err := f.SetProfile("x", &Profile{}); err == nil {
		t.Error("SetProfile overwrote a profiles key it cannot read")
	}
	out, _ := f.Marshal()
	if !strings.Contains(string(out), `"coding"`) {
		t.Errorf("the unreadable profiles were lost:\n%s", out)
	}
}

func TestProfilesWriteKeepsUnknown(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(profilesFile), 0o600); err != nil {
		t.Fatal(err)
	}
	err := Update(path, func(f *File) error {
		if err := f.SetProfile("coding", &Profile{Servers: []string{"git"}, Tools: &Tools{Allow: []string{"git__*"}}}); err != nil {
			return err
		}
		if err := f.SetProfile("review", &Profile{Servers: []string{}, ToolMode: ToolModeAll}); err != nil {
			return err
		}
		if !f.RemoveProfile("all") || !f.RenameProfile("broken", "fixme") {
			t.Error("remove or rename found nothing")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	f, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{`"futureKey"`, `"colour": "blue"`, `"Bad Name"`, `"fixme"`, `"toolMode": "fast"`} {
		if !strings.Contains(s, want) {
			t.Errorf("written file lacks %s:\n%s", want, s)
		}
	}
	if strings.Join(f.ProfileNames(), ",") != "coding,Bad Name,fixme,review" {
		t.Errorf("order %v", f.ProfileNames())
	}
	c := f.Profile("coding")
	if strings.Join(c.Servers, ",") != "git" || c.Tools.Allow[0] != "git__*" || c.ToolMode != "" {
		t.Errorf("coding = %+v", c)
	}
	if r := f.Profile("review"); r.Servers == nil || len(r.Servers) != 0 || r.SeesServer("git") {
		t.Errorf("an empty server list became every server: %+v", r)
	}
}
