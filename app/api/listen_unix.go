//go:build unix

package api

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// prepareDir makes dir (0700) if it is missing and refuses it unless it is a
// real directory that belongs to the current user and that no one else may
// enter. A directory it made gets mode 0700 whatever the umask.
func prepareDir(dir string) error {
	created := false
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("cannot create the runtime directory %s: %w", dir, err)
		}
		created = true
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("cannot read the runtime directory %s: %w", dir, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("runtime directory %s is a symbolic link: remove it, or set %s to a real directory of your own", dir, RuntimeDirEnv)
	}
	if !fi.IsDir() {
		return fmt.Errorf("runtime directory %s is not a directory: remove it, or set %s to a directory of your own", dir, RuntimeDirEnv)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		if own := os.Geteuid(); int(st.Uid) != own {
			return fmt.Errorf("runtime directory %s belongs to uid %d, not to you (uid %d): remove it, or set %s to a directory of your own", dir, st.Uid, own, RuntimeDirEnv)
		}
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		if !created {
			return fmt.Errorf("runtime directory %s is open to other users (mode %04o): run 'chmod 700 %s', or set %s to a private directory", dir, perm, dir, RuntimeDirEnv)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("cannot make the runtime directory %s private: %w", dir, err)
		}
	} else if created && perm != 0o700 {
		if err := os.Chmod(dir, 0o700); err != nil { // a strict umask left us without rwx
			return fmt.Errorf("cannot set the mode of the runtime directory %s: %w", dir, err)
		}
	}
	return nil
}

// listen creates the Unix socket at path in a private directory, replacing a
// stale socket file. The caller holds the instance lock.
func listen(path string) (net.Listener, error) {
	if err := prepareDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket: remove it so that the host can listen there", path)
		}
		// A socket file without a listener is what a killed host leaves.
		// Make sure no one listens (a host of another runtime directory
		// could share a shortened socket path) before removing it.
		d := net.Dialer{Timeout: time.Second}
		if c, err := d.DialContext(context.Background(), "unix", path); err == nil {
			_ = c.Close()
			return nil, fmt.Errorf("another process already listens on socket %s: stop it, or set %s to another directory", path, RuntimeDirEnv)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cannot remove the stale socket %s: %w", path, err)
		}
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on socket %s: %w", path, err)
	}
	// The directory already keeps others out; the mode says the same.
	if err := os.Chmod(path, 0o600); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("cannot set the mode of socket %s: %w", path, err)
	}
	return l, nil
}

// dial connects to the host's socket.
func dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED)) {
		// No file, or a file that a killed host left with no one listening.
		return nil, &NoHostError{Socket: path, Err: err}
	}
	return c, err
}
