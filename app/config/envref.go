package config

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

var (
	serverNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,30}$`)
	secretNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)
)

// ValidServerName reports whether name may name a server: 1 to 31
// lower-case letters, digits and '-', starting with a letter or digit. Names
// become tool-name prefixes, so they never contain "__".
func ValidServerName(name string) bool { return serverNameRE.MatchString(name) }

// ValidSecretName reports whether name may name a secret in the keyring: 1 to
// 64 letters, digits, '.', '_' and '-', starting with a letter or digit.
func ValidSecretName(name string) bool { return secretNameRE.MatchString(name) }

// CheckEnvName returns an error naming name if it cannot name an
// environment variable of a server (in env or inheritEnv): a name is not
// empty and has no whitespace, no '=' (the separator of NAME=VALUE) and no
// control character. The config's check and the command line's --env use
// it.
func CheckEnvName(name string) error {
	if name == "" || strings.IndexFunc(name, func(r rune) bool {
		return r == '=' || unicode.IsSpace(r) || unicode.IsControl(r)
	}) >= 0 {
		return fmt.Errorf("variable name %q is invalid: %s", name, envNameMsg)
	}
	return nil
}

const (
	envNameMsg    = "a name is not empty and has no space, '=' or control character (letters, digits and '_' are safe: GITHUB_TOKEN)"
	keyringOpen   = "${keyring:"
	serverNameMsg = "use 1 to 31 lower-case letters, digits or '-', starting with a letter or digit"
	secretNameMsg = "use 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
)

// KeyringRef returns the env value that is the whole value of the named
// secret: "${keyring:NAME}".
func KeyringRef(name string) string { return keyringOpen + name + "}" }

// ParseEnvValue parses an env value of the config file into a
// [serverspec.EnvValue]: literal text, with "${keyring:NAME}" referring to the
// secret NAME and "$${" standing for a literal "${" (scanned left to right,
// so a literal "$" cannot directly precede a reference). Any other "${...}"
// form, an unterminated reference, or an invalid secret name is an error.
// The messages quote the offending reference only, never the whole value,
// which may be a literal secret.
func ParseEnvValue(s string) (serverspec.EnvValue, error) {
	v := serverspec.EnvValue{}
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			v = append(v, serverspec.EnvPart{Text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(s); {
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "$${"):
			text.WriteString("${")
			i += 3
		case strings.HasPrefix(rest, keyringOpen):
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return nil, fmt.Errorf(`"${keyring:" at byte %d is not closed: end the reference with "}"`, i)
			}
			name := rest[len(keyringOpen):end]
			switch {
			case name == "":
				return nil, errors.New(`"${keyring:}" names no secret: write ${keyring:NAME}`)
			case !ValidSecretName(name):
				return nil, fmt.Errorf("secret name %q is not valid: %s", shorten(name, 64), secretNameMsg)
			}
			flush()
			v = append(v, serverspec.EnvPart{Secret: name})
			i += end + 1
		case strings.HasPrefix(rest, "${"):
			end := strings.IndexByte(rest, '}')
			if end < 0 {
				return nil, fmt.Errorf(`"${" at byte %d is not closed: only ${keyring:NAME} references are supported; write $${ for a literal "${"`, i)
			}
			return nil, fmt.Errorf(`%q is not supported: only ${keyring:NAME} references are; write $${ for a literal "${"`, shorten(rest[:end+1], 40))
		default:
			text.WriteByte(s[i])
			i++
		}
	}
	flush()
	return v, nil
}
