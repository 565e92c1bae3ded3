package api

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"
)

// prepareDir makes dir if it is missing. It lives under %LOCALAPPDATA%,
// whose ACL already admits only its user (and administrators).
func prepareDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot create the runtime directory %s: %w", dir, err)
	}
	return nil
}

// listen creates the host's named pipe with a security descriptor that admits
// only the current user: a protected DACL ("P": no inherited entries) with
// one entry granting the user's SID all access. go-winio creates the first
// instance with FILE_FLAG_FIRST_PIPE_INSTANCE, so a pipe of that name that
// someone else made first is an error rather than shared, and it rejects
// remote clients.
func listen(path string) (net.Listener, error) {
	sid, err := currentUserSID()
	if err != nil {
		return nil, fmt.Errorf("cannot read the current user's SID: %w", err)
	}
	l, err := winio.ListenPipe(path, &winio.PipeConfig{
		SecurityDescriptor: "D:P(A;;GA;;;" + sid + ")",
		InputBufferSize:    64 << 10,
		OutputBufferSize:   64 << 10,
	})
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_PIPE_BUSY) {
		return nil, fmt.Errorf("pipe %s already exists: another Switchboard host or another program holds it; stop it first", path)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot listen on pipe %s: %w", path, err)
	}
	return l, nil
}

// dial connects to the host's pipe. It connects at impersonation level
// Anonymous, so the process at the other end cannot act as the client.
func dial(ctx context.Context, path string) (net.Conn, error) {
	c, err := winio.DialPipeContext(ctx, path)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		return nil, &NoHostError{Socket: path, Err: err}
	}
	return c, err
}
