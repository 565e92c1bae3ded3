package toolsearch

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func obviousDocs() []Doc {
	return []Doc{
		{Name: "files__read_file", Server: "files", Description: "Read the complete contents of a file as text.",
			Params: []Param{{Name: "path", Description: "Path of the file"}}},
		{Name: "files__write_file", Server: "files", Description: "Create a new file or overwrite an existing one.",
			Params: []Param{{Name: "path"}, {Name: "content", Description: "Text to write"}}},
		{Name: "files__list_directory", Server: "files", Description: "List the entries of a directory."},
		{Name: "github__create_issue", Server: "github", Description: "Create a new issue in a GitHub repository",
			Params: []Param{{Name: "owner"}, {Name: "repo"}, {Name: "title"}, {Name: "body"}}},
		{Name: "github__create_pull_request", Server: "github", Description: "Create a new pull request in a GitHub repository"},
		{Name: "slack__slack_post_message", Server: "slack", Description: "Post a new message to a Slack channel",
			Params: []Param{{Name: "channel_id"}, {Name: "text"}}},
		{Name: "maps__maps_elevation", Server: "maps", Description: "Get elevation data for locations on the earth"},
		{Name: "browser__take_screenshot", Server: "browser", Title: "Take a screenshot", Description: "Capture the current page as an image."},
	}
}

func TestSearchRanksObviousCases(t *testing.T) {
	ix := New(obviousDocs())
	for q, want := range map[string]string{
		"read a file":                            "files__read_file",
		"save this text into notes.md":           "files__write_file",
		"what is in this folder":                 "files__list_directory",
		"open an issue on GitHub":                "github__create_issue",
		"open a PR":                              "github__create_pull_request",
		"send a message to the #general channel": "slack__slack_post_message",
		"how high above sea level is Denver":     "maps__maps_elevation",
		"take a picture of the page":             "browser__take_screenshot",
		"writing files":                          "files__write_file",
	} {
		hits := ix.Search(q, 1)
		if len(hits) == 0 || hits[0].Name != want {
			t.Errorf("Search(%q) = %v, want %s first", q, hits, want)
		}
	}
}

func TestSearchLimitsAndOrders(t *testing.T) {
	ix := New(obviousDocs())
	hits := ix.Search("create a file or an issue or a pull request", 3)
	if len(hits) != 3 {
		t.Fatalf("limit 3 gave %d hits", len(hits))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Fatalf("not best first: %v", hits)
		}
	}
	for _, h := range hits {
		if ix.docs[h.Doc].Name != h.Name {
			t.Fatalf("hit %v: Doc does not index its name", h)
		}
	}
	if got := ix.Search("the of and", 5); got != nil {
		t.Fatalf("a query of stop words found %v", got)
	}
	if got := ix.Search("zyxxy quuxly", 5); got != nil {
		t.Fatalf("a query no tool matches found %v", got)
	}
	if got := ix.Search("read a file", 0); got != nil {
		t.Fatalf("limit 0 found %v", got)
	}
	if got := New(nil).Search("read a file", 5); got != nil {
		t.Fatalf("an empty index found %v", got)
	}
}

func TestSearchServerNameCounts(t *testing.T) {
	docs := []Doc{
		{Name: "github__create_issue", Server: "github", Description: "Create a new issue in a repository"},
		{Name: "gitlab__create_issue", Server: "gitlab", Description: "Create a new issue in a project"},
	}
	ix := New(docs)
	for q, want := range map[string]string{"file an issue in gitlab": "gitlab__create_issue", "github issue please": "github__create_issue"} {
		if h := ix.Search(q, 1); len(h) == 0 || h[0].Name != want {
			t.Errorf("Search(%q) = %v, want %s", q, h, want)
		}
	}
}

func TestDocOfReadsSchemas(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","description":"Where"},"mode":{"type":"string","enum":["fast","slow"]}}}`)
	var decoded map[string]any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	for _, schema := range []any{raw, decoded} {
		d := DocOf("files", "files__read", &mcp.Tool{Name: "read", Description: "Read", InputSchema: schema,
			Annotations: &mcp.ToolAnnotations{Title: "Reader"}})
		if d.Name != "files__read" || d.Server != "files" || d.Title != "Reader" || d.Description != "Read" {
			t.Fatalf("DocOf = %+v", d)
		}
		if len(d.Params) != 2 || d.Params[0].Name != "mode" || d.Params[1].Name != "path" || d.Params[1].Description != "Where" {
			t.Fatalf("params of %T = %+v", schema, d.Params)
		}
		if d.Params[0].Description != " fast slow" {
			t.Fatalf("enum values not searched: %q", d.Params[0].Description)
		}
	}
	if d := DocOf("s", "s__x", &mcp.Tool{Name: "x", InputSchema: "not a schema"}); len(d.Params) != 0 {
		t.Fatalf("a bad schema gave params %+v", d.Params)
	}
}

func TestSearchUsesParameters(t *testing.T) {
	docs := []Doc{
		{Name: "a__geocode", Description: "Convert", Params: []Param{{Name: "address", Description: "street address to convert"}}},
		{Name: "a__other", Description: "Convert things"},
	}
	if h := New(docs).Search("convert a street address", 1); len(h) == 0 || h[0].Name != "a__geocode" {
		t.Fatalf("parameter words not searched: %v", h)
	}
}
