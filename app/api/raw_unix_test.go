//go:build unix

package api_test

import (
	"net"
	"path/filepath"
	"testing"
)

// rawDial and rawListen reach the transport below the protocol.
func rawDial(sock string) (net.Conn, error)       { return net.Dial("unix", sock) }
func rawListen(sock string) (net.Listener, error) { return net.Listen("unix", sock) }

// testSocket returns an endpoint for one test, in dir.
func testSocket(t *testing.T, dir string) string { return filepath.Join(dir, "host.sock") }

// afterListen is for Windows under Wine.
func afterListen(*testing.T, string) {}

// tempDir is t.TempDir (see the Windows version).
func tempDir(t *testing.T) string { return t.TempDir() }
