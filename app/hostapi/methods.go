package hostapi

import (
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NameParams name one server, or all of them.
type NameParams struct {
	Name string `json:"name,omitempty"`
	All  bool   `json:"all,omitempty"`
	// Wait, for servers.stop, waits until the stop ladders finished.
	Wait bool `json:"wait,omitempty"`
}

// PutParams add (Create) or replace an entry.
type PutParams struct {
	Name   string          `json:"name"`
	Entry  json.RawMessage `json:"entry"`
	Create bool            `json:"create,omitempty"`
}

// RenameParams rename the entry Name to NewName: the config key changes,
// every field stays (the env's secret references too). A running server
// is stopped under its old name and started under the new one, and the
// names its tools have in the AI apps (SERVER__TOOL) change with it.
type RenameParams struct {
	Name    string `json:"name"`
	NewName string `json:"newName"`
}

// CallParams call a tool.
type CallParams struct {
	Name      string          `json:"name"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// SecretParams set or delete a secret; Value is only for secrets.set.
type SecretParams struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// SecretSetResult names the servers that secrets.set restarted (those
// that use the secret).
type SecretSetResult struct {
	Restarted []string `json:"restarted"`
}

// StopResult is host.stop's answer: the host is stopping.
type StopResult struct {
	Stopping bool `json:"stopping"`
}

// SecretInfo describes a stored secret: never its value.
type SecretInfo struct {
	Name   string   `json:"name"`
	UsedBy []string `json:"usedBy,omitempty"`
}

// LogsResult holds a server's kept stderr lines and, index for index,
// when each was read from the server (a host older than the times sends
// none: Times is then empty).
type LogsResult struct {
	Lines []string    `json:"lines"`
	Times []time.Time `json:"times,omitempty"`
}

// ToolsResult holds a running server's tools.
type ToolsResult struct {
	Tools []*mcp.Tool `json:"tools"`
}

// EntryResult holds one entry of the config file as written.
type EntryResult struct {
	Entry json.RawMessage `json:"entry"`
}
