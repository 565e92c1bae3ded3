package api_test

import (
	"crypto/rand"
	"net"
	"testing"

	"github.com/Microsoft/go-winio"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

func rawDial(sock string) (net.Conn, error) { return testkit.DialPipe(sock) }

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
func afterListen(t *testing.T, sock string) { testkit.TakeFirstPipeInstance(t, sock) }

// tempDir is t.TempDir that Wine can clean up: Go 1.26's os.RemoveAll
// deletes through a call Wine 8 does not implement ("Invalid function"),
// while os.Remove (DeleteFile) works.
func tempDir(t *testing.T) string { return testkit.TempDir(t, "switchboard-apitest-") }
