package cli

import "path/filepath"

// pinsPath is the host's tool pin file (app/trust, docs/trust.md) in the
// user's state directory ([StateDir], beside the activity log):
// $XDG_STATE_HOME/switchboard/pins.json, ~/.local/state/switchboard/
// pins.json by default. "" when there is no state directory: the host
// then pins nothing.
func pinsPath(getenv func(string) string) string {
	dir := StateDir(getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "pins.json")
}
