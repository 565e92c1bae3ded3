package hostapi

import "time"

// TopicRegistry carries a RegistryEvent after each background sync of a
// registry's index (docs/registry.md, "The local index and its sync").
const TopicRegistry = "registry"

// RegistryStatus is the host's word on one registry of the config: its
// local index and the host's background sync of it.
type RegistryStatus struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	// SyncedAt is the index's last complete sync (zero: never; the
	// official registry then answers from the built-in snapshot).
	SyncedAt time.Time `json:"syncedAt,omitzero"`
	Entries  int       `json:"entries"` // the index's entries
	// LastError is the last background sync's failure, with what to do
	// (empty after a sync that succeeded); NextSync is when the host
	// tries next.
	LastError string    `json:"lastError,omitempty"`
	LastTry   time.Time `json:"lastTry,omitzero"`
	NextSync  time.Time `json:"nextSync,omitzero"`
}

// RegistryNotice is a change of status in a registry of an entry a
// server was added from (servers.lock): deleted (the server is then
// disabled) or deprecated (it keeps running).
type RegistryNotice struct {
	ID       int       `json:"id"` // increasing, per host
	At       time.Time `json:"at"`
	Server   string    `json:"server"`   // the server's name in the config
	Registry string    `json:"registry"` // the registry's name
	Entry    string    `json:"entry"`    // the entry's name in the registry
	Status   string    `json:"status"`   // "deleted" or "deprecated"
	Message  string    `json:"message,omitempty"`
	// Disabled: the host disabled the entry ("disabled": true).
	Disabled bool `json:"disabled,omitempty"`
	// Line says it in one sentence: "NAME was removed from the registry
	// REG: MESSAGE; it is disabled".
	Line string `json:"line"`
}

// RegistryEvent is the payload of TopicRegistry: Info's registry
// fields again.
type RegistryEvent struct {
	Registries []RegistryStatus `json:"registries"`
	Updates    int              `json:"updates"`
	Notices    []RegistryNotice `json:"notices,omitempty"`
}
