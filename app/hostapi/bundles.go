package hostapi

import "encoding/json"

// BundleInspectParams name a bundle file (.mcpb) by its absolute path on
// the host's machine, and the values of its user_config options as
// typed so far (a sensitive option's value is never needed: the card
// shows its keyring reference).
type BundleInspectParams struct {
	Path   string              `json:"path"`
	Name   string              `json:"name,omitempty"` // the server's name an install would take ("": the manifest's)
	Values map[string][]string `json:"values,omitempty"`
}

// BundleInspectResult is the bundle's card as 'switchboard bundles check
// --json' prints it (app/install's BundleCard: this contract depends on
// nothing, so it carries the card as JSON; a front end decodes it with
// install.BundleCard). Nothing of the bundle is kept.
type BundleInspectResult struct {
	Card json.RawMessage `json:"card"`
}

// BundleInstallParams are bundles.install's params: the bundle file's
// absolute path, the server's name in the config ("": the manifest's
// name made a valid one), the user_config values by key (several for a
// multiple option; a sensitive option's value goes to the keyring only),
// and Insist to install a bundle whose signature is invalid.
type BundleInstallParams struct {
	Path   string              `json:"path"`
	Name   string              `json:"name,omitempty"`
	Values map[string][]string `json:"values,omitempty"`
	Insist bool                `json:"insist,omitempty"`
	// NoStart skips the first start.
	NoStart bool `json:"noStart,omitempty"`
}

// BundleInstallResult is what bundles.install made: the server's name,
// what runs, its sandbox in words and why, the names of the keyring's
// secrets it stored (never a value), the bundle's version and where it
// was unpacked, and the first start as registry.add answers it.
type BundleInstallResult struct {
	Local      string   `json:"local"`
	Bundle     string   `json:"bundle"` // the manifest's name
	Version    string   `json:"version"`
	Signature  string   `json:"signature"` // "signed by CN (ORG)", "unsigned" or "invalid: WHY"
	Dir        string   `json:"dir"`
	Argv       []string `json:"argv"`
	Sandbox    string   `json:"sandbox"` // in words, or "none"
	SandboxWhy []string `json:"sandboxWhy,omitempty"`
	Unconfined string   `json:"unconfined,omitempty"` // why it runs with no sandbox
	Secrets    []string `json:"secrets,omitempty"`
	Warnings   []string `json:"warnings,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	// LockError: the server was added, but servers.lock could not be
	// written.
	LockError  string      `json:"lockError,omitempty"`
	FirstStart *FirstStart `json:"firstStart,omitempty"`
}
