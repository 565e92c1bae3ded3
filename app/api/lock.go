package api

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofrs/flock"
)

// InstanceLock is the host's single-instance lock: an advisory lock (flock on
// Unix, LockFileEx on Windows) on host.lock in the runtime directory, held
// for the host's life, with the holder's pid and socket in host.pid beside
// it. The OS releases it when the holder dies, however it dies.
type InstanceLock struct {
	dir string
	fl  *flock.Flock

	mu       sync.Mutex
	released bool
}

// AlreadyRunningError is what [AcquireInstanceLock] returns when another
// process holds the lock. PID is 0 and Socket empty when host.pid does not
// tell them (the holder is starting, or wrote none).
type AlreadyRunningError struct {
	PID    int
	Socket string
}

func (e *AlreadyRunningError) Error() string {
	var who []string
	if e.PID > 0 {
		who = append(who, "pid "+strconv.Itoa(e.PID))
	}
	if e.Socket != "" {
		who = append(who, "socket "+e.Socket)
	}
	s := "a Switchboard host is already running"
	if len(who) > 0 {
		s += " (" + strings.Join(who, ", ") + ")"
	}
	return s + ": use it, or stop it before starting another"
}

// lockWait bounds how long a second process waits for the holder's pid file
// (the holder writes it right after taking the lock).
var lockWait = time.Second

// AcquireInstanceLock takes the single-instance lock in dir, creating dir
// (0700) if needed and refusing it unless it is the user's own and private,
// and writes this process's pid to host.pid. If another process holds the
// lock it returns an [*AlreadyRunningError] with that process's pid and
// socket. The host takes it before anything else and releases it last.
func AcquireInstanceLock(dir string) (*InstanceLock, error) {
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	fl := flock.New(filepath.Join(dir, LockName), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		_ = fl.Close()
		return nil, fmt.Errorf("cannot take the instance lock %s: %w", fl.Path(), err)
	}
	if !ok {
		_ = fl.Close()
		return nil, readHolder(dir)
	}
	l := &InstanceLock{dir: dir, fl: fl}
	if err := l.writePID(""); err != nil {
		_ = fl.Unlock()
		return nil, err
	}
	return l, nil
}

// readHolder builds the error for a lock held by someone else, from the pid
// file that the holder writes right after it takes the lock.
func readHolder(dir string) error {
	deadline := time.Now().Add(lockWait)
	for {
		b, err := os.ReadFile(filepath.Join(dir, PIDName))
		if err == nil {
			if e, ok := parsePIDFile(b); ok {
				return e
			}
		}
		if time.Now().After(deadline) {
			return &AlreadyRunningError{}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// parsePIDFile reads "PID\nSOCKET\n" (the socket line may be empty).
func parsePIDFile(b []byte) (*AlreadyRunningError, bool) {
	pidText, socket, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(pidText))
	if err != nil || pid <= 0 {
		return nil, false
	}
	return &AlreadyRunningError{PID: pid, Socket: strings.TrimRight(socket, "\r\n")}, true
}

// writePID replaces host.pid atomically, so a reader never sees half of it.
func (l *InstanceLock) writePID(socket string) error {
	p := filepath.Join(l.dir, PIDName)
	tmp := p + ".tmp" // only the lock holder writes it
	data := strconv.Itoa(os.Getpid()) + "\n" + socket + "\n"
	if err := os.WriteFile(tmp, []byte(data), 0o600); err != nil {
		return fmt.Errorf("cannot write the pid file %s: %w", p, err)
	}
	if err := os.Rename(tmp, p); err != nil {
		_ = os.Remove(tmp)
		// Windows refuses to replace a file that a reader holds open;
		// write in place then (a reader retries a file it cannot parse).
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			return fmt.Errorf("cannot write the pid file %s: %w", p, err)
		}
	}
	return nil
}

// Dir is the runtime directory the lock is in.
func (l *InstanceLock) Dir() string { return l.dir }

// Listen creates the host's endpoint at path (see [SocketPath]): a Unix
// socket in a private directory, or a named pipe for the current user only
// on Windows. A socket file that a killed host left is replaced: only the
// lock's holder may do that, hence a method. It records path in host.pid so
// that a second host can name it.
func (l *InstanceLock) Listen(path string) (net.Listener, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil, errors.New("the instance lock was released: acquire it again before listening")
	}
	ln, err := listen(path)
	if err != nil {
		return nil, err
	}
	if err := l.writePID(path); err != nil {
		_ = ln.Close()
		return nil, err
	}
	return ln, nil
}

// Release removes host.pid and releases the lock. It is safe to call more
// than once.
func (l *InstanceLock) Release() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.released {
		return nil
	}
	l.released = true
	var errs []error
	if err := os.Remove(filepath.Join(l.dir, PIDName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		errs = append(errs, err)
	}
	// host.lock stays: removing a lock file lets two processes lock two
	// different files of the same name.
	if err := l.fl.Unlock(); err != nil {
		errs = append(errs, fmt.Errorf("cannot release the instance lock %s: %w", l.fl.Path(), err))
	}
	return errors.Join(errs...)
}
