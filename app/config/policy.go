package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"sort"
	"time"
)

// The actions of a policy: what happens to a call of a tool.
const (
	PolicyAllow = "allow" // the call goes to the server
	PolicyAsk   = "ask"   // the call waits until the user allows or denies it
	PolicyDeny  = "deny"  // the call is refused; the server never sees it
)

// Policy is an entry's "policy": whether a call of each of its tools goes
// through, waits for the user, or is refused.
//
//	"policy": {"default": "allow", "tools": {"delete_*": "ask", "drop_table": "deny"}}
//
// Tools' keys are the server's own tool names or patterns of [path.Match].
// A key equal to the tool's name decides; otherwise, of the patterns that
// match, the strictest (deny, then ask, then allow) decides; otherwise
// Default does (empty: allow, or ask for a destructive tool when the
// top-level approvals.askDestructive is on, which is the default).
type Policy struct {
	Default string            `json:"default,omitempty"`
	Tools   map[string]string `json:"tools,omitempty"`
}

// rank orders the actions by strictness.
func rank(a string) int {
	switch a {
	case PolicyDeny:
		return 3
	case PolicyAsk:
		return 2
	case PolicyAllow:
		return 1
	}
	return 0
}

// Stricter returns the stricter of two actions ("" is neither).
func Stricter(a, b string) string {
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// Action is what the policy says of the tool named tool, and whether a
// tools entry said it (false: the default, or nothing: ""). A nil policy
// says nothing.
func (p *Policy) Action(tool string) (action string, explicit bool) {
	if p == nil {
		return "", false
	}
	if a, ok := p.Tools[tool]; ok {
		return a, true
	}
	best := ""
	for pat, a := range p.Tools {
		if ok, _ := path.Match(pat, tool); ok {
			best = Stricter(best, a)
		}
	}
	if best != "" {
		return best, true
	}
	return p.Default, false
}

// Plain reports whether the policy says nothing but allow: no tools
// entries and no default other than allow.
func (p *Policy) Plain() bool {
	return p == nil || (len(p.Tools) == 0 && (p.Default == "" || p.Default == PolicyAllow))
}

const policyExample = `{"default": "allow", "tools": {"delete_*": "ask"}}`

func validAction(a string) bool { return a == PolicyAllow || a == PolicyAsk || a == PolicyDeny }

func (s *Server) decodePolicy(raw json.RawMessage) bool {
	ms, _, err := decodeObject(raw)
	if err != nil {
		s.bad("policy", "must be an object, like %s", policyExample)
		return false
	}
	p := &Policy{}
	ok := true
	for _, m := range ms {
		switch m.Key {
		case "default":
			var a string
			if json.Unmarshal(m.Value, &a) != nil || !validAction(a) {
				s.bad("policy.default", `%s is not a policy: write "allow", "ask" or "deny"`, rawString(m.Value))
				ok = false
				continue
			}
			p.Default = a
		case "tools":
			tms, _, err := decodeObject(m.Value)
			if err != nil {
				s.bad("policy.tools", `must be an object of tool names or patterns to "allow", "ask" or "deny", like {"delete_*": "ask"}`)
				ok = false
				continue
			}
			p.Tools = map[string]string{}
			for _, tm := range tms {
				var a string
				if json.Unmarshal(tm.Value, &a) != nil || !validAction(a) {
					s.bad("policy.tools."+tm.Key, `%s is not a policy: write "allow", "ask" or "deny"`, rawString(tm.Value))
					ok = false
					continue
				}
				if _, err := path.Match(tm.Key, "x"); err != nil {
					s.bad("policy.tools."+tm.Key, "%q is not a valid pattern: use * and ? wildcards, and close every [", tm.Key)
					ok = false
					continue
				}
				p.Tools[tm.Key] = a
			}
		default:
			s.bad("policy."+m.Key, `is not a known key: a policy has "default" and "tools", like %s`, policyExample)
			ok = false
		}
	}
	if ok {
		s.Policy = p
	}
	return ok
}

// MarshalJSON writes the policy with its tools sorted by key.
func (p *Policy) MarshalJSON() ([]byte, error) {
	var ms []member
	if p.Default != "" {
		v, _ := encode(p.Default)
		ms = append(ms, member{"default", v})
	}
	if len(p.Tools) > 0 {
		keys := make([]string, 0, len(p.Tools))
		for k := range p.Tools {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var tms []member
		for _, k := range keys {
			v, _ := encode(p.Tools[k])
			tms = append(tms, member{k, v})
		}
		raw, err := objectJSON(tms)
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{"tools", raw})
	}
	return objectJSON(ms)
}

// ApprovalTimeout returns how long a call that asks waits for the user:
// approvalTimeout, or its default of 120000 ms.
func (s *Server) ApprovalTimeout() time.Duration {
	return time.Duration(s.Number("approvalTimeout")) * time.Millisecond
}

// SetToolPolicy sets the policy of one tool of the entry (by its exact
// name), keeping the rest of the policy.
func (s *Server) SetToolPolicy(tool, action string) error {
	if !validAction(action) {
		return fmt.Errorf(`%q is not a policy: use "allow", "ask" or "deny"`, action)
	}
	if s.Policy == nil {
		if raw, ok := s.extra["policy"]; ok && !isNull(raw) {
			return errors.New(`the entry's "policy" cannot be read: correct it first`)
		}
		s.Policy = &Policy{}
	}
	if s.Policy.Tools == nil {
		s.Policy.Tools = map[string]string{}
	}
	s.Policy.Tools[tool] = action
	delete(s.extra, "policy") // a null, replaced
	return nil
}

// ApprovalSettings are the file's top-level "approvals" object.
//
//	"approvals": {"askDestructive": true}
//
// AskDestructive (true when omitted) makes a tool whose annotations say
// destructiveHint true and not readOnlyHint ask, unless its server's
// policy names it (or a pattern matches it).
type ApprovalSettings struct {
	AskDestructive bool
}

// Approvals returns the file's approval settings; a malformed key is an
// error naming it and the remedy, and yields the defaults.
func (f *File) Approvals() (ApprovalSettings, error) {
	a := ApprovalSettings{AskDestructive: true}
	raw, ok := f.extra["approvals"]
	if !ok || isNull(raw) {
		return a, nil
	}
	ms, _, err := decodeObject(raw)
	if err != nil {
		return a, Problem{Key: "approvals", Message: `is not an object: write {"askDestructive": true}, or remove it`}
	}
	for _, m := range ms {
		if m.Key == "askDestructive" {
			if err := json.Unmarshal(m.Value, &a.AskDestructive); err != nil {
				return ApprovalSettings{AskDestructive: true}, Problem{Key: "approvals.askDestructive", Message: fmt.Sprintf("must be true or false, not %s", rawString(m.Value))}
			}
		}
	}
	return a, nil
}

// approvalsProblems are the problems of the "approvals" key, for the
// [Report].
func (f *File) approvalsProblems() []Problem {
	if _, err := f.Approvals(); err != nil {
		var p Problem
		if errors.As(err, &p) {
			return []Problem{p}
		}
		return []Problem{{Key: "approvals", Message: err.Error()}}
	}
	raw, ok := f.extra["approvals"]
	if !ok || isNull(raw) {
		return nil
	}
	ms, _, _ := decodeObject(raw)
	var ps []Problem
	for _, m := range ms {
		if m.Key != "askDestructive" {
			ps = append(ps, Problem{Key: "approvals." + m.Key, Message: `is not a known key: the approvals' only setting is "askDestructive" (each server has "policy" and "approvalTimeout")`})
		}
	}
	return ps
}
