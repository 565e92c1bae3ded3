package hostapi

import "encoding/json"

// RegistrySearchParams are registry.search's params: what to look for in
// the registries' local indexes and the built-in catalog (never the
// network), and at most how many results (0: 20).
type RegistrySearchParams struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// RegistrySearchResult is registry.search's result: the entries found,
// best first, how many were searched, and a note per index that was
// never synced (it answers from the snapshot built into Switchboard, or
// has nothing).
type RegistrySearchResult struct {
	Results []RegistryResult `json:"results"`
	Entries int              `json:"entries"`
	Notes   []string         `json:"notes,omitempty"`
}

// RegistryResult is one entry found: what 'switchboard registry search
// --json' prints of it, and whether Switchboard can run it.
type RegistryResult struct {
	Name          string `json:"name"`
	Registry      string `json:"registry"` // the registry's name in the config, or "catalog" (a built-in template)
	Title         string `json:"title,omitempty"`
	Description   string `json:"description,omitempty"`
	Version       string `json:"version,omitempty"`
	Status        string `json:"status"` // active or deprecated
	StatusMessage string `json:"statusMessage,omitempty"`
	// Packages are its packages as "registryType:identifier"
	// ("npm:@scope/pkg"); Remote says it has a remote (a URL).
	Packages []string `json:"packages,omitempty"`
	Remote   bool     `json:"remote,omitempty"`
	// Runnable says Switchboard can run one of its packages or remotes;
	// when not, Why says why.
	Runnable bool    `json:"runnable"`
	Why      string  `json:"why,omitempty"`
	Score    float64 `json:"score"`
}

// RegistryShowParams name an entry: its full name, or the part after its
// namespace when only one entry has it; Registry picks one of several.
type RegistryShowParams struct {
	Name     string `json:"name"`
	Registry string `json:"registry,omitempty"`
}

// RegistryShowResult is an entry's card as 'switchboard registry show
// --json' prints it (app/registry's Card: this contract depends on
// nothing, so it carries the card as JSON; a front end decodes it with
// registry.Card).
type RegistryShowResult struct {
	Card json.RawMessage `json:"card"`
}

// RegistryAddParams are registry.add's params: the entry (Name,
// Registry as for registry.show; Version "" is the indexed one), the
// server's name in the config (Local; "" is the entry's name after its
// namespace), the inputs' values by key (a secret's value goes to the
// keyring only), the package or remote to use (1-based as the card
// numbers them; 0 and 0: the first Switchboard can run), and Unlocked
// (an npm package run with npx instead of installed locked).
type RegistryAddParams struct {
	Name     string            `json:"name"`
	Version  string            `json:"version,omitempty"`
	Registry string            `json:"registry,omitempty"`
	Local    string            `json:"local,omitempty"`
	Values   map[string]string `json:"values,omitempty"`
	Package  int               `json:"package,omitempty"`
	Remote   int               `json:"remote,omitempty"`
	Unlocked bool              `json:"unlocked,omitempty"`
	// NoStart skips the first start of a locked install.
	NoStart bool `json:"noStart,omitempty"`
}

// RegistryAddResult is what registry.add made. Secrets are the names of
// the keyring's secrets it stored, never a value.
type RegistryAddResult struct {
	Local  string `json:"local"`
	Entry  string `json:"entry"` // the registry entry's name
	Chosen string `json:"chosen"`
	// Argv is what runs (a package), URL where it connects (a remote).
	Argv []string `json:"argv,omitempty"`
	URL  string   `json:"url,omitempty"`
	// Locked is the locked install's summary (nil: not installed locked).
	Locked   *LockSummary `json:"locked,omitempty"`
	Secrets  []string     `json:"secrets,omitempty"`
	Warnings []string     `json:"warnings,omitempty"`
	Notes    []string     `json:"notes,omitempty"`
	// LockError: the server was added, but servers.lock could not be
	// written.
	LockError string `json:"lockError,omitempty"`
	// FirstStart is the first start of a locked install (nil: none was
	// made: not installed locked, or NoStart).
	FirstStart *FirstStart `json:"firstStart,omitempty"`
}

// FirstStart is a server's first start just after its add: started once
// under its sandbox, its tools listed (their pins taken, their hashes
// in servers.lock), or why it failed (the server stays added).
type FirstStart struct {
	Sandbox string      `json:"sandbox"` // in words: "files; read and write /srv", or "none"
	Tools   []FirstTool `json:"tools,omitempty"`
	Error   string      `json:"error,omitempty"`
}

// FirstTool is one tool of a first start: what it says, and its
// annotations in words ("read-only", "destructive", "open world", …).
type FirstTool struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Hints       []string `json:"hints,omitempty"`
}

// LockSummary is a locked install as servers.lock records it.
type LockSummary struct {
	Package       string `json:"package"`
	Version       string `json:"version"`
	Packages      int    `json:"packages"` // in the tree, the package itself included
	Dir           string `json:"dir"`
	TreeIntegrity string `json:"treeIntegrity"`
}
