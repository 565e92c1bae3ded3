package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// State is a pinned tool's state (the contract's type: the API carries
// it as it is).
type State = hostapi.TrustState

const (
	// Trusted: its definition is the pinned one; apps see it.
	Trusted State = "trusted"
	// HeldNew: a tool that appeared on a server already known; hidden
	// until the user accepts it.
	HeldNew State = "held-new"
	// HeldChanged: its definition differs from the pinned one; hidden until
	// the user accepts the change (or the server goes back to the pinned
	// definition).
	HeldChanged State = "held-changed"
	// Rejected: the user rejected its definition; hidden until the server
	// presents a different one, which is then held for review.
	Rejected State = "rejected"
)

// Mode is a server's trust mode (config "trust").
type Mode string

const (
	// ModePin (the default, also for ""): new and changed tools are held.
	ModePin Mode = "pin"
	// ModeAuto: new and changed tools are accepted and pinned at once; the
	// change is still recorded (Pin.Previous) and scanned.
	ModeAuto Mode = "auto"
)

const (
	fileVersion = 1
	// MaxFileBytes bounds the pin file: a bigger one is not read, and a
	// change that would make it bigger is not written (Observe returns the
	// error; the store keeps working in memory).
	MaxFileBytes = 32 << 20
	// maxDefinition bounds one stored definition; over it only the hash is
	// kept (review then shows no old text, only that it changed).
	maxDefinition = 256 << 10
)

// Definition is a stored definition: its hash, its canonical JSON (absent
// when over 256 KiB), the scanner's flags, and when it was seen.
type Definition struct {
	Hash string          `json:"hash"`
	JSON json.RawMessage `json:"definition,omitempty"`
	// Flags are the scanner's findings when this definition was first seen.
	Flags []Flag    `json:"flags,omitempty"`
	Seen  time.Time `json:"seen"`
}

// Pin is what the store keeps of one tool.
type Pin struct {
	State State `json:"state"`
	// Pinned is the trusted definition; nil for a tool never accepted
	// (held-new, or rejected before ever being accepted).
	Pinned *Definition `json:"pinned,omitempty"`
	// Presented is the definition the server lists now when it differs
	// from Pinned (held-new, held-changed, rejected: the rejected one).
	Presented *Definition `json:"presented,omitempty"`
	// Previous is the definition Pinned replaced when it was last changed
	// by an accept or in auto mode: the record of the last change.
	Previous *Definition `json:"previous,omitempty"`
	// Changed is when the state or the pinned definition last changed.
	Changed time.Time `json:"changed"`
	// Listed: the server's last list had the tool.
	Listed bool `json:"listed"`
}

type serverPins struct {
	FirstSeen time.Time       `json:"firstSeen"`
	Tools     map[string]*Pin `json:"tools"`
}

type fileData struct {
	Version int                    `json:"version"`
	Servers map[string]*serverPins `json:"servers"`
}

// Store is a user's pin store, kept in one JSON file. It is safe for
// concurrent use.
type Store struct {
	path string
	now  func() time.Time // tests
	mu   sync.Mutex
	data fileData
	own  map[string]OwnHosts // each server's own hosts (SetOwnHosts), for the scan
}

// SetOwnHosts gives each server's own hosts (by server name), which the
// scan of its new definitions does not flag in a URL ([KindForeignURL]);
// a server not in own has none. The host sets them from the config before
// its servers start, and again at each change of it.
func (s *Store) SetOwnHosts(own map[string][]string) {
	m := make(map[string]OwnHosts, len(own))
	for name, hosts := range own {
		m[name] = OwnHosts(hosts)
	}
	s.mu.Lock()
	s.own = m
	s.mu.Unlock()
}

// CorruptError is returned by [Open] for a pin file that cannot be read
// as one: the file was moved aside (to Aside) and nothing was reset in
// place.
type CorruptError struct {
	Path  string
	Aside string // "" if it could not be moved
	Err   error
}

func (e *CorruptError) Error() string {
	if e.Aside == "" {
		return fmt.Sprintf("the tool pin file %s is damaged (%v), and could not be moved aside: move or repair it by hand, then start again", e.Path, e.Err)
	}
	return fmt.Sprintf("the tool pin file %s is damaged (%v): it was moved to %s. Opening again starts an empty pin file, where every server's tools are trusted as first seen; to keep the old pins instead, repair %s and move it back to %s", e.Path, e.Err, e.Aside, e.Aside, e.Path)
}

func (e *CorruptError) Unwrap() error { return e.Err }

// Open opens the pin store at path, which need not exist (its folder is
// made, 0700, on the first write). A file that is not a pin file is moved
// aside and reported as a [*CorruptError] (no store is returned: the
// caller shows the error, and may Open again to start anew); a file of a
// newer format is left alone and reported.
func Open(path string) (*Store, error) {
	s := &Store{path: path, now: time.Now, data: fileData{Version: fileVersion, Servers: map[string]*serverPins{}}}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the tool pin file %s cannot be read: %w", path, err)
	}
	raw, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	_ = f.Close()
	if err != nil {
		return nil, fmt.Errorf("the tool pin file %s cannot be read: %w", path, err)
	}
	if len(raw) > MaxFileBytes {
		return nil, s.corrupt(fmt.Errorf("it is over %d MiB", MaxFileBytes>>20))
	}
	var d fileData
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, s.corrupt(err)
	}
	if d.Version > fileVersion {
		return nil, fmt.Errorf("the tool pin file %s is of format %d, written by a newer Switchboard (this one reads %d): upgrade Switchboard, or move the file aside to start anew", path, d.Version, fileVersion)
	}
	if d.Version < 1 || d.Servers == nil {
		return nil, s.corrupt(fmt.Errorf("it has no version or no servers"))
	}
	for name, sp := range d.Servers {
		if sp == nil || sp.Tools == nil {
			return nil, s.corrupt(fmt.Errorf("server %q has no tools", name))
		}
		for tool, p := range sp.Tools {
			if err := p.check(); err != nil {
				return nil, s.corrupt(fmt.Errorf("server %q, tool %q: %w", name, tool, err))
			}
		}
	}
	s.data = d
	return s, nil
}

func (p *Pin) check() error {
	if p == nil {
		return errors.New("empty entry")
	}
	switch p.State {
	case Trusted, HeldChanged:
		if p.Pinned == nil {
			return fmt.Errorf("state %s without a pinned definition", p.State)
		}
	case HeldNew, Rejected:
	default:
		return fmt.Errorf("unknown state %q", p.State)
	}
	if p.State != Trusted && p.Presented == nil {
		return fmt.Errorf("state %s without the presented definition", p.State)
	}
	return nil
}

func (s *Store) corrupt(err error) error {
	aside := fmt.Sprintf("%s.damaged-%s", s.path, time.Now().UTC().Format("20060102T150405Z"))
	if rerr := os.Rename(s.path, aside); rerr != nil {
		aside = ""
	}
	return &CorruptError{Path: s.path, Aside: aside, Err: err}
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// save writes the store atomically (a temporary file in the same folder,
// 0600, synced, then renamed over the file). Called with s.mu held.
func (s *Store) save() error {
	raw, err := json.MarshalIndent(&s.data, "", " ")
	if err != nil {
		return fmt.Errorf("the tool pins cannot be encoded: %w", err)
	}
	if len(raw) > MaxFileBytes {
		return fmt.Errorf("the tool pin file %s would be over %d MiB: not written (the pins hold in memory until the host stops); remove servers that are gone with 'switchboard tools forget'", s.path, MaxFileBytes>>20)
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("the folder of the tool pin file %s cannot be made: %w", s.path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(s.path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("the tool pin file %s cannot be written: %w", s.path, err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil && !isWindows {
		return fmt.Errorf("the tool pin file %s cannot be written: %w", s.path, err)
	}
	if _, err := tmp.Write(raw); err != nil {
		return fmt.Errorf("the tool pin file %s cannot be written: %w", s.path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("the tool pin file %s cannot be written: %w", s.path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("the tool pin file %s cannot be written: %w", s.path, err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return fmt.Errorf("the tool pin file %s cannot be replaced: %w", s.path, err)
	}
	ok = true
	return nil
}

// ToolVerdict is what [Store.Observe] decided for one listed tool.
type ToolVerdict struct {
	Name    string `json:"name"`
	State   State  `json:"state"`
	Visible bool   `json:"visible"`
	// Hash is the listed definition's hash ("" if it could not be hashed:
	// such a tool is held as changed, with no definition to show).
	Hash string `json:"hash"`
	// New: the store saw this definition for the first time in this call
	// (first use, a new tool or a change); Flags were computed for it.
	New   bool   `json:"new,omitempty"`
	Flags []Flag `json:"flags,omitempty"`
}

// Verdict is the result of [Store.Observe].
type Verdict struct {
	Server string `json:"server"`
	// FirstSeen: the server was not known, and its tools were trusted as
	// first seen (trust on first use).
	FirstSeen bool          `json:"firstSeen,omitempty"`
	Tools     []ToolVerdict `json:"tools"`
}

// Visible reports whether apps may see (and call) the listed tool name.
func (v *Verdict) Visible(name string) bool {
	for i := range v.Tools {
		if v.Tools[i].Name == name {
			return v.Tools[i].Visible
		}
	}
	return false
}

// Tool returns the verdict on the listed tool name.
func (v *Verdict) Tool(name string) (ToolVerdict, bool) {
	for _, t := range v.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return ToolVerdict{}, false
}

// Held are the names of the listed tools that await review.
func (v *Verdict) Held() []string {
	var out []string
	for _, t := range v.Tools {
		if t.State.Held() {
			out = append(out, t.Name)
		}
	}
	return out
}

// HiddenReason is the text for a hidden tool (for the gateway's mapping
// and a refused call's tool error), "" for a visible one.
func HiddenReason(server string, st State) string {
	switch st {
	case HeldNew:
		return fmt.Sprintf("a new tool of %s: it awaits review (switchboard tools review %s)", server, server)
	case HeldChanged:
		return fmt.Sprintf("its definition changed: it awaits review (switchboard tools review %s)", server)
	case Rejected:
		return "its definition was rejected: hidden until it changes"
	}
	return ""
}

// Observe records the tools a server lists now and says which apps may
// see. A server seen for the first time (or that never listed a tool
// before) has all its tools trusted as they are (trust on first use). On a known server, in mode pin, a new tool is
// held-new and a changed one held-changed; in mode auto both are pinned at
// once (the change recorded in Pin.Previous). A rejected tool stays hidden
// while it presents the rejected definition. A tool that goes back to its
// pinned definition is trusted again. Every definition seen for the first
// time is scanned, with the tool names of the other servers in the store.
// The file is written only when something changed; a write error is
// returned with the verdict, which stands (the store holds it in memory).
func (s *Store) Observe(server string, mode Mode, tools []*mcp.Tool) (*Verdict, error) {
	if mode != ModeAuto {
		mode = ModePin
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now().UTC()
	v := &Verdict{Server: server}
	sp := s.data.Servers[server]
	dirty := false
	if sp == nil {
		sp = &serverPins{FirstSeen: now, Tools: map[string]*Pin{}}
		s.data.Servers[server] = sp
		dirty = true
	}
	// A server that has never listed a tool (one that lists none until
	// the user signs in, say) is still seen for the first time: its first
	// tools are trusted.
	v.FirstSeen = len(sp.Tools) == 0
	var others []string // computed on first need
	othersDone := false
	listed := map[string]bool{}
	for _, t := range tools {
		if t == nil || listed[t.Name] {
			continue // a second tool of one name: the gateway hides it anyway
		}
		listed[t.Name] = true
		def := Definition{Seen: now}
		canon, err := Canonical(t)
		if err == nil {
			def.Hash = hashOf(canon)
			if len(canon) <= maxDefinition {
				def.JSON = canon
			}
		} else {
			def.Hash = "unhashable"
		}
		scan := func() {
			if !othersDone {
				others, othersDone = s.otherNames(server), true
			}
			def.Flags = Scan(t, others, s.own[server]...)
		}
		p := sp.Tools[t.Name]
		tv := ToolVerdict{Name: t.Name, Hash: def.Hash}
		switch {
		case p == nil && (v.FirstSeen || mode == ModeAuto):
			scan()
			p = &Pin{State: Trusted, Pinned: &def, Changed: now}
			sp.Tools[t.Name] = p
			tv.New, dirty = true, true
		case p == nil:
			scan()
			p = &Pin{State: HeldNew, Presented: &def, Changed: now}
			sp.Tools[t.Name] = p
			tv.New, dirty = true, true
		case p.Presented != nil && p.Presented.Hash == def.Hash:
			// Still the held or rejected definition (or, in auto mode, a held
			// one from before the mode changed: accept it).
			if mode == ModeAuto && p.State.Held() {
				p.Previous, p.Pinned, p.Presented, p.State, p.Changed = p.Pinned, p.Presented, nil, Trusted, now
				dirty = true
			}
		case p.Pinned != nil && p.Pinned.Hash == def.Hash:
			// Back to the pinned definition (a rejected tool whose rejected
			// definition is the pinned one stopped in the case above).
			if p.State != Trusted {
				p.State, p.Presented, p.Changed = Trusted, nil, now
				dirty = true
			}
		default: // a definition not seen before
			scan()
			tv.New, dirty = true, true
			if mode == ModeAuto {
				p.Previous, p.Pinned, p.Presented, p.State, p.Changed = p.Pinned, &def, nil, Trusted, now
			} else {
				p.Presented, p.Changed = &def, now
				if p.Pinned == nil {
					p.State = HeldNew
				} else {
					p.State = HeldChanged
				}
			}
		}
		if !p.Listed {
			p.Listed, dirty = true, true
		}
		tv.State = p.State
		tv.Visible = p.State == Trusted
		if tv.New {
			tv.Flags = def.Flags
		}
		v.Tools = append(v.Tools, tv)
	}
	for name, p := range sp.Tools {
		if !listed[name] && p.Listed {
			p.Listed, dirty = false, true
		}
	}
	if !dirty {
		return v, nil
	}
	return v, s.save()
}

// otherNames are the tool names of every server but server, and their
// exposed names (SERVER__TOOL).
func (s *Store) otherNames(server string) []string {
	var out []string
	for name, sp := range s.data.Servers {
		if name == server {
			continue
		}
		for tool := range sp.Tools {
			out = append(out, tool, name+"__"+tool)
		}
	}
	return out
}

// ErrNotHeld is returned by Accept for a tool that awaits no review.
var ErrNotHeld = errors.New("awaits no review")

func (s *Store) pin(server, tool string) (*Pin, error) {
	sp := s.data.Servers[server]
	if sp == nil {
		return nil, fmt.Errorf("no server %q has been seen: see 'switchboard tools review' for the servers with held tools", server)
	}
	p := sp.Tools[tool]
	if p == nil {
		return nil, fmt.Errorf("server %q has listed no tool %q", server, tool)
	}
	return p, nil
}

// Accept pins the definition a held (or rejected) tool presents: it is
// trusted from now on.
func (s *Store) Accept(server, tool string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.pin(server, tool)
	if err != nil {
		return err
	}
	if p.State == Trusted {
		return fmt.Errorf("tool %q of %q %w: it is trusted", tool, server, ErrNotHeld)
	}
	if p.Pinned != nil {
		p.Previous = p.Pinned
	}
	p.Pinned, p.Presented, p.State, p.Changed = p.Presented, nil, Trusted, s.now().UTC()
	return s.save()
}

// Reject hides a tool until its definition changes: the definition it
// presents (a held one, or the pinned one of a trusted tool) is rejected.
func (s *Store) Reject(server, tool string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, err := s.pin(server, tool)
	if err != nil {
		return err
	}
	switch p.State {
	case Rejected:
		return nil
	case Trusted:
		d := *p.Pinned
		p.Presented = &d
	}
	p.State, p.Changed = Rejected, s.now().UTC()
	return s.save()
}

// Forget removes what the store knows of a server (a removed entry): if
// it comes back, it is seen for the first time again.
func (s *Store) Forget(server string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.data.Servers[server] == nil {
		return nil
	}
	delete(s.data.Servers, server)
	return s.save()
}

// Rename moves what the store knows of server old to new (a renamed
// entry keeps its pins: renaming a server must not make its held tools
// trusted on first use). Whatever new had is replaced; an unknown old is
// no change.
func (s *Store) Rename(old, new string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.data.Servers[old]
	if sp == nil || old == new {
		return nil
	}
	delete(s.data.Servers, old)
	s.data.Servers[new] = sp
	return s.save()
}

// Held is a tool that awaits review, as [Store.Review] shows it (the
// contract's type: the API carries it as it is).
type Held = hostapi.HeldTool

// Review returns the held tools of server that its last list has, by
// name; server "" is every server (by server, then name).
func (s *Store) Review(server string) ([]Held, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	if server == "" {
		for n := range s.data.Servers {
			names = append(names, n)
		}
		sort.Strings(names)
	} else {
		if s.data.Servers[server] == nil {
			return nil, fmt.Errorf("no server %q has been seen", server)
		}
		names = []string{server}
	}
	var out []Held
	for _, n := range names {
		sp := s.data.Servers[n]
		tools := make([]string, 0, len(sp.Tools))
		for t, p := range sp.Tools {
			if p.State.Held() && p.Listed {
				tools = append(tools, t)
			}
		}
		slices.Sort(tools)
		for _, t := range tools {
			out = append(out, review(n, t, sp.Tools[t]))
		}
	}
	return out, nil
}

// Pins returns a copy of what the store knows of server's tools, by name.
func (s *Store) Pins(server string) map[string]Pin {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.data.Servers[server]
	if sp == nil {
		return nil
	}
	out := make(map[string]Pin, len(sp.Tools))
	for n, p := range sp.Tools {
		out[n] = *p
	}
	return out
}

func review(server, tool string, p *Pin) Held {
	h := Held{Server: server, Tool: tool, State: p.State, Since: p.Changed}
	var oldDef, newDef json.RawMessage
	if p.Pinned != nil {
		oldDef = p.Pinned.JSON
	}
	if p.Presented != nil {
		newDef = p.Presented.JSON
		h.Flags = p.Presented.Flags
	}
	if len(oldDef) > 0 {
		h.Old = indented(oldDef)
	}
	if len(newDef) > 0 {
		h.New = indented(newDef)
	}
	oldDesc, oldRest := split(oldDef)
	newDesc, newRest := split(newDef)
	h.DescriptionDiff = Diff(oldDesc, newDesc)
	h.SchemaDiff = Diff(oldRest, newRest)
	return h
}

// split returns a canonical definition's description and the rest,
// indented.
func split(def json.RawMessage) (desc, rest string) {
	if len(def) == 0 {
		return "", ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(def, &m) != nil {
		return "", string(def)
	}
	if d, ok := m["description"]; ok {
		_ = json.Unmarshal(d, &desc)
		delete(m, "description")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return desc, ""
	}
	return desc, indented(b)
}

// parseMode reads a server's config "trust" value: "" and "pin" are
// [ModePin], "auto" is [ModeAuto].
func parseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModePin:
		return ModePin, nil
	case ModeAuto:
		return ModeAuto, nil
	}
	return "", fmt.Errorf("trust %q is not a trust mode: use \"pin\" (hold new and changed tools for review, the default) or \"auto\" (accept them)", s)
}

// HeldCounts is the number of tools awaiting review per server (those its
// last list has), for a badge; servers with none are left out.
func (s *Store) HeldCounts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]int{}
	for name, sp := range s.data.Servers {
		for _, p := range sp.Tools {
			if p.State.Held() && p.Listed {
				out[name]++
			}
		}
	}
	return out
}
