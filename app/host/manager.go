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
	"strings"
	"sync"
	"sync/atomic"
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
	// listsDir keeps the list caches of on-demand servers (sleep.go); "":
	// no cache on disk.
	listsDir string

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

type server struct {
	cfg         ServerConfig
	sup         *supervisor.Supervisor // nil if the entry never was valid
	userStopped bool
	logs        *engine.Ring // stderr across restarts

	pubMu   sync.Mutex // orders its state events: the last one sent is the latest state
	removed bool       // under pubMu: "removed" was sent, send no more

	cacheMu   sync.Mutex // guards the fields below and cfg, userStopped
	followed  int        // the pid whose stderr is followed
	tools     []*mcp.Tool
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
	session   *mcp.ClientSession // the session the cache belongs to
	// warming, under cacheMu (set under the Manager's mu), names the packages a warm-up
	// fetches before the server is started or updated (warm.go); the
	// warm-up then settles the server on its current entry.
	warming string

	// Servers that sleep (sleep.go), under cacheMu. slept are the lists
	// of its last run (or of the disk cache): what the gateway lists
	// while it sleeps; nil when it never listed under this entry.
	slept    *listCache
	inflight int         // requests from their start (waits included) to their end
	idle     *time.Timer // stops it idleStop after its last request
	learning bool        // started only to learn its lists: it sleeps once they are saved
	idling   bool        // its idle stop began: no new request goes to its session

	remote    *remoteWatch       // a remote server's last answer (remote.go), under cacheMu
	signingIn context.CancelFunc // a sign-in under way (oauth.go), under cacheMu
	oauthGen  atomic.Int64       // counts sign-ins and outs (oauth.go): a stale renewal does not save
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
}

// NewManager returns a manager with no servers.
func NewManager(o ManagerOptions) *Manager {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Publish == nil {
		o.Publish = func(string, any) {}
	}
	m := &Manager{start: o.Start, policy: o.Policy, tokens: o.Tokens, log: o.Logger, publish: o.Publish, held: o.Held, listsDir: o.ListsDir,
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
			s = &server{cfg: c, logs: engine.NewRing(engine.DefaultCaptureLines, engine.DefaultCaptureBytes)}
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
				s.sup = m.newSupervisor(s, c)
				if c.OnDemand {
					s.slept = m.loadCache(c)
				}
				if !c.Disabled && !s.userStopped && m.mustStart(s, c) && !m.deferForWarm(s, c) {
					s.sup.Start()
				}
			}
			m.publishState(s)
			continue
		}
		old, userStopped := s.config()
		if len(c.Problems) > 0 {
			// Keep what runs; report the problems. Unless the entry is
			// now disabled: the user asked for it not to run ('servers
			// disable' writes only the flag, whatever else the entry
			// holds), and stopping it stops nothing that should run.
			old.Problems = c.Problems
			switch {
			case c.Disabled && !old.Disabled:
				old.Disabled = true
				if s.sup != nil {
					s.sup.Stop()
				}
				changed = append(changed, c.Name)
			case !c.Disabled && old.Disabled:
				// Enabled again, still invalid: not disabled any more,
				// and nothing to start until the entry is fixed.
				old.Disabled = false
				changed = append(changed, c.Name)
			}
			s.setConfig(old)
			m.publishState(s)
			continue
		}
		if old.Fingerprint != c.Fingerprint && c.OnDemand {
			lc := m.loadCache(c)
			s.cacheMu.Lock()
			s.slept = lc
			s.cacheMu.Unlock()
		}
		s.setConfig(c)
		if s.sup != nil && (old.Remote == nil) != (c.Remote == nil) {
			// Local became remote, or the reverse: a supervisor of the
			// other kind, once the old one's ladder is done.
			done := s.sup.Stop()
			m.ladders.Add(1)
			go func() { <-done; m.ladders.Done() }()
			s.sup = nil
		}
		switch {
		case s.sup == nil:
			s.sup = m.newSupervisor(s, c)
			if c.OnDemand {
				lc := m.loadCache(c)
				s.cacheMu.Lock()
				s.slept = lc
				s.cacheMu.Unlock()
			}
			if !c.Disabled && !userStopped && m.mustStart(s, c) && !m.deferForWarm(s, c) {
				s.sup.Start()
			}
			changed = append(changed, c.Name)
		case old.Fingerprint != c.Fingerprint || old.Disabled != c.Disabled:
			changed = append(changed, c.Name)
			if c.Disabled {
				s.sup.Stop()
			} else if m.deferForWarm(s, c) {
				// The warm-up settles it on this entry once the package
				// is fetched; what runs meanwhile keeps running.
			} else if old.Disabled {
				s.sup.Update(c.Spec)
				if !userStopped && m.mustStart(s, c) {
					s.sup.Start()
				}
			} else {
				state := s.sup.Status().State
				s.sup.Update(c.Spec) // restarts it if it runs
				// A server that gave up (failed) gets a new chance with
				// the changed entry, its count reset, unless the user
				// stopped it; a sleeping one whose new entry has no lists
				// yet is started to learn them.
				if !userStopped && (state == supervisor.Failed || state == supervisor.Stopped && c.OnDemand && m.mustStart(s, c)) {
					s.sup.Start()
				}
			}
		case old.OnDemand != c.OnDemand || old.IdleStop != c.IdleStop:
			m.startModeChanged(s, c, userStopped)
		}
		m.publishState(s)
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

func (m *Manager) newSupervisor(s *server, c ServerConfig) *supervisor.Supervisor {
	name := c.Name
	refresh := func(ctx context.Context, cs *mcp.ClientSession) { go m.refresh(name, s, cs) }
	client := mcp.NewClient(m.impl, &mcp.ClientOptions{
		// One instance serves many apps: advertise no roots, sampling or
		// elicitation.
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(ctx context.Context, r *mcp.ToolListChangedRequest) {
			refresh(ctx, r.Session)
		},
		PromptListChangedHandler: func(ctx context.Context, r *mcp.PromptListChangedRequest) {
			refresh(ctx, r.Session)
		},
		ResourceListChangedHandler: func(ctx context.Context, r *mcp.ResourceListChangedRequest) {
			refresh(ctx, r.Session)
		},
		ProgressNotificationHandler: m.onProgress,
	})
	opts := m.start
	opts.Logger = m.log
	var transport func(context.Context) (mcp.Transport, error)
	if c.Remote != nil {
		transport = m.remoteTransport(s)
	}
	return supervisor.New(supervisor.Options{
		Spec: c.Spec, Start: opts, Client: client, Policy: m.policy, Transport: transport,
		OnChange: func(st supervisor.Status, cs *mcp.ClientSession) {
			if st.PID != 0 {
				s.cacheMu.Lock()
				follow := s.followed != st.PID
				s.followed = st.PID
				s.cacheMu.Unlock()
				if p := s.sup.Process(); follow && p != nil && p.Pid() == st.PID {
					go m.followStderr(s, p)
				}
			}
			if st.State == supervisor.Running && cs != nil {
				go m.refresh(name, s, cs)
				m.armIdle(s, 0) // an on-demand server: idleStop from its start
			}
			if st.State != supervisor.Running {
				s.clearCache()
			}
			m.publishState(s)
		},
	})
}

// followStderr copies a process's captured stderr into the server's ring,
// which lasts across restarts, and publishes each line.
func (m *Manager) followStderr(s *server, p *engine.Process) {
	ring := p.Stderr()
	if ring == nil {
		return
	}
	lines, f := ring.Follow(1024)
	defer f.Close()
	emit := func(l engine.Line) {
		l.Text = m.activity.redactString(l.Text) // shown in logs, the window, logs -f
		s.logs.Add(l)
		m.publish(hostapi.TopicLog, hostapi.LogLine{Server: s.name(), Line: l.Text, Time: l.Time})
	}
	// The marker is a line like the others: kept and published, so that
	// a follower (logs -f, the window's Follow) sees where a run begins.
	emit(engine.Line{Time: time.Now(), Text: fmt.Sprintf("--- started, pid %d ---", p.Pid())})
	for _, l := range lines {
		emit(l)
	}
	for {
		select {
		case l := <-f.C():
			emit(l)
		case <-p.Done():
			for {
				select {
				case l := <-f.C():
					emit(l)
				default:
					return
				}
			}
		}
	}
}

func (s *server) name() string {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	return s.cfg.Name
}

func (s *server) config() (ServerConfig, bool) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	return s.cfg, s.userStopped
}

func (s *server) setConfig(c ServerConfig) {
	s.cacheMu.Lock()
	s.cfg = c
	s.cacheMu.Unlock()
}

func (s *server) setUserStopped(v bool) {
	s.cacheMu.Lock()
	s.userStopped = v
	s.cacheMu.Unlock()
}

func (s *server) clearCache() {
	s.cacheMu.Lock()
	s.tools, s.prompts, s.resources, s.templates, s.session = nil, nil, nil, nil, nil
	s.idling = false // not running: an idle stop has begun its ladder, or is over
	s.cacheMu.Unlock()
}

// refresh re-reads a session's tools, prompts, resources and resource
// templates (a server's resources list_changed covers its templates).
func (m *Manager) refresh(name string, s *server, cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var tools []*mcp.Tool
	var prompts []*mcp.Prompt
	var resources []*mcp.Resource
	var templates []*mcp.ResourceTemplate
	caps := &mcp.ServerCapabilities{}
	if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil {
		caps = ir.Capabilities
	}
	var errs []error
	var ci *cacheInfo // the cache fields of 2026-07-28 lists (sleep.go)
	proto := ""
	if ir := cs.InitializeResult(); ir != nil {
		proto = ir.ProtocolVersion
	}
	if proto >= "2026-07-28" {
		ci = &cacheInfo{}
	}
	if caps.Tools != nil {
		var err error
		tools, err = listPages(ctx, ci, func(ctx context.Context, cursor string) ([]*mcp.Tool, string, mcp.Cacheable, error) {
			r, err := cs.ListTools(ctx, &mcp.ListToolsParams{Cursor: cursor})
			if err != nil {
				return nil, "", mcp.Cacheable{}, err
			}
			return r.Tools, r.NextCursor, r.Cacheable, nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	if caps.Prompts != nil {
		var err error
		prompts, err = listPages(ctx, ci, func(ctx context.Context, cursor string) ([]*mcp.Prompt, string, mcp.Cacheable, error) {
			r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor})
			if err != nil {
				return nil, "", mcp.Cacheable{}, err
			}
			return r.Prompts, r.NextCursor, r.Cacheable, nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	if caps.Resources != nil {
		var err error
		resources, err = listPages(ctx, ci, func(ctx context.Context, cursor string) ([]*mcp.Resource, string, mcp.Cacheable, error) {
			r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor})
			if err != nil {
				return nil, "", mcp.Cacheable{}, err
			}
			return r.Resources, r.NextCursor, r.Cacheable, nil
		})
		if err != nil {
			errs = append(errs, err)
		}
		templates, err = listPages(ctx, ci, func(ctx context.Context, cursor string) ([]*mcp.ResourceTemplate, string, mcp.Cacheable, error) {
			r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: cursor})
			if err != nil {
				return nil, "", mcp.Cacheable{}, err
			}
			return r.ResourceTemplates, r.NextCursor, r.Cacheable, nil
		})
		if err != nil {
			// A server with resources but no templates may not
			// know the method at all.
			var rpc *jsonrpc.Error
			if !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeMethodNotFound {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		m.log.Warn("listing a server's tools, prompts, resources or resource templates failed", "server", name, "error", err)
	}
	s.cacheMu.Lock()
	if s.sup == nil || s.sup.Session() != cs {
		s.cacheMu.Unlock()
		return // a newer session replaced it
	}
	s.tools, s.prompts, s.resources, s.templates, s.session = tools, prompts, resources, templates, cs
	var lc *listCache
	learnt := false
	if len(errs) == 0 {
		// What the server sleeps with (sleep.go): saved for an on-demand
		// server, kept for every server (an entry made on-demand later
		// sleeps with it).
		lc = &listCache{Version: listCacheVersion, Key: cacheKey(s.cfg), Saved: time.Now(), Protocol: proto,
			Completions: caps.Completions != nil,
			Tools:       tools, Prompts: prompts, Resources: resources, Templates: templates}
		if ci != nil {
			lc.TTLMs, lc.Scope = ci.ttl, ci.scope
		}
		s.slept = lc
		learnt, s.learning = s.learning, false
	}
	onDemand := s.cfg.OnDemand
	s.cacheMu.Unlock()
	if lc != nil && onDemand {
		m.saveCache(name, lc)
		if learnt {
			m.armIdle(s, time.Millisecond) // learnt: it sleeps now, unless a call came meanwhile
		}
	}
	m.publish(hostapi.TopicTools, hostapi.ToolsEvent{Name: name, Tools: len(tools), Prompts: len(prompts), Resources: len(resources)})
	m.publishState(s)
}

func (m *Manager) publishState(s *server) {
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	if s.removed {
		return // its stop ladder's states come after "removed": not sent
	}
	m.publish(hostapi.TopicState, m.statusOf(s))
}

func (m *Manager) statusOf(s *server) hostapi.ServerStatus {
	c, userStopped := s.config()
	st := hostapi.ServerStatus{Name: c.Name, Command: c.Spec.Command, Args: c.Spec.Args, Disabled: c.Disabled,
		UserStopped: userStopped, Problems: c.Problems, Secrets: c.Secrets}
	if m.held != nil {
		st.Held = m.held(c.Name)
	}
	var rerr error
	if c.Remote != nil {
		st.URL, st.Transport = config.ShownURL(c.Remote.URL), c.Remote.Type
	} else if l, err := engine.Resolve(&c.Spec, m.start.Path); err != nil {
		rerr = err
		st.ResolveError = rerr.Error()
	} else {
		st.Resolved = l.Resolved
	}
	if s.sup == nil {
		st.State = hostapi.StateInvalid
		if c.Disabled {
			// Not meant to run: its problems are said, but it is not
			// a failure (the tray's icon stays calm).
			st.State = hostapi.StateDisabled
		}
		return st
	}
	ss := s.sup.Status()
	st.State = hostapi.State(ss.State)
	if ss.State == supervisor.WaitingUser {
		st.State = hostapi.StateSignInNeeded // only remote servers wait for the user
	}
	if c.Disabled && (ss.State == supervisor.Stopped || ss.State == supervisor.Failed) {
		// A server that gave up before it was disabled is disabled too:
		// the user said not to run it, so its old failure is no longer
		// one to fix (its supervisor stays Failed until it is started).
		st.State = hostapi.StateDisabled
	}
	sleeping := s.sleeping()
	if sleeping {
		st.State = hostapi.StateSleeping
	}
	if st.Preparing = m.preparing(s); st.Preparing != "" && ss.State == supervisor.Stopped && !c.Disabled && !userStopped {
		st.State = hostapi.StateStarting // its start waits for the package
	}
	st.Era, st.ProtocolVersion, st.PID, st.StartedAt = ss.Era, ss.ProtocolVersion, ss.PID, ss.StartedAt
	st.Restarts, st.Failures, st.NextAttempt = ss.Restarts, ss.Failures, ss.NextAttempt
	st.FailedAt = ss.FailedAt
	// The error and the stderr lines may quote what the server printed:
	// a secret it was given is redacted, as in its logs.
	st.LastError, st.LastReason = m.activity.redactString(ss.LastError), string(ss.LastReason)
	for _, l := range ss.Stderr {
		st.Stderr = append(st.Stderr, m.activity.redactString(l))
	}
	st.ResolveInLastError = st.ResolveError != "" && strings.Contains(st.LastError, st.ResolveError)
	if c.Remote != nil {
		s.cacheMu.Lock()
		w := s.remote
		s.cacheMu.Unlock()
		s.cacheMu.Lock()
		signingIn := s.signingIn != nil
		s.cacheMu.Unlock()
		var why string
		if signingIn {
			st.State = hostapi.StateSigningIn
		} else if st.State, why = remoteState(c, st.State, w); why != "" {
			// What the HTTP client saw may quote the server: redacted too.
			if why = m.activity.redactString(why); st.LastError != "" && !strings.Contains(st.LastError, why) {
				st.LastError = why + " (" + st.LastError + ")"
			}
		}
	}
	if ss.State == supervisor.WaitingSecret && ss.SecretError != nil {
		st.Issues = waitingError(c.Name, ss.SecretError, ss.LastError).Problems
	}
	st.Sandbox = sandboxStatus(c.Name, ss)
	if ss.SandboxUnavailable {
		st.Issues = append(st.Issues, sandboxIssue(c.Name, ss.LastError))
	}
	if p := CommandIssue(c.Name, c.Spec.Env, rerr); p != nil && !c.Disabled && c.Remote == nil {
		st.Issues = append(st.Issues, *p)
	}
	st.Issues = append(st.Issues, c.Notes...) // last: what needs the user comes first
	s.cacheMu.Lock()
	st.Tools, st.Prompts, st.Resources = len(s.tools), len(s.prompts), len(s.resources)
	if sleeping && s.slept != nil {
		st.Tools, st.Prompts, st.Resources = len(s.slept.Tools), len(s.slept.Prompts), len(s.slept.Resources)
	}
	s.cacheMu.Unlock()
	return st
}

// Status returns every server's status, sorted by name.
func (m *Manager) Status() []hostapi.ServerStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]hostapi.ServerStatus, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, m.statusOf(s))
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
	m.publishState(s)
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
		return nil, m.notRunning(s)
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

func (m *Manager) notRunning(s *server) error {
	st := m.statusOf(s)
	msg := fmt.Sprintf("server %q is %s", st.Name, st.State)
	if st.State == hostapi.StateFailed {
		msg = fmt.Sprintf("server %q has failed", st.Name)
	}
	if st.LastError != "" {
		// The engine's errors begin with the server's name: once is enough.
		msg += " (" + strings.TrimPrefix(st.LastError, fmt.Sprintf("server %q: ", st.Name)) + ")"
	}
	if s.sup != nil {
		if sst := s.sup.Status(); sst.State == supervisor.WaitingSecret && sst.SecretError != nil {
			return waitingError(st.Name, sst.SecretError, msg+": set the secret, or unlock the keyring")
		}
	}
	if st.State == hostapi.StateSignInNeeded {
		login := "'switchboard servers login " + st.Name + "'"
		fact := fmt.Sprintf("server %q needs a sign-in", st.Name)
		if why := strings.ReplaceAll(st.LastError, ": run "+login, ""); why != "" {
			fact += " (" + why + ")"
		}
		full := fact + ": sign in with " + login
		return &hostapi.Error{Code: hostapi.CodeNotRunning, Message: full, Problems: []hostapi.Problem{{
			Server: st.Name, Message: full, Fact: fact,
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedySignIn, Server: st.Name}}}}
	}
	full := msg + ": start it with 'switchboard servers start " + st.Name + "'"
	if st.State == hostapi.StateFailed {
		// Started as it is, it would fail again.
		msg += " and is not restarted any more"
		full = msg + ": fix it, then start it with 'switchboard servers start " + st.Name + "'"
	}
	return &hostapi.Error{Code: hostapi.CodeNotRunning, Message: full, Problems: []hostapi.Problem{{
		Server: st.Name, Message: full, Fact: msg,
		Remedy: &hostapi.Remedy{Kind: hostapi.RemedyStart, Server: st.Name}}}}
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
		return nil, m.notRunning(s)
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
			return nil, m.notRunning(s)
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
