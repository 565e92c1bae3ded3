package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// Defaults of a [Spec], as in the reference transport design.
const (
	DefaultMaxMessageBytes  = 8 << 20
	DefaultMaxJunkLines     = 10
	DefaultStdinGrace       = 2000 * time.Millisecond
	DefaultTermGrace        = 2000 * time.Millisecond
	DefaultProbeTimeout     = 3 * time.Second
	DefaultHandshakeTimeout = 60 * time.Second
	DefaultWriteQueueBytes  = 16 << 20
	DefaultMaxReconnects    = 5
	DefaultCaptureLines     = 1000
	DefaultCaptureBytes     = 256 << 10
)

// Ranges of the numeric options. A value outside its range is refused when
// the spec is checked.
const (
	minMessageBytes = 1 << 10
	maxMessageBytes = 1 << 30
	maxJunkLines    = 1_000_000
	maxGrace        = 10 * time.Minute
	maxReconnects   = 1000
	maxCaptureLines = 1_000_000
	maxCaptureBytes = 64 << 20
)

// StderrKind says where a server's stderr goes.
type StderrKind string

// The stderr destinations.
const (
	StderrInherit StderrKind = "inherit" // the host's own stderr
	StderrDiscard StderrKind = "discard" // the null device
	StderrCapture StderrKind = "capture" // a bounded ring of the last lines
	StderrFile    StderrKind = "file"    // appended to an absolute path
)

// Stderr is a server's stderr destination. Path is set for [StderrFile] only.
type Stderr struct {
	Kind StderrKind
	Path string
}

// EnvValue is the value of one environment variable: literal text and
// references to secrets, resolved only when the process is spawned,
// through a [SecretResolver].
type EnvValue = serverspec.EnvValue

// EnvPart is a piece of an [EnvValue].
type EnvPart = serverspec.EnvPart

// Literal returns an [EnvValue] of plain text.
func Literal(s string) EnvValue { return EnvValue{{Text: s}} }

// SecretRef returns an [EnvValue] that is the whole value of the named secret.
func SecretRef(name string) EnvValue { return EnvValue{{Secret: name}} }

// Spec describes one stdio MCP server: what to run and the limits of its
// transport. Build one with the fields set and call [Spec.Check], which fills
// in the defaults; the zero values of the limits mean "default".
//
// A Spec is operator configuration: whoever chooses Command, Args and Env
// runs code as this user. Never build one from model output or server
// responses.
type Spec struct {
	// Name names the server in errors and logs.
	Name string
	// Command is the executable: a bare name looked up in the PATH given at
	// start, or an absolute path. It must not contain whitespace.
	Command string
	// Args are passed to the executable as they are; no shell sees them.
	Args []string
	// Env sets variables of the server's environment; they win over
	// inherited ones.
	Env map[string]EnvValue
	// InheritEnv names extra variables of the host's environment to pass
	// beyond the allowlist (proxies, CA bundles).
	InheritEnv []string
	// Cwd is the working directory: absolute and existing. Empty means the
	// host's working directory.
	Cwd string
	// Stderr is where the server's stderr goes; the zero value is inherit.
	Stderr Stderr
	// AllowBatchFiles allows a .bat or .cmd executable on Windows.
	AllowBatchFiles bool
	// Sandbox confines the server (docs/sandbox.md); the zero value runs
	// it with all the user's rights. The engine adds the runtime's own
	// needs to Read and Write when it starts the server. Omitted from JSON
	// when zero, so an unsandboxed spec's encoding (the host's
	// fingerprint) is what it was before sandboxes.
	Sandbox sandbox.Policy `json:",omitzero"`

	MaxMessageBytes  int           // largest message the server may write
	MaxJunkLines     int           // non-JSON-RPC lines in a row tolerated; -1 means 0
	WriteQueueBytes  int           // unwritten bytes held before closing
	StdinGrace       time.Duration // after closing stdin, before SIGTERM; -1 means 0
	TermGrace        time.Duration // after SIGTERM, before SIGKILL; -1 means 0
	ProbeTimeout     time.Duration // wait for a server/discover answer
	HandshakeTimeout time.Duration // wait for the initialize answer
	MaxReconnects    int           // consecutive failed starts before failing; -1 means 0
	CaptureLines     int           // lines kept by stderr capture
	CaptureBytes     int           // bytes kept by stderr capture

	// checked is set by Check: from then on a zero limit is a value, not
	// "default", so checking again (Start does) changes nothing.
	checked bool
}

// SpecError is a problem with one option of a [Spec].
type SpecError struct {
	Server string // the server's name, if the spec has one
	Key    string // the option, as the config file names it
	Msg    string // what is wrong and the remedy
}

func (e *SpecError) Error() string {
	if e.Server != "" {
		return fmt.Sprintf("server %q: %s: %s", e.Server, e.Key, e.Msg)
	}
	return e.Key + ": " + e.Msg
}

// Check validates the spec and fills in defaults. It reports every problem,
// joined with [errors.Join], each a [*SpecError] that names the option and
// the remedy. Checking a checked spec again changes nothing: its zero
// limits (from -1) stay zero.
func (s *Spec) Check() error {
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &SpecError{Server: s.Name, Key: key, Msg: fmt.Sprintf(format, args...)})
	}

	if msg := serverspec.CommandProblem(s.Command); msg != "" {
		bad("command", "%s", msg)
	}
	for i, a := range s.Args {
		if msg := serverspec.ArgProblem(a); msg != "" {
			bad(fmt.Sprintf("args[%d]", i), "%s", msg)
		}
	}
	for name, v := range s.Env {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			bad("env", "variable name %q is invalid: it must be non-empty and contain no '=' or NUL", name)
		}
		for _, p := range v {
			if strings.ContainsRune(p.Text, 0) {
				bad("env."+name, "contains a NUL byte")
			}
		}
	}
	for _, name := range s.InheritEnv {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			bad("inheritEnv", "variable name %q is invalid: it must be non-empty and contain no '=' or NUL", name)
		}
	}
	if msg := serverspec.CwdProblem(s.Cwd); msg != "" {
		bad("cwd", "%s", msg)
	}
	switch s.Stderr.Kind {
	case "":
		s.Stderr.Kind = StderrInherit
	case StderrInherit, StderrDiscard, StderrCapture:
		if s.Stderr.Path != "" {
			bad("stderr", "a path is only allowed with \"file\"")
		}
	case StderrFile:
		if msg := serverspec.StderrFileProblem(s.Stderr.Path); msg != "" {
			bad("stderr.file", "%s", msg)
		}
	default:
		bad("stderr", "%q is not one of inherit, discard, capture, or {\"file\": \"/absolute/path\"}", s.Stderr.Kind)
	}

	s.checkSandbox(bad)

	c := s.checked
	intOpt(&s.MaxMessageBytes, DefaultMaxMessageBytes, minMessageBytes, maxMessageBytes, c, "maxMessageBytes", "bytes", bad)
	intOpt(&s.MaxJunkLines, DefaultMaxJunkLines, 0, maxJunkLines, c, "maxJunkLines", "lines", bad)
	intOpt(&s.WriteQueueBytes, DefaultWriteQueueBytes, minMessageBytes, maxMessageBytes, c, "writeQueueBytes", "bytes", bad)
	intOpt(&s.MaxReconnects, DefaultMaxReconnects, 0, maxReconnects, c, "maxReconnects", "attempts", bad)
	intOpt(&s.CaptureLines, DefaultCaptureLines, 1, maxCaptureLines, c, "captureLines", "lines", bad)
	intOpt(&s.CaptureBytes, DefaultCaptureBytes, 1<<10, maxCaptureBytes, c, "captureBytes", "bytes", bad)
	durOpt(&s.StdinGrace, DefaultStdinGrace, 0, maxGrace, c, "stdinGrace", bad)
	durOpt(&s.TermGrace, DefaultTermGrace, 0, maxGrace, c, "termGrace", bad)
	durOpt(&s.ProbeTimeout, DefaultProbeTimeout, time.Millisecond, maxGrace, c, "probeTimeout", bad)
	durOpt(&s.HandshakeTimeout, DefaultHandshakeTimeout, time.Millisecond, time.Hour, c, "handshakeTimeout", bad)
	s.checked = true
	return errors.Join(errs...)
}

// intOpt fills in a default (0, unless the spec was checked already), maps
// -1 to 0 where 0 is allowed, and checks the range.
func intOpt(v *int, def, lo, hi int, checked bool, key, unit string, bad func(string, string, ...any)) {
	switch {
	case *v == 0 && !checked:
		*v = def
		return
	case *v == -1 && lo == 0:
		*v = 0
		return
	}
	if *v < lo || *v > hi {
		bad(key, "%d is out of range: use %d to %d %s", *v, lo, hi, unit)
	}
}

func durOpt(v *time.Duration, def, lo, hi time.Duration, checked bool, key string, bad func(string, string, ...any)) {
	switch {
	case *v == 0 && !checked:
		*v = def
		return
	case *v == -1 && lo == 0:
		*v = 0
		return
	}
	if *v < lo || *v > hi {
		bad(key, "%d ms is out of range: use %d to %d ms", v.Milliseconds(), lo.Milliseconds(), hi.Milliseconds())
	}
}
