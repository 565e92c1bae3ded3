// Package termtext makes text that a server controls (its stderr, its
// error messages) safe to show to a person: on a terminal, in the tray's
// menu, in the window. One function, Escape, used wherever such text is
// shown, so that no path forgets one kind of control character.
package termtext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every character that could steer a terminal or
// hide text written as a visible escape, and everything else unchanged:
//
//   - C0 controls and DEL (ESC starts the sequences that retitle a
//     window, move the cursor or overwrite a line; CR overwrites a line;
//     BS erases): \e for ESC, \r, \n, \b, and \xNN for the others; a tab
//     is kept;
//   - C1 controls (U+0080 to U+009F; U+009B is a one-character CSI on
//     some terminals): \u009b;
//   - bidirectional overrides and isolates and the line and paragraph
//     separators (U+202A-U+202E, U+2066-U+2069, U+2028, U+2029), which can
//     make text read other than it is: \u202e;
//   - bytes that are not UTF-8: \xNN.
//
// A backslash is kept as it is, so Escape is not reversible; it is for
// display. Text with nothing to escape is returned as is.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unsafeRune(r, n) {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == 0x1b:
			b.WriteString(`\e`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\b':
			b.WriteString(`\b`)
		case r < 0x80:
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
		default:
			b.WriteString(`\u`)
			h := strconv.FormatInt(int64(r), 16)
			b.WriteString(strings.Repeat("0", 4-len(h)) + h)
		}
		i += n
	}
	return b.String()
}

// Lines escapes each line of lines (a new slice; lines is not changed).
func Lines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = Escape(l)
	}
	return out
}

func unsafeRune(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r == '\t':
		return false
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// Text is Escape for text of several lines: it keeps the line breaks (a
// CRLF is one) and escapes the rest of each line.
func Text(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = Escape(l)
	}
	return strings.Join(lines, "\n")
}

// JSON rewrites, as \u escapes, the characters that encoding/json leaves
// as they are but a terminal may act on: DEL, the C1 controls and the
// bidirectional controls (encoding/json already escapes C0 controls,
// U+2028 and U+2029, and replaces invalid UTF-8). b must be JSON: those
// characters can only be inside its strings, where the escape means the
// same character, so the document decodes to the same value.
func JSON(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r >= 0x80 && r <= 0x9f && n == 2) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			if out == nil {
				out = append(make([]byte, 0, len(b)+16), b[:i]...)
			}
			h := strconv.FormatInt(int64(r), 16)
			out = append(out, `\u`+strings.Repeat("0", 4-len(h))+h...)
		} else if out != nil {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	if out == nil {
		return b
	}
	return out
}
