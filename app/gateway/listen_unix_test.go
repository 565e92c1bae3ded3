//go:build unix

package gateway

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/bridge"
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

// TestHandOffRefusedInline: a bridge whose preamble is refused (a
// malformed pattern) gets the error, and the host closes the stdin and
// stdout that came with the preamble: the app's end of the bridge's stdout
// reads EOF once the bridge's own copy is closed.
func TestHandOffRefusedInline(t *testing.T) {
	h := newHarness(t, "fds", running("a", "echo"))
	nc, err := testDial(h.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	_, w, err := bridge.HandshakeFDs(nc, Hello{Filter: Filter{Tools: []string{"["}}}, inR, outW)
	if err == nil || !strings.Contains(err.Error(), "malformed") || w == nil || w.FDs {
		t.Fatalf("a malformed pattern: %v %+v", err, w)
	}
	inR.Close()
	outW.Close()
	got := make(chan error, 1)
	go func() {
		_, err := io.ReadAll(outR)
		got <- err
	}()
	select {
	case err := <-got:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the host kept the refused bridge's stdout open")
	}
}
