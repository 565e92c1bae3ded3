package hostapi_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestProblemsAcrossVersions: the problems of a status travel as data and
// as the sentences an older client reads; a client reads this version's
// status with its data, and an older host's (sentences only) as problems
// with only a Message. An older client decodes this version's status
// without error and reads the sentences it used to.
func TestProblemsAcrossVersions(t *testing.T) {
	ps := []hostapi.Problem{
		{Server: "x", Key: "arsg", Message: `unknown key "arsg": did you mean "args"?`, Fact: `unknown key "arsg"`,
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedyRenameKey, From: "arsg", To: "args"}},
		{Server: "x", Key: "cwd", Message: `"rel" is not absolute: give an absolute path`},
	}
	want := []string{`mcpServers.x.arsg: unknown key "arsg": did you mean "args"?`, `mcpServers.x.cwd: "rel" is not absolute: give an absolute path`}
	st := hostapi.ServerStatus{Name: "x", State: hostapi.StateInvalid, Command: "c", Problems: ps}
	cs := hostapi.ConfigStatus{Path: "/c.json", OK: true, Problems: ps}
	info := hostapi.Info{PID: 7, Config: cs}

	t.Run("this version to this version", func(t *testing.T) {
		var got hostapi.ServerStatus
		roundTrip(t, st, &got)
		if !reflect.DeepEqual(got, st) {
			t.Errorf("server status:\n got %+v\nwant %+v", got, st)
		}
		var gi hostapi.Info
		roundTrip(t, info, &gi)
		if !reflect.DeepEqual(gi.Config, cs) {
			t.Errorf("config status:\n got %+v\nwant %+v", gi.Config, cs)
		}
		var none hostapi.ServerStatus
		roundTrip(t, hostapi.ServerStatus{Name: "y"}, &none)
		if none.Problems != nil {
			t.Errorf("no problems became %#v", none.Problems)
		}
	})

	// An older client's types: problems as strings.
	type oldServerStatus struct {
		Name     string   `json:"name"`
		State    string   `json:"state"`
		Problems []string `json:"problems,omitempty"`
	}
	type oldInfo struct {
		PID    int `json:"pid"`
		Config struct {
			Problems []string `json:"problems,omitempty"`
		} `json:"config"`
	}
	t.Run("this version to an older client", func(t *testing.T) {
		var old oldServerStatus
		roundTrip(t, st, &old)
		if old.Name != "x" || old.State != "invalid" || !slices.Equal(old.Problems, want) {
			t.Errorf("an older client reads %+v; want the sentences %q", old, want)
		}
		var oi oldInfo
		roundTrip(t, info, &oi)
		if oi.PID != 7 || !slices.Equal(oi.Config.Problems, want) {
			t.Errorf("an older client reads %+v; want the sentences %q", oi, want)
		}
	})

	t.Run("an older host to this version", func(t *testing.T) {
		var got hostapi.ServerStatus
		roundTrip(t, oldServerStatus{Name: "x", State: "invalid", Problems: want}, &got)
		if got.Name != "x" || len(got.Problems) != 2 {
			t.Fatalf("got %+v", got)
		}
		for i, p := range got.Problems {
			if (p != hostapi.Problem{Message: want[i]}) || p.Sentence() != want[i] {
				t.Errorf("problem %d: %+v (sentence %q); want the sentence as its Message", i, p, p.Sentence())
			}
		}
		var gi hostapi.Info
		var oi oldInfo
		oi.PID, oi.Config.Problems = 7, want
		roundTrip(t, oi, &gi)
		if len(gi.Config.Problems) != 2 || gi.Config.Problems[1].Message != want[1] {
			t.Errorf("config problems: %+v", gi.Config.Problems)
		}
	})
}

func roundTrip(t *testing.T, v, into any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// TestProblemPath: a problem's path quotes a server's name exactly when
// app/config would refuse the name (the package's own validServerName is
// config.ValidServerName), and Error is the sentence, with "config" for
// the file as a whole.
func TestProblemPath(t *testing.T) {
	for _, c := range []struct {
		p          hostapi.Problem
		path, errs string
	}{
		{hostapi.Problem{Server: "files", Key: "cwd", Message: "m"}, "mcpServers.files.cwd", "mcpServers.files.cwd: m"},
		{hostapi.Problem{Server: "files", Message: "m"}, "mcpServers.files", "mcpServers.files: m"},
		{hostapi.Problem{Server: "Bad Name", Key: "cwd", Message: "m"}, `mcpServers["Bad Name"].cwd`, `mcpServers["Bad Name"].cwd: m`},
		{hostapi.Problem{Server: "-x", Message: "m"}, `mcpServers["-x"]`, `mcpServers["-x"]: m`},
		{hostapi.Problem{Server: "a234567890123456789012345678901", Message: "m"}, "mcpServers.a234567890123456789012345678901", "mcpServers.a234567890123456789012345678901: m"},
		{hostapi.Problem{Server: "a2345678901234567890123456789012", Message: "m"}, `mcpServers["a2345678901234567890123456789012"]`, `mcpServers["a2345678901234567890123456789012"]: m`},
		{hostapi.Problem{Key: "gateway.httpPort", Message: "m"}, "gateway.httpPort", "gateway.httpPort: m"},
		{hostapi.Problem{Message: "m"}, "", "config: m"},
	} {
		if c.p.Path() != c.path || c.p.Error() != c.errs {
			t.Errorf("%+v: path %q, error %q; want %q, %q", c.p, c.p.Path(), c.p.Error(), c.path, c.errs)
		}
		if c.p.Server != "" && strings.HasPrefix(c.p.Path(), "mcpServers[") == config.ValidServerName(c.p.Server) {
			t.Errorf("%q: quoted %v, but config.ValidServerName says %v", c.p.Server, strings.HasPrefix(c.p.Path(), "mcpServers["), config.ValidServerName(c.p.Server))
		}
	}
}
