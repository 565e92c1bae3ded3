package hostapi

// CostMethod is how the host counts: the method string of every [Cost].
const CostMethod = "o200k_base BPE, approximate for non-OpenAI models"

// CostParams select what an app would see, as a bridge's flags do
// (bridge.Filter): no field set is an app that sees everything.
type CostParams struct {
	// Servers, if not empty, are the only servers counted (--servers).
	Servers []string `json:"servers,omitempty"`
	// Tools are path.Match patterns on the exposed names (--tools).
	Tools []string `json:"tools,omitempty"`
	// Profile names a profile of the config (--profile): its selection
	// combines with Servers and Tools as the bridge's does.
	Profile string `json:"profile,omitempty"`
	// ToolMode is the bridge's --tool-mode ("" or "all": every tool;
	// "search": the two search tools instead).
	ToolMode string `json:"toolMode,omitempty"`
}

// Size is the bytes and the o200k tokens of what an app receives.
type Size struct {
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
}

// Add is the sum of two sizes.
func (s Size) Add(o Size) Size { return Size{Bytes: s.Bytes + o.Bytes, Tokens: s.Tokens + o.Tokens} }

// Cost is tools.cost's answer.
type Cost struct {
	// Method says how tokens are counted ([CostMethod]).
	Method string `json:"method"`
	// Servers are the servers the selection sees, sorted by name.
	Servers []ServerCost `json:"servers"`
	// Tools is the tools/list result the app receives, Prompts the
	// prompts/list result; Total their sum: what the app pays before its
	// first message. The servers still counting (Pending) are not in them.
	Tools   Size `json:"tools"`
	Prompts Size `json:"prompts"`
	Total   Size `json:"total"`
	// Pending names the servers whose lists are still being counted (or
	// not known yet: starting): their cost is unknown, not 0.
	Pending []string `json:"pending,omitempty"`
	// Apps are the connected apps (the gateway's sessions) and what each
	// pays with its own selection.
	Apps []AppCost `json:"apps,omitempty"`
}

// ServerCost is one server's share of a [Cost]: the tools and prompts of
// it that the selection sees, under their exposed names (SERVER__NAME).
type ServerCost struct {
	Server string `json:"server"`
	// Tools and Prompts are how many are counted.
	Tools   int `json:"tools"`
	Prompts int `json:"prompts"`
	// Bytes and Tokens are the server's tools and prompts together:
	// ToolsSize + PromptsSize.
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
	// ToolsSize is the server's tools; when the selection sees all of
	// them, the tools/list result of the server alone (its envelope
	// included), else the sum of the tools' own sizes.
	ToolsSize   Size `json:"toolsSize"`
	PromptsSize Size `json:"promptsSize"`
	// Pending: the server's lists are still being counted; the figures
	// are unknown (not 0).
	Pending bool `json:"pending,omitempty"`
	// PerTool is each tool the selection sees: its definition's size as
	// JSON, by exposed name, sorted.
	PerTool []ToolCost `json:"perTool,omitempty"`
}

// ToolCost is one tool's definition.
type ToolCost struct {
	Name   string `json:"name"`
	Bytes  int    `json:"bytes"`
	Tokens int    `json:"tokens"`
}

// AppCost is a connected app and what it pays before its first message.
type AppCost struct {
	// App is the name the app gave in its handshake (clientInfo.name);
	// "" if it gave none yet.
	App string `json:"app,omitempty"`
	// Conn names its connection ("bridge pid 4242", "http").
	Conn string `json:"conn"`
	// Servers and Tools are its bridge's selection (--servers, --tools).
	Servers []string `json:"servers,omitempty"`
	Tools   []string `json:"tools,omitempty"`
	// Profile and ToolMode are its bridge's --profile and --tool-mode.
	Profile  string `json:"profile,omitempty"`
	ToolMode string `json:"toolMode,omitempty"`
	// ToolCount is how many tools its tools/list has: the tools of the
	// servers it sees that it may see (2, find_tools and call_tool, in
	// tool mode "search"), without those of a pending server.
	ToolCount int `json:"toolCount"`
	// Total is its tools/list and prompts/list results.
	Total Size `json:"total"`
	// Pending: a server it sees is still being counted; Total leaves it
	// out.
	Pending bool `json:"pending,omitempty"`
}
