package hostapi

import (
	"encoding/json"
	"strconv"
)

// The problems of a server's entry and of the config file travel as data
// and, beside it, as the sentences that hosts sent before they were data:
//
//	"problems":    ["mcpServers.x.cwd: \"x\" is not absolute: give an absolute path"]
//	"problemData": [{"server": "x", "key": "cwd", "message": "...", "remedy": {...}}]
//
// The host and its clients ship in one binary, but meet across versions:
// after an upgrade, a tray or a bridge started before it talks to a host
// started after it (a service restarted by the package manager), or a new
// tray to the old host that still runs until it restarts. An older client
// reads "problems" as a list of strings: the sentences keep it working (a
// list of objects there would fail its whole decode: no status at all).
// A newer client reads "problemData", and from an older host (which sends
// only the sentences) takes each sentence as a Problem with only its
// Message. docs/decisions.md has the reasons.

// serverStatusFields and configStatusFields are the statuses without their
// JSON methods, for those methods to encode the other fields as usual.
type (
	serverStatusFields ServerStatus
	configStatusFields ConfigStatus
)

// MarshalJSON encodes the status with its problems twice (see above).
func (s ServerStatus) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		serverStatusFields
		problemsWire
	}{serverStatusFields(s), wireOf(s.Problems)})
}

// UnmarshalJSON decodes a status of this version or an older one.
func (s *ServerStatus) UnmarshalJSON(b []byte) error {
	w := struct {
		*serverStatusFields
		problemsWire
	}{serverStatusFields: (*serverStatusFields)(s)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	s.Problems = w.problems()
	return nil
}

// MarshalJSON encodes the status with its problems twice (see above).
func (c ConfigStatus) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		configStatusFields
		problemsWire
	}{configStatusFields(c), wireOf(c.Problems)})
}

// UnmarshalJSON decodes a status of this version or an older one.
func (c *ConfigStatus) UnmarshalJSON(b []byte) error {
	w := struct {
		*configStatusFields
		problemsWire
	}{configStatusFields: (*configStatusFields)(c)}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	c.Problems = w.problems()
	return nil
}

// problemsWire is the problems' wire form.
type problemsWire struct {
	Sentences []string  `json:"problems,omitempty"`
	Data      []Problem `json:"problemData,omitempty"`
}

func wireOf(ps []Problem) problemsWire {
	if len(ps) == 0 {
		return problemsWire{}
	}
	w := problemsWire{Sentences: make([]string, len(ps)), Data: ps}
	for i, p := range ps {
		w.Sentences[i] = p.Sentence()
	}
	return w
}

// problems are the problems a status carried: its data, or, from an older
// host, its sentences as problems with only a Message.
func (w problemsWire) problems() []Problem {
	if len(w.Data) > 0 {
		return w.Data
	}
	if len(w.Sentences) == 0 {
		return nil
	}
	out := make([]Problem, len(w.Sentences))
	for i, s := range w.Sentences {
		out[i] = Problem{Message: s}
	}
	return out
}

// Path names where a problem is as a path into the config file
// (mcpServers.files.cwd, mcpServers.files, gateway.httpPort); "" for a
// problem that says nothing of where it is (the file as a whole, or an
// older host's sentence, which names it itself).
func (p Problem) Path() string {
	if p.Server == "" {
		if p.Key == KeyName {
			return ""
		}
		return p.Key
	}
	s := "mcpServers." + p.Server
	if !validServerName(p.Server) {
		s = "mcpServers[" + strconv.Quote(p.Server) + "]"
	}
	if p.Key != "" && p.Key != KeyName {
		s += "." + p.Key
	}
	return s
}

// Sentence is the problem as one line with where it is:
// `mcpServers.files.cwd: "x" is not absolute: ...`.
// It is what an older client shows, and the log.
func (p Problem) Sentence() string {
	if where := p.Path(); where != "" {
		return where + ": " + p.Message
	}
	return p.Message
}

// Error is the problem as app/config reports it (a Problem is an error
// there): the Sentence, with "config" as the place of a problem of the
// file as a whole.
func (p Problem) Error() string {
	if p.Server == "" && p.Key == "" {
		return "config: " + p.Message
	}
	return p.Sentence()
}

// validServerName is app/config's ValidServerName (1 to 31 lower-case
// letters, digits and '-', starting with a letter or digit), which this
// package does not import; a test holds them together.
func validServerName(name string) bool {
	if len(name) == 0 || len(name) > 31 || name[0] == '-' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
