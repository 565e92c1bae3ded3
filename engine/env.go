package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unsafe"
)

// The variables of the host's environment that every server inherits, as in
// the reference design (and the MCP SDKs). Everything else is removed unless
// the spec names it in InheritEnv.
var (
	posixAllowlist   = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}
	windowsAllowlist = []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PATHEXT",
		"PROCESSOR_ARCHITECTURE", "SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"}
)

// Allowlist returns the variables inherited by default on goos.
func Allowlist(goos string) []string {
	if goos == "windows" {
		return append([]string(nil), windowsAllowlist...)
	}
	return append([]string(nil), posixAllowlist...)
}

// SecretResolver turns a secret's name into its value. It is called only
// while a server is being spawned. The slice it returns is the caller's:
// [BuildEnv] copies it into the entry of the environment and zeroes it at
// once, so a resolver must return a fresh slice it keeps no reference to.
type SecretResolver interface {
	Resolve(ctx context.Context, name string) ([]byte, error)
}

// SecretError means a secret an env variable refers to could not be
// resolved; the server was not started. It never carries the value.
type SecretError struct {
	Server string
	Var    string // the environment variable
	Secret string // the secret's name
	Err    error
}

func (e *SecretError) Error() string {
	if errors.Is(e.Err, errNUL) {
		return fmt.Sprintf("server %q: env.%s: secret %q cannot be used: its value holds a NUL byte, which no environment variable can carry: store it again without one with 'switchboard secret set %s'",
			e.Server, e.Var, e.Secret, e.Secret)
	}
	return fmt.Sprintf("server %q: env.%s: secret %q could not be read (%v): unlock the keyring or set the secret, then start the server again",
		e.Server, e.Var, e.Secret, e.Err)
}

func (e *SecretError) Unwrap() error { return e.Err }

// BuildEnv returns the environment of a server: the allowlisted variables of
// host (as os.Environ returns them) and those named in spec.InheritEnv,
// minus any whose value starts with "()" (an exported shell function), with
// spec.Env on top and secret references resolved through r. If path is not
// empty it replaces the inherited PATH. On Windows names match
// case-insensitively. The result is sorted, which makes it stable for tests.
//
// An entry that holds a secret's value is built once, in a byte slice of
// its exact size, and the returned string shares that memory; wipe zeroes
// those slices (and the strings with them), so call it as soon as the
// environment has been handed to the OS and use none of env afterwards.
// wipe is never nil, also on error (where there is nothing left to zero).
// A value holding a NUL byte, which no environment can carry, is an error
// naming the variable and the secret.
func BuildEnv(ctx context.Context, spec *Spec, host []string, path, goos string, r SecretResolver) (env []string, wipe func(), err error) {
	fold := func(s string) string { return s }
	if goos == "windows" {
		fold = strings.ToUpper
	}
	allowed := map[string]bool{}
	for _, n := range Allowlist(goos) {
		allowed[fold(n)] = true
	}
	for _, n := range spec.InheritEnv {
		allowed[fold(n)] = true
	}

	var held [][]byte // the memory of the entries with a secret
	wipe = func() {
		for _, b := range held {
			clear(b)
		}
		held = nil
	}
	type kv struct{ k, v string }
	out := map[string]kv{} // folded name -> original name and value
	for _, e := range host {
		k, v, ok := strings.Cut(e, "=")
		if !ok || k == "" || !allowed[fold(k)] || strings.HasPrefix(v, "()") {
			continue
		}
		out[fold(k)] = kv{k, v}
	}
	if path != "" {
		name := "PATH"
		if old, ok := out[fold("PATH")]; ok {
			name = old.k // keep Windows' "Path" spelling
		}
		out[fold("PATH")] = kv{name, path}
	}
	names := make([]string, 0, len(spec.Env))
	for k := range spec.Env {
		names = append(names, k)
	}
	sort.Strings(names)
	entries := map[string]string{} // folded name -> whole entry, for those with a secret
	for _, k := range names {
		parts := spec.Env[k]
		if len(parts.Secrets()) == 0 {
			v := parts.String()
			if strings.IndexByte(v, 0) >= 0 {
				wipe()
				return nil, func() {}, &SpecError{Server: spec.Name, Key: "env." + k, Msg: "holds a NUL byte, which no environment variable can carry: remove it"}
			}
			out[fold(k)] = kv{k, v}
			delete(entries, fold(k))
			continue
		}
		vals := make([][]byte, len(parts))
		zero := func() {
			for _, v := range vals {
				clear(v)
			}
		}
		size := len(k) + 1
		for i, p := range parts {
			if p.Secret == "" {
				size += len(p.Text)
				continue
			}
			if r == nil {
				zero()
				wipe()
				return nil, func() {}, &SecretError{Server: spec.Name, Var: k, Secret: p.Secret, Err: fmt.Errorf("no secret store is configured")}
			}
			val, err := r.Resolve(ctx, p.Secret)
			if err != nil {
				clear(val)
				zero()
				wipe()
				return nil, func() {}, &SecretError{Server: spec.Name, Var: k, Secret: p.Secret, Err: err}
			}
			vals[i] = val
			if bytes.IndexByte(val, 0) >= 0 {
				zero()
				wipe()
				return nil, func() {}, &SecretError{Server: spec.Name, Var: k, Secret: p.Secret, Err: errNUL}
			}
			size += len(val)
		}
		b := make([]byte, 0, size) // exactly: no append may move it
		b = append(append(b, k...), '=')
		for i, p := range parts {
			if p.Secret == "" {
				b = append(b, p.Text...)
			} else {
				b = append(b, vals[i]...)
			}
		}
		zero()
		if strings.IndexByte(k, 0) >= 0 || bytes.IndexByte(b[len(k)+1:], 0) >= 0 {
			clear(b)
			wipe()
			return nil, func() {}, &SpecError{Server: spec.Name, Key: "env." + k, Msg: "holds a NUL byte, which no environment variable can carry: remove it"}
		}
		held = append(held, b)
		delete(out, fold(k))
		entries[fold(k)] = unsafe.String(unsafe.SliceData(b), len(b))
	}
	env = make([]string, 0, len(out)+len(entries))
	for _, e := range out {
		env = append(env, e.k+"="+e.v)
	}
	for _, e := range entries {
		env = append(env, e)
	}
	sort.Strings(env)
	return env, wipe, nil
}

// errNUL is why a secret whose value holds a NUL byte cannot be used.
var errNUL = errors.New("its value holds a NUL byte, which no environment variable can carry: store it again without one ('switchboard secret set' refuses it now)")

// lookupEnv finds a variable in an environment list, case-insensitively on
// Windows.
func lookupEnv(env []string, name, goos string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		k, v, ok := strings.Cut(env[i], "=")
		if !ok {
			continue
		}
		if k == name || (goos == "windows" && strings.EqualFold(k, name)) {
			return v, true
		}
	}
	return "", false
}

// envPath returns the literal PATH an entry sets, if any; on Windows the
// exact spelling "PATH" wins over another case, so the choice is stable.
func envPath(env map[string]EnvValue) (string, bool) {
	if v, ok := env["PATH"]; ok && len(v.Secrets()) == 0 {
		return v.String(), true
	}
	if goosName != "windows" {
		return "", false
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v := env[k]; strings.EqualFold(k, "PATH") && len(v.Secrets()) == 0 {
			return v.String(), true
		}
	}
	return "", false
}
