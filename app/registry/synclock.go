package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// ErrBusy is SyncLocked's error when another sync of the same registry
// (the host's, or another 'switchboard registry sync') holds its lock
// and Wait is false.
var ErrBusy = errors.New("another sync of this registry is running")

// LockPath is the lock file of the registry name's index in dir: a sync
// holds it from reading the index to saving it, so that two syncs (the
// host's in the background and 'switchboard registry sync', or two
// commands) never interleave and the last to save never drops what the
// other read.
func LockPath(dir, name string) string { return filepath.Join(dir, name+".lock") }

// Locked are the parameters of SyncLocked.
type Locked struct {
	Dir, Name, URL string
	// Wait: wait for another sync's end (until ctx ends) rather than
	// return ErrBusy. Waiting is called once, when the lock is taken by
	// another, before the wait (nil: nothing).
	Wait    bool
	Waiting func()
	Options SyncOptions
}

// SyncLocked takes the registry's lock (LockPath), loads its index from
// dir, syncs it (Sync) and saves it (also after a failure: what was read
// is kept), then releases the lock. The index is returned with the
// result, and the error of the sync (or of saving).
func SyncLocked(ctx context.Context, c *Client, l Locked) (*Index, SyncResult, error) {
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return nil, SyncResult{}, err
	}
	fl := flock.New(LockPath(l.Dir, l.Name), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, SyncResult{}, fmt.Errorf("cannot take the lock %s: %w", fl.Path(), err)
	}
	if !ok {
		if !l.Wait {
			return nil, SyncResult{}, ErrBusy
		}
		if l.Waiting != nil {
			l.Waiting()
		}
		if ok, err = fl.TryLockContext(ctx, 50*time.Millisecond); !ok {
			if err == nil {
				err = ctx.Err()
			}
			return nil, SyncResult{}, fmt.Errorf("waiting for the other sync of %s (it holds %s): %w", l.Name, fl.Path(), err)
		}
	}
	// The lock file stays: removing it would let two processes lock two
	// files of the same name.
	defer fl.Unlock()
	ix, err := Load(l.Dir, l.Name, l.URL)
	if err != nil {
		return nil, SyncResult{}, err
	}
	res, serr := Sync(ctx, c, ix, l.Options)
	if err := ix.Save(l.Dir); err != nil {
		return ix, res, fmt.Errorf("saving the index in %s: %w", l.Dir, err)
	}
	return ix, res, serr
}
