package testkit

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// UnderWine tells whether this Windows is Wine (its ntdll exports
// wine_get_version).
func UnderWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// TempDir is t.TempDir that Wine can clean up: Go 1.26's os.RemoveAll
// deletes through a call Wine 8 does not implement ("Invalid function"),
// while os.Remove (DeleteFile) works. prefix starts the folder's name.
func TempDir(t testing.TB, prefix string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", prefix)
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

// DialPipe connects to a named pipe, waiting up to 5 s for it.
func DialPipe(name string) (net.Conn, error) {
	d := 5 * time.Second
	return winio.DialPipe(name, &d)
}

// TakeFirstPipeInstance works around Wine for a pipe that go-winio listens
// on; call it before anything accepts. Wine connects the first client to
// the pipe's first instance, which go-winio keeps only to hold the name
// and never accepts on (Windows 7 did the same: go-winio issues 173 and
// 313), so that client would hang. A throwaway client takes that
// instance; the next ones reach Accept. On Windows it does nothing.
func TakeFirstPipeInstance(t testing.TB, name string) {
	t.Helper()
	if !UnderWine() {
		return
	}
	c, err := DialPipe(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
}
