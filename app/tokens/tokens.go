// Package tokens counts the tokens of what an AI app receives from
// Switchboard: a tools/list result, a prompts/list result, any text.
//
// The count is an approximation, stated here and in docs/toolsearch.md:
// it uses OpenAI's o200k_base BPE vocabulary (the GPT-4o / o-series
// tokenizer), embedded in the binary by github.com/tiktoken-go/tokenizer,
// so nothing is downloaded at run time. Anthropic's Claude tokenizer is
// not public; o200k_base is the stand-in. On English prose and JSON the
// modern BPE vocabularies agree within a few tens of percent, so the
// counts are right for comparing (all tools vs search mode, one server vs
// another) and for the order of magnitude an app pays, not to the token.
// What is counted is the JSON the gateway sends (the result object of
// tools/list, {"tools":[...]}), not the app's own framing of it for the
// model, which adds a small amount per tool.
package tokens

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer/codec"
)

// Encoding names the vocabulary Count uses.
const Encoding = "o200k_base"

var (
	once sync.Once
	bpe  *codec.Codec
)

// get builds the codec on first use (about 0.1 s: the vocabulary's map).
// Only o200k_base is linked into the binary: the codec package is used
// directly, not through tokenizer.Get, which would link all four.
func get() *codec.Codec {
	once.Do(func() { bpe = codec.NewO200kBase() })
	return bpe
}

// Count is the number of o200k_base tokens of text. Special-token text
// such as "<|endoftext|>" counts as the text it is, not as one token,
// since an app never sends it as a special token. Invalid UTF-8 is counted
// byte for byte. Safe for concurrent use.
func Count(text string) int {
	if text == "" {
		return 0
	}
	n, err := get().Count(text)
	if err != nil {
		// Not reached with the codec's default error mode; an estimate
		// beats a zero.
		return (len(text) + 3) / 4
	}
	return n
}

// Cost is the size of what an app receives.
type Cost struct {
	Bytes  int `json:"bytes"`
	Tokens int `json:"tokens"`
}

// Add is the sum of two costs.
func (c Cost) Add(o Cost) Cost { return Cost{Bytes: c.Bytes + o.Bytes, Tokens: c.Tokens + o.Tokens} }

// TextCost is the cost of a text.
func TextCost(text string) Cost { return Cost{Bytes: len(text), Tokens: Count(text)} }

// JSONCost is the cost of v serialized as encoding/json serializes it (the
// go-sdk's wire form).
func JSONCost(v any) (Cost, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return Cost{}, err
	}
	return TextCost(string(b)), nil
}

// ToolsCost is the cost of a tools/list result holding tools, serialized
// as the gateway sends it: the go-sdk's ListToolsResult, {"tools":[...]},
// with the tools as given (pass them under their exposed names,
// SERVER__TOOL, to count what an app pays). A tool that cannot be
// serialized is left out, as the gateway leaves it out.
func ToolsCost(tools []*mcp.Tool) Cost {
	return listCost(tools, func(ts []*mcp.Tool) any { return &mcp.ListToolsResult{Tools: ts} })
}

// PromptsCost is the cost of a prompts/list result holding prompts.
func PromptsCost(prompts []*mcp.Prompt) Cost {
	return listCost(prompts, func(ps []*mcp.Prompt) any { return &mcp.ListPromptsResult{Prompts: ps} })
}

func listCost[T any](items []*T, wrap func([]*T) any) Cost {
	kept := make([]*T, 0, len(items))
	for _, it := range items {
		if it == nil {
			continue
		}
		if _, err := json.Marshal(it); err != nil {
			continue
		}
		kept = append(kept, it)
	}
	c, err := JSONCost(wrap(kept))
	if err != nil { // every item marshals on its own, so the list does
		return Cost{}
	}
	return c
}
