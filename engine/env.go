package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
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
// while a server is being spawned.
type SecretResolver interface {
	Resolve(ctx context.Context, name string) (string, error)
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
func BuildEnv(ctx context.Context, spec *Spec, host []string, path, goos string, r SecretResolver) ([]string, error) {
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
	for _, k := range names {
		var b strings.Builder
		for _, p := range spec.Env[k] {
			if p.Secret == "" {
				b.WriteString(p.Text)
				continue
			}
			if r == nil {
				return nil, &SecretError{Server: spec.Name, Var: k, Secret: p.Secret, Err: fmt.Errorf("no secret store is configured")}
			}
			val, err := r.Resolve(ctx, p.Secret)
			if err != nil {
				return nil, &SecretError{Server: spec.Name, Var: k, Secret: p.Secret, Err: err}
			}
			b.WriteString(val)
		}
		out[fold(k)] = kv{k, b.String()}
	}
	env := make([]string, 0, len(out))
	for _, e := range out {
		env = append(env, e.k+"="+e.v)
	}
	sort.Strings(env)
	return env, nil
}

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
