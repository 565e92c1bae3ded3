package secrets

import (
	"regexp"
)

// NameRule describes a valid secret name, as used in error messages.
const NameRule = "a secret name is 1 to 64 characters: letters, digits, '_', '.' and '-', starting with a letter or digit"

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ValidName returns nil if name may name a secret (gh, GITHUB_TOKEN,
// openai.key: ^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$) and an *Error of Kind
// Invalid that states the rule otherwise.
func ValidName(name string) error {
	if nameRE.MatchString(name) {
		return nil
	}
	return &Error{Op: "validate", Name: name, Kind: Invalid, Err: errBadName}
}
