package config

import (
	"fmt"
	"path/filepath"
)

// EnvConfig is the environment variable that names the config file.
const EnvConfig = "SWITCHBOARD_CONFIG"

// DefaultPath returns the config file's path when no --config flag is given
// (the flag wins over everything): $SWITCHBOARD_CONFIG if set, else
// config.json in a "switchboard" folder of the user's config directory as
// userConfigDir (normally [os.UserConfigDir]) returns it: ~/.config or
// $XDG_CONFIG_HOME on Linux, ~/Library/Application Support on macOS,
// %AppData% on Windows. getenv is normally [os.Getenv]. It reads nothing
// else, so every OS's answer can be tested anywhere.
func DefaultPath(getenv func(string) string, userConfigDir func() (string, error)) (string, error) {
	if p := getenv(EnvConfig); p != "" {
		return filepath.Clean(p), nil
	}
	dir, err := userConfigDir()
	if err != nil {
		return "", fmt.Errorf("finding the config directory: %w: set %s or pass --config", err, EnvConfig)
	}
	if dir == "" {
		return "", fmt.Errorf("the user has no config directory: set %s or pass --config", EnvConfig)
	}
	return filepath.Join(dir, "switchboard", "config.json"), nil
}
