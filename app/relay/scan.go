package relay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
)

// One pass over a JSON text that checks it (as encoding/json's Valid
// does: the grammar, strings without raw control characters, escapes)
// and, for an object, hands each top-level member's key and value to the
// caller as slices of the text. The relay reads a server's answer and an
// app's request with it, so that a 1 MiB result is walked once: no
// decoding into a map or a struct, no second parse to rebuild the line
// and no separate validity pass. Like encoding/json's Valid it does not
// check UTF-8.

var (
	errSyntax = errors.New("invalid JSON")
	errDeep   = errors.New("JSON nested too deeply")
)

// scanner walks one text; depth counts the open objects and arrays,
// against max.
type scanner struct {
	b     []byte
	depth int
	max   int
}

func (s *scanner) ws(i int) int {
	for i < len(s.b) {
		switch s.b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// members walks the object that starts at i (after white space) and calls
// fn with each member's key (with its quotes, as written) and value; it
// returns the index after the object. fn returning false stops the walk
// with errStop.
func (s *scanner) members(i int, fn func(key, val []byte) bool) (int, error) {
	return s.membersSub(i, fn, nil)
}

// membersSub is members, and sub, if set, may walk a member's object
// value itself: for a key it returns a function, the object's members
// are handed to that one (in the same pass that checks them), and fn
// gets the whole value after. sub sees this object's keys only.
func (s *scanner) membersSub(i int, fn func(key, val []byte) bool, sub func(key []byte) func(key, val []byte) bool) (int, error) {
	i = s.ws(i)
	if i >= len(s.b) || s.b[i] != '{' {
		return 0, errSyntax
	}
	if s.depth++; s.depth > s.max {
		return 0, errDeep
	}
	i = s.ws(i + 1)
	if i < len(s.b) && s.b[i] == '}' {
		s.depth--
		return i + 1, nil
	}
	for {
		if i >= len(s.b) || s.b[i] != '"' {
			return 0, errSyntax
		}
		ke, err := s.str(i)
		if err != nil {
			return 0, err
		}
		key := s.b[i:ke]
		i = s.ws(ke)
		if i >= len(s.b) || s.b[i] != ':' {
			return 0, errSyntax
		}
		vs := s.ws(i + 1)
		var ve int
		var inner func(key, val []byte) bool
		if sub != nil && vs < len(s.b) && s.b[vs] == '{' {
			inner = sub(key)
		}
		if inner != nil {
			ve, err = s.members(vs, inner)
		} else {
			ve, err = s.value(vs)
		}
		if err != nil {
			return 0, err
		}
		if fn != nil && !fn(key, s.b[vs:ve]) {
			return 0, errStop
		}
		i = s.ws(ve)
		if i >= len(s.b) {
			return 0, errSyntax
		}
		switch s.b[i] {
		case ',':
			i = s.ws(i + 1)
		case '}':
			s.depth--
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

var errStop = errors.New("stopped")

// value checks the value at i and returns the index after it.
func (s *scanner) value(i int) (int, error) {
	if i >= len(s.b) {
		return 0, errSyntax
	}
	switch c := s.b[i]; {
	case c == '"':
		return s.str(i)
	case c == '{':
		return s.members(i, nil)
	case c == '[':
		if s.depth++; s.depth > s.max {
			return 0, errDeep
		}
		i = s.ws(i + 1)
		if i < len(s.b) && s.b[i] == ']' {
			s.depth--
			return i + 1, nil
		}
		for {
			e, err := s.value(i)
			if err != nil {
				return 0, err
			}
			i = s.ws(e)
			if i >= len(s.b) {
				return 0, errSyntax
			}
			switch s.b[i] {
			case ',':
				i = s.ws(i + 1)
			case ']':
				s.depth--
				return i + 1, nil
			default:
				return 0, errSyntax
			}
		}
	case c == 't':
		return s.lit(i, "true")
	case c == 'f':
		return s.lit(i, "false")
	case c == 'n':
		return s.lit(i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return s.num(i)
	}
	return 0, errSyntax
}

func (s *scanner) lit(i int, word string) (int, error) {
	if len(s.b)-i < len(word) || string(s.b[i:i+len(word)]) != word {
		return 0, errSyntax
	}
	return i + len(word), nil
}

// num checks a number (JSON's grammar) at i.
func (s *scanner) num(i int) (int, error) {
	b := s.b
	if b[i] == '-' {
		i++
	}
	digits := func(i int) int {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(i + 1)
	default:
		return 0, errSyntax
	}
	if i < len(b) && b[i] == '.' {
		j := digits(i + 1)
		if j == i+1 {
			return 0, errSyntax
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(i)
		if j == i {
			return 0, errSyntax
		}
		i = j
	}
	return i, nil
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// str checks the string whose quote is at i and returns the index after
// its closing quote. It looks at the next 8 bytes at once (special): the
// next quote, backslash or control character is often that near (text
// dense with escapes). Past them it is likely a long plain run: the next
// quote and backslash are found with bytes.IndexByte (vectorised) and
// the control characters between 32 bytes at a time (ctl). Each byte is
// looked at a bounded number of times however many escapes the string
// holds: the next quote's place is kept until the scan passes it.
func (s *scanner) str(i int) (int, error) {
	b := s.b
	i++
	q := -1 // the next quote at or after i, once found
	for {
		near := false
		if i+8 <= len(b) {
			if m := special(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8 // the plain bytes before it
				near = true
			} else {
				i += 8
			}
		}
		if !near {
			if q < i {
				k := bytes.IndexByte(b[i:], '"')
				if k < 0 {
					return 0, errSyntax
				}
				q = i + k
			}
			end := q
			if k := bytes.IndexByte(b[i:q], '\\'); k >= 0 {
				end = i + k
			}
			if ctl(b[i:end]) {
				return 0, errSyntax
			}
			i = end
		}
		switch c := b[i]; {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(b) {
				return 0, errSyntax
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return 0, errSyntax
				}
				for _, h := range b[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return 0, errSyntax
					}
				}
				i += 6
			default:
				return 0, errSyntax
			}
		default: // a control character
			return 0, errSyntax
		}
	}
}

// special marks, in 8 bytes, the control characters, quotes and
// backslashes: the bytes a string's scan stops at. Only the lowest mark is
// exact (a borrow may mark a byte above a marked one), which is the one
// str uses.
func special(w uint64) uint64 {
	q, bs := w^('"'*ones), w^('\\'*ones)
	return ((w - 0x20*ones) &^ w & highs) | ((q - ones) &^ q & highs) | ((bs - ones) &^ bs & highs)
}

// ctl reports whether b holds a control character (below 0x20), which a
// JSON string may not hold raw: 32 bytes a step, then 8, then one.
func ctl(b []byte) bool {
	const c = 0x20 * ones
	for len(b) >= 32 {
		w0 := binary.LittleEndian.Uint64(b)
		w1 := binary.LittleEndian.Uint64(b[8:])
		w2 := binary.LittleEndian.Uint64(b[16:])
		w3 := binary.LittleEndian.Uint64(b[24:])
		if ((w0-c)&^w0|(w1-c)&^w1|(w2-c)&^w2|(w3-c)&^w3)&highs != 0 {
			return true
		}
		b = b[32:]
	}
	for len(b) >= 8 {
		w := binary.LittleEndian.Uint64(b)
		if (w-c)&^w&highs != 0 {
			return true
		}
		b = b[8:]
	}
	for _, x := range b {
		if x < 0x20 {
			return true
		}
	}
	return false
}

// objectMembers checks that b is one JSON object (white space around it
// allowed), nested at most max deep, and calls fn with each of its
// top-level members.
func objectMembers(b []byte, max int, fn func(key, val []byte) bool) error {
	s := scanner{b: b, max: max}
	e, err := s.members(0, fn)
	if err != nil {
		return err
	}
	if s.ws(e) != len(b) {
		return errSyntax
	}
	return nil
}

// validValue checks that b is one JSON value nested at most max deep.
func validValue(b []byte, max int) error {
	s := scanner{b: b, max: max}
	i := s.ws(0)
	e, err := s.value(i)
	if err != nil {
		return err
	}
	if s.ws(e) != len(b) {
		return errSyntax
	}
	return nil
}

// Members checks that obj is one JSON object and calls fn with each of its
// top-level members: the key as written (with its quotes and any escapes)
// and the value's bytes; fn returning false stops the walk (and Members
// returns an error). Nesting deeper than 10,000 levels is refused, as
// encoding/json refuses it.
func Members(obj []byte, fn func(key, val []byte) bool) error {
	return objectMembers(obj, maxArgsDepth, fn)
}

// Valid reports whether b is one JSON value, nested at most 10,000
// levels deep.
func Valid(b []byte) bool { return validValue(b, maxArgsDepth) == nil }
