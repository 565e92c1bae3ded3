package service

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RunKeyStore is the values of the Windows Run key: the real registry
// (HKEY_CURRENT_USER, on Windows), or a fake in tests.
type RunKeyStore interface {
	// Get returns the value's data, and false when there is none.
	Get(name string) (string, bool, error)
	Set(name, data string) error
	// Delete removes the value; a missing one is no error.
	Delete(name string) error
}

// Autostart starts the tray app at login: an XDG autostart entry on Linux,
// a LaunchAgent on macOS, a value under the Run key on Windows.
type Autostart struct {
	env Env
	reg RunKeyStore
}

// NewAutostart returns the autostart setting of env; reg is the Run key on
// Windows (nil: the real one, which exists on Windows only).
func NewAutostart(env Env, reg RunKeyStore) *Autostart {
	if reg == nil {
		reg = registryRunKey{}
	}
	return &Autostart{env: env, reg: reg}
}

// Path is the autostart entry's file ("" on Windows: see [Autostart.Where]).
func (a *Autostart) Path() (string, error) {
	e := a.env
	switch e.GOOS {
	case "windows":
		return "", nil
	case "darwin":
		h, err := e.Home()
		if err != nil {
			return "", err
		}
		return join(e.GOOS, h, "Library/LaunchAgents/"+AutostartLabel+".plist"), nil
	default:
		d, err := e.configHome()
		if err != nil {
			return "", err
		}
		return join(e.GOOS, d, "autostart/"+DesktopFile), nil
	}
}

// Where says, for a person, where the setting lives.
func (a *Autostart) Where() string {
	if a.env.GOOS == "windows" {
		return `HKEY_CURRENT_USER\` + RunKey + `\` + RunValue
	}
	p, err := a.Path()
	if err != nil {
		return err.Error()
	}
	return p
}

// Content is the entry that starts the tray: the .desktop file, the
// plist, or the Run value's command line.
func (a *Autostart) Content() (string, error) {
	switch a.env.GOOS {
	case "windows":
		return a.env.RunCommand()
	case "darwin":
		return a.env.AutostartPlist()
	default:
		return a.env.DesktopEntry()
	}
}

// Enabled says whether the tray starts at login.
func (a *Autostart) Enabled() (bool, error) {
	if a.env.GOOS == "windows" {
		_, ok, err := a.reg.Get(RunValue)
		return ok, err
	}
	p, err := a.Path()
	if err != nil {
		return false, err
	}
	_, err = os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Enable makes the tray start at login (replacing an entry for another
// executable). It does not start the tray now.
func (a *Autostart) Enable() error {
	c, err := a.Content()
	if err != nil {
		return err
	}
	if a.env.GOOS == "windows" {
		return a.reg.Set(RunValue, c)
	}
	p, err := a.Path()
	if err != nil {
		return err
	}
	if err := writeFileAtomic(p, []byte(c), 0o644); err != nil {
		return fmt.Errorf("writing the autostart entry: %w", err)
	}
	return nil
}

// Disable stops the tray from starting at login; it is no error when it
// did not.
func (a *Autostart) Disable() error {
	if a.env.GOOS == "windows" {
		return a.reg.Delete(RunValue)
	}
	p, err := a.Path()
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing the autostart entry: %w", err)
	}
	return nil
}

// writeFileAtomic writes path through a temporary file in its directory
// and a rename, creating the directory.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
