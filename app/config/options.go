package config

import (
	"fmt"
	"strconv"
	"time"
)

//go:generate go test -run TestOptionDocs . -update

// OptionType says what a numeric option measures, and so its unit in the
// file and the type of the field it feeds in the engine's spec.
type OptionType string

// The types of numeric options.
const (
	Duration OptionType = "duration" // milliseconds in the file; a time.Duration in the engine's Spec
	Bytes    OptionType = "bytes"    // bytes
	Count    OptionType = "count"    // a count of Option.Unit (lines, attempts)
)

// Option is one numeric option of a server entry. [Options] is the one
// place each is declared, with its default: decoding, validation, the
// engine's spec (app/host, spec.go), the window's form and the docs'
// tables (README.md and this package's comment, checked by a test) are
// derived from it. Adding an option is a row of [Options], plus the
// engine field it feeds in app/host's specFields.
type Option struct {
	Key  string     // the key in an entry, e.g. "termGrace"
	Type OptionType // what it measures: Duration, Bytes or Count
	// Unit is what the number counts: "ms" for a Duration, "bytes" for
	// Bytes, the thing counted for a Count ("lines", "attempts").
	Unit string
	// Default is the value of an omitted key, in Unit.
	Default int
	// Min and Max bound the value, inclusive, in Unit. Min 0 means an
	// explicit 0 is a value ("none", "at once") rather than the default:
	// the engine gets its -1 ("zero, not default").
	Min, Max int
	Label    string // the form's label, with the unit
	Help     string // one sentence: what the option does; the form and the docs show it
	// Reserved, when not empty, says what will act on an option that is
	// read, checked and put in the spec, but not acted on yet. The form
	// leaves it out and the docs mark it.
	Reserved string
}

// Options are the numeric options of an entry, in the order a new entry
// writes them. The defaults are the app's: the host puts every option in
// the engine's spec, so the engine's own defaults never apply (app/host's
// tests check each bound against the engine's check).
var Options = []Option{
	{Key: "maxMessageBytes", Type: Bytes, Unit: "bytes",
		Default: 8 << 20, Min: 1 << 10, Max: 1 << 30,
		Label: "Largest message (bytes)",
		Help:  "A line longer than this on the server's stdout closes the connection (the server is restarted)."},
	{Key: "writeQueueBytes", Type: Bytes, Unit: "bytes",
		Default: 16 << 20, Min: 1 << 10, Max: 1 << 30,
		Label: "Write queue (bytes)",
		Help:  "Bytes sent to the server but not yet read by it; past this the connection is closed."},
	{Key: "maxJunkLines", Type: Count, Unit: "lines",
		Default: 10, Min: 0, Max: 1_000_000,
		Label: "Non-JSON stdout lines allowed",
		Help:  "Lines in a row on stdout that are not JSON-RPC (logs printed to the wrong stream) before the connection is closed."},
	{Key: "maxReconnects", Type: Count, Unit: "attempts",
		Default: 5, Min: 0, Max: 1000,
		Label: "Restarts before giving up",
		Help:  "Failed starts in a row before the server is marked failed; 0 tries once."},
	{Key: "stdinGrace", Type: Duration, Unit: "ms",
		Default: 2000, Min: 0, Max: ms(10 * time.Minute),
		Label: "Wait after closing stdin (ms)",
		Help:  "On stop, how long the server may take to exit after its stdin is closed, before SIGTERM."},
	{Key: "termGrace", Type: Duration, Unit: "ms",
		Default: 2000, Min: 0, Max: ms(10 * time.Minute),
		Label: "Wait after SIGTERM (ms)",
		Help:  "On stop, how long the server may take to exit after SIGTERM, before SIGKILL."},
	{Key: "probeTimeout", Type: Duration, Unit: "ms",
		Default: 3000, Min: 1, Max: ms(10 * time.Minute),
		Label: "Protocol probe timeout (ms)",
		Help:  "How long to wait for an answer to server/discover before falling back to initialize."},
	{Key: "handshakeTimeout", Type: Duration, Unit: "ms",
		Default: 60000, Min: 1, Max: ms(time.Hour),
		Label: "Handshake timeout (ms)",
		Help:  "How long to wait for the answer to initialize; past it the start has failed."},
	{Key: "callTimeout", Type: Duration, Unit: "ms",
		Default: 300000, Min: 1, Max: ms(24 * time.Hour),
		Label: "Tool call timeout (ms)",
		Help:  "A tool call that runs longer is cancelled and answered with an error."},
	{Key: "approvalTimeout", Type: Duration, Unit: "ms",
		Default: 120000, Min: 1000, Max: ms(24 * time.Hour),
		Label: "Approval timeout (ms)",
		Help:  "A call that asks the user (its policy says ask) and gets no answer in this time is denied."},
	{Key: "idleStop", Type: Duration, Unit: "ms",
		Default: ms(10 * time.Minute), Min: 1000, Max: ms(24 * time.Hour),
		Label: "Stop when idle (ms)",
		Help:  "An on-demand server (\"start\": \"on-demand\") is stopped after this long without a call; the file's \"defaults\" may set another default."},
}

// ms returns d in whole milliseconds.
func ms(d time.Duration) int { return int(d / time.Millisecond) }

// DefaultDuration returns the default of the Duration option key, as a
// duration: what the app uses when nothing else says (the relay's call
// timeout, the approvals' wait). It panics for a key of no Duration
// option.
func DefaultDuration(key string) time.Duration {
	o, ok := OptionByKey(key)
	if !ok || o.Type != Duration {
		panic("config: no duration option " + strconv.Quote(key))
	}
	return time.Duration(o.Default) * time.Millisecond
}

// OptionByKey returns the numeric option named key.
func OptionByKey(key string) (Option, bool) {
	for _, o := range Options {
		if o.Key == key {
			return o, true
		}
	}
	return Option{}, false
}

// ZeroIsValue reports whether an explicit 0 is a value (none, at once)
// rather than an error.
func (o Option) ZeroIsValue() bool { return o.Min == 0 }

// unitWord is the unit as a message spells it out: "milliseconds" for
// "ms".
func (o Option) unitWord() string {
	if o.Unit == "ms" {
		return "milliseconds"
	}
	return o.Unit
}

// Format writes v in the option's unit with, where it is round, the
// same in a larger unit: "8388608 (8 MiB)", "600000 ms (10 min)",
// "5 attempts".
func (o Option) Format(v int) string {
	s := strconv.Itoa(v)
	if o.Type == Duration {
		s += " ms"
	} else if o.Type == Count {
		s += " " + o.Unit
	}
	if h := o.human(v); h != "" {
		s += " (" + h + ")"
	}
	return s
}

// human returns v in the largest unit that divides it, or "".
func (o Option) human(v int) string {
	type unit struct {
		size int
		name string
	}
	var units []unit
	switch o.Type {
	case Bytes:
		units = []unit{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}}
	case Duration:
		units = []unit{{3_600_000, "h"}, {60_000, "min"}, {1000, "s"}}
	}
	for _, u := range units {
		if v != 0 && v%u.size == 0 {
			return fmt.Sprintf("%d %s", v/u.size, u.name)
		}
	}
	return ""
}

// check returns what is wrong with the value v of the option, naming the
// value, the range and the remedy, or "".
func (o Option) check(v int) string {
	unit := o.Unit
	dflt := fmt.Sprintf("or remove the key for the default (%d)", o.Default)
	switch {
	case v < 0:
		return fmt.Sprintf("%d is negative: give a number of %s (%d or more), %s", v, unit, o.Min, dflt)
	case v == 0 && !o.ZeroIsValue():
		return fmt.Sprintf("0 is not allowed: give a positive number of %s, %s", unit, dflt)
	case v < o.Min || v > o.Max:
		val := strconv.Itoa(v)
		if o.Type == Duration {
			val += " ms"
		}
		return fmt.Sprintf("%s is out of range: use %d to %d %s, %s", val, o.Min, o.Max, unit, dflt)
	}
	return ""
}

// Number returns the value of the numeric option key: as the entry sets
// it, or the default when the entry does not set it or sets it out of
// its range (which [File.Check] reports).
func (s *Server) Number(key string) int {
	o, ok := OptionByKey(key)
	if !ok {
		panic("config: no numeric option " + strconv.Quote(key))
	}
	if v, set := s.Numbers[key]; set && o.check(v) == "" {
		return v
	}
	return o.Default
}

// checkNumbers checks the numeric options of the entry, reporting each
// problem with bad.
func (s *Server) checkNumbers(bad func(key, format string, args ...any)) {
	for k := range s.Numbers {
		if _, ok := OptionByKey(k); !ok {
			bad(k, "is not a numeric option: remove it")
		}
	}
	for _, o := range Options {
		if v, set := s.Numbers[o.Key]; set {
			if msg := o.check(v); msg != "" {
				bad(o.Key, "%s", msg)
			}
		}
	}
}
