//go:build unix

package gateway

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// testListen listens where the gateway listens on Linux and macOS: a Unix
// socket, here in a fresh directory with a short path (sun_path holds
// about 100 bytes). It returns the listener and its address for testDial.
func testListen(t *testing.T) (net.Listener, string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "gw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "mcp.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	return l, sock
}

// testDial connects to an address of testListen.
func testDial(sock string) (net.Conn, error) { return net.Dial("unix", sock) }

// testTempDir is t.TempDir (see the Windows version).
func testTempDir(t *testing.T) string { return t.TempDir() }
