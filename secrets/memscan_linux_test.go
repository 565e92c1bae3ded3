package secrets

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// maxCopiesAfterSpawn is how many more copies of a secret's value this
// process may hold once a server is spawned with it (see
// docs/secrets.md, "What stays in memory"): the buffer in which the
// syscall package turns the environment into C strings for execve, and
// the D-Bus message that brought the value from the Secret Service, both
// garbage that Go does not zero and that nothing here can reach. They stay
// until the garbage collector reuses their memory, so older ones may
// still be found after a later spawn: the bound is on what one spawn adds.
const maxCopiesAfterSpawn = 2

// childMemScan: the host's real path from keyring to server (a Store over
// gnome-keyring as the engine's SecretResolver, engine.Start), then a scan
// of this process's whole memory for the value. The value reaches the
// keyring through secret-tool's stdin one byte at a time, so before the
// first Resolve it exists nowhere in this process but masked.
func childMemScan(t *testing.T) {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	startKeyring(t, conn)

	raw := make([]byte, 24)
	_, _ = rand.Read(raw)
	mask := make([]byte, 32)
	_, _ = rand.Read(mask)
	val := make([]byte, hex.EncodedLen(len(raw)))
	hex.Encode(val, raw)
	clear(raw)
	canary := testkit.NewMasked(val, mask) // zeroes val

	cmd := exec.Command("secret-tool", "store", "--label=memscan", "service", DefaultService, "username", "canary")
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	one := make([]byte, 1)
	v := canary.Reveal()
	for _, b := range v {
		one[0] = b
		_, _ = w.Write(one)
	}
	clear(v)
	one[0] = 0
	w.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	base, err := testkit.CountInMemory(canary)
	if err != nil {
		t.Fatal(err)
	}
	if base != 0 {
		t.Fatalf("%d copies before any spawn", base)
	}

	s := NewStore("", filepath.Join(t.TempDir(), "cfg", "secrets.json"))
	spec := engine.Spec{Name: "memscan", Command: "cat", // one exec: its environment is readable as soon as Start returns
		Env: map[string]engine.EnvValue{"CANARY_TOKEN": engine.SecretRef("canary")}, Stderr: engine.Stderr{Kind: engine.StderrCapture}}
	counts, added := []int{}, []int{}
	var pid int
	for i := 0; i < 5; i++ {
		runtime.GC()
		before, err := testkit.CountInMemory(canary)
		if err != nil {
			t.Fatal(err)
		}
		p, err := engine.Start(context.Background(), spec, engine.StartOptions{Secrets: s})
		if err != nil {
			t.Fatal(err)
		}
		pid = p.Pid()
		if !environHas(t, pid, "CANARY_TOKEN=", canary) {
			<-p.Stop() // cat waits on its stdin: stop it, do not wait for it
			t.Fatalf("the server did not get the secret in its environment (%v): %q", p.ExitStatus(), p.Stderr().Lines())
		}
		runtime.GC()
		debug.FreeOSMemory()
		n, err := testkit.CountInMemory(canary)
		if err != nil {
			t.Fatal(err)
		}
		counts, added = append(counts, n), append(added, n-before)
		<-p.Stop()
	}
	t.Logf("PROVED: copies of the secret in the host's memory after each of 5 spawns through the real keyring: %v, added by each spawn: %v (bound %d)", counts, added, maxCopiesAfterSpawn)
	for _, n := range added {
		if n > maxCopiesAfterSpawn {
			t.Errorf("a spawn left %d more copies of the secret's value in memory, more than the %d Go cannot avoid: %v", n, maxCopiesAfterSpawn, added)
		}
	}
	_ = pid
}

// environHas reports whether process pid's environment holds prefix
// followed by m's value, comparing without unmasking it.
//
// Start returns once the exec has begun, but the kernel sets the new
// program's environment (mm->env_start) a moment later: until then
// /proc/PID/environ reads empty, so an empty read is tried again.
func environHas(t *testing.T, pid int, prefix string, m *testkit.Masked) bool {
	var b []byte
	testkit.Poll(5*time.Second, func() bool {
		var err error
		b, err = os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			t.Fatal(err)
		}
		return len(b) > 0
	})
	defer clear(b)
	for len(b) > 0 {
		e := b
		if i := indexByte(b, 0); i >= 0 {
			e, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(e) == len(prefix)+m.Len() && string(e[:len(prefix)]) == prefix && m.Equal(e[len(prefix):]) {
			return true
		}
	}
	return false
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}
