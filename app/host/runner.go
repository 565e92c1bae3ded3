package host

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
)

// A runner is how a server's supervisor reaches it: a local process the
// engine starts and speaks to over its stdio ([localRunner]), or a remote
// server over Streamable HTTP or SSE ([remoteRunner], remote.go). The
// server (server.go) is the same for both: its lists, sleep, warm-up and
// state do not ask which runs it.
type runner interface {
	// transport is the supervisor's Options.Transport: nil for a local
	// server (the engine starts the process and speaks over its stdio).
	transport() func(context.Context) (mcp.Transport, error)
	// where fills in where the server runs in its status: the command
	// as resolved on the host's PATH, or the URL and its transport. The
	// error says why a command does not resolve (nil: it does, or there
	// is none).
	where(c ServerConfig, st *hostapi.ServerStatus) error
	// issue is what keeps it from running that the user fixes on this
	// machine (a command that is not found), or nil; rerr is where's.
	issue(c ServerConfig, rerr error) *hostapi.Problem
}

// runnerFor returns the runner of an entry: remote when it has a URL.
// A Manager's connect, if set, runs every entry instead (the tests on
// virtual time: an in-memory server, as no process runs in a synctest
// bubble).
func (s *server) runnerFor(c ServerConfig) runner {
	if s.reg.connect != nil {
		return connectRunner{s.reg.connect}
	}
	if c.Remote != nil {
		return remoteRunner{s}
	}
	return localRunner{s}
}

// overSession reports whether the relay of c's requests runs over the
// go-sdk session (sessionconn.go) rather than a local process's stdio
// connection: a remote server, or one a Manager's connect runs.
func (s *server) overSession(c ServerConfig) bool {
	return c.Remote != nil || s.reg.connect != nil
}

// localRunner runs a server as a local process over stdio.
type localRunner struct{ s *server }

func (localRunner) transport() func(context.Context) (mcp.Transport, error) { return nil }

func (r localRunner) where(c ServerConfig, st *hostapi.ServerStatus) error {
	l, err := engine.Resolve(&c.Spec, r.s.reg.start.Path)
	if err != nil {
		st.ResolveError = err.Error()
		return err
	}
	st.Resolved = l.Resolved
	return nil
}

func (localRunner) issue(c ServerConfig, rerr error) *hostapi.Problem {
	if c.Disabled {
		return nil // not meant to run: a missing command is no issue now
	}
	return CommandIssue(c.Name, c.Spec.Env, rerr)
}

// remoteRunner connects to a remote server (remote.go).
type remoteRunner struct{ s *server }

func (r remoteRunner) transport() func(context.Context) (mcp.Transport, error) {
	return r.s.remoteTransport()
}

func (r remoteRunner) where(c ServerConfig, st *hostapi.ServerStatus) error {
	st.URL, st.Transport = config.ShownURL(c.Remote.URL), c.Remote.Type
	r.s.cacheMu.Lock()
	w := r.s.remote
	r.s.cacheMu.Unlock()
	if t := w.usedTransport(); t != "" {
		st.Transport = t // after an http-first fallback: sse, and why
	}
	return nil
}

func (remoteRunner) issue(ServerConfig, error) *hostapi.Problem { return nil }

// connectRunner runs a server over the transports its connect gives
// (Manager.connect): nothing to resolve, nothing the user fixes.
type connectRunner struct {
	connect func(context.Context) (mcp.Transport, error)
}

func (r connectRunner) transport() func(context.Context) (mcp.Transport, error) { return r.connect }

func (connectRunner) where(ServerConfig, *hostapi.ServerStatus) error { return nil }

func (connectRunner) issue(ServerConfig, error) *hostapi.Problem { return nil }
