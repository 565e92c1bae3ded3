package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/registry"
)

// The review of an upgrade (docs/registry.md, "Upgrades and rollback"):
// what changes between the installed version of an entry and the new
// one, in server.json, in the package tree and in the tool definitions,
// shown before anything switches.

// ServerDiff names what differs between two versions of an entry's
// server.json for the user: environment variables, arguments and
// remotes added or removed, a changed transport. pkg is the package's
// identifier and registry type whose two versions are compared.
func ServerDiff(was, now *registry.Server, registryType, identifier string) []string {
	var out []string
	find := func(s *registry.Server) *registry.Package {
		for i := range s.Packages {
			if p := &s.Packages[i]; p.RegistryType == registryType && p.Identifier == identifier {
				return p
			}
		}
		return nil
	}
	po, pn := find(was), find(now)
	switch {
	case po == nil && pn == nil:
	case pn == nil:
		out = append(out, fmt.Sprintf("package %s %s: removed from the entry (the upgrade cannot run it)", registryType, identifier))
	case po != nil:
		names := func(p *registry.Package) map[string]registry.Input {
			m := map[string]registry.Input{}
			for _, ev := range p.EnvironmentVariables {
				m[ev.Name] = ev.Input
			}
			return m
		}
		eo, en := names(po), names(pn)
		for _, k := range sortedKeysOf(en) {
			if _, ok := eo[k]; !ok {
				out = append(out, "environment variable "+k+": added"+inputWords(en[k]))
			} else if eo[k].IsSecret != en[k].IsSecret || eo[k].IsRequired != en[k].IsRequired {
				out = append(out, "environment variable "+k+": now"+inputWords(en[k]))
			}
		}
		for _, k := range sortedKeysOf(eo) {
			if _, ok := en[k]; !ok {
				out = append(out, "environment variable "+k+": removed")
			}
		}
		args := func(p *registry.Package) []string {
			var s []string
			for _, a := range p.RuntimeArguments {
				s = append(s, "runtime "+argWords(a))
			}
			for _, a := range p.PackageArguments {
				s = append(s, argWords(a))
			}
			return s
		}
		ao, an := args(po), args(pn)
		for _, a := range an {
			if !slices.Contains(ao, a) {
				out = append(out, "argument "+a+": added")
			}
		}
		for _, a := range ao {
			if !slices.Contains(an, a) {
				out = append(out, "argument "+a+": removed")
			}
		}
		if po.Transport.Type != pn.Transport.Type {
			out = append(out, fmt.Sprintf("transport: was %s, now %s", orStdio(po.Transport.Type), orStdio(pn.Transport.Type)))
		}
	}
	ro, rn := remotes(was), remotes(now)
	for _, r := range rn {
		if !slices.Contains(ro, r) {
			out = append(out, "remote "+r+": added")
		}
	}
	for _, r := range ro {
		if !slices.Contains(rn, r) {
			out = append(out, "remote "+r+": removed")
		}
	}
	return out
}

func remotes(s *registry.Server) []string {
	var out []string
	for _, r := range s.Remotes {
		out = append(out, r.Type+" "+r.URL)
	}
	return out
}

func orStdio(t string) string {
	if t == "" {
		return "stdio"
	}
	return t
}

func inputWords(in registry.Input) string {
	var w []string
	if in.IsRequired {
		w = append(w, "required")
	}
	if in.IsSecret {
		w = append(w, "secret")
	}
	if len(w) == 0 {
		return ""
	}
	return " (" + strings.Join(w, ", ") + ")"
}

func argWords(a registry.Argument) string {
	s := argKey(a)
	if a.Value != "" {
		s += "=" + a.Value
	}
	return s + inputWords(a.Input)
}

func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TreeChanges is the package tree's part of an upgrade's review.
type TreeChanges struct {
	// Packages are the packages added, removed or changed between the
	// two installs' package-lock.json ("node_modules/x: added 1.2.0").
	Packages []string `json:"packages"`
	// InstallScripts are the new tree's packages with an install script
	// (preinstall, install, postinstall: package-lock.json's
	// hasInstallScript, or the script in their package.json). None of
	// them ran (install scripts are off), but a package that has one
	// where the old tree's did not is worth a look.
	InstallScripts []string `json:"installScripts"`
	// NewScripts are those of InstallScripts the old tree did not have.
	NewScripts []string `json:"newScripts"`
	// SizeWas and SizeNow are the installs' sizes in bytes.
	SizeWas, SizeNow int64
}

// lockPackage is what the review reads of a package-lock.json entry.
type lockPackage struct {
	Version          string `json:"version"`
	HasInstallScript bool   `json:"hasInstallScript"`
	hashes           string // a PyPI install's: its files' --hash values
}

// treePackages are an install's packages: a PyPI install's from its
// requirements file (name==version and the files' hashes: wheels only,
// which have no install scripts), an npm install's from its
// package-lock.json.
func treePackages(dir string) (map[string]lockPackage, error) {
	b, err := os.ReadFile(filepath.Join(dir, RequirementsFile))
	if errors.Is(err, os.ErrNotExist) {
		return readLockPackages(dir)
	}
	if err != nil {
		return nil, err
	}
	out := map[string]lockPackage{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		n, v, _ := strings.Cut(f[0], "==")
		out[n] = lockPackage{Version: v, hashes: strings.Join(f[1:], " ")}
	}
	return out, nil
}

func readLockPackages(dir string) (map[string]lockPackage, error) {
	b, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return nil, err
	}
	var pl struct {
		Packages map[string]lockPackage `json:"packages"`
	}
	if err := json.Unmarshal(b, &pl); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "package-lock.json"), err)
	}
	delete(pl.Packages, "")
	return pl.Packages, nil
}

// scripted is the packages of an install with an install script.
func scripted(dir string, pkgs map[string]lockPackage) []string {
	var out []string
	for _, p := range sortedKeysOf(pkgs) {
		has := pkgs[p].HasInstallScript
		if !has {
			var pj struct{ Scripts map[string]string }
			if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p), "package.json")); err == nil && json.Unmarshal(b, &pj) == nil {
				for _, s := range []string{"preinstall", "install", "postinstall"} {
					has = has || pj.Scripts[s] != ""
				}
			}
		}
		if has {
			out = append(out, p)
		}
	}
	return out
}

// DiffTrees compares the install at was with the one at now (both npm,
// or both PyPI).
func DiffTrees(was, now string) (*TreeChanges, error) {
	po, err := treePackages(was)
	if err != nil {
		return nil, err
	}
	pn, err := treePackages(now)
	if err != nil {
		return nil, err
	}
	tc := &TreeChanges{Packages: []string{}, InstallScripts: []string{}, NewScripts: []string{}}
	for _, p := range sortedKeysOf(pn) {
		o, ok := po[p]
		switch {
		case !ok:
			tc.Packages = append(tc.Packages, fmt.Sprintf("%s: added %s", p, pn[p].Version))
		case o.Version != pn[p].Version:
			tc.Packages = append(tc.Packages, fmt.Sprintf("%s: %s -> %s", p, o.Version, pn[p].Version))
		case o.hashes != pn[p].hashes:
			tc.Packages = append(tc.Packages, fmt.Sprintf("%s %s: other files (their SHA-256 changed at the same version)", p, o.Version))
		}
	}
	for _, p := range sortedKeysOf(po) {
		if _, ok := pn[p]; !ok {
			tc.Packages = append(tc.Packages, fmt.Sprintf("%s: removed (was %s)", p, po[p].Version))
		}
	}
	old := scripted(was, po)
	tc.InstallScripts = append(tc.InstallScripts, scripted(now, pn)...)
	for _, p := range tc.InstallScripts {
		if !slices.Contains(old, p) {
			tc.NewScripts = append(tc.NewScripts, p)
		}
	}
	tc.SizeWas, tc.SizeNow = dirSize(was), dirSize(now)
	return tc, nil
}

func dirSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// ToolChanges is the tool definitions' part of an upgrade's review: the
// new version's tools (from a sandboxed dry start) against the hashes
// of the lock.
type ToolChanges struct {
	Added, Removed []string
	// Changed are the tools whose definition's hash differs.
	Changed []string
}

// DiffTools compares a dry start's tools with the lock's hashes.
func DiffTools(locked map[string]string, now []FirstTool) ToolChanges {
	var tc ToolChanges
	seen := map[string]bool{}
	for _, t := range now {
		seen[t.Name] = true
		h, ok := locked[t.Name]
		switch {
		case !ok:
			tc.Added = append(tc.Added, t.Name)
		case h != t.Hash:
			tc.Changed = append(tc.Changed, t.Name)
		}
	}
	for _, n := range sortedKeysOf(locked) {
		if !seen[n] {
			tc.Removed = append(tc.Removed, n)
		}
	}
	return tc
}
