package bundle

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// version is a dotted version, missing parts zero.
type version [3]int

func (v version) cmp(w version) int {
	for i := range v {
		if v[i] != w[i] {
			if v[i] < w[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func (v version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// parseVersion reads "18", "18.2", "v18.2.0", "3.12.1rc1"; n is the count of
// parts given (a wildcard "x" or "*" ends them).
func parseVersion(s string) (v version, n int, err error) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if s == "" || s == "x" || s == "*" {
		return v, 0, nil
	}
	for i, p := range strings.SplitN(s, ".", 3) {
		if p == "x" || p == "X" || p == "*" {
			return v, i, nil
		}
		end := strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' })
		if end == 0 {
			return v, 0, fmt.Errorf("%q is not a number", p)
		}
		if end > 0 {
			if i < 2 && !strings.HasPrefix(p[end:], "-") {
				return v, 0, fmt.Errorf("%q is not a number", p)
			}
			p = p[:end]
		}
		if v[i], err = strconv.Atoi(p); err != nil {
			return v, 0, err
		}
		n = i + 1
	}
	return v, n, nil
}

// comparator is one "op version" of a range.
type comparator struct {
	op string
	v  version
}

func (c comparator) ok(v version) bool {
	d := v.cmp(c.v)
	switch c.op {
	case ">=":
		return d >= 0
	case ">":
		return d > 0
	case "<=":
		return d <= 0
	case "<":
		return d < 0
	}
	return d == 0
}

// versionRange is alternatives ("||") of comparator sets that all hold.
type versionRange [][]comparator

var opRE = regexp.MustCompile(`^(>=|<=|>|<|=|\^|~)?\s*(.*)$`)

// parseRange reads an npm-style range: ">=18.0.0", ">1.0.0 <2.0.0",
// "^1.2.3", "~3.10", "18.x", "3.12", joined with "||".
func parseRange(s string) (versionRange, error) {
	var r versionRange
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("it is empty")
	}
	for alt := range strings.SplitSeq(s, "||") {
		var set []comparator
		fields := strings.Fields(alt)
		// join an operator written apart from its version (">= 18")
		for i := 0; i < len(fields); i++ {
			f := fields[i]
			if strings.Trim(f, "<>=^~") == "" && i+1 < len(fields) {
				f += fields[i+1]
				i++
			}
			m := opRE.FindStringSubmatch(f)
			v, n, err := parseVersion(m[2])
			if err != nil {
				return nil, err
			}
			up := func(part int) version { // the next version at a part
				w := v
				w[part]++
				for j := part + 1; j < 3; j++ {
					w[j] = 0
				}
				return w
			}
			switch op := m[1]; {
			case n == 0:
				// any version
			case op == "^":
				p := 0
				for p < n-1 && v[p] == 0 {
					p++
				}
				set = append(set, comparator{">=", v}, comparator{"<", up(p)})
			case op == "~":
				p := min(1, n-1)
				set = append(set, comparator{">=", v}, comparator{"<", up(p)})
			case (op == "" || op == "=") && n < 3:
				set = append(set, comparator{">=", v}, comparator{"<", up(n - 1)})
			case op == "" || op == "=":
				set = append(set, comparator{"=", v})
			case op == "<=" && n < 3:
				set = append(set, comparator{"<", up(n - 1)})
			case op == ">" && n < 3:
				set = append(set, comparator{">=", up(n - 1)})
			default:
				set = append(set, comparator{op, v})
			}
		}
		r = append(r, set)
	}
	return r, nil
}

func (r versionRange) contains(v version) bool {
	for _, set := range r {
		if !slices.ContainsFunc(set, func(c comparator) bool { return !c.ok(v) }) {
			return true
		}
	}
	return false
}

// LookPath finds a program as exec.LookPath does, in the PATH the caller
// means (the host's own, or the one its servers get).
type LookPath func(name string) (string, error)

// Check is the compatibility of a bundle with this machine: every problem
// with its remedy, empty when the bundle can run.
//
// goos is runtime.GOOS (or another, in a test); look finds node and python
// (python3, then python). A runtime the manifest names in
// compatibility.runtimes is run with --version; one the server type needs
// (node for node, python for python) is looked for even without a range.
func (m *Manifest) Check(ctx context.Context, goos string, look LookPath) Problems {
	var ps Problems
	if pl := m.Compatibility.Platforms; len(pl) > 0 && !slices.Contains(pl, Platform(goos)) {
		ps = append(ps, Problem{Key: "compatibility.platforms", Message: fmt.Sprintf("the bundle runs on %s, not on this %s: use a build of the bundle for %s", quoteList(pl), goos, goos)})
	}
	need := map[string]string{}
	for k, v := range m.Compatibility.Runtimes {
		need[k] = v
	}
	switch m.Server.Type {
	case "node":
		if _, ok := need["node"]; !ok {
			need["node"] = ""
		}
	case "python":
		if _, ok := need["python"]; !ok {
			need["python"] = ""
		}
	}
	for _, rt := range sortedKeys(need) {
		if p := checkRuntime(ctx, rt, need[rt], look); p != nil {
			ps = append(ps, *p)
		}
	}
	return ps
}

var install = map[string]string{
	"node":   "install Node.js (https://nodejs.org or the system's package manager: apt install nodejs, brew install node, winget install OpenJS.NodeJS)",
	"python": "install Python 3 (https://www.python.org or the system's package manager: apt install python3, brew install python, winget install Python.Python.3)",
}

var versionRE = regexp.MustCompile(`\d+(\.\d+){0,2}`)

func checkRuntime(ctx context.Context, rt, want string, look LookPath) *Problem {
	key := "compatibility.runtimes." + rt
	names := []string{rt}
	if rt == "python" {
		names = []string{"python3", "python"}
	}
	path := ""
	for _, n := range names {
		if p, err := look(n); err == nil {
			path = p
			break
		}
	}
	needs := rt
	if want != "" {
		needs += " " + want
	}
	if path == "" {
		return &Problem{Key: key, Message: fmt.Sprintf("the bundle needs %s and %s is not on the PATH: %s", needs, quoteList(names), install[rt])}
	}
	if want == "" {
		return nil
	}
	r, err := parseRange(want)
	if err != nil {
		return &Problem{Key: key, Message: fmt.Sprintf("%q is not a version range (%v): ask the bundle's author to fix it", want, err)}
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").CombinedOutput()
	if err != nil {
		return &Problem{Key: key, Message: fmt.Sprintf("%s --version failed (%v): repair or reinstall it; the bundle needs %s", path, err, needs)}
	}
	found := versionRE.FindString(string(out))
	v, _, err := parseVersion(found)
	if found == "" || err != nil {
		return &Problem{Key: key, Message: fmt.Sprintf("%s --version printed no version (%q): the bundle needs %s", path, strings.TrimSpace(string(out)), needs)}
	}
	if !r.contains(v) {
		return &Problem{Key: key, Message: fmt.Sprintf("%s is version %s and the bundle needs %s: %s", path, found, needs, strings.Replace(install[rt], "install", "install a newer version of", 1))}
	}
	return nil
}
