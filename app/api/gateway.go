package api

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path"
	"strings"
)

// The gateway's endpoint: a second local socket of the host, beside the
// API's, that speaks MCP (app/gateway) instead of this package's protocol.
// It is guarded the same way: the 0700 runtime directory and the peer-uid
// check on Linux and macOS, a current-user-only named pipe on Windows.

// GatewaySocketName is the gateway's socket in the directory of the API's
// socket.
const GatewaySocketName = "mcp.sock"

// GatewayPath returns the address of the host's MCP gateway, computed only
// from its arguments like [SocketPath]: mcp.sock in the directory of the
// API's socket (so it moves with it to /tmp/switchboard-<uid> when the
// runtime directory's path is too long), or on Windows the named pipe
// \\.\pipe\switchboard-mcp-<user>.
func GatewayPath(getenv func(string) string, goos string, id Identity) (string, error) {
	if goos == "windows" {
		if id.SID == "" {
			return "", fmt.Errorf("the current user's SID is unknown, so the gateway's pipe has no name: run Switchboard as a normal user")
		}
		return `\\.\pipe\switchboard-mcp-` + strings.ReplaceAll(id.SID, `\`, "-"), nil
	}
	sock, err := SocketPath(getenv, goos, id)
	if err != nil {
		return "", err
	}
	return path.Join(path.Dir(sock), GatewaySocketName), nil
}

// DefaultGatewayPath is [GatewayPath] for this process.
func DefaultGatewayPath() (string, error) {
	sock, err := DefaultSocketPath()
	if err != nil {
		return "", err
	}
	return GatewayPathFor(sock), nil
}

// GatewayPathFor returns the gateway's address for the API's address sock:
// mcp.sock in the same directory, or the named pipe \\.\pipe\switchboard-mcp-X
// for the pipe \\.\pipe\switchboard-X.
func GatewayPathFor(sock string) string {
	const pipe = `\\.\pipe\`
	if strings.HasPrefix(sock, pipe) {
		return pipe + "switchboard-mcp-" + strings.TrimPrefix(strings.TrimPrefix(sock, pipe), "switchboard-")
	}
	if i := strings.LastIndexAny(sock, `/\`); i >= 0 {
		return sock[:i+1] + GatewaySocketName
	}
	return GatewaySocketName
}

// ListenGateway creates the gateway's endpoint at path (see [GatewayPath])
// the way [InstanceLock.Listen] creates the API's: a Unix socket in a
// private directory (replacing one that a killed host left), or a named
// pipe for the current user only. It does not touch host.pid, which names
// the API's socket.
func (l *InstanceLock) ListenGateway(path string) (net.Listener, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil, errors.New("the instance lock was released: acquire it again before listening")
	}
	return listen(path)
}

// CheckPeer admits a connection to one of the host's endpoints only if the
// peer runs as the host's user (Linux, macOS; on Windows the pipe's
// security descriptor already did). It returns the peer's pid (0 when
// unknown) and an [*Error] with code forbidden when the peer is refused.
// guard, if not nil, is asked next, as [Options.PeerGuard].
func CheckPeer(nc net.Conn, guard func(pid int) error) (pid int, err error) {
	pid, _, err = checkPeer(nc)
	if err == nil && guard != nil {
		err = guard(pid)
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			err = Errorf(CodeForbidden, "connection refused: %v", err)
		}
	}
	return pid, err
}

// DialGateway connects to the gateway at path and checks that the process
// at the other end runs as the current user. With no host there it returns
// a [*NoHostError].
func DialGateway(ctx context.Context, path string) (net.Conn, error) {
	nc, err := dial(ctx, path)
	if err != nil {
		if errors.Is(err, ErrNoHost) {
			return nil, err
		}
		return nil, fmt.Errorf("cannot connect to the Switchboard gateway (socket %s): %w", path, err)
	}
	if err := checkHost(nc, path); err != nil {
		_ = nc.Close()
		return nil, err
	}
	return nc, nil
}
