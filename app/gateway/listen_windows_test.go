package gateway

import (
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/Microsoft/go-winio"
	"github.com/switchboard-mcp/switchboard/app/api"
	"golang.org/x/sys/windows"
)

// testListen listens where the gateway listens on Windows: a named pipe
// made as the host makes its own (api.InstanceLock.ListenGateway: the
// current user only, 64 KiB buffers), with a name of its own per test.
// It returns the listener and the pipe's name for testDial.
func testListen(t *testing.T) (net.Listener, string) {
	t.Helper()
	lock, err := api.AcquireInstanceLock(testTempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Release() })
	name := `\\.\pipe\switchboard-gwtest-` + rand.Text()
	l, err := lock.ListenGateway(name)
	if err != nil {
		t.Fatal(err)
	}
	takeFirstInstance(t, name)
	return l, name
}

// testDial connects to a pipe of testListen.
func testDial(name string) (net.Conn, error) {
	d := 5 * time.Second
	return winio.DialPipe(name, &d)
}

// takeFirstInstance works around Wine for a pipe that go-winio listens on;
// call it before anything accepts. Wine connects the first client to the
// pipe's first instance, which go-winio keeps only to hold the name and
// never accepts on (Windows 7 did the same: go-winio issues 173 and 313),
// so that client would hang. A throwaway client takes that instance; the
// next ones reach Accept. On Windows it does nothing.
func takeFirstInstance(t *testing.T, name string) {
	t.Helper()
	if !underWine() {
		return
	}
	c, err := testDial(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
}

// underWine tells whether this Windows is Wine (its ntdll exports
// wine_get_version).
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// testTempDir is t.TempDir that Wine can clean up: Go 1.26's os.RemoveAll
// deletes through a call Wine 8 does not implement ("Invalid function"),
// while os.Remove (DeleteFile) works.
func testTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "switchboard-gwtest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var paths []string
		_ = filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
			paths = append(paths, p)
			return nil
		})
		for i := len(paths) - 1; i >= 0; i-- { // children before their directory
			if err := os.Remove(paths[i]); err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Errorf("cleaning up: %v", err)
			}
		}
	})
	return dir
}
