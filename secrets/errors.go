package secrets

import (
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"syscall"

	"github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
)

// Kind classifies an *Error.
type Kind int

const (
	// Other is any failure not listed below.
	Other Kind = iota
	// NotFound: the keyring has no entry of that name.
	NotFound
	// NoProvider: no keyring can be reached (on Linux: no Secret Service on
	// the session bus, or no session bus at all).
	NoProvider
	// Locked: the keyring is locked, or its unlock prompt was dismissed.
	Locked
	// TooBig: the value exceeds what the platform's keyring stores.
	TooBig
	// Invalid: a bad name or an empty value.
	Invalid
)

func (k Kind) String() string {
	switch k {
	case NotFound:
		return "not found"
	case NoProvider:
		return "no keyring provider"
	case Locked:
		return "keyring locked"
	case TooBig:
		return "too big"
	case Invalid:
		return "invalid"
	default:
		return "other"
	}
}

// Sentinels for errors.Is: errors.Is(err, secrets.ErrNotFound) is true for
// an *Error of Kind NotFound, and so on.
var (
	ErrNotFound   error = &kindError{NotFound}
	ErrNoProvider error = &kindError{NoProvider}
	ErrLocked     error = &kindError{Locked}
	ErrTooBig     error = &kindError{TooBig}
	ErrInvalid    error = &kindError{Invalid}
	ErrOther      error = &kindError{Other}
)

type kindError struct{ k Kind }

func (e *kindError) Error() string { return "secrets: " + e.k.String() }

// Error is the error of every operation of this package. It never holds a
// secret's value. Error() is a full sentence that names the secret and
// says what to do.
type Error struct {
	Op   string // "set", "get", "delete", "list", "resolve", "validate"
	Name string // the secret's name ("" for list)
	Kind Kind
	Err  error // the underlying error
}

// KindOf returns the Kind of the first *Error in err's chain, or Other.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Other
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes errors.Is match the sentinel of e's Kind.
func (e *Error) Is(target error) bool {
	k, ok := target.(*kindError)
	return ok && k.k == e.Kind
}

func (e *Error) Error() string {
	if e.Kind == NotFound && e.Op == "delete" {
		return fmt.Sprintf("secret %q is not set, so there is nothing to delete: 'switchboard secret list' shows the secrets that are set", e.Name)
	}
	if e.Kind == NotFound {
		return fmt.Sprintf("secret %q is not set: run 'switchboard secret set %s'", e.Name, e.Name)
	}
	if e.Kind == Invalid && errors.Is(e.Err, errBadName) {
		return fmt.Sprintf("secret name %q is invalid: %s", e.Name, NameRule)
	}
	subject := fmt.Sprintf("secret %q cannot be %s", e.Name, opPast(e.Op))
	if e.Name == "" {
		subject = "secret names cannot be " + opPast(e.Op)
	}
	detail := "unknown error"
	if e.Err != nil {
		detail = e.Err.Error()
	}
	switch e.Kind {
	case NoProvider:
		return subject + ": " + noProviderText(e.Err)
	case Locked:
		return subject + ": the keyring is locked, or its unlock prompt was dismissed (" + detail + "): " + unlockRemedy() + ", then try again"
	case TooBig:
		return subject + ": it is too big for the keyring: " + detail + "; store a smaller value"
	case Invalid:
		return subject + ": " + detail
	default:
		return subject + ": " + detail
	}
}

func opPast(op string) string {
	switch op {
	case "set":
		return "stored"
	case "get", "resolve":
		return "read"
	case "delete":
		return "deleted"
	case "list":
		return "listed"
	case "validate":
		return "used"
	}
	return "used (" + op + ")"
}

func unlockRemedy() string {
	switch runtime.GOOS {
	case "darwin":
		return "unlock the login keychain (Keychain Access, or 'security unlock-keychain')"
	case "windows":
		return "log in to Windows as the user who owns the secret"
	}
	return "unlock the keyring (log in to the desktop again, or unlock the \"login\" keyring in Passwords and Keys / Seahorse, or unlock the KeePassXC database)"
}

func noProviderText(err error) string {
	detail := "unknown error"
	if err != nil {
		detail = err.Error()
	}
	switch {
	case errors.Is(err, errNoBus):
		return "no Secret Service (keyring) can be reached: " + detail +
			": run switchboard inside a desktop session, or start a session bus with gnome-keyring or KeePassXC's Secret Service in it, and unlock the keyring"
	case errors.Is(err, keyring.ErrUnsupportedPlatform):
		return "this platform has no supported keyring (" + detail + "); secrets are never stored in plain text"
	case runtime.GOOS == "windows":
		return "the Windows Credential Manager is not available in this session (" + detail + "): run switchboard as the logged-in user, not as a service account"
	case runtime.GOOS == "darwin":
		return "the macOS Keychain is not available (" + detail + "): run switchboard in the logged-in user's session"
	}
	return "no Secret Service (keyring) is running on the D-Bus session bus (" + detail +
		"): install and start gnome-keyring (or enable KeePassXC's Secret Service integration) and unlock it, then try again"
}

// Details carried in Error.Err.
var (
	errBadName    = errors.New(NameRule)
	errEmptyValue = errors.New("a secret's value must not be empty")
	errNULValue   = errors.New("the value holds a NUL byte (0x00), which no environment variable can carry, so no server could use it: store the value without it")
	errNoBus      = errors.New("no D-Bus session bus")
)

// tooBigError says how big a value was and what the limit is.
type tooBigError struct {
	size, limit int
	where       string
}

func (e *tooBigError) Error() string {
	return fmt.Sprintf("the value is %d bytes, and %s stores at most %d bytes", e.size, e.where, e.limit)
}

func (e *tooBigError) Unwrap() error { return keyring.ErrSetDataTooBig }

// classify maps an error of go-keyring (and the D-Bus beneath it) to a Kind.
func classify(err error) Kind {
	if err == nil {
		return Other
	}
	if errors.Is(err, keyring.ErrNotFound) {
		return NotFound
	}
	if errors.Is(err, keyring.ErrSetDataTooBig) {
		return TooBig
	}
	if errors.Is(err, keyring.ErrUnsupportedPlatform) || errors.Is(err, errNoBus) {
		return NoProvider
	}
	name := ""
	var de dbus.Error
	var dp *dbus.Error
	switch {
	case errors.As(err, &de):
		name = de.Name
	case errors.As(err, &dp):
		name = dp.Name
	}
	switch {
	case name == "org.freedesktop.Secret.Error.IsLocked":
		return Locked
	case name == "org.freedesktop.DBus.Error.ServiceUnknown",
		name == "org.freedesktop.DBus.Error.NameHasNoOwner",
		strings.HasPrefix(name, "org.freedesktop.DBus.Error.Spawn."):
		return NoProvider
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "was not provided by any .service files"),
		strings.Contains(msg, "couldn't determine address of session bus"),
		strings.Contains(msg, "dbus: authentication failed"):
		return NoProvider
	case strings.Contains(msg, "failed to unlock correct collection"),
		strings.Contains(msg, "prompt was dismissed"),
		strings.Contains(msg, "is locked"):
		return Locked
	}
	var ne *net.OpError
	if errors.As(err, &ne) && ne.Op == "dial" {
		return NoProvider // a bus address that nothing listens on
	}
	var errno syscall.Errno
	if runtime.GOOS == "windows" && errors.As(err, &errno) && errno == 1312 { // ERROR_NO_SUCH_LOGON_SESSION
		return NoProvider
	}
	return Other
}

// wrap builds the *Error of op on name from a go-keyring error. If value is
// given and the error text contains it (no provider is known to do that),
// the text is replaced, so that the value never reaches an error.
func wrap(op, name string, err error, value string) *Error {
	kind := classify(err)
	if value != "" && strings.Contains(err.Error(), value) {
		err = errors.New("the keyring failed (its message was withheld because it contained the value)")
	}
	return &Error{Op: op, Name: name, Kind: kind, Err: err}
}
