package hostapi

// GatewayInfo is the gateway's endpoints and naming, for 'switchboard
// tools'.
type GatewayInfo struct {
	Socket  string         `json:"socket"`
	HTTP    string         `json:"http,omitempty"` // the URL, when the HTTP endpoint is on
	Mapping GatewayMapping `json:"mapping"`
}

// GatewayMapping is what the gateway exposes of each server, as
// gateway.tools returns it (app/gateway builds it: its Mapping is this
// type).
type GatewayMapping struct {
	Tools     []MappedName     `json:"tools"`
	Prompts   []MappedName     `json:"prompts"`
	Resources []MappedResource `json:"resources"`
	// Templates are the resource templates (resources/templates/list).
	Templates []MappedTemplate `json:"templates,omitempty"`
	// Conflicts are resource URIs, and URI templates, that more than one
	// server lists: the gateway serves them from none.
	Conflicts []Conflict `json:"conflicts,omitempty"`
	// Pending are servers that are still starting: their lists come later.
	Pending []string `json:"pending,omitempty"`
}

// MappedName is a tool or prompt and its exposed name.
type MappedName struct {
	Exposed string `json:"exposed"`
	Server  string `json:"server"`
	Name    string `json:"name"`
	// Hidden says why it is not exposed; "" when it is.
	Hidden string `json:"hidden,omitempty"`
	// Trust is the pin store's state of a tool it hides ("held-new",
	// "held-changed", "rejected"; docs/trust.md); "" otherwise.
	Trust string `json:"trust,omitempty"`
}

// MappedResource is a resource and its server.
type MappedResource struct {
	URI    string `json:"uri"`
	Server string `json:"server"`
	Hidden string `json:"hidden,omitempty"`
}

// MappedTemplate is a resource template and its server.
type MappedTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Server      string `json:"server"`
	Hidden      string `json:"hidden,omitempty"`
}

// Conflict is a resource URI, or a resource template's URI template
// (Template), that several servers list.
type Conflict struct {
	URI      string   `json:"uri"`
	Servers  []string `json:"servers"`
	Template bool     `json:"template,omitempty"`
}
