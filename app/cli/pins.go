package cli

import (
	"os"
	"path/filepath"
	"runtime"
)

// PinsPath is the host's tool pin file (app/trust, docs/trust.md) in the
// user's state directory: $XDG_STATE_HOME/switchboard/pins.json,
// ~/.local/state/switchboard/pins.json by default; on macOS and Windows
// under the user's config directory (Application Support, %AppData%).
// "" when there is none: the host then pins nothing.
func PinsPath() string { return pinsPath(os.Getenv, runtime.GOOS) }

func pinsPath(getenv func(string) string, goos string) string {
	if goos == "darwin" || goos == "windows" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "switchboard", "pins.json")
	}
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "switchboard", "pins.json")
	}
	home := getenv("HOME")
	if !filepath.IsAbs(home) {
		return ""
	}
	return filepath.Join(home, ".local", "state", "switchboard", "pins.json")
}
