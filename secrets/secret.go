package secrets

import (
	"fmt"
	"log/slog"
	"strconv"
)

// Redacted is what every printed or encoded form of a Secret shows.
const Redacted = "[redacted]"

// Secret holds a secret value. Its String, GoString, Format (every verb),
// MarshalJSON, MarshalText and LogValue all give the redaction; Reveal
// returns the value. The zero Secret is empty.
//
// The value sits behind a pointer so that even reflection-based printing of
// a struct with an unexported Secret field (fmt prints those without
// calling their methods) shows an address, never the value.
type Secret struct {
	v *string
}

// New returns a Secret holding value.
func New(value string) Secret { return Secret{v: &value} }

// Reveal returns the value. Call it only where the value is used, never to
// print or log it.
func (s Secret) Reveal() string {
	if s.v == nil {
		return ""
	}
	return *s.v
}

// IsZero reports whether the Secret is empty.
func (s Secret) IsZero() bool { return s.Reveal() == "" }

// String returns the redaction.
func (s Secret) String() string { return Redacted }

// GoString returns the redaction, for %#v.
func (s Secret) GoString() string { return "secrets.Secret(" + strconv.Quote(Redacted) + ")" }

// Format prints the redaction for every verb: %q quotes it, %#v gives
// GoString, all others print it as is.
func (s Secret) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'q':
		_, _ = f.Write([]byte(strconv.Quote(Redacted)))
	case verb == 'v' && f.Flag('#'):
		_, _ = f.Write([]byte(s.GoString()))
	default:
		_, _ = f.Write([]byte(Redacted))
	}
}

// MarshalJSON returns the redaction as a JSON string.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(strconv.Quote(Redacted)), nil }

// MarshalText returns the redaction.
func (s Secret) MarshalText() ([]byte, error) { return []byte(Redacted), nil }

// LogValue makes slog log the redaction.
func (s Secret) LogValue() slog.Value { return slog.StringValue(Redacted) }

var (
	_ fmt.Stringer   = Secret{}
	_ fmt.GoStringer = Secret{}
	_ fmt.Formatter  = Secret{}
	_ slog.LogValuer = Secret{}
)
