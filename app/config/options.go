package config

import (
	"fmt"
	"strconv"
	"time"

	"github.com/switchboard-mcp/switchboard/engine"
)

//go:generate go test -run TestOptionDocs . -update

// OptionType says what a numeric option measures, and so its unit in the
// file and the type of the engine field it feeds.
type OptionType string

// The types of numeric options.
const (
	Duration OptionType = "duration" // milliseconds in the file; a time.Duration in the engine's Spec
	Bytes    OptionType = "bytes"    // bytes
	Count    OptionType = "count"    // a count of Option.Unit (lines, attempts)
)

// Option is one numeric option of a server entry. [Options] is the one
// place each is declared: decoding, validation, the engine spec, the
// window's form and the docs' tables (README.md and this package's
// comment, checked by a test) are derived from it. Adding an option is a
// row of [Options] plus the engine field it feeds.
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
	// spec returns the engine field the option feeds: an *int, or a
	// *time.Duration for a Duration. Nil for an option the app reads
	// itself ([Server.CallTimeout]).
	spec func(*engine.Spec) any
}

// Options are the numeric options of an entry, in the order a new entry
// writes them. Their defaults and ranges are the engine's (a test checks
// each bound against [engine.Spec.Check]).
var Options = []Option{
	{Key: "maxMessageBytes", Type: Bytes, Unit: "bytes",
		Default: engine.DefaultMaxMessageBytes, Min: 1 << 10, Max: 1 << 30,
		Label: "Largest message (bytes)",
		Help:  "A line longer than this on the server's stdout closes the connection (the server is restarted).",
		spec:  func(s *engine.Spec) any { return &s.MaxMessageBytes }},
	{Key: "writeQueueBytes", Type: Bytes, Unit: "bytes",
		Default: engine.DefaultWriteQueueBytes, Min: 1 << 10, Max: 1 << 30,
		Label: "Write queue (bytes)",
		Help:  "Bytes sent to the server but not yet read by it; past this the connection is closed.",
		spec:  func(s *engine.Spec) any { return &s.WriteQueueBytes }},
	{Key: "maxJunkLines", Type: Count, Unit: "lines",
		Default: engine.DefaultMaxJunkLines, Min: 0, Max: 1_000_000,
		Label: "Non-JSON stdout lines allowed",
		Help:  "Lines in a row on stdout that are not JSON-RPC (logs printed to the wrong stream) before the connection is closed.",
		spec:  func(s *engine.Spec) any { return &s.MaxJunkLines }},
	{Key: "maxReconnects", Type: Count, Unit: "attempts",
		Default: engine.DefaultMaxReconnects, Min: 0, Max: 1000,
		Label: "Restarts before giving up",
		Help:  "Failed starts in a row before the server is marked failed; 0 tries once.",
		spec:  func(s *engine.Spec) any { return &s.MaxReconnects }},
	{Key: "stdinGrace", Type: Duration, Unit: "ms",
		Default: ms(engine.DefaultStdinGrace), Min: 0, Max: ms(10 * time.Minute),
		Label: "Wait after closing stdin (ms)",
		Help:  "On stop, how long the server may take to exit after its stdin is closed, before SIGTERM.",
		spec:  func(s *engine.Spec) any { return &s.StdinGrace }},
	{Key: "termGrace", Type: Duration, Unit: "ms",
		Default: ms(engine.DefaultTermGrace), Min: 0, Max: ms(10 * time.Minute),
		Label: "Wait after SIGTERM (ms)",
		Help:  "On stop, how long the server may take to exit after SIGTERM, before SIGKILL.",
		spec:  func(s *engine.Spec) any { return &s.TermGrace }},
	{Key: "probeTimeout", Type: Duration, Unit: "ms",
		Default: ms(engine.DefaultProbeTimeout), Min: 1, Max: ms(10 * time.Minute),
		Label: "Protocol probe timeout (ms)",
		Help:  "How long to wait for an answer to server/discover before falling back to initialize.",
		spec:  func(s *engine.Spec) any { return &s.ProbeTimeout }},
	{Key: "handshakeTimeout", Type: Duration, Unit: "ms",
		Default: ms(engine.DefaultHandshakeTimeout), Min: 1, Max: ms(time.Hour),
		Label: "Handshake timeout (ms)",
		Help:  "How long to wait for the answer to initialize; past it the start has failed.",
		spec:  func(s *engine.Spec) any { return &s.HandshakeTimeout }},
	{Key: "callTimeout", Type: Duration, Unit: "ms",
		Default: ms(DefaultCallTimeout), Min: 1, Max: ms(24 * time.Hour),
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

// maxDurationMS keeps ms*1e6 far from overflowing a time.Duration: a
// larger value is not even put in the spec.
const maxDurationMS = 1 << 40

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

// numbers checks the numeric options of the entry, reporting each
// problem with bad, and sets the engine fields they feed: the default for
// an omitted key, -1 for an explicit 0 that is a value. A value out of
// range is passed on as it is (the entry is invalid anyway); a negative
// one, a 0 that is not allowed and a duration too long to convert leave
// the field 0.
func (s *Server) numbers(spec *engine.Spec, bad func(key, format string, args ...any)) {
	for k := range s.Numbers {
		if _, ok := OptionByKey(k); !ok {
			bad(k, "is not a numeric option: remove it")
		}
	}
	for _, o := range Options {
		v, set := s.Numbers[o.Key]
		if !set {
			v = o.Default
		} else if msg := o.check(v); msg != "" {
			bad(o.Key, "%s", msg)
			if v <= 0 || o.Type == Duration && v > maxDurationMS {
				continue
			}
		}
		if o.spec == nil {
			continue
		}
		switch f := o.spec(spec).(type) {
		case *int:
			*f = v
			if v == 0 {
				*f = -1 // the engine's "zero, not default"
			}
		case *time.Duration:
			*f = time.Duration(v) * time.Millisecond
			if v == 0 {
				*f = -1
			}
		default:
			panic(fmt.Sprintf("config: option %s feeds a %T", o.Key, f))
		}
	}
}
