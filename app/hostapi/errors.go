package hostapi

import "strings"

// The codes of the host's errors that a front end acts on. They travel in
// the wire error's code (app/api.Error.Code, a lower-case word like the
// transport's own "bad_request" or "shutting_down"); a host that predates
// one sends "internal" or "not_found" with the same message, which a
// front end shows as it is.
const (
	// CodeNotFound: the named server (or secret) does not exist.
	CodeNotFound = "not_found"
	// CodeAlreadyExists: an entry of that name exists (servers.put with
	// Create). Remedy: edit that entry, or choose another name.
	CodeAlreadyExists = "already_exists"
	// CodeInvalidName: the server's name is not a valid name. Its one
	// problem has the key [KeyName].
	CodeInvalidName = "invalid_name"
	// CodeInvalidConfig: an entry (servers.put), or the entry of a server
	// asked to start, has problems; the [Error]'s Problems list each with
	// its key.
	CodeInvalidConfig = "invalid_config"
	// CodeDisabled: the server is disabled (servers.start). Remedy:
	// enable it.
	CodeDisabled = "disabled"
	// CodeNotRunning: the server does not run (servers.tools,
	// servers.call). Remedy: start it.
	CodeNotRunning = "not_running"
	// CodeSecretMissing: the server waits for a secret that is not set.
	// A problem per secret, each with a [RemedySetSecret].
	CodeSecretMissing = "secret_missing"
	// CodeKeyringLocked: the keyring is locked, or its unlock prompt was
	// dismissed.
	CodeKeyringLocked = "keyring_locked"
	// CodeNoKeyring: no keyring can be reached (or the host has none).
	CodeNoKeyring = "no_keyring"
	// CodeBadRequest: a request's params are wrong (an invalid secret
	// name, an empty value); the transport uses it for malformed params.
	CodeBadRequest = "bad_request"
)

// KeyName is the key of a problem with the server's name itself (rather
// than a key of its entry).
const KeyName = "(name)"

// The kinds of a [Remedy]: what the user does about a problem. A front end
// phrases each in its own way (the command line as a command to run, the
// window as a button); a kind it does not know it shows as the Remedy's
// Text.
const (
	RemedySetSecret     = "set_secret"     // Secret: store it ('switchboard secret set NAME')
	RemedyUnlockKeyring = "unlock_keyring" // unlock the keyring; Text says how on this system
	RemedyInstall       = "install"        // Command: install it (Program, from URL, where known), or set the host's PATH
	RemedyRenameKey     = "rename_key"     // Server's key From is probably To
	RemedyEnable        = "enable"         // Server: enable it ('switchboard servers enable NAME')
	RemedyStart         = "start"          // Server: start it ('switchboard servers start NAME')
	RemedySignIn        = "sign_in"        // Server: sign in to it ('switchboard servers login NAME')
	RemedyEdit          = "edit"           // Server: change the existing entry ('switchboard servers set NAME')
)

// Remedy is what to do about a problem, as data: a kind and its
// arguments. Text says it in words, for a front end that does not know
// the kind.
type Remedy struct {
	Kind    string `json:"kind"`
	Server  string `json:"server,omitempty"`
	Secret  string `json:"secret,omitempty"`
	Command string `json:"command,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	// Program and URL, for install: what provides Command ("Node.js"
	// for npx) and its install page, where the host knows them.
	Program string `json:"program,omitempty"`
	URL     string `json:"url,omitempty"`
	// EntryPATH, for install: the entry sets PATH itself (env.PATH), so
	// the command was looked for there, not in the host's PATH.
	EntryPATH bool   `json:"entryPath,omitempty"`
	Text      string `json:"text,omitempty"`
}

// Problem is one thing wrong, where it is, and what to do about it.
type Problem struct {
	// Server is the entry's name; "" for the file as a whole, or a
	// problem that is not an entry's.
	Server string `json:"server,omitempty"`
	// Key is the key within the entry as the config file names it
	// ("cwd", "env.TOKEN", "args[2]"), [KeyName] for the name itself, ""
	// for the entry as a whole.
	Key string `json:"key,omitempty"`
	// Message is what is wrong with the remedy in words: a front end that
	// does not phrase the Remedy itself shows it.
	Message string `json:"message"`
	// Fact is what is wrong without the remedy's words, where the Remedy
	// is data: a front end that phrases the Remedy (a command, a button)
	// shows Fact beside it. Empty: show Message.
	Fact   string  `json:"fact,omitempty"`
	Remedy *Remedy `json:"remedy,omitempty"`
	// Warning: the problem stops nothing (a profile that names a server
	// the config lacks); it is shown, and everything runs.
	Warning bool `json:"warning,omitempty"`
}

// Text is the problem's words for a front end that phrases its Remedy
// itself: Fact, or Message when the problem has no separate Fact.
func (p Problem) Text() string {
	if p.Fact != "" && p.Remedy != nil {
		return p.Fact
	}
	return p.Message
}

// Error is a host's error as data: a code, the full sentence (what an
// older client shows), and the problems it is made of, each with its key
// and remedy. The host returns it from every method that fails for a
// user's reason; app/client returns it for every error answer (with no
// Problems from a host that predates them).
//
// errors.Is(err, hostapi.ErrNotFound) and the like match by code.
type Error struct {
	Code     string
	Message  string
	Problems []Problem
	// Err is the error it was decoded from (app/client: the wire error,
	// an *api.Error), so that errors.As still finds that; nil where the
	// host made it.
	Err error
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	if len(e.Problems) > 0 {
		msgs := make([]string, len(e.Problems))
		for i, p := range e.Problems {
			msgs[i] = p.Message
		}
		return strings.Join(msgs, "; ")
	}
	return e.Code
}

// Is matches a sentinel of the same code: an *Error with only a Code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Message == "" && t.Problems == nil && t.Code == e.Code
}

// ErrorCode and ErrorData let the host's transport (app/api) send the
// error with its code and its problems as the wire error's data.
func (e *Error) ErrorCode() string { return e.Code }

// ErrorData is the wire error's data: the problems, or nil.
func (e *Error) ErrorData() any {
	if len(e.Problems) == 0 {
		return nil
	}
	return e.Problems
}

// Sentinels for errors.Is, one per code.
var (
	ErrNotFound      = &Error{Code: CodeNotFound}
	ErrAlreadyExists = &Error{Code: CodeAlreadyExists}
	ErrInvalidName   = &Error{Code: CodeInvalidName}
	ErrInvalidConfig = &Error{Code: CodeInvalidConfig}
	ErrDisabled      = &Error{Code: CodeDisabled}
	ErrNotRunning    = &Error{Code: CodeNotRunning}
	ErrSecretMissing = &Error{Code: CodeSecretMissing}
	ErrKeyringLocked = &Error{Code: CodeKeyringLocked}
	ErrNoKeyring     = &Error{Code: CodeNoKeyring}
)

// Remedies returns every problem's remedy, in order, skipping problems
// without one.
func (e *Error) Remedies() []Remedy {
	var out []Remedy
	for _, p := range e.Problems {
		if p.Remedy != nil {
			out = append(out, *p.Remedy)
		}
	}
	return out
}
