//go:build linux

package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestHostKeepsLastGoodConfig: every file the host cannot use leaves the
// servers it runs as they are (same process), and the host's status says
// what is wrong and what to do: an mcpServers of the wrong type, an empty
// file, a removed file, a FIFO, a link to /dev/zero, a file over the size
// limit. A change through the host after a removal writes the config in
// force back. A bad gateway.httpPort is a problem in the status.
func TestHostKeepsLastGoodConfig(t *testing.T) {
	th := runHost(t, nil, map[string]any{"a": helperEntry("modern", "a")})
	pid := th.waitRunning(t, "a").PID
	path := th.opts.ConfigPath
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	status := func() hostapi.ConfigStatus {
		var st hostapi.ConfigStatus
		th.must(t, hostapi.MethodConfigStatus.Name, nil, &st)
		return st
	}
	waitError := func(what, want string) {
		t.Helper()
		testkit.Eventually(t, what+": the status says so", func() (bool, string) {
			st := status()
			return !st.OK && strings.Contains(st.Error, want), st.Error
		})

		if st := th.waitRunning(t, "a"); st.PID != pid {
			t.Fatalf("%s: server a was restarted (pid %d, was %d)", what, st.PID, pid)
		}
	}
	restore := func(what string) {
		t.Helper()
		replace(t, path, good)
		testkit.Eventually(t, what+": the restored file is in force", func() (bool, string) {
			st := status()
			return st.OK, st.Error
		})

	}
	write := func(doc string) { t.Helper(); replace(t, path, []byte(doc)) }

	for doc, want := range map[string]string{
		`{"mcpServers": null}`: `mcpServers: is null, not an object of servers: write "mcpServers": {} for no servers`,
		`{"mcpServers": "x"}`:  `mcpServers: is a string "x", not an object of servers by name`,
		`{"mcpServers": []}`:   `mcpServers: is a list, not an object of servers by name`,
		``:                     `the file is empty`,
	} {
		write(doc)
		waitError(doc, want)
		restore(doc)
	}

	// Removed: kept, and said so.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	waitError("removed", path+` was removed: restore it`)
	// A change through the host writes the config in force back, plus the change.
	raw, _ := json.Marshal(helperEntry("modern", "b"))
	th.must(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "b", Entry: raw, Create: true}, nil)
	if st := status(); !st.OK {
		t.Errorf("after servers.put on a removed file: %+v", st)
	}
	f, err := config.Load(path)
	if err != nil || f.Servers["a"] == nil || f.Servers["b"] == nil {
		t.Fatalf("the file written back: %v %v", f, err)
	}
	th.waitRunning(t, "b")
	if st := th.waitRunning(t, "a"); st.PID != pid {
		t.Fatalf("servers.put after the removal restarted a")
	}
	good, _ = os.ReadFile(path)

	// Not regular files, and a large one: refused without reading them.
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	waitError("a FIFO", "is not a regular file (a named pipe)")
	if err := th.call(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "c", Entry: raw, Create: true}, nil); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("servers.put on a FIFO: %v", err)
	}
	os.Remove(path)
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
	waitError("a link to /dev/zero", "is not a regular file (a character device)")
	os.Remove(path)
	restore("after /dev/zero")
	big := strings.Replace(string(good), "{", `{"pad": "`+strings.Repeat("x", config.MaxFileSize)+`", `, 1)
	write(big)
	waitError("a file over the limit", "over the limit of 4 MiB")
	restore("after the large file")

	// gateway.httpPort is checked like any key: a problem in the status.
	write(strings.Replace(string(good), "{", `{"gateway": {"httpPort": 99999}, `, 1))
	testkit.Eventually(t, "a bad httpPort: the status says so", func() (bool, string) {
		st := status()
		for _, p := range st.Problems {
			// As data, with its key; and the sentence an older client reads.
			if st.OK && p.Server == "" && p.Key == "gateway.httpPort" && strings.HasPrefix(p.Sentence(), "gateway.httpPort: 99999 is not a port") {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%+v", st.Problems)
	})

	if st := th.waitRunning(t, "a"); st.PID != pid {
		t.Fatalf("a bad httpPort restarted a")
	}
}

// replace writes a file as an editor saves it: a new file renamed over.
func replace(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".edit.tmp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
