package gateway

import (
	"crypto/rand"
	"net"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
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
func testDial(name string) (net.Conn, error) { return testkit.DialPipe(name) }

// takeFirstInstance works around Wine for a pipe that go-winio listens on;
// call it before anything accepts. Wine connects the first client to the
// pipe's first instance, which go-winio keeps only to hold the name and
// never accepts on (Windows 7 did the same: go-winio issues 173 and 313),
// so that client would hang. A throwaway client takes that instance; the
// next ones reach Accept. On Windows it does nothing.
func takeFirstInstance(t *testing.T, name string) { testkit.TakeFirstPipeInstance(t, name) }

// testTempDir is t.TempDir that Wine can clean up: Go 1.26's os.RemoveAll
// deletes through a call Wine 8 does not implement ("Invalid function"),
// while os.Remove (DeleteFile) works.
func testTempDir(t *testing.T) string { return testkit.TempDir(t, "switchboard-gwtest-") }
