//go:build unix

package bundle

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRuntime writes an executable name in a folder of its own that prints
// out to --version, and returns a LookPath over that folder only.
func fakeRuntimes(t *testing.T, progs map[string]string) LookPath {
	t.Helper()
	dir := t.TempDir()
	for name, out := range progs {
		script := "#!/bin/sh\necho '" + out + "'\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return func(name string) (string, error) {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err != nil {
			return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
		}
		return p, nil
	}
}

// TestCheckRuntimes: node and python are run with --version (real
// processes) and compared to the manifest's ranges; missing or too old,
// each is named with its remedy.
func TestCheckRuntimes(t *testing.T) {
	m := &Manifest{Server: Server{Type: "node"}, Compatibility: Compatibility{Runtimes: map[string]string{"node": ">=18.0.0", "python": ">=3.10"}}}

	ok := fakeRuntimes(t, map[string]string{"node": "v22.11.0", "python3": "Python 3.12.1"})
	if ps := m.Check(t.Context(), "linux", ok); len(ps) != 0 {
		t.Errorf("new enough: %v", ps)
	}

	old := fakeRuntimes(t, map[string]string{"node": "v16.20.2", "python": "Python 3.8.10"})
	ps := m.Check(t.Context(), "linux", old)
	if len(ps) != 2 ||
		!strings.Contains(ps[0].Error(), "compatibility.runtimes.node: ") || !strings.Contains(ps[0].Error(), "is version 16.20.2 and the bundle needs node >=18.0.0: install a newer version of Node.js") ||
		!strings.Contains(ps[1].Error(), "is version 3.8.10 and the bundle needs python >=3.10: install a newer version of Python 3") {
		t.Errorf("too old: %v", ps)
	}

	missing := fakeRuntimes(t, nil)
	ps = m.Check(t.Context(), "linux", missing)
	if len(ps) != 2 || ps[0].Error() != "compatibility.runtimes.node: the bundle needs node >=18.0.0 and node is not on the PATH: install Node.js (https://nodejs.org or the system's package manager: apt install nodejs, brew install node, winget install OpenJS.NodeJS)" ||
		!strings.Contains(ps[1].Error(), "python3 or python is not on the PATH: install Python 3") {
		t.Errorf("missing: %v", ps)
	}

	// the server type's runtime is needed even without a range
	bare := &Manifest{Server: Server{Type: "python"}}
	if ps := bare.Check(t.Context(), "linux", missing); len(ps) != 1 || !strings.Contains(ps[0].Error(), "the bundle needs python and python3 or python is not on the PATH") {
		t.Errorf("python bundle without python: %v", ps)
	}
	var ee *exec.Error
	if _, err := missing("node"); !errors.As(err, &ee) {
		t.Fatal(err)
	}
}
