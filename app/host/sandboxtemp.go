package host

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// The sandboxed servers' private temp directories (docs/sandbox.md):
// engine.StartOptions.SandboxTemp/NAME, the server's TMPDIR, kept between
// its starts like /tmp. An entry's directory goes with the entry: removed
// once its server stopped when the entry is removed, emptied when an entry
// of that name is added later (so a new server never finds what an old one
// of the same name left), and, at the host's start, the directories of
// names no entry has are removed. A server name is a valid directory name
// as it is (config.ValidServerName), which the engine keeps unchanged.

// sandboxTemps tracks them for a Manager; a zero root does nothing (the
// engine's default root, in the system's temp folder, is not swept).
type sandboxTemps struct {
	root  string
	swept bool // the first Apply swept the root
}

// dir is the temp directory of the server name, "" when the name could
// not be one.
func (t *sandboxTemps) dir(name string) string {
	if t.root == "" || !config.ValidServerName(name) {
		return ""
	}
	return filepath.Join(t.root, name)
}

// sweep removes what the root holds for names not in names: left by
// entries removed while no host ran, or by a host that was killed.
func (t *sandboxTemps) sweep(names map[string]bool) {
	if t.root == "" {
		return
	}
	des, err := os.ReadDir(t.root)
	if err != nil {
		return // none yet
	}
	for _, de := range des {
		if !names[de.Name()] || !config.ValidServerName(de.Name()) {
			_ = os.RemoveAll(filepath.Join(t.root, de.Name()))
		}
	}
}

// clear empties the directory of a new entry named name before its server
// starts: what is there is moved aside at once (a server of the old entry
// still stopping keeps writing to the folder it was given, which its
// Landlock rules name by inode) and removed in the background.
func (t *sandboxTemps) clear(name string) {
	d := t.dir(name)
	if d == "" {
		return
	}
	if _, err := os.Lstat(d); err != nil {
		return
	}
	aside := filepath.Join(t.root, fmt.Sprintf(".removed-%s-%d", name, time.Now().UnixNano()))
	if err := os.Rename(d, aside); err != nil {
		_ = os.RemoveAll(d)
		return
	}
	go os.RemoveAll(aside)
}

// remove removes the directory of an entry that left the config, once
// its server stopped.
func (t *sandboxTemps) remove(name string) {
	if d := t.dir(name); d != "" {
		_ = os.RemoveAll(d)
	}
}
