package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Separator joins a server's name and its tool's (or prompt's) name. Server
// names never contain it (they are lower-case letters, digits and '-'), so
// an exposed name splits on its first occurrence.
const Separator = "__"

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
type Filter struct {
	// Servers, if not empty, are the only servers the client sees.
	Servers []string `json:"servers,omitempty"`
	// Tools, if not empty, are path.Match patterns on the exposed tool
	// names (SERVER__TOOL); a tool is seen if one matches. A shortened
	// name also matches through its full SERVER__TOOL form.
	Tools []string `json:"tools,omitempty"`
}

// Check reports the first malformed pattern.
func (f Filter) Check() error {
	for _, p := range f.Tools {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("tool pattern %q is malformed (%v): patterns are those of path.Match, e.g. 'github__*' or '*__read_*'", p, err)
		}
	}
	return nil
}

// IsZero reports whether the filter lets everything through.
func (f Filter) IsZero() bool { return len(f.Servers) == 0 && len(f.Tools) == 0 }

// server reports whether the client sees the server at all.
func (f Filter) server(name string) bool {
	return len(f.Servers) == 0 || slices.Contains(f.Servers, name)
}

// tool reports whether the client sees a tool of a server it sees.
func (f Filter) tool(server, name, exposed string) bool {
	if !f.server(server) {
		return false
	}
	if len(f.Tools) == 0 {
		return true
	}
	full := server + Separator + name
	for _, p := range f.Tools {
		if ok, _ := path.Match(p, exposed); ok {
			return true
		}
		if full != exposed {
			if ok, _ := path.Match(p, full); ok {
				return true
			}
		}
	}
	return false
}
