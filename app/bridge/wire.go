package bridge

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"slices"
)

// The socket's wire format is MCP's stdio transport: one JSON-RPC message
// per line. A bridge first sends one line of its own, the preamble, and
// reads one line back; a client that starts with a JSON-RPC message has no
// filter.
//
//	→ {"switchboard": {"version": 1, "servers": ["github"], "tools": ["github__get_*"], "client": "bridge pid 4242", "fds": true}}
//	← {"switchboard": {"version": 1, "warnings": ["no server is named \"gihub\""], "fds": true}}
//	← {"switchboard": {"version": 1, "error": "tool pattern \"[\" is malformed ..."}}   (then the gateway closes)
//
// With "fds" on both sides (Unix, and the bridge's stdin and stdout are
// pipes or sockets), the bridge hands its stdin and stdout over and relays
// nothing: the host reads the app's requests and writes its responses
// itself, and the socket only tells the bridge when the session ends. The
// descriptors travel with the preamble itself (SCM_RIGHTS on its bytes,
// "inline": true), so that the host serves the app without waiting for a
// round trip; a host that takes them says "inline": true too. A host that
// does not know "inline" (an older one) loses them (a read without room
// for them closes them) and answers "fds": true alone: the bridge then
// sends them again after the answer, with one byte (SCM_RIGHTS), as
// before "inline" existed.
//
//	← {"switchboard": {"version": 1, "end": true}}                                  (the app closed stdin: exit 0)
//	← {"switchboard": {"version": 1, "end": true, "error": "the host is stopping"}} (exit 1)
//
// The bridge going away ends the session too.

// HelloVersion is the version of the preamble.
const HelloVersion = 1

// Hello is a bridge's preamble.
type Hello struct {
	Version int `json:"version"`
	Filter
	// Client describes the bridge for the host's log.
	Client string `json:"client,omitempty"`
	// FDs offers to hand the bridge's stdin and stdout over.
	FDs bool `json:"fds,omitempty"`
	// Inline: the descriptors came with this line.
	Inline bool `json:"inline,omitempty"`
}

// Welcome is the gateway's answer to a [Hello]; Error set means refused.
// With End set it is the last line of a session whose descriptors were
// handed over; Error then says why it ended, if not because the app
// closed its stdin.
type Welcome struct {
	Version  int      `json:"version"`
	Error    string   `json:"error,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
	// FDs accepts the bridge's stdin and stdout.
	FDs bool `json:"fds,omitempty"`
	// Inline: the host took the descriptors that came with the Hello;
	// with FDs and not Inline, the bridge sends them after the Welcome.
	Inline bool `json:"inline,omitempty"`
	End    bool `json:"end,omitempty"`
	// Notice, in the middle of a session whose descriptors were handed
	// over, is something the bridge says on its stderr (the session goes
	// on): a request the gateway could not take, and why.
	Notice string `json:"notice,omitempty"`
}

type helloLine struct {
	Switchboard *Hello `json:"switchboard"`
}

type welcomeLine struct {
	Switchboard *Welcome `json:"switchboard"`
}

// Separator joins a server's name and its tool's (or prompt's) name in the
// gateway's exposed names (SERVER__TOOL). Server names never contain it.
const Separator = "__"

// Filter is a client's own selection (a bridge's --servers and --tools):
// it narrows what the servers' config entries expose, never widens it.
type Filter struct {
	// Servers, if not empty, are the only servers the client sees.
	Servers []string `json:"servers,omitempty"`
	// Tools, if not empty, are path.Match patterns on the exposed tool
	// names (SERVER__TOOL); a tool is seen if one matches. A shortened
	// name also matches through its full SERVER__TOOL form.
	Tools []string `json:"tools,omitempty"`
	// Profile names a profile of the config (its top-level "profiles"):
	// the client sees what the profile and the two lists above all let
	// through. An unknown profile shows no tools until it exists.
	Profile string `json:"profile,omitempty"`
	// ToolMode is "all" (every tool) or "search" (find_tools and call_tool); empty: the profile's, else all.
	ToolMode string `json:"toolMode,omitempty"`
}

// The tool modes of a [Filter] (docs/toolsearch.md).
const (
	ToolModeAll    = "all"    // every tool the client sees is listed (also "")
	ToolModeSearch = "search" // find_tools and call_tool are listed instead
)

// ToolModes are the values of --tool-mode.
var ToolModes = []string{ToolModeAll, ToolModeSearch}

// Search reports whether the client sees the tools through find_tools
// and call_tool.
func (f Filter) Search() bool { return f.ToolMode == ToolModeSearch }

// Check reports the first malformed pattern, or an unknown tool mode.
func (f Filter) Check() error {
	if f.ToolMode != "" && !slices.Contains(ToolModes, f.ToolMode) {
		return fmt.Errorf("tool mode %q is unknown: it is %q (every tool, the default) or %q (find_tools and call_tool instead)", f.ToolMode, ToolModeAll, ToolModeSearch)
	}
	for _, p := range f.Tools {
		if _, err := path.Match(p, ""); err != nil {
			return fmt.Errorf("tool pattern %q is malformed (%v): patterns are those of path.Match, e.g. 'github__*' or '*__read_*'", p, err)
		}
	}
	return nil
}

// IsZero reports whether the filter lets everything through.
func (f Filter) IsZero() bool { return len(f.Servers) == 0 && len(f.Tools) == 0 && f.Profile == "" }

// SeesServer reports whether the client sees the server at all.
func (f Filter) SeesServer(name string) bool {
	return len(f.Servers) == 0 || slices.Contains(f.Servers, name)
}

// SeesTool reports whether the client sees a tool of a server, by the
// server's own name for it and the gateway's exposed name.
func (f Filter) SeesTool(server, name, exposed string) bool {
	if !f.SeesServer(server) {
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

// Handshake sends a bridge's preamble on a new connection to the gateway
// and reads the answer. The returned reader holds what the gateway sent
// after it; read the connection through it.
func Handshake(nc net.Conn, h Hello) (*bufio.Reader, *Welcome, error) {
	if _, err := nc.Write(helloBytes(h)); err != nil {
		return nil, nil, fmt.Errorf("sending the bridge's preamble to the gateway: %w", err)
	}
	return readWelcome(nc)
}

// helloBytes is the preamble's line.
func helloBytes(h Hello) []byte {
	h.Version = HelloVersion
	b, _ := json.Marshal(helloLine{Switchboard: &h}) // strings, slices and bools only
	return append(b, '\n')
}

// readWelcome reads the gateway's answer to the preamble.
func readWelcome(nc net.Conn) (*bufio.Reader, *Welcome, error) {
	br := bufio.NewReaderSize(nc, 64<<10)
	line, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, errors.New("the gateway closed the connection without answering: the host may be stopping; try again")
		}
		return nil, nil, fmt.Errorf("reading the gateway's answer: %w", err)
	}
	var w welcomeLine
	if err := json.Unmarshal(line, &w); err != nil || w.Switchboard == nil {
		return nil, nil, fmt.Errorf("the gateway's answer is not a Switchboard welcome (%q): the host may be of another version", truncate(line, 120))
	}
	if w.Switchboard.Error != "" {
		return nil, w.Switchboard, errors.New(w.Switchboard.Error)
	}
	return br, w.Switchboard, nil
}

// ErrHostGone is WaitEnd's error when the connection ends without the
// gateway's last line: the host died.
var ErrHostGone = errors.New("the Switchboard host closed the connection (it stopped or was killed); the app must start the bridge again")

// WaitEnd waits, after a hand-over of the descriptors, for the end of the
// session: nil when the app closed its stdin, else why it ended.
func WaitEnd(br *bufio.Reader) error { return WaitEndNotices(br, nil) }

// WaitEndNotices is WaitEnd that also passes the gateway's notices (see
// [Welcome]) to notice, as they come.
func WaitEndNotices(br *bufio.Reader, notice func(string)) error {
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var w welcomeLine
			if json.Unmarshal(line, &w) == nil && w.Switchboard != nil {
				if w.Switchboard.Notice != "" && notice != nil {
					notice(w.Switchboard.Notice)
				}
				if w.Switchboard.End {
					if w.Switchboard.Error != "" {
						return errors.New(w.Switchboard.Error)
					}
					return nil
				}
			}
		}
		if err != nil {
			return ErrHostGone
		}
	}
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
