package config

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// Problem is one thing wrong with the file: with an entry (Server set) or
// with the file as a whole. It is the host API's problem (app/hostapi), so
// a front end gets it as the config reports it: Message says what is
// wrong and the remedy in words; Fact and Remedy, where the remedy is one
// a front end can phrase (a command to run, a button), say it as data;
// Warning marks one that stops nothing. Error() writes its path and
// message: `mcpServers.files.cwd: "/srv/x" does not exist: create it or
// choose another directory`.
type Problem = hostapi.Problem

// Remedy is what to do about a [Problem], as data (app/hostapi's kinds:
// "rename_key", "keyring_ref", ...).
type Remedy = hostapi.Remedy

// Report is every problem found in a file: those of the file as a whole and
// those of each entry. An entry with problems is not started; the others
// are unaffected.
type Report struct {
	File    []Problem            // problems of the file as a whole
	Servers map[string][]Problem // problems of each entry, by name
	order   []string             // names in the file's order
}

// Len returns the number of problems.
func (r *Report) Len() int {
	if r == nil {
		return 0
	}
	n := len(r.File)
	for _, ps := range r.Servers {
		n += len(ps)
	}
	return n
}

// Problems returns every problem: the file's, then each entry's in the
// file's order.
func (r *Report) Problems() []Problem {
	if r == nil {
		return nil
	}
	all := slices.Clone(r.File)
	for _, name := range r.order {
		all = append(all, r.Servers[name]...)
	}
	return all
}

// Error lists every problem, one per line.
func (r *Report) Error() string {
	var lines []string
	for _, p := range r.Problems() {
		lines = append(lines, p.Error())
	}
	return strings.Join(lines, "\n")
}

// Err returns the report as an error, or nil if it has no problem.
func (r *Report) Err() error {
	if r.Len() == 0 {
		return nil
	}
	return r
}

func (r *Report) add(name string, ps []Problem) {
	if len(ps) == 0 {
		return
	}
	if r.Servers == nil {
		r.Servers = map[string][]Problem{}
	}
	if _, ok := r.Servers[name]; !ok {
		r.order = append(r.order, name)
	}
	r.Servers[name] = append(r.Servers[name], ps...)
}

// validate checks the entry as named name and returns its problems: those
// found while reading it, those of the config's own rules, and those of
// the rules a server's spec obeys wherever it runs (internal/serverspec,
// which the engine checks again when it starts the server). The host
// builds the engine's spec of an entry without problems (app/host,
// spec.go).
func (s *Server) validate(name string) []Problem {
	var ps []Problem
	bad := func(key, format string, args ...any) {
		ps = append(ps, Problem{Server: name, Key: key, Message: fmt.Sprintf(format, args...)})
	}
	// spec reports a rule of the spec, unless the key was already found
	// wrong while reading it (the rule would only add that it is missing).
	spec := func(key, msg string) {
		if msg != "" && !slices.ContainsFunc(ps, func(p Problem) bool { return p.Key == key }) {
			bad(key, "%s", msg)
		}
	}
	if !ValidServerName(name) {
		bad("", "the name %q is not valid: %s (for example %q)", name, serverNameMsg, NormalizeName(name))
	}
	for _, p := range s.decodeProblems {
		p.Server = name
		if p.Remedy != nil {
			r := *p.Remedy
			r.Server = name
			p.Remedy = &r
		}
		ps = append(ps, p)
	}
	if s.raw != nil {
		return ps
	}
	if s.IsRemote() {
		return s.validateRemote(name, ps)
	}

	for _, name := range s.InheritEnv {
		if err := CheckEnvName(name); err != nil {
			bad("inheritEnv", "%v", err)
		}
	}
	for _, k := range sortedKeys(s.Env) {
		if err := CheckEnvName(k); err != nil {
			bad("env", "%v", err)
		}
		if _, err := ParseEnvValue(s.Env[k]); err != nil {
			bad("env."+k, "%v", err)
		} else if strings.ContainsRune(s.Env[k], 0) {
			bad("env."+k, "contains a NUL byte")
		}
	}
	s.checkNumbers(bad)
	_, sps := s.SandboxPolicy()
	for _, p := range sps {
		p.Server = name
		ps = append(ps, p)
	}
	ps = append(ps, s.toolProblems(name)...)

	spec("command", serverspec.CommandProblem(s.Command))
	for i, a := range s.Args {
		spec(fmt.Sprintf("args[%d]", i), serverspec.ArgProblem(a))
	}
	spec("cwd", serverspec.CwdProblem(s.Cwd))
	if s.Stderr != nil {
		switch s.Stderr.Kind {
		case "inherit", "discard", "capture":
		case "file":
			spec("stderr.file", serverspec.StderrFileProblem(s.Stderr.File))
		default:
			spec("stderr", fmt.Sprintf(`%q is not one of inherit, discard, capture, or {"file": "/absolute/path"}`, s.Stderr.Kind))
		}
	}
	sortProblems(ps)
	return ps
}

// problemsErr joins an entry's problems into one error, or nil.
func problemsErr(ps []Problem) error {
	errs := make([]error, len(ps))
	for i, p := range ps {
		errs[i] = p
	}
	return errors.Join(errs...)
}

// sortProblems orders an entry's problems by the position of their key in
// the usual key order (stable for ties), so that reports read top-down.
func sortProblems(ps []Problem) {
	rank := func(key string) int {
		base, _, _ := strings.Cut(key, ".")
		base, _, _ = strings.Cut(base, "[")
		if key == "" {
			return -1
		}
		if i := slices.Index(knownKeys, base); i >= 0 {
			return i
		}
		return len(knownKeys)
	}
	slices.SortStableFunc(ps, func(a, b Problem) int { return rank(a.Key) - rank(b.Key) })
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
