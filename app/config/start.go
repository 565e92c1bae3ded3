package config

import (
	"encoding/json"
	"fmt"
	"time"
)

// The start modes of an entry ("start"; docs/sleep.md).
const (
	// StartAlways runs the server from the host's start until it stops
	// (the default, and the behaviour before issue 15).
	StartAlways = "always"
	// StartOnDemand lets the server sleep: the gateway lists its tools
	// from a cache on disk, the first call starts it, and it stops again
	// after idleStop without a call.
	StartOnDemand = "on-demand"
)

// ValidStart reports whether v is a start mode.
func ValidStart(v string) bool { return v == StartAlways || v == StartOnDemand }

// startMsg is the remedy of a start mode that is not one.
const startMsg = `use "always" (run from the host's start, the default) or "on-demand" (sleep until the first call); until then the server starts as "always"`

// Defaults are the file's defaults for every entry: the optional
// top-level "defaults" object.
//
//	"defaults": {"start": "on-demand", "idleStop": 600000}
//
// An entry's own "start" or "idleStop" wins over them.
type Defaults struct {
	Start    string // "" (always), StartAlways or StartOnDemand
	IdleStop int    // ms; 0: the option's default
}

// defaultsKeys are the keys of the "defaults" object.
const defaultsKeys = `"start", "idleStop"`

// Defaults returns the file's defaults. A malformed value is left out (the
// built-in default applies) and is a problem of the file ([File.Check]):
// a typo never changes how a server starts.
func (f *File) Defaults() Defaults {
	d, _ := f.defaults()
	return d
}

// defaults reads "defaults", returning what is usable and the problems.
func (f *File) defaults() (Defaults, []Problem) {
	var d Defaults
	raw, ok := f.extra["defaults"]
	if !ok || isNull(raw) {
		return d, nil
	}
	ms, _, err := decodeObject(raw)
	if err != nil {
		return d, []Problem{{Key: "defaults", Message: fmt.Sprintf(`%s is not an object: write {"start": "on-demand", "idleStop": 600000}, or remove it`, rawString(raw))}}
	}
	var ps []Problem
	for _, m := range ms {
		switch m.Key {
		case "start":
			var v string
			if json.Unmarshal(m.Value, &v) != nil || !ValidStart(v) {
				ps = append(ps, Problem{Key: "defaults.start", Message: fmt.Sprintf("%s is not a start mode: %s", rawString(m.Value), startMsg)})
				continue
			}
			d.Start = v
		case "idleStop":
			o, _ := OptionByKey("idleStop")
			var v int64
			if err := json.Unmarshal(m.Value, &v); err != nil {
				ps = append(ps, Problem{Key: "defaults.idleStop", Message: fmt.Sprintf("%s is not a whole number: give a number of milliseconds, like %d", rawString(m.Value), o.Default)})
				continue
			}
			if msg := o.check(int(v)); msg != "" {
				ps = append(ps, Problem{Key: "defaults.idleStop", Message: msg})
				continue
			}
			d.IdleStop = int(v)
		default:
			ps = append(ps, Problem{Key: "defaults." + m.Key, Message: "is not a known key: the defaults are " + defaultsKeys})
		}
	}
	return d, ps
}

// defaultsProblems are the problems of the "defaults" key, for the
// [Report].
func (f *File) defaultsProblems() []Problem {
	_, ps := f.defaults()
	return ps
}

// decodeStart reads an entry's "start". A value that is not a start mode
// is a notice, not a problem: the entry stays valid and starts as
// "always", as before the key existed, so that a typo stops nothing.
func (s *Server) decodeStart(raw json.RawMessage) bool {
	var v string
	if json.Unmarshal(raw, &v) != nil || !ValidStart(v) {
		s.notices = append(s.notices, Problem{Key: "start", Message: fmt.Sprintf("%s is not a start mode: %s", rawString(raw), startMsg)})
		return false // kept as written
	}
	s.Start = v
	return true
}

// StartMode returns how the entry starts under the file's defaults d: its
// own "start", else the default's, else "always". An entry whose "start"
// is not a start mode starts as "always".
func (s *Server) StartMode(d Defaults) string {
	switch {
	case s.Start != "":
		return s.Start
	case len(s.notices) > 0 && s.hasKey("start"):
		return StartAlways
	case d.Start != "":
		return d.Start
	}
	return StartAlways
}

// IdleStop returns how long an on-demand server may go without a call
// before it is stopped: the entry's idleStop, else the file's default,
// else the option's default (600000 ms).
func (s *Server) IdleStop(d Defaults) time.Duration {
	ms := s.Number("idleStop")
	if _, set := s.Numbers["idleStop"]; (!set || ms != s.Numbers["idleStop"]) && d.IdleStop > 0 {
		ms = d.IdleStop
	}
	return time.Duration(ms) * time.Millisecond
}

func (s *Server) hasKey(k string) bool {
	for _, key := range s.keys {
		if key == k {
			return true
		}
	}
	return false
}
