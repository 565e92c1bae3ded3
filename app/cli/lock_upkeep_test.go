//go:build linux

package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
)

// TestServersLockUpkeep: 'servers rename' moves a server's servers.lock
// entry and 'servers remove' drops it, by both paths a change takes (the
// file with no host, and the host's servers.rename/servers.remove, which
// the window uses too); a removed server whose install no other server
// uses is followed by a note naming the folder, and not while another
// still uses it.
func TestServersLockUpkeep(t *testing.T) {
	for _, withHost := range []bool{false, true} {
		name := map[bool]string{false: "file", true: "host"}[withHost]
		t.Run(name, func(t *testing.T) {
			sb := newSandbox(t)
			writeConfig(t, sb.configPath(), `{"mcpServers": {
  "a": {"command": "/bin/cat", "disabled": true},
  "b": {"command": "/bin/cat", "disabled": true},
  "c": {"command": "/bin/cat", "disabled": true}}}`)
			state := config.StateDir(func(k string) string {
				if k == "HOME" {
					return sb.home
				}
				return ""
			})
			one, two := install.Folder(state, "one", "1.0.0"), install.Folder(state, "two", "1.0.0")
			for _, d := range []string{one, two} {
				if err := os.MkdirAll(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if err := install.UpdateLock(state, func(l *install.Lock) {
				l.Servers["a"] = &install.Locked{Package: "one", Dir: one}
				l.Servers["b"] = &install.Locked{Package: "two", Dir: two}
				l.Servers["c"] = &install.Locked{Package: "two", Dir: two}
			}); err != nil {
				t.Fatal(err)
			}
			if withHost {
				sb.serve(t)
			}
			sb.cli(t, "servers", "rename", "a", "a2")
			lock, err := install.ReadLock(state)
			if err != nil || lock.Servers["a"] != nil || lock.Servers["a2"] == nil || lock.Servers["a2"].Dir != one {
				t.Fatalf("after the rename, servers.lock: %v %v", lock.Servers, err)
			}
			if out := sb.cli(t, "servers", "remove", "b"); strings.Contains(out, "used by no other server") {
				t.Errorf("removing b while c uses its install:\n%s", out)
			}
			if lock, _ = install.ReadLock(state); lock.Servers["b"] != nil || lock.Servers["c"] == nil {
				t.Fatalf("after removing b, servers.lock: %v", lock.Servers)
			}
			out := sb.cli(t, "servers", "remove", "c")
			if !strings.Contains(out, "note: its locked install "+two+" is used by no other server") {
				t.Errorf("removing c, the last user of its install:\n%s", out)
			}
			out = sb.cli(t, "servers", "rm", "a2")
			if !strings.Contains(out, "note: its locked install "+one+" is used by no other server") {
				t.Errorf("removing a2:\n%s", out)
			}
			if lock, _ = install.ReadLock(state); len(lock.Servers) != 0 {
				t.Errorf("after removing every server, servers.lock: %v", lock.Servers)
			}
		})
	}
}
