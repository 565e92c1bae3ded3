package toolsearch

import (
	"encoding/json"
	"sort"
	"strings"

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
// app may call. Asked with intent and keywords, it answers compactly
// (CompactAnswer); asked with the older query alone, with full
// definitions (Answer); asked with describe, with the named tools' full
// definitions.
func FindTools() *mcp.Tool {
	return &mcp.Tool{
		Name:  FindToolsName,
		Title: "Find tools",
		Description: "Search the tools of this connection (they are not listed up front). Give intent (one sentence) " +
			"and keywords (3 to 8: the action, the object, the service, and synonyms of each). The answer lists the " +
			"best matches: name, what it does, arguments (name? is optional). Then call call_tool with a name and " +
			"its arguments; describe: [name] gives a tool's full input schema. If nothing fits, search again with other words.",
		InputSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"intent": map[string]any{
					"type":        "string",
					"description": "What you want to do, one sentence, e.g. \"Take a screenshot of the web page.\"",
				},
				"keywords": map[string]any{
					"type":        "array",
					"items":       map[string]any{"type": "string"},
					"description": "Words and synonyms, e.g. [\"screenshot\", \"capture\", \"browser\", \"page\", \"image\"].",
				},
				"describe": map[string]any{
					"type":        "array",
					"items":       map[string]any{"type": "string"},
					"description": "Tool names from an answer: get their full definitions instead of searching.",
				},
				"query": map[string]any{
					"type":        "string",
					"description": "Older form: the task in plain words, answered with full definitions.",
				},
				"limit": map[string]any{
					"type":        "integer",
					"minimum":     1,
					"maximum":     MaxLimit,
					"description": "At most this many tools (default 5 to 8).",
				},
			},
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
	Intent   string   `json:"intent,omitempty"`
	Keywords wordList `json:"keywords,omitempty"`
	Describe wordList `json:"describe,omitempty"`
	Query    string   `json:"query,omitempty"` // the older form
	Limit    int      `json:"limit,omitempty"`
}

// wordList is a list of strings that a model may also send as one string,
// split on commas ("read, file").
type wordList []string

func (w *wordList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*w = nil
		for _, s := range strings.Split(one, ",") {
			if s = strings.TrimSpace(s); s != "" {
				*w = append(*w, s)
			}
		}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return err
	}
	*w = list
	return nil
}

// Compact says whether the answer is compact (CompactAnswer): the call
// gave intent or keywords. The older form (query alone) keeps its full
// definitions and its limit of DefaultLimit.
func (a FindToolsArgs) Compact() bool {
	return strings.TrimSpace(a.Intent) != "" || len(a.SearchQuery().Keywords) > 0
}

// SearchQuery is what to search with: the intent and keywords; the older
// query, when there is no intent, stands for it (both given: the query's
// words are added as a keyword).
func (a FindToolsArgs) SearchQuery() Query {
	q := Query{Intent: a.Intent}
	for _, k := range a.Keywords {
		if k = strings.TrimSpace(k); k != "" {
			q.Keywords = append(q.Keywords, k)
		}
	}
	switch {
	case strings.TrimSpace(q.Intent) == "":
		q.Intent = a.Query
	case strings.TrimSpace(a.Query) != "":
		q.Keywords = append(q.Keywords, a.Query)
	}
	return q
}

// Empty says whether there is nothing to search for nor describe.
func (a FindToolsArgs) Empty() bool {
	return len(a.Describe) == 0 && len(a.SearchQuery().parts()) == 0
}

// Clamp is the limit to search with: DefaultLimit when unset (the older
// form; a compact answer's default is CompactMax, cut by Cut), at most
// MaxLimit.
func (a FindToolsArgs) Clamp() int {
	switch {
	case a.Limit <= 0 && a.Compact():
		return CompactMax
	case a.Limit <= 0:
		return DefaultLimit
	case a.Limit > MaxLimit:
		return MaxLimit
	}
	return a.Limit
}

// A compact answer without a limit holds at least CompactMin tools (as
// many as match) and up to CompactMax, those past CompactMin while their
// score is at least CloseRatio x the CompactMin-th's (a cut there would
// split tools the ranking cannot tell apart).
const (
	CompactMin = 5
	CompactMax = 8
	CloseRatio = 0.8
)

// Cut is how many of hits (best first, from a search with Clamp) the
// answer holds: all of them when the call set a limit or used the older
// form; else the first CompactMin, and those after while close.
func (a FindToolsArgs) Cut(hits []Hit) int {
	if a.Limit > 0 || !a.Compact() || len(hits) <= CompactMin {
		return len(hits)
	}
	n := CompactMin
	for n < len(hits) && hits[n].Score >= CloseRatio*hits[CompactMin-1].Score {
		n++
	}
	return n
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

// compactTool is one tool of a compact answer.
type compactTool struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Arguments   []string `json:"arguments,omitempty"`
}

// CompactAnswer is find_tools' answer to intent and keywords: one text
// block, {"tools":[{"name", "description", "arguments"}...]} with each
// tool's exposed name, the first line of its description (at most
// maxCompactDesc bytes; its title when it has no description) and its
// arguments' names, required ones first, an optional one marked with a
// trailing "?". The model asks for a full schema with describe.
func CompactAnswer(tools []*mcp.Tool) *mcp.CallToolResult {
	if len(tools) == 0 {
		return Answer(nil)
	}
	out := make([]compactTool, len(tools))
	for i, t := range tools {
		d := oneLine(t.Description)
		if d == "" {
			d = t.Title
		}
		out[i] = compactTool{Name: t.Name, Description: d, Arguments: argNames(t.InputSchema)}
	}
	b, err := json.Marshal(struct {
		Tools []compactTool `json:"tools"`
	}{out})
	if err != nil {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "find_tools: " + err.Error()}}}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}
}

// maxCompactDesc bounds a compact description (bytes, cut at a word).
const maxCompactDesc = 160

// oneLine is the first sentence or line of a description, at most
// maxCompactDesc bytes.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if len(s) > maxCompactDesc {
		cut := strings.LastIndexByte(s[:maxCompactDesc], ' ')
		if cut <= 0 {
			cut = maxCompactDesc
		}
		for cut > 0 && s[cut-1]&0xC0 == 0x80 { // not inside a UTF-8 sequence
			cut--
		}
		s = strings.TrimRight(s[:cut], " ,;:") + "..."
	}
	return s
}

// argNames are an input schema's top-level properties: the required ones
// in the schema's order of "required", then the others sorted, each with
// a trailing "?".
func argNames(schema any) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if json.Unmarshal(schemaJSON(schema), &s) != nil {
		return nil
	}
	var out []string
	req := map[string]bool{}
	for _, r := range s.Required {
		if _, ok := s.Properties[r]; ok && !req[r] {
			req[r] = true
			out = append(out, r)
		}
	}
	var opt []string
	for name := range s.Properties {
		if !req[name] {
			opt = append(opt, name+"?")
		}
	}
	sort.Strings(opt)
	return append(out, opt...)
}
