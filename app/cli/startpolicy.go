package cli

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// startPolicyFlagDefs are the flags of servers add and set that write an
// entry's "start", "idleStop" and "policy" (issue 27 item 15): what a
// user did by editing the JSON before.
var startPolicyFlagDefs = []flagDef{
	{name: "start", kind: stringFlag, arg: "MODE", help: "always (run from the host's start, the default) or on-demand (sleep until an app calls one of its tools; docs/sleep.md)"},
	{name: "idle-stop", kind: stringFlag, arg: "DURATION", help: "stop an on-demand server after this long without a call (idleStop), like 10m or 90s (1s to 24h; default 10m)"},
	{name: "policy", kind: multiFlag, arg: "TOOL=ACTION", help: "allow, ask or deny a call of the tool (policy.tools; TOOL is the server's own name of the tool, or a glob such as delete_*); repeat for more"},
	{name: "policy-default", kind: stringFlag, arg: "ACTION", help: "allow, ask or deny the calls of the tools no --policy names (policy.default)"},
}

// The start and policy flags belong to both servers add and servers set.
func init() { entryFlagDefs = append(entryFlagDefs, startPolicyFlagDefs...) }

// startPolicy is what the start and policy flags asked for, checked.
type startPolicy struct {
	start    string
	idleStop int // ms; 0: not given
	dflt     string
	tools    [][2]string // tool or glob, action; in the order given
}

// parseStartPolicy checks the start and policy flags, naming the flag
// and the remedy of a wrong value.
func parseStartPolicy(a *argv) (startPolicy, error) {
	sp := startPolicy{start: a.str("start"), dflt: a.str("policy-default")}
	if sp.start != "" && !config.ValidStart(sp.start) {
		return sp, usagef("--start %q: give always (run from the host's start) or on-demand (sleep until an app calls one of its tools)%s",
			sp.start, english.DidYouMean(sp.start, []string{config.StartAlways, config.StartOnDemand}))
	}
	if v := a.str("idle-stop"); v != "" {
		ms, err := parseIdleStop(v)
		if err != nil {
			return sp, usagef("--idle-stop %q: %v", v, err)
		}
		sp.idleStop = ms
	}
	actions := []string{config.PolicyAllow, config.PolicyAsk, config.PolicyDeny}
	if sp.dflt != "" && !slices.Contains(actions, sp.dflt) {
		return sp, usagef("--policy-default %q: give allow, ask (each call waits for you) or deny%s", sp.dflt, english.DidYouMean(sp.dflt, actions))
	}
	for _, kv := range a.list("policy") {
		tool, act, ok := strings.Cut(kv, "=")
		tool, act = strings.TrimSpace(tool), strings.TrimSpace(act)
		if !ok || tool == "" {
			return sp, usagef("--policy %q: write it as TOOL=allow, TOOL=ask or TOOL=deny (TOOL is the server's own name of the tool, or a glob such as delete_*)", kv)
		}
		if !slices.Contains(actions, act) {
			return sp, usagef("--policy %q: %q is not a policy: give %s=allow, %s=ask (each call waits for you) or %s=deny%s",
				kv, act, tool, tool, tool, english.DidYouMean(act, actions))
		}
		if _, err := path.Match(tool, "x"); err != nil {
			return sp, usagef("--policy %q: %q is not a valid glob: use * and ? (path.Match) and close every [", kv, tool)
		}
		sp.tools = append(sp.tools, [2]string{tool, act})
	}
	return sp, nil
}

// parseIdleStop reads a duration (10m, 90s, 1h30m; a bare number is
// milliseconds, as in the file) and checks it against the idleStop row of
// the option table.
func parseIdleStop(v string) (int, error) {
	o, _ := config.OptionByKey("idleStop")
	var ms int
	if n, err := strconv.Atoi(v); err == nil {
		ms = n
	} else {
		d, err := time.ParseDuration(v)
		if err != nil {
			return 0, fmt.Errorf("is not a duration: give one like 10m, 90s or 1h30m (a bare number is milliseconds)")
		}
		if d%time.Millisecond != 0 {
			return 0, fmt.Errorf("is not a whole number of milliseconds: give one like 10m or 90s")
		}
		ms = int(d / time.Millisecond)
	}
	dur := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	if ms < o.Min || ms > o.Max {
		return 0, fmt.Errorf("is out of range: give %v to %v (the default is %v)", dur(o.Min), dur(o.Max), dur(o.Default))
	}
	return ms, nil
}

// apply writes what sp asked for into the entry: "start", "idleStop",
// and "policy" (its other tools kept). An entry's "policy" that cannot be
// read is an error naming the remedy; nothing is changed then.
func (sp startPolicy) apply(entry map[string]json.RawMessage) error {
	if sp.start != "" {
		entry["start"], _ = json.Marshal(sp.start)
	}
	if sp.idleStop > 0 {
		entry["idleStop"], _ = json.Marshal(sp.idleStop)
	}
	if sp.dflt == "" && len(sp.tools) == 0 {
		return nil
	}
	// Keep every other key of "policy" as written: the config's check
	// (the host's, on put) names what is wrong in it.
	pol := map[string]json.RawMessage{}
	if raw, ok := entry["policy"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &pol); err != nil {
			return fmt.Errorf(`the entry's "policy" is not an object (%s): fix it in the config file, or remove it and give --policy-default and --policy again`, raw)
		}
	}
	if sp.dflt != "" {
		pol["default"], _ = json.Marshal(sp.dflt)
	}
	if len(sp.tools) > 0 {
		tools := map[string]json.RawMessage{}
		if raw, ok := pol["tools"]; ok {
			if err := json.Unmarshal(raw, &tools); err != nil {
				return fmt.Errorf(`the entry's "policy.tools" is not an object (%s): fix it in the config file`, raw)
			}
		}
		for _, ta := range sp.tools {
			tools[ta[0]], _ = json.Marshal(ta[1])
		}
		pol["tools"], _ = json.Marshal(tools)
	}
	entry["policy"], _ = json.Marshal(pol)
	return nil
}

// checkPolicyTools checks the tool names of --policy against the
// server's tools, when the host knows them (a running server): a name
// that is none of them and no glob is a likely typo, refused with the
// nearest name and the list. tools is nil when they are not known.
func (sp startPolicy) checkPolicyTools(server string, tools []string) error {
	if tools == nil {
		return nil
	}
	for _, ta := range sp.tools {
		name := ta[0]
		if strings.ContainsAny(name, "*?[") || slices.Contains(tools, name) {
			continue
		}
		list := "it lists no tools"
		if len(tools) > 0 {
			list = "its tools are " + english.List(slices.Sorted(slices.Values(tools)))
		}
		return fmt.Errorf("--policy %s=%s: %s has no tool %s%s; %s (a glob such as %s* names tools it does not list yet): nothing was changed",
			name, ta[1], server, name, english.DidYouMean(name, tools), list, name)
	}
	return nil
}

// notes are what the user should know about the entry the flags wrote.
func (sp startPolicy) notes(entry map[string]json.RawMessage) []string {
	var out []string
	if sp.idleStop > 0 {
		var start string
		_ = json.Unmarshal(entry["start"], &start)
		if start == config.StartAlways {
			out = append(out, "note: idleStop acts only on a server that starts on demand: give --start on-demand for it to sleep")
		}
	}
	return out
}
