package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/bridge"
)

// Separator joins a server's name and its tool's (or prompt's) name. Server
// names never contain it (they are lower-case letters, digits and '-'), so
// an exposed name splits on its first occurrence.
const Separator = bridge.Separator

// MaxNameLen is the longest exposed name: longer ones are shortened.
const MaxNameLen = 64

// hashLen is the length of the hex hash that ends a shortened name.
const hashLen = 8

// ExposedName is the name under which the gateway exposes a server's tool
// or prompt: SERVER__NAME, or, if that is longer than 64 bytes, its first
// 55 bytes, '_' and 8 hex digits of a SHA-256 of the server's and the
// tool's names. The same pair always gets the same name.
func ExposedName(server, name string) string {
	full := server + Separator + name
	if len(full) <= MaxNameLen {
		return full
	}
	sum := sha256.Sum256([]byte(server + "\x00" + name))
	keep := MaxNameLen - hashLen - 1
	// Do not cut a UTF-8 sequence in half.
	for keep > 0 && !isRuneStart(full[keep]) {
		keep--
	}
	return full[:keep] + "_" + hex.EncodeToString(sum[:])[:hashLen]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// SplitName splits an exposed name on its first "__". It does not undo the
// shortening: the gateway's map does.
func SplitName(exposed string) (server, name string, ok bool) {
	return strings.Cut(exposed, Separator)
}

// Filter is a client's own selection (a bridge's --servers and --tools):
// it narrows what the servers' config entries expose, never widens it.
type Filter = bridge.Filter

// The tool modes of a [Filter]: every tool, or find_tools and call_tool
// (search.go).
const (
	ToolModeAll    = bridge.ToolModeAll
	ToolModeSearch = bridge.ToolModeSearch
)
