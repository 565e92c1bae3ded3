package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

var serversVerifyRow = &command{name: "servers verify", args: "[NAME]",
	summary: "re-check a locked install (every one without NAME) against servers.lock and name what changed; exit 1 on a change",
	help: `A server added with 'registry add' from an npm or PyPI package is
installed locked into Switchboard's state directory, and servers.lock
holds its tree's integrity: every package's integrity from its
package-lock.json (or hash from its hash-checked requirements) and the
SHA-256 of every file of the install. verify computes it again and names
each package or file added, removed or changed.
`,
	run: (*env).serversVerify}

// verifyResult is one server's verify, as --json prints it.
type verifyResult struct {
	Server        string   `json:"server"`
	Package       string   `json:"package"`
	Version       string   `json:"version"`
	Dir           string   `json:"dir"`
	TreeIntegrity string   `json:"treeIntegrity"`
	OK            bool     `json:"ok"`
	Changes       []string `json:"changes,omitempty"`
}

// serversVerify is 'switchboard servers verify [NAME]'.
func (e *env) serversVerify(a *argv) error {
	if len(a.pos) > 1 {
		return usagef("servers verify takes at most one server NAME")
	}
	state := config.StateDir(e.getenv)
	lock, err := install.ReadLock(state)
	if err != nil {
		return err
	}
	var names []string
	if len(a.pos) == 1 {
		name := a.pos[0]
		if lock.Servers[name] == nil {
			// A server renamed since its add: found by the locked
			// entry point its config entry runs.
			locked, err := e.lockedByEntry(lock, name)
			if err != nil {
				return err
			}
			if locked == "" {
				return fmt.Errorf("%s has no locked install in %s: only a server added by 'switchboard registry add' from an npm or PyPI package has one", name, install.LockPath(state))
			}
			fmt.Fprintf(e.stderr, "%s runs the install locked as %s\n", name, locked)
			name = locked
		}
		if l := lock.Servers[name]; !l.Installed() {
			return fmt.Errorf("%s was added from %s's %s %s without a locked install (%s): nothing of it is installed to verify", name, l.Registry, termtext.Escape(l.Entry), termtext.Escape(l.EntryVersion), unlockedHow(l))
		}
		names = []string{name}
	} else {
		for n, l := range lock.Servers {
			if l.Installed() {
				names = append(names, n)
			}
		}
		slices.Sort(names)
	}
	var results []verifyResult
	bad := 0
	for _, n := range names {
		l := lock.Servers[n]
		changes, err := install.Verify(l, 50)
		if err != nil {
			return fmt.Errorf("verifying %s: %w", n, err)
		}
		results = append(results, verifyResult{Server: n, Package: l.Package, Version: l.Version, Dir: l.Dir, TreeIntegrity: l.TreeIntegrity, OK: changes == nil, Changes: changes})
		if changes != nil {
			bad++
		}
	}
	if e.json {
		if results == nil {
			results = []verifyResult{}
		}
		if err := e.printJSON(results); err != nil {
			return err
		}
	} else {
		if len(results) == 0 {
			fmt.Fprintf(e.stdout, "no locked installs in %s\n", install.LockPath(state))
		}
		for _, r := range results {
			if r.OK {
				fmt.Fprintf(e.stdout, "%s: ok: %s@%s as locked (%s)\n", r.Server, termtext.Escape(r.Package), termtext.Escape(r.Version), r.TreeIntegrity)
				continue
			}
			fmt.Fprintf(e.stdout, "%s: CHANGED: %s@%s in %s differs from its lock:\n", r.Server, termtext.Escape(r.Package), termtext.Escape(r.Version), termtext.Escape(r.Dir))
			for _, c := range r.Changes {
				fmt.Fprintf(e.stdout, "  %s\n", termtext.Escape(c))
			}
		}
	}
	if bad > 0 {
		if !e.json {
			fmt.Fprintf(e.stderr, "switchboard: %d locked install(s) changed: do not start them (or 'switchboard servers disable NAME'); to install a fresh tree, remove the install folder named and its .tree file, 'switchboard servers remove NAME', and add it again with 'switchboard registry add'\n", bad)
		}
		return exitError{1}
	}
	return nil
}

// unlockedHow says how a server added without a locked install runs.
func unlockedHow(l *install.Locked) string {
	if l.Ecosystem == "remote" {
		return "a remote server"
	}
	return fmt.Sprintf("the %s package %s %s, run by its runtime", l.Ecosystem, termtext.Escape(l.Package), termtext.Escape(l.Version))
}

// lockedByEntry is the lock's name of the install that the config entry
// name runs (`node BIN ...` with BIN a locked entry point), or "".
func (e *env) lockedByEntry(lock *install.Lock, name string) (string, error) {
	b, err := e.backend(context.Background())
	if err != nil {
		return "", err
	}
	defer b.close()
	raw, err := b.get(name)
	if err != nil {
		return "", nil // no such server: said as having no locked install
	}
	var entry struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(raw, &entry) != nil {
		return "", nil
	}
	// npm: node BIN; pypi: BIN (the venv's python) itself.
	bin := entry.Command
	if strings.TrimSuffix(filepath.Base(entry.Command), ".exe") == "node" && len(entry.Args) > 0 {
		bin = entry.Args[0]
	}
	for _, n := range slices.Sorted(maps.Keys(lock.Servers)) {
		if l := lock.Servers[n]; l.Bin != "" && filepath.Clean(l.Bin) == filepath.Clean(bin) {
			return n, nil
		}
	}
	return "", nil
}
