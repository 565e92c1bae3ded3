package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// ServerConfig is one server as the host runs it: the engine's spec and
// what the host adds around it. It is built from a config entry.
type ServerConfig struct {
	Name        string
	Spec        engine.Spec
	Disabled    bool
	CallTimeout time.Duration
	// Problems are the entry's validation errors, as data (each with its
	// key and remedy); an entry with problems is not started (or, if an
	// earlier valid version runs, that one is kept).
	Problems []hostapi.Problem
	// Secrets are the names of the secrets its env refers to.
	Secrets []string
	// Fingerprint changes whenever anything that affects the process does.
	Fingerprint string
	// Command is the entry's command as written.
	Command string
	// Tools is the entry's "tools" option: which tools the gateway exposes.
	Tools *config.Tools
	// Trust is the entry's "trust" option ("" is "pin"): app/trust's mode.
	Trust string
	// OnDemand: the entry's start mode is "on-demand" (sleep.go): it
	// sleeps until a call needs it, and stops again IdleStop after its
	// last call. Neither is in the Fingerprint: changing them restarts
	// nothing.
	OnDemand bool
	IdleStop time.Duration
	// Remote, for a remote entry (remote.go), is what the host connects
	// to; Spec then holds only the numeric options. nil: a local server.
	Remote *config.RemoteSpec
	// Notes are what is worth saying of the entry that stops nothing
	// (config.Server.Notes: "strict" on a server given folders), each a
	// Problem with Warning set; the status gives them as Issues.
	Notes []hostapi.Problem
}

// Manager owns the supervised servers of a host.
type Manager struct {
	start   engine.StartOptions
	policy  supervisor.Policy
	impl    *mcp.Implementation
	log     *slog.Logger
	publish func(topic string, data any)
	held    func(server string) int
	fan     Fan // the gateway, for the servers' log messages and updates (serverlog.go)
	// listsDir keeps the list caches of on-demand servers (sleep.go); "":
	// no cache on disk.
	listsDir string
	// connect, if set, connects every server instead of its runner
	// (runner.go): a test's in-memory server. nil in the host.
	connect func(context.Context) (mcp.Transport, error)

	mu      sync.Mutex
	servers map[string]*server
	closing bool
	ladders sync.WaitGroup // stops of removed servers
	temps   sandboxTemps   // the sandboxed servers' private temp directories (sandboxtemp.go)
	// stayStopped are names whose next new entry does not start: a
	// server the user had stopped, renamed (see Host.rename).
	stayStopped map[string]bool
	// inherit are names whose next new entry takes over a renamed
	// server's kept stderr (see Host.rename).
	inherit map[string]inheritedLogs

	// gw relays every request to a server (the gateway's tools/call,
	// resources/read, prompts/get and completion/complete, and
	// servers.call) through one relay per server connection (app/relay);
	// relayHook, the call pipeline's hooks (pipeline.go), sees each.
	gw        *gatewayBackend
	relayHook relay.Hook
	// inputs route the servers' requests to the apps and people
	// (inputs.go); nil: a Manager without a Host declares none.
	inputs *inputs
	// activity is the activity log (issue 14 §1): the first of the relay's
	// hooks.
	activity *activityLog
	// warm fetches an npx entry's package before its first start (warm.go).
	warm *warmer
	// tokens is the keyring the OAuth sign-ins of remote servers keep
	// their tokens in (oauth.go); nil: no sign-in.
	tokens  *secrets.Store
	oauthMu sync.Mutex // orders the saves of renewed tokens with sign-ins and outs
}

// ManagerOptions configure a [Manager].
type ManagerOptions struct {
	Start   engine.StartOptions
	Policy  supervisor.Policy
	Version string
	Logger  *slog.Logger
	// Held, if set, is the number of a server's tools held for review
	// (app/trust), for its status.
	Held func(server string) int
	// Publish sends an event to the host's subscribed clients; it must not
	// block.
	Publish func(topic string, data any)
	// WarmPath is where the keys of warmed npx entries are remembered
	// (warm.json in the state directory; see warm.go); empty: in memory.
	WarmPath string
	// Tokens is the keyring of the OAuth tokens of remote servers
	// (oauth.go); nil: they cannot sign in.
	Tokens *secrets.Store
	// Approvals is the approval stage of the call pipeline (pipeline.go);
	// nil: every call goes (a Manager without a Host: tests).
	Approvals relay.Hook
	// ListsDir keeps the list caches of on-demand servers (the host's
	// StateDir/lists); "": none, an on-demand server starts once at the
	// host's start to learn its lists.
	ListsDir string
	// Fan receives the servers' log messages and resource updates for
	// the apps (serverlog.go); nil: they go to the servers' logs only.
	Fan Fan
}

// NewManager returns a manager with no servers.
func NewManager(o ManagerOptions) *Manager {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Publish == nil {
		o.Publish = func(string, any) {}
	}
	m := &Manager{start: o.Start, policy: o.Policy, tokens: o.Tokens, log: o.Logger, publish: o.Publish, held: o.Held, listsDir: o.ListsDir, fan: o.Fan,
		impl:    &mcp.Implementation{Name: "switchboard", Version: o.Version},
		servers: map[string]*server{}, temps: sandboxTemps{root: o.Start.SandboxTemp}}
	m.gw = &gatewayBackend{m: m, relays: map[relay.Conn]*relay.Relay{}, sessions: map[*mcp.ClientSession]*sessionConn{}}
	m.activity = newActivityLog(o.Logger)
	m.start.Secrets = m.activity.resolver(o.Start.Secrets)
	m.warm = newWarmer(o.Start, o.Logger, o.WarmPath)
	m.relayHook = pipeline(m.activity, o.Approvals)
	return m
}

// Apply makes the running servers match cfgs, touching only what changed:
// new entries start (unless disabled or stopped by the user), removed ones
// stop, changed ones restart, and untouched ones keep running. An entry
// with problems is reported; if an earlier valid version of it runs, that
// one keeps running.
func (m *Manager) Apply(cfgs []ServerConfig) (added, removed, changed []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closing {
		return
	}
	seen := map[string]bool{}
	if !m.temps.swept {
		// The host's start: the temp directories of names no entry has go.
		names := map[string]bool{}
		for _, c := range cfgs {
			names[c.Name] = true
		}
		m.temps.sweep(names)
		m.temps.swept = true
	} else {
		for _, c := range cfgs {
			if _, ok := m.servers[c.Name]; !ok {
				m.temps.clear(c.Name) // a new entry starts with an empty one
			}
		}
	}
	for _, c := range cfgs {
		seen[c.Name] = true
		s, ok := m.servers[c.Name]
		if !ok {
			s = &server{reg: m, cfg: c, logs: engine.NewRing(engine.DefaultCaptureLines, engine.DefaultCaptureBytes)}
			s.userStopped = m.stayStopped[c.Name]
			delete(m.stayStopped, c.Name)
			if in, ok := m.inherit[c.Name]; ok {
				delete(m.inherit, c.Name)
				s.logs = in.logs
				s.logs.Add(engine.Line{Time: time.Now(), Text: fmt.Sprintf("--- renamed from %s to %s ---", in.from, c.Name)})
			}
			m.servers[c.Name] = s
			added = append(added, c.Name)
			if len(c.Problems) == 0 {
				s.begin(c, s.userStopped)
			}
			s.publishState()
			continue
		}
		if s.apply(c) {
			changed = append(changed, c.Name)
		}
	}
	for name, s := range m.servers {
		if seen[name] {
			continue
		}
		removed = append(removed, name)
		delete(m.servers, name)
		if s.sup != nil {
			done := s.sup.Stop()
			m.ladders.Add(1)
			go func() {
				defer m.ladders.Done()
				<-done
				// Its temp directory goes with it, unless an entry of
				// the name came back meanwhile (that one's was emptied).
				m.mu.Lock()
				_, back := m.servers[name]
				m.mu.Unlock()
				if !back {
					m.temps.remove(name)
				}
			}()
		} else {
			m.temps.remove(name)
		}
		s.pubMu.Lock()
		s.removed = true
		m.publish(hostapi.TopicState, hostapi.ServerStatus{Name: name, State: hostapi.StateRemoved})
		s.pubMu.Unlock()
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(changed)
	return added, removed, changed
}

// SecretChanged restarts the running servers that use the secret and
// wakes those that wait for it.
func (m *Manager) SecretChanged(name string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var touched []string
	for n, s := range m.servers {
		if c, _ := s.config(); s.sup == nil || !slices.Contains(c.Secrets, name) {
			continue
		}
		touched = append(touched, n)
		switch s.sup.Status().State {
		case supervisor.WaitingSecret:
			s.sup.Retry()
		case supervisor.Stopped, supervisor.Failed:
		default:
			s.sup.Restart()
		}
	}
	sort.Strings(touched)
	return touched
}

// Status returns every server's status, sorted by name.
func (m *Manager) Status() []hostapi.ServerStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]hostapi.ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// ErrNoServer is returned for a name the config does not have.
var ErrNoServer = errors.New("no such server")

func (m *Manager) get(name string) (*server, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q is not in the config%s; 'switchboard status' lists the servers",
			ErrNoServer, name, english.DidYouMean(name, slices.Collect(maps.Keys(m.servers))))
	}
	return s, nil
}

// StartServer starts a server the user asked for (resetting its failures).
func (m *Manager) StartServer(name string) error {
	s, err := m.get(name)
	if err != nil {
		return err
	}
	c, _ := s.config()
	if s.sup == nil {
		sentences := make([]string, len(c.Problems))
		for i, p := range c.Problems {
			sentences[i] = p.Sentence()
		}
		return &hostapi.Error{Code: hostapi.CodeInvalidConfig, Problems: c.Problems,
			Message: fmt.Sprintf("server %q cannot start: its config entry has problems: %v", name, sentences)}
	}
	if c.Disabled {
		msg := fmt.Sprintf("server %q is disabled: enable it first ('switchboard servers enable %s')", name, name)
		return &hostapi.Error{Code: hostapi.CodeDisabled, Message: msg, Problems: []hostapi.Problem{{
			Server: name, Message: msg, Fact: fmt.Sprintf("server %q is disabled", name),
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedyEnable, Server: name}}}}
	}
	s.setUserStopped(false)
	s.sup.Start()
	return nil
}

// StopServer stops a server until the user starts it again (it stays
// stopped across reloads); the returned channel closes when its ladder
// has finished.
func (m *Manager) StopServer(name string) (<-chan struct{}, error) {
	s, err := m.get(name)
	if err != nil {
		return nil, err
	}
	s.setUserStopped(true)
	if s.sup == nil {
		c := make(chan struct{})
		close(c)
		return c, nil
	}
	done := s.sup.Stop()
	s.publishState()
	return done, nil
}

// RestartServer restarts a server (a user's action: failures reset).
func (m *Manager) RestartServer(name string) error {
	s, err := m.get(name)
	if err != nil {
		return err
	}
	if c, _ := s.config(); s.sup == nil || c.Disabled {
		return m.StartServer(name)
	}
	s.setUserStopped(false)
	s.sup.Restart()
	return nil
}

// Names returns the server names, sorted.
func (m *Manager) Names() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	names := make([]string, 0, len(m.servers))
	for n := range m.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Tools returns the cached tools of a running server.
func (m *Manager) Tools(name string) ([]*mcp.Tool, error) {
	s, err := m.get(name)
	if err != nil {
		return nil, err
	}
	if s.sup == nil || s.sup.Session() == nil {
		return nil, s.notRunning()
	}
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	return slices.Clone(s.tools), nil
}

// Logs returns a server's kept stderr lines (across restarts).
func (m *Manager) Logs(name string) (*engine.Ring, error) {
	s, err := m.get(name)
	if err != nil {
		return nil, err
	}
	return s.logs, nil
}

// Call calls a tool of a running server (servers.call), bounded by its
// callTimeout, its result's secrets redacted: through the same relay as the gateway's calls
// (app/relay), so that the timeout, the cancellation and the errors are
// the same. A server that is not running is an error of the API's kind
// (m.notRunning) rather than a tool error; one that is coming back by
// itself (a restart) is waited for, as a gateway call is.
func (m *Manager) Call(ctx context.Context, name, tool string, args any) (_ *mcp.CallToolResult, err error) {
	// An error may quote the server (a JSON-RPC error's message): its
	// secrets are redacted, as in its result (redact.go).
	defer func() { err = m.activity.redactError(err) }()
	s, err := m.get(name)
	if err != nil {
		return nil, err
	}
	if s.sup == nil || (s.sup.Session() == nil && !comingBack(s, s.sup)) {
		return nil, s.notRunning()
	}
	var raw json.RawMessage
	switch a := args.(type) {
	case nil:
	case json.RawMessage:
		raw = a
	default:
		if raw, err = json.Marshal(a); err != nil {
			return nil, fmt.Errorf("server %q: the arguments of tool %q do not encode: %w", name, tool, err)
		}
	}
	caller := relay.CallerFrom(ctx)
	if caller.Conn == "" {
		caller = relay.Caller{App: "switchboard", Conn: "api"}
	}
	res, _, err := relay.Do(ctx, m.gw, name, &relay.Call{Tool: tool, Caller: caller, Arguments: raw})
	if err != nil {
		var nr *gateway.NotRunningError
		var denied *relay.DeniedError
		switch {
		case errors.As(err, &denied): // approvals: a tool error, as the gateway's
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: denied.Error()}}}, nil
		case errors.As(err, &nr):
			return nil, s.notRunning()
		case ctx.Err() != nil:
			return nil, &toolCallError{name, tool, ctx.Err()}
		}
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) {
			return nil, &toolCallError{name, tool, err}
		}
		return nil, err
	}
	// What a servers.call returns is shown to a person (the window's Try
	// it, 'switchboard call'): a secret the server echoes is redacted, as
	// in the activity log. An app's call through the gateway gets the
	// server's answer as it is (docs/decisions.md).
	var out mcp.CallToolResult
	if err := json.Unmarshal(m.activity.redact(res), &out); err != nil {
		return nil, &toolCallError{name, tool, fmt.Errorf("the result does not decode: %w", err)}
	}
	return &out, nil
}

// toolCallError names the server and the tool of a failed servers.call,
// as the relay's own errors do.
type toolCallError struct {
	server, tool string
	err          error
}

func (e *toolCallError) Error() string {
	return fmt.Sprintf("Switchboard server %q: tool %q: %v", e.server, e.tool, e.err)
}

func (e *toolCallError) Unwrap() error { return e.err }

// StopAll stops every server and waits until every stop ladder has
// finished, so that no process survives the host.
func (m *Manager) StopAll() {
	m.mu.Lock()
	m.closing = true
	m.mu.Unlock()
	m.warm.close()
	m.mu.Lock()
	var dones []<-chan struct{}
	for _, s := range m.servers {
		if s.sup != nil {
			dones = append(dones, s.sup.Stop())
		}
	}
	m.mu.Unlock()
	for _, d := range dones {
		<-d
	}
	m.ladders.Wait()
}
