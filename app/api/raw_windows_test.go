package api_test

import (
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

func rawDial(sock string) (net.Conn, error) {
	d := 5 * time.Second
	return winio.DialPipe(sock, &d)
}

func rawListen(sock string) (net.Listener, error) { return winio.ListenPipe(sock, nil) }

// testSocket returns a pipe name of its own for one test.
func testSocket(t *testing.T, dir string) string {
	return `\\.\pipe\switchboard-test-` + rand.Text()
}

// afterListen works around Wine for a pipe that a test listens on: Wine
// connects the first client to the first pipe instance, which go-winio
// keeps to hold the name and never accepts on (Windows 7 did the same:
// go-winio issues 173 and 313), so that client is never accepted. A
// throwaway client takes that instance; the next ones reach Accept.
func afterListen(t *testing.T, sock string) {
	if !underWine() {
		return
	}
	c, err := rawDial(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
}

// underWine tells whether this is Wine's ntdll.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// tempDir is t.TempDir that Wine can clean up: Go 1.26's os.RemoveAll
// deletes through a call Wine 8 does not implement ("Invalid function"),
// while os.Remove (DeleteFile) works.
func tempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "switchboard-apitest-")
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
