package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The no-tray hint (tray.NoTrayNotification) is shown once per user: a
// small file under the user's state directory remembers it, so that it is
// not repeated at every login.

// trayHintFile is that file: $XDG_STATE_HOME/switchboard/tray-hint-shown,
// ~/.local/state/switchboard/tray-hint-shown by default; "" when the user
// has neither (the hint is then not shown: it could not be remembered).
func trayHintFile(getenv func(string) string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "switchboard", "tray-hint-shown")
	}
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		return ""
	}
	return filepath.Join(home, ".local", "state", "switchboard", "tray-hint-shown")
}

// claimTrayHint reports whether the hint is to be shown now: the file did
// not exist and was created (so that no later start shows it again).
// A file that cannot be created means no hint: better none than one at
// every login.
func claimTrayHint(path string, now time.Time) (bool, error) {
	if path == "" {
		return false, errors.New("no state directory (neither XDG_STATE_HOME nor HOME is set) to remember the tray hint in")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, err = fmt.Fprintf(f, "Switchboard showed how to get a tray icon on this desktop on %s.\nDelete this file to see it again.\n", now.UTC().Format(time.RFC3339))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err == nil, err
}
