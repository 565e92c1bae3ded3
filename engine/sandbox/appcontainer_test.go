package sandbox

import (
	"regexp"
	"strings"
	"testing"
)

// The SID Windows gives Microsoft Edge's package family name, as
// published (e.g. in `Get-AppxPackage` / firewall rules): the derivation
// must match Windows's own, or the ACLs would name another principal.
func TestAppContainerSIDMatchesWindows(t *testing.T) {
	got := AppContainerSID("Microsoft.MicrosoftEdge_8wekyb3d8bbwe")
	want := "S-1-15-2-3624051433-2125758914-1423191267-1740899205-1073925389-3782572162-737981194"
	if got != want {
		t.Fatalf("SID = %s, want %s", got, want)
	}
	if AppContainerSID("Switchboard.a") == AppContainerSID("Switchboard.b") {
		t.Fatal("two names, one SID")
	}
}

var containerName = regexp.MustCompile(`^[-_.A-Za-z0-9]{1,64}$`)

func TestAppContainerName(t *testing.T) {
	long := strings.Repeat("x", 80)
	cases := map[string]string{
		"filesystem":          "Switchboard.filesystem",
		"my server":           "",
		"café/../..\\x":       "",
		long:                  "",
		long + "y":            "",
		"":                    "",
		"\"quoted\";drop":     "",
		"server-everything.2": "Switchboard.server-everything.2",
	}
	seen := map[string]string{}
	for in, want := range cases {
		got := AppContainerName(in)
		if !containerName.MatchString(got) {
			t.Errorf("AppContainerName(%q) = %q: not a valid container name", in, got)
		}
		if !strings.HasPrefix(got, "Switchboard.") {
			t.Errorf("AppContainerName(%q) = %q lacks the prefix", in, got)
		}
		if want != "" && got != want {
			t.Errorf("AppContainerName(%q) = %q, want %q", in, got, want)
		}
		if other, dup := seen[got]; dup {
			t.Errorf("%q and %q share the container %q", in, other, got)
		}
		seen[got] = in
	}
	// A name changed to fit is not the same as one written that way.
	if AppContainerName("my server") == AppContainerName("my_server") {
		t.Error("\"my server\" and \"my_server\" share a container")
	}
}

func TestAppContainerPlan(t *testing.T) {
	if appContainerPlanFor("x", Policy{Read: []string{`C:\x`}}, Needs{}) != nil {
		t.Fatal("a disabled policy has a plan")
	}
	n := Needs{
		Exec:  `C:\Program Files\nodejs\node.exe`,
		Read:  []string{`C:\Program Files\nodejs\`, `C:\Users\ann\AppData\Local\npm-cache\_npx\1a2b`},
		Write: []string{`C:\Users\ann\AppData\Local\Temp\switchboard-sbx-fs`},
	}
	cases := []struct {
		name string
		p    Policy
	}{
		{"strict", Policy{Enabled: true, Preset: "strict", Net: NetNone}},
		{"files", Policy{Enabled: true, Preset: "files", Net: NetNone,
			Read:  []string{`C:\Users\ann\Notes`, `relative\ignored`},
			Write: []string{`C:/Users/ann/Projects/site`, `c:\users\ann\notes`}}},
		{"network", Policy{Enabled: true, Preset: "network", Net: NetOutbound}},
		{"allowlist", Policy{Enabled: true, Net: NetAllow, NetAllow: []string{"api.github.com:443"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			golden(t, "appcontainer/"+c.name+".txt", appContainerPlanFor("fs", c.p, n).String())
		})
	}
}

// The network mode's capabilities, and the notes of what is widened.
func TestAppContainerPlanNetwork(t *testing.T) {
	plan := func(p Policy) *AppContainerPlan { p.Enabled = true; return appContainerPlanFor("s", p, Needs{}) }
	if c := plan(Policy{Net: NetNone}).Capabilities; len(c) != 0 {
		t.Errorf("none has capabilities %v", c)
	}
	if c := plan(Policy{Net: NetOutbound}).Capabilities; len(c) != 1 || c[0] != SIDInternetClient {
		t.Errorf("outbound has %v, want internetClient", c)
	}
	a := plan(Policy{Net: NetAllow, NetAllow: []string{"h:1"}})
	if len(a.Notes) == 0 || !strings.Contains(a.Notes[0], "h:1") {
		t.Errorf("allow-list notes %q do not say it is widened", a.Notes)
	}
}

// A path both read and written is granted modify once, not read too.
func TestAppContainerPlanGrantsOnce(t *testing.T) {
	p := appContainerPlanFor("s", Policy{Enabled: true, Read: []string{`C:\d`}, Write: []string{`c:\D\`}}, Needs{})
	if len(p.Grants) != 1 || p.Grants[0].Access != AccessModify {
		t.Fatalf("grants = %+v, want one modify", p.Grants)
	}
}
