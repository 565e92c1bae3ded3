package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

// A server is one entry of the config as the host runs it: its
// supervisor (which runs it locally over stdio, or connects to it over
// HTTP), its lists, its sleep (sleep.go) and its warm-up (warm.go), and
// the state all of these give it (state.go). The Manager is the registry
// of servers by name; it applies a new config to them.
type server struct {
	// reg is the registry the server is in: its logger, options and
	// lock (a server's timers and warm-up check under it that the server
	// is still the one registered under its name).
	reg *Manager

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
	// listedAt is when the lists above were read whole; ttl and scope
	// their 2026-07-28 cache fields (ttl nil: none), for the gateway
	// (app/gateway's lists.go).
	listedAt time.Time
	ttl      *int
	scope    string
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

	fan serverFan // the apps' subscriptions and log level (serverlog.go)
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

func (s *server) newSupervisor(c ServerConfig) *supervisor.Supervisor {
	m := s.reg
	name := c.Name
	refresh := func(ctx context.Context, cs *mcp.ClientSession) { go s.refresh(name, cs) }
	opts := &mcp.ClientOptions{
		// One instance serves many apps: no roots, sampling or
		// elicitation of its own; m.inputs (inputs.go) declares and
		// routes them to the app that caused them, or to a person.
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
		// Log messages and resource updates, for the apps (serverlog.go).
		//lint:ignore SA1019 logging is deprecated (SEP-2577) and still functional: the servers' log messages go to the apps and the Logs
		LoggingMessageHandler:  s.onLog,
		ResourceUpdatedHandler: s.onResourceUpdated,
	}
	if m.inputs != nil {
		m.inputs.handlers(s, opts)
	}
	client := mcp.NewClient(m.impl, opts)
	if m.inputs != nil {
		client.AddReceivingMiddleware(m.inputs.rootsMiddleware(s))
	}
	start := m.start
	start.Logger = m.log
	transport := s.runnerFor(c).transport()
	return supervisor.New(supervisor.Options{
		Spec: c.Spec, Start: start, Client: client, Policy: m.policy, Transport: transport,
		OnChange: func(st supervisor.Status, cs *mcp.ClientSession) {
			if st.PID != 0 {
				s.cacheMu.Lock()
				follow := s.followed != st.PID
				s.followed = st.PID
				s.cacheMu.Unlock()
				if p := s.sup.Process(); follow && p != nil && p.Pid() == st.PID {
					go s.followStderr(p)
				}
			}
			if st.State == supervisor.Running && cs != nil {
				go s.resume(cs) // the apps' log level and subscriptions (serverlog.go)
				go s.refresh(name, cs)
				s.armIdle(0) // an on-demand server: idleStop from its start
			}
			if st.State != supervisor.Running {
				s.clearCache()
			}
			s.publishState()
		},
	})
}

// followStderr copies a process's captured stderr into the server's ring,
// which lasts across restarts, and publishes each line.
func (s *server) followStderr(p *engine.Process) {
	m := s.reg
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

// refresh re-reads a session's tools, prompts, resources and resource
// templates (a server's resources list_changed covers its templates).
func (s *server) refresh(name string, cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = s.refreshCtx(ctx, name, cs)
}

// refreshCtx is refresh within ctx. A list that cannot be read keeps the
// one read before in the same session (served stale), and a list read
// again the same as before keeps its slice, so that the gateway sees no
// change.
func (s *server) refreshCtx(ctx context.Context, name string, cs *mcp.ClientSession) error {
	m := s.reg
	var tools []*mcp.Tool
	var prompts []*mcp.Prompt
	var resources []*mcp.Resource
	var templates []*mcp.ResourceTemplate
	caps := &mcp.ServerCapabilities{}
	if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil {
		caps = ir.Capabilities
	}
	var errs []error
	var failed [4]bool // tools, prompts, resources, templates
	var ci *cacheInfo  // the cache fields of 2026-07-28 lists (sleep.go)
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
			errs, failed[0] = append(errs, err), true
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
			errs, failed[1] = append(errs, err), true
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
			errs, failed[2] = append(errs, err), true
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
				errs, failed[3] = append(errs, err), true
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		m.log.Warn("listing a server's tools, prompts, resources or resource templates failed", "server", name, "error", err)
	}
	s.cacheMu.Lock()
	if s.sup == nil || s.sup.Session() != cs {
		s.cacheMu.Unlock()
		return errors.Join(errs...) // a newer session replaced it
	}
	unchanged := false   // read again, the same lists: no event, no save
	if s.session == cs { // read again: stale on failure, unchanged if the same
		tools = keepList(s.tools, tools, failed[0])
		prompts = keepList(s.prompts, prompts, failed[1])
		resources = keepList(s.resources, resources, failed[2])
		templates = keepList(s.templates, templates, failed[3])
		unchanged = sameSlice(tools, s.tools) && sameSlice(prompts, s.prompts) &&
			sameSlice(resources, s.resources) && sameSlice(templates, s.templates)
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
		s.listedAt, s.ttl, s.scope = time.Now(), nil, ""
		if ci != nil {
			s.ttl, s.scope = ci.ttl, ci.scope
		}
		s.slept = lc
		learnt, s.learning = s.learning, false
	}
	onDemand := s.cfg.OnDemand
	s.cacheMu.Unlock()
	if unchanged && !learnt {
		// A re-read of a 2026-07-28 server whose ttlMs passed (the
		// gateway's lists.go asks on an app's list): nothing changed, so
		// neither the tray, the window nor the gateway hear of it.
		return errors.Join(errs...)
	}
	if lc != nil && onDemand {
		s.saveCache(name, lc)
		if learnt {
			s.armIdle(time.Millisecond) // learnt: it sleeps now, unless a call came meanwhile
		}
	}
	m.publish(hostapi.TopicTools, hostapi.ToolsEvent{Name: name, Tools: len(tools), Prompts: len(prompts), Resources: len(resources)})
	s.publishState()
	return errors.Join(errs...)
}

func (s *server) publishState() {
	m := s.reg
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	if s.removed {
		return // its stop ladder's states come after "removed": not sent
	}
	m.publish(hostapi.TopicState, s.status())
}

func (s *server) status() hostapi.ServerStatus {
	m := s.reg
	c, userStopped := s.config()
	st := hostapi.ServerStatus{Name: c.Name, Command: c.Spec.Command, Args: c.Spec.Args, Disabled: c.Disabled,
		UserStopped: userStopped, Problems: c.Problems, Secrets: c.Secrets}
	if m.held != nil {
		st.Held = m.held(c.Name)
	}
	run := s.runnerFor(c)
	rerr := run.where(c, &st)
	ssp := s.supStatus()
	var why string
	st.State, why = PublicState(s.facts(ssp))
	if ssp == nil {
		return st
	}
	st.Preparing = s.preparing()
	ss := *ssp
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
	st.LastError = s.shownError(ss.LastError, why)
	if ss.State == supervisor.WaitingSecret && ss.SecretError != nil {
		st.Issues = waitingError(c.Name, ss.SecretError, ss.LastError).Problems
	}
	st.Sandbox = sandboxStatus(c.Name, ss)
	if ss.SandboxUnavailable {
		st.Issues = append(st.Issues, sandboxIssue(c.Name, ss.LastError))
	}
	if p := run.issue(c, rerr); p != nil {
		st.Issues = append(st.Issues, *p)
	}
	if st.State == hostapi.StateSignInNeeded {
		// What it needs, as data: a front end words the sign-in its own
		// way (the window's Sign in button), not as the command line's
		// command in the last error.
		st.Issues = append([]hostapi.Problem{signInIssue(c.Name, st.LastError)}, st.Issues...)
	}
	st.Issues = append(st.Issues, c.Notes...) // last: what needs the user comes first
	st.Broken = Broken(st.State, st.Issues)
	s.cacheMu.Lock()
	st.Tools, st.Prompts, st.Resources = len(s.tools), len(s.prompts), len(s.resources)
	if st.State == hostapi.StateSleeping && s.slept != nil {
		st.Tools, st.Prompts, st.Resources = len(s.slept.Tools), len(s.slept.Prompts), len(s.slept.Resources)
	}
	s.cacheMu.Unlock()
	return st
}

// signInIssue is what a server in sign-in needed needs: a sign-in. Its
// Fact says why without the command line's words (the last error's
// "run 'switchboard servers login NAME'"); its Message says both.
func signInIssue(name, lastError string) hostapi.Problem {
	login := "'switchboard servers login " + name + "'"
	fact := fmt.Sprintf("server %q needs a sign-in", name)
	why := strings.ReplaceAll(lastError, ": run "+login, "")
	why = strings.ReplaceAll(why, ": sign in with "+login+" (or Sign in in the window)", "")
	why = strings.TrimPrefix(why, errSignInNeeded.Error()+": ")
	if rest, ok := strings.CutPrefix(why, "this server asks for a sign-in "); ok {
		// A 401 with an OAuth challenge (signInAsked): said once, its
		// reason in one pair of parentheses.
		fact = fmt.Sprintf("server %q asks for a sign-in %s", name, rest)
	} else if why != "" {
		fact += " (" + why + ")"
	}
	full := fact + ": sign in with " + login
	return hostapi.Problem{Server: name, Message: full, Fact: fact,
		Remedy: &hostapi.Remedy{Kind: hostapi.RemedySignIn, Server: name}}
}

func (s *server) notRunning() error {
	st := s.status()
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
		p := signInIssue(st.Name, st.LastError)
		return &hostapi.Error{Code: hostapi.CodeNotRunning, Message: p.Message, Problems: []hostapi.Problem{p}}
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

// begin gives a valid entry its supervisor (the entry's first valid
// version, or a runner of the other kind), reads its list cache if it is
// on demand, and starts it unless it is disabled, stopped by the user, a
// sleeping server with lists, or left to a warm-up. Under the registry's
// lock.
func (s *server) begin(c ServerConfig, userStopped bool) {
	s.sup = s.newSupervisor(c)
	if c.OnDemand {
		lc := s.loadCache(c)
		s.cacheMu.Lock()
		s.slept = lc
		s.cacheMu.Unlock()
	}
	if !c.Disabled && !userStopped && s.mustStart(c) && !s.deferForWarm(c) {
		s.sup.Start()
	}
}

// apply brings the server to a new version of its entry, touching only
// what changed, publishes its state, and reports whether it changed: an
// entry with problems keeps what runs (unless it is now disabled), a
// changed one restarts, a disabled one stops, a new start mode applies
// without a restart. Under the registry's lock.
func (s *server) apply(c ServerConfig) (changed bool) {
	defer s.publishState()
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
			changed = true
		case !c.Disabled && old.Disabled:
			// Enabled again, still invalid: not disabled any more,
			// and nothing to start until the entry is fixed.
			old.Disabled = false
			changed = true
		}
		s.setConfig(old)
		return changed
	}
	if old.Fingerprint != c.Fingerprint && c.OnDemand {
		lc := s.loadCache(c)
		s.cacheMu.Lock()
		s.slept = lc
		s.cacheMu.Unlock()
	}
	s.setConfig(c)
	if s.sup != nil && (old.Remote == nil) != (c.Remote == nil) {
		// Local became remote, or the reverse: a supervisor of the
		// other kind, once the old one's ladder is done.
		done := s.sup.Stop()
		s.reg.ladders.Add(1)
		go func() { <-done; s.reg.ladders.Done() }()
		s.sup = nil
	}
	switch {
	case s.sup == nil:
		s.begin(c, userStopped)
		changed = true
	case old.Fingerprint != c.Fingerprint || old.Disabled != c.Disabled:
		changed = true
		if c.Disabled {
			s.sup.Stop()
		} else if s.deferForWarm(c) {
			// The warm-up settles it on this entry once the package
			// is fetched; what runs meanwhile keeps running.
		} else if old.Disabled {
			s.sup.Update(c.Spec)
			if !userStopped && s.mustStart(c) {
				s.sup.Start()
			}
		} else {
			state := s.sup.Status().State
			s.sup.Update(c.Spec) // restarts it if it runs
			// A server that gave up (failed) gets a new chance with
			// the changed entry, its count reset, unless the user
			// stopped it; a sleeping one whose new entry has no lists
			// yet is started to learn them.
			if !userStopped && (state == supervisor.Failed || state == supervisor.Stopped && c.OnDemand && s.mustStart(c)) {
				s.sup.Start()
			}
		}
	case old.OnDemand != c.OnDemand || old.IdleStop != c.IdleStop:
		s.startModeChanged(c, userStopped)
	}
	return changed
}

// sameSlice reports whether a and b are the same slice (keepList keeps
// the one read before when a list comes back the same).
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
