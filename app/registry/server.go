// Package registry reads MCP registries (the official one at
// registry.modelcontextprotocol.io, or any registry with its v0.1 API),
// keeps a local index of each registry's latest server versions on disk,
// searches it, and describes an entry before anything runs (docs/registry.md).
//
// Nothing here runs a server or writes the config: the index is read by
// 'switchboard registry search' and 'show' (and later the window), and
// synced only when asked ('switchboard registry sync'), never on a
// keystroke. A snapshot built into the program (snapshot.json.gz, made by
// gen/snapshot) answers searches before the first sync, offline.
package registry

import "encoding/json"

// Server is a server.json document (schema 2025-12-11 and its drafts): the
// fields an installer reads. Unknown fields are not kept.
type Server struct {
	Schema      string      `json:"$schema,omitempty"`
	Name        string      `json:"name"` // reverse-DNS namespace, a slash, a name: io.github.owner/repo
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description,omitempty"`
	Version     string      `json:"version,omitempty"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Icons       []Icon      `json:"icons,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Remote    `json:"remotes,omitempty"`
}

// Repository is where a server's source is.
type Repository struct {
	URL       string `json:"url,omitempty"`
	Source    string `json:"source,omitempty"` // github, gitlab...
	ID        string `json:"id,omitempty"`     // the host's id of the repository (detects a repository re-created under the same name)
	Subfolder string `json:"subfolder,omitempty"`
}

// Icon is one of a server's icons (shown only when its src is https).
type Icon struct {
	Src      string   `json:"src"`
	MimeType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Package is one way to run a server locally.
type Package struct {
	RegistryType         string     `json:"registryType"` // npm, pypi, oci, nuget, mcpb
	RegistryBaseURL      string     `json:"registryBaseUrl,omitempty"`
	Identifier           string     `json:"identifier"` // the package name, the full OCI reference, or the .mcpb URL
	Version              string     `json:"version,omitempty"`
	FileSHA256           string     `json:"fileSha256,omitempty"`
	RuntimeHint          string     `json:"runtimeHint,omitempty"` // npx, uvx, docker, dnx
	Transport            Transport  `json:"transport"`
	RuntimeArguments     []Argument `json:"runtimeArguments,omitempty"`
	PackageArguments     []Argument `json:"packageArguments,omitempty"`
	EnvironmentVariables []KeyValue `json:"environmentVariables,omitempty"`
}

// Transport is how a client speaks to the server: stdio, or
// streamable-http or sse at a URL.
type Transport struct {
	Type    string     `json:"type"`
	URL     string     `json:"url,omitempty"`
	Headers []KeyValue `json:"headers,omitempty"`
}

// Remote is a server that runs elsewhere, at a URL (a template when it
// has {variables}).
type Remote struct {
	Type      string           `json:"type"` // streamable-http or sse
	URL       string           `json:"url"`
	Headers   []KeyValue       `json:"headers,omitempty"`
	Variables map[string]Input `json:"variables,omitempty"`
}

// Input is a value the user may (or must) give.
type Input struct {
	Description string           `json:"description,omitempty"`
	IsRequired  bool             `json:"isRequired,omitempty"`
	IsSecret    bool             `json:"isSecret,omitempty"`
	Format      string           `json:"format,omitempty"` // string, number, boolean, filepath
	Value       string           `json:"value,omitempty"`  // fixed; may hold {variables}
	Default     string           `json:"default,omitempty"`
	Placeholder string           `json:"placeholder,omitempty"`
	Choices     []string         `json:"choices,omitempty"`
	Variables   map[string]Input `json:"variables,omitempty"`
}

// Argument is a runtime or package argument: positional (its value) or
// named (its name, then its value if it has one).
type Argument struct {
	Input
	Type       string `json:"type"` // positional or named
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
}

// KeyValue is an environment variable or a header.
type KeyValue struct {
	Input
	Name string `json:"name"`
}

// The statuses of an entry (in the registry's metadata).
const (
	StatusActive     = "active"
	StatusDeprecated = "deprecated"
	StatusDeleted    = "deleted"
)

// OfficialMeta is what the registry says of a server version, beside the
// document: _meta["io.modelcontextprotocol.registry/official"].
type OfficialMeta struct {
	Status          string `json:"status,omitempty"`
	StatusChangedAt string `json:"statusChangedAt,omitempty"`
	StatusMessage   string `json:"statusMessage,omitempty"`
	PublishedAt     string `json:"publishedAt,omitempty"`
	UpdatedAt       string `json:"updatedAt,omitempty"`
	IsLatest        *bool  `json:"isLatest,omitempty"`
}

// OfficialKey is the _meta key of the registry's own metadata.
const OfficialKey = "io.modelcontextprotocol.registry/official"

// ServerResponse is one item of a list, or the answer for one version.
type ServerResponse struct {
	Server Server                     `json:"server"`
	Meta   map[string]json.RawMessage `json:"_meta,omitempty"`
}

// Official is the registry's metadata of the item (zero when absent or
// unreadable).
func (r *ServerResponse) Official() OfficialMeta {
	var m OfficialMeta
	if raw, ok := r.Meta[OfficialKey]; ok {
		_ = json.Unmarshal(raw, &m)
	}
	return m
}

// ServerList is the answer of GET /v0.1/servers.
type ServerList struct {
	Servers  []ServerResponse `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor,omitempty"`
		Count      int    `json:"count,omitempty"`
	} `json:"metadata"`
}
