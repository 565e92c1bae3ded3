// Package hostrun is the command line's one way into the host's code:
// `switchboard serve` runs the host in this process through [Run], and,
// when no host runs, `status` and `doctor` work out what a host would
// report ([Statuses], [LoginPath]). Every other command is a client of
// the host's API (app/client). The dependency test (internal/deptest)
// lets app/cli reach app/host only through this package.
package hostrun

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/internal/inherited"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// Options are what `serve` sets of the host's options (app/host's
// Options has more, for tests).
type Options struct {
	ConfigPath  string
	RuntimeDir  string
	SocketPath  string
	LogPath     string         // host.log; empty: stderr only
	StateDir    string         // the activity log; empty: none
	Secrets     *secrets.Store // nil: no keyring
	OnDemand    bool           // exit when idle
	Service     bool           // run by the OS's service manager
	IdleTimeout time.Duration  // 0: the default
	Version     string
	Stderr      io.Writer // log lines to the terminal too; nil: none
	// UserEnvFilled are the variables taken from the user database
	// (api.FillUserEnv).
	UserEnvFilled []string
	// PinsPath is the tool pin file (host.Options.PinsPath).
	PinsPath string
	// SandboxTemp is the folder of the sandboxed servers' temp
	// directories (host.Options.SandboxTemp).
	SandboxTemp string
}

// CPUProfileEnv names a file in the host's environment: the host writes a
// CPU profile of its whole run there (runtime/pprof), for the benchmarks
// (bench/gateway's HOSTPROF). Unset: no profile.
const CPUProfileEnv = "SWITCHBOARD_CPUPROFILE"

// RegistrySyncEnv names a variable of the host's environment: "off"
// turns the background sync of the registries' indexes off (the test
// suites' hosts; a machine that must not reach a registry on its own).
const RegistrySyncEnv = "SWITCHBOARD_REGISTRY_SYNC"

// Run runs a host in this process until ctx ends or it is told to stop
// (host.Run).
func Run(ctx context.Context, o Options) error {
	// The descriptors this process inherited (main marked them
	// close-on-exec, internal/inherited): a host that runs for hours
	// holds none of them, such as the write end of a pipe whose reader
	// waits for its end.
	inherited.Close()
	if path := os.Getenv(CPUProfileEnv); path != "" {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return fmt.Errorf("the CPU profile that %s asks for: %w", CPUProfileEnv, err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("the CPU profile that %s asks for: %w", CPUProfileEnv, err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	return host.Run(ctx, host.Options{
		ConfigPath: o.ConfigPath, RuntimeDir: o.RuntimeDir, SocketPath: o.SocketPath, LogPath: o.LogPath, StateDir: o.StateDir,
		Secrets: o.Secrets, OnDemand: o.OnDemand, Service: o.Service, IdleTimeout: o.IdleTimeout,
		Version: o.Version, Stderr: o.Stderr, UserEnvFilled: o.UserEnvFilled, PinsPath: o.PinsPath,
		SandboxTemp: o.SandboxTemp, RegistrySync: os.Getenv(RegistrySyncEnv) != "off",
	})
}

// LoginPath is the PATH a host gives its servers: the login shell's
// (host.LoginPath).
func LoginPath(ctx context.Context, timeout time.Duration) (string, error) {
	return host.LoginPath(ctx, timeout)
}

// Statuses are the servers of f as a host would list them before starting
// any: stopped, disabled or invalid (with the entry's problems), each
// command resolved in path (a command not found is an issue with its
// install remedy, as the host says it). pathName says which PATH path is
// when it is not the host's ("" for the host's).
func Statuses(f *config.File, path, pathName string) []hostapi.ServerStatus {
	var out []hostapi.ServerStatus
	for _, c := range host.ServerConfigs(f) {
		st := hostapi.ServerStatus{Name: c.Name, Command: c.Command, Args: c.Spec.Args,
			Disabled: c.Disabled, Problems: c.Problems, Secrets: c.Secrets}
		// No host: no supervisor. The state a host would show for it
		// before its start (the one mapping, app/host's PublicState).
		st.State, _ = host.PublicState(host.StateFacts{Disabled: c.Disabled, Problems: len(c.Problems) > 0})
		if c.Remote != nil { // a remote server: no command (docs/remote.md)
			st.URL, st.Transport = config.ShownURL(c.Remote.URL), c.Remote.Type
		} else if l, err := engine.Resolve(&c.Spec, path); err != nil {
			st.ResolveError = err.Error()
			if p := host.CommandIssueIn(c.Name, c.Spec.Env, err, pathName); p != nil && !c.Disabled {
				st.Issues = append(st.Issues, *p)
			}
		} else {
			st.Resolved = l.Resolved
		}
		st.Issues = append(st.Issues, c.Notes...) // as the host says them (app/host's statusOf)
		out = append(out, st)
	}
	return out
}
