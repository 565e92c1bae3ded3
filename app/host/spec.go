package host

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// The keyring store resolves the secrets of a server's environment when
// the engine spawns it.
var _ engine.SecretResolver = (*secrets.Store)(nil)

// specFields are the fields of the engine's spec that the numeric options
// of config.Options feed, by key. An option not here (callTimeout,
// approvalTimeout, idleStop) is the app's own.
var specFields = map[string]func(*engine.Spec) any{
	"maxMessageBytes":  func(s *engine.Spec) any { return &s.MaxMessageBytes },
	"writeQueueBytes":  func(s *engine.Spec) any { return &s.WriteQueueBytes },
	"maxJunkLines":     func(s *engine.Spec) any { return &s.MaxJunkLines },
	"maxReconnects":    func(s *engine.Spec) any { return &s.MaxReconnects },
	"stdinGrace":       func(s *engine.Spec) any { return &s.StdinGrace },
	"termGrace":        func(s *engine.Spec) any { return &s.TermGrace },
	"probeTimeout":     func(s *engine.Spec) any { return &s.ProbeTimeout },
	"handshakeTimeout": func(s *engine.Spec) any { return &s.HandshakeTimeout },
}

// specOf builds the engine's spec of the config entry named name: what to
// run, its environment (${keyring:NAME} references left for the engine to
// resolve through the keyring at spawn), stderr ("capture" unless the
// entry says otherwise), the sandbox policy the config checked, and every
// numeric option at the entry's value or the option table's default, an
// explicit 0 turned into the engine's -1 ("zero, not default"). The
// engine's own defaults never apply. A remote entry's spec holds only the
// numeric options, which the supervisor reads for both kinds.
//
// The error joins the entry's problems as config.File.Check found them;
// failing that, the engine's check of the spec (which the config's check
// covers: TestSpecsGolden). The spec is returned either way.
func specOf(s *config.Server, name string) (engine.Spec, error) {
	spec := engine.Spec{Name: name}
	if !s.IsRemote() {
		spec.Command = s.Command
		spec.Args = nonEmpty(s.Args)
		spec.InheritEnv = nonEmpty(s.InheritEnv)
		spec.Cwd = s.Cwd
		spec.Stderr = engine.Stderr{Kind: engine.StderrCapture}
		spec.AllowBatchFiles = s.AllowBatchFiles
		if len(s.Env) > 0 {
			spec.Env = make(map[string]engine.EnvValue, len(s.Env))
			for _, k := range slices.Sorted(maps.Keys(s.Env)) {
				if v, err := config.ParseEnvValue(s.Env[k]); err == nil {
					spec.Env[k] = v
				}
			}
		}
		if s.Stderr != nil {
			spec.Stderr = engine.Stderr{Kind: engine.StderrKind(s.Stderr.Kind), Path: s.Stderr.File}
			if s.Stderr.Kind == "file" {
				spec.Stderr.Kind = engine.StderrFile
			}
		}
		spec.Sandbox, _ = s.SandboxPolicy()
	}
	for _, o := range config.Options {
		field, ok := specFields[o.Key]
		if !ok {
			continue
		}
		v := s.Number(o.Key)
		switch f := field(&spec).(type) {
		case *int:
			*f = v
			if v == 0 {
				*f = -1 // the engine's "zero, not default"
			}
		case *time.Duration:
			*f = time.Duration(v) * time.Millisecond
			if v == 0 {
				*f = -1
			}
		default:
			panic(fmt.Sprintf("host: option %s feeds a %T", o.Key, f))
		}
	}
	if ps := s.Problems(); len(ps) > 0 {
		errs := make([]error, len(ps))
		for i, p := range ps {
			errs[i] = p
		}
		return spec, errors.Join(errs...)
	}
	if !s.IsRemote() {
		check := spec // Check fills in defaults; the caller gets the spec as built
		if err := check.Check(); err != nil {
			return spec, err
		}
	}
	return spec, nil
}

func nonEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}
