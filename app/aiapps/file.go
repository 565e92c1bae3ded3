package aiapps

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// BackupSuffix starts the name of a backup Switchboard makes of an app's
// file before changing it: FILE.switchboard-backup-20260102-150405.
const BackupSuffix = ".switchboard-backup-"

// KeepBackups is how many backups of one file are kept; older ones are
// removed when a new one is made.
const KeepBackups = 5

// ErrChanged means the app's file changed between reading it and writing
// it (the app, or an editor, wrote it): nothing was written.
var ErrChanged = errors.New("the file changed while Switchboard was editing it (is the app running and writing it?): nothing was written; run the command again")

// ReadFile reads an app's config file; a missing file is no data and no
// error, with exists false.
func ReadFile(path string) (data []byte, exists bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if data == nil {
		data = []byte{} // an empty file exists: not nil
	}
	return data, true, nil
}

// WriteFile replaces the app's file at path, whose content was before
// (nil: the file did not exist), with after:
//   - it refuses with [ErrChanged] if the file no longer holds before;
//   - it backs the old file up first, next to it, as
//     path+[BackupSuffix]+time (same mode), keeping the last [KeepBackups];
//   - it writes atomically: a temporary file in the same directory,
//     synced, renamed over the file; the file keeps its mode (a new one is
//     0600, its directory made 0700 if missing); a symbolic link stays a
//     link, and the file it points to is replaced.
//
// backup is the backup's path, "" if there was no file.
func WriteFile(path string, before, after []byte, now time.Time) (backup string, err error) {
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	mode := fs.FileMode(0o600)
	cur, exists, err := ReadFile(target)
	if err != nil {
		return "", err
	}
	if exists != (before != nil) || !bytes.Equal(cur, before) {
		return "", ErrChanged
	}
	if exists {
		fi, err := os.Stat(target)
		if err != nil {
			return "", err
		}
		mode = fi.Mode().Perm()
		if backup, err = writeBackup(path, before, mode, now); err != nil {
			return "", fmt.Errorf("backing up %s: %w (nothing was changed)", path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return "", err
	}
	if err := atomicWrite(target, after, mode, func() error {
		if cur, _, err := ReadFile(target); err != nil || !bytes.Equal(cur, before) {
			return ErrChanged
		}
		return nil
	}); err != nil {
		return backup, err
	}
	pruneBackups(path)
	return backup, nil
}

// writeBackup writes data to a new file path+BackupSuffix+time.
func writeBackup(path string, data []byte, mode fs.FileMode, now time.Time) (string, error) {
	base := path + BackupSuffix + now.Format("20060102-150405")
	name := base
	for i := 2; ; i++ {
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			name = fmt.Sprintf("%s-%d", base, i)
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", err
		}
		return name, nil
	}
}

// Backups returns the backups of the file at path, oldest first.
func Backups(path string) []string {
	dir, prefix := filepath.Dir(path), filepath.Base(path)+BackupSuffix
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) && e.Type().IsRegular() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		// The time stamps sort as text; "-2" and later copies of one second
		// sort after the first.
		return strings.Compare(backupKey(a), backupKey(b))
	})
	return out
}

func backupKey(name string) string {
	i := strings.LastIndex(name, BackupSuffix)
	stamp := name[i+len(BackupSuffix):]
	if len(stamp) == len("20060102-150405") {
		stamp += "-01"
	} else if j := strings.LastIndexByte(stamp, '-'); j > 0 && len(stamp)-j == 2 {
		stamp = stamp[:j+1] + "0" + stamp[j+1:]
	}
	return stamp
}

func pruneBackups(path string) {
	bs := Backups(path)
	for len(bs) > KeepBackups {
		os.Remove(bs[0])
		bs = bs[1:]
	}
}

// atomicWrite writes data to a temporary file in path's directory, syncs
// it, calls check, and renames it over path; then it syncs the directory.
func atomicWrite(path string, data []byte, mode fs.FileMode, check func() error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".switchboard-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err == nil {
		if err = f.Chmod(mode); err == nil {
			err = f.Sync()
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err = check(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync() // not supported everywhere (Windows); the rename is done
		d.Close()
	}
	return nil
}
