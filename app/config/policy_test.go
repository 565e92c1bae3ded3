package config

import (
	"strings"
	"testing"
	"time"
)

func TestPolicyAction(t *testing.T) {
	p := &Policy{Default: PolicyAllow, Tools: map[string]string{
		"delete_*": PolicyAsk, "delete_all": PolicyAllow, "*_all": PolicyDeny, "drop_*": PolicyDeny,
	}}
	for _, c := range []struct {
		tool, want string
		explicit   bool
	}{
		{"delete_all", PolicyAllow, true}, // its own name beats the patterns
		{"delete_file", PolicyAsk, true},
		{"drop_all", PolicyDeny, true},  // the strictest matching pattern
		{"erase_all", PolicyDeny, true}, // *_all
		{"read_file", PolicyAllow, false},
	} {
		got, explicit := p.Action(c.tool)
		if got != c.want || explicit != c.explicit {
			t.Errorf("Action(%q) = %q, %v; want %q, %v", c.tool, got, explicit, c.want, c.explicit)
		}
	}
	var nilPolicy *Policy
	if a, ex := nilPolicy.Action("x"); a != "" || ex || !nilPolicy.Plain() {
		t.Errorf("a nil policy says %q %v", a, ex)
	}
	if (&Policy{Default: PolicyAsk}).Plain() || !(&Policy{Default: PolicyAllow}).Plain() {
		t.Error("Plain")
	}
}

func TestPolicyRoundTripAndProblems(t *testing.T) {
	in := `{"version": 1, "approvals": {"askDestructive": false},
  "mcpServers": {
    "fs": {"command": "echo", "policy": {"default": "ask", "tools": {"read_*": "allow"}}, "approvalTimeout": 30000, "other": 1}
  }}`
	f, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Servers["fs"]
	if ps := s.Problems(); len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	if s.Policy == nil || s.Policy.Default != PolicyAsk || s.Policy.Tools["read_*"] != PolicyAllow {
		t.Fatalf("policy: %+v", s.Policy)
	}
	if s.ApprovalTimeout() != 30*time.Second {
		t.Fatalf("approvalTimeout: %v", s.ApprovalTimeout())
	}
	if a, err := f.Approvals(); err != nil || a.AskDestructive {
		t.Fatalf("approvals: %+v %v", a, err)
	}
	if err := s.SetToolPolicy("write_file", PolicyAllow); err != nil {
		t.Fatal(err)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	s2 := g.Servers["fs"]
	if s2.Policy.Tools["write_file"] != PolicyAllow || s2.Policy.Tools["read_*"] != PolicyAllow || s2.Policy.Default != PolicyAsk {
		t.Fatalf("after a round trip: %+v\n%s", s2.Policy, out)
	}
	for _, keep := range []string{`"other": 1`, `"approvalTimeout": 30000`, `"askDestructive": false`} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("the written file lost %s:\n%s", keep, out)
		}
	}
	if a, _ := New().Approvals(); !a.AskDestructive {
		t.Error("askDestructive is not on by default")
	}
	if (&Server{}).ApprovalTimeout() != 120*time.Second {
		t.Error("the default approvalTimeout is not 120 s")
	}
}

func TestPolicyProblems(t *testing.T) {
	for _, c := range []struct{ entry, key, says string }{
		{`"policy": "ask"`, "policy", "must be an object"},
		{`"policy": {"default": "maybe"}`, "policy.default", `write "allow", "ask" or "deny"`},
		{`"policy": {"tools": {"delete_*": "prompt"}}`, "policy.tools.delete_*", `write "allow", "ask" or "deny"`},
		{`"policy": {"tools": {"[bad": "ask"}}`, "policy.tools.[bad", "not a valid pattern"},
		{`"policy": {"defualt": "ask"}`, "policy.defualt", "is not a known key"},
		{`"approvalTimeout": 10`, "approvalTimeout", ""},
	} {
		f, err := Parse([]byte(`{"mcpServers": {"s": {"command": "echo", ` + c.entry + `}}}`))
		if err != nil {
			t.Fatal(err)
		}
		ps := f.Servers["s"].Problems()
		found := false
		for _, p := range ps {
			if p.Key == c.key && strings.Contains(p.Message, c.says) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: problems %v, want one on %s saying %q", c.entry, ps, c.key, c.says)
		}
		// Nothing is lost: the entry is written back as it was.
		out, _ := f.Marshal()
		if !strings.Contains(strings.Join(strings.Fields(string(out)), ""), strings.Join(strings.Fields(c.entry), "")) {
			t.Errorf("%s was not kept: %s", c.entry, out)
		}
	}
	for _, c := range []struct{ approvals, key string }{
		{`"approvals": true`, "approvals"},
		{`"approvals": {"askDestructive": "yes"}`, "approvals.askDestructive"},
		{`"approvals": {"timeout": "120s"}`, "approvals.timeout"},
	} {
		f, err := Parse([]byte(`{` + c.approvals + `, "mcpServers": {}}`))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range f.Report().Problems() {
			found = found || p.Key == c.key
		}
		if !found {
			t.Errorf("%s: problems %v, want one on %s", c.approvals, f.Report().Problems(), c.key)
		}
	}
}
