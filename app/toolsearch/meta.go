package toolsearch

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The two tools an app sees in search mode, instead of every tool.
const (
	FindToolsName = "find_tools"
	CallToolName  = "call_tool"
)

// DefaultLimit and MaxLimit bound find_tools' limit argument.
const (
	DefaultLimit = 5
	MaxLimit     = 20
)

// FindTools is the definition of find_tools: it searches the tools the
// app may call and answers with the best matches' full definitions.
func FindTools() *mcp.Tool {
	return &mcp.Tool{
		Name:  FindToolsName,
		Title: "Find tools",
		Description: "Search the tools available through this connection and get the full definitions " +
			"(name, description, input schema) of the best matches, best first. The tools are not listed " +
			"up front: call find_tools first with the task in plain words, then call call_tool with one of " +
			"the returned names and arguments that match its input schema. If nothing fits, search again " +
			"with other words (a different verb, the service's name).",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"query": map[string]any{
					"type":        "string",
					"description": "What you want to do, in plain words, e.g. \"open a pull request on GitHub\" or \"screenshot a web page\".",
				},
				"limit": map[string]any{
					"type":        "integer",
					"minimum":     1,
					"maximum":     MaxLimit,
					"default":     DefaultLimit,
					"description": "How many tools to return at most.",
				},
			},
			"required":             []string{"query"},
			"additionalProperties": false,
		},
		Annotations: &mcp.ToolAnnotations{Title: "Find tools", ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}
}

// CallTool is the definition of call_tool: it calls a tool that
// find_tools returned, by its name.
func CallTool() *mcp.Tool {
	return &mcp.Tool{
		Name:  CallToolName,
		Title: "Call a tool",
		Description: "Call a tool that find_tools returned, by its exact name, with arguments that match " +
			"that tool's input schema. Returns the tool's own result. Use find_tools first: a name that " +
			"is not one of the available tools is an error.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name": map[string]any{
					"type":        "string",
					"description": "The tool's name exactly as find_tools returned it.",
				},
				"arguments": map[string]any{
					"type":        "object",
					"description": "The tool's arguments, an object matching its input schema.",
				},
			},
			"required":             []string{"name"},
			"additionalProperties": false,
		},
		Annotations: &mcp.ToolAnnotations{Title: "Call a tool"},
	}
}

// FindToolsArgs are find_tools' arguments.
type FindToolsArgs struct {
	Query string `json:"query"`
	Limit int    `json:"limit,omitempty"`
}

// Clamp is the limit to search with: DefaultLimit when unset, at most
// MaxLimit.
func (a FindToolsArgs) Clamp() int {
	switch {
	case a.Limit <= 0:
		return DefaultLimit
	case a.Limit > MaxLimit:
		return MaxLimit
	}
	return a.Limit
}

// CallToolArgs are call_tool's arguments.
type CallToolArgs struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Answer is find_tools' result for the tools found (full definitions, under
// the names they are called by): one text block, the JSON of
// {"tools":[...]}, as a tools/list result holds them. No structured copy:
// it would double the tokens the model reads. With no tool found, the
// text says so and how to go on.
func Answer(tools []*mcp.Tool) *mcp.CallToolResult {
	if len(tools) == 0 {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
			Text: "No tool matches. Search again with other words: a different verb, the object, or the service's name."}}}
	}
	b, err := json.Marshal(struct {
		Tools []*mcp.Tool `json:"tools"`
	}{tools})
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "find_tools: " + err.Error()}}}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}
