package secrets

import (
	"encoding/base64"
	"regexp"
)

// The size limits of the keyrings, checked before anything is written.
const (
	// WindowsMaxValue is the Credential Manager's limit on a credential's
	// blob (go-keyring refuses more with ErrSetDataTooBig).
	WindowsMaxValue = 2560
	// macOSMaxCommand is the limit go-keyring puts on the command line it
	// sends to 'security -i', which carries the value base64-encoded: about
	// 3000 bytes of value, a little less for long names.
	macOSMaxCommand = 4096
	// SecretServiceMaxValue is this package's own limit on Linux (the Secret
	// Service has none, but go-keyring notes that big values are slow; an
	// API token is a few hundred bytes).
	SecretServiceMaxValue = 64 << 10
)

// valueLimit returns the largest value, in bytes, that the keyring of goos
// stores for name under service, and the keyring's name for messages.
func valueLimit(goos, service, name string) (int, string) {
	switch goos {
	case "windows":
		return WindowsMaxValue, "the Windows Credential Manager"
	case "darwin":
		// go-keyring sends "add-generic-password -U -s S -a A -w P\n" with
		// P = "go-keyring-base64:" + base64(value), and refuses more than
		// 4096 bytes.
		fixed := len("add-generic-password -U -s ") + len(shellQuote(service)) + len(" -a ") +
			len(shellQuote(name)) + len(" -w ") + len("go-keyring-base64:") + len("\n")
		room := macOSMaxCommand - fixed // for base64, which has no character to quote
		if room < 4 {
			return 0, "the macOS Keychain"
		}
		n := room / 4 * 3
		for n > 0 && base64.StdEncoding.EncodedLen(n) > room {
			n--
		}
		return n, "the macOS Keychain (for this name)"
	}
	return SecretServiceMaxValue, "the Secret Service (switchboard's own limit)"
}

// shellQuote is go-keyring's internal shellescape.Quote, whose length
// counts towards the macOS limit.
var shellUnsafe = regexp.MustCompile(`[^\w@%+=:,./-]`)

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	if !shellUnsafe.MatchString(s) {
		return s
	}
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, `'"'"'`...)
		} else {
			out = append(out, s[i])
		}
	}
	return string(append(out, '\''))
}
