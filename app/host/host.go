// Package host is the process that owns the servers: one `switchboard
// serve` per user. It loads the config, keeps it hot-reloaded, runs every
// server through the engine's supervisor, holds the keyring secrets'
// store, and serves the local API that the tray, the command line and the
// bridge use. Nothing here knows of a screen.
package host

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/approvals"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/service"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/secrets"
	"gopkg.in/natefinch/lumberjack.v2"
)

// DefaultIdleTimeout is how long a host started on demand waits without a
// client before it stops its servers and exits.
const DefaultIdleTimeout = 10 * time.Minute

// Options configure a host.
type Options struct {
	ConfigPath string         // the config file
	RuntimeDir string         // lock, socket, process registry
	SocketPath string         // the local API's endpoint
	LogPath    string         // host.log; empty means stderr only
	StateDir   string         // the activity log's database and the list caches of on-demand servers (lists/); empty: neither
	Secrets    *secrets.Store // nil: no keyring (secret references fail)
	OnDemand   bool           // started by the tray or a bridge: exit when idle
	Service    bool           // run by the OS's service manager (serve --service): the tray's Quit leaves it
	// UserEnvFilled are the variables the process took from the user
	// database because its environment lacked them (api.FillUserEnv): a
	// host started by an AI app's bridge with a stripped environment.
	UserEnvFilled []string
	IdleTimeout   time.Duration
	Version       string
	// Policy overrides the restart policy (tests).
	Policy supervisor.Policy
	// Stderr receives log lines too (the foreground `serve`); nil: none.
	Stderr io.Writer
	// Ready, if set, is called once the API is serving.
	Ready func()
	// GatewayPath is the MCP gateway's socket; empty: mcp.sock beside
	// SocketPath (app/api.GatewayPathFor).
	GatewayPath string
	// GatewayHTTPPort, if not 0, overrides the config's gateway.httpPort
	// (-1: any free port; tests).
	GatewayHTTPPort int
	// PinsPath is the tool pin file (app/trust: pins.json in the user's
	// state directory); empty: no tool definition is pinned or held.
	PinsPath string
	// RegistrySync: sync the config's registries' indexes in the
	// background (registrysync.go; needs StateDir). `serve` sets it;
	// tests that do not leave it off, and reach no registry.
	RegistrySync bool
	// SandboxTemp is the folder of the sandboxed servers' private temp
	// directories (config.SandboxTempRoot: outside the runtime folder,
	// which holds host.sock and mcp.sock); the host removes an entry's
	// with the entry (sandboxtemp.go). Empty: the engine's default in the
	// system's temp folder, never swept.
	SandboxTemp string
}

// Host is a running host.
type Host struct {
	opts    Options
	log     *slog.Logger
	lock    *api.InstanceLock
	srv     *api.Server
	mgr     *Manager
	gw      *gateway.Gateway
	gwPath  string
	pins    *pins
	watcher *config.Watcher
	started time.Time

	approvals *approvals.Stage // approvals (issue 14), app/host/approvals.go

	// applyMu serializes the watcher's reloads and the API's changes from
	// reading the file to applying it, so that a reload that read the file
	// before a change wrote it cannot apply that older content after it.
	applyMu sync.Mutex

	mu      sync.Mutex
	file    *config.File // the config in force
	cfgErr  error
	noGood  bool // cfgErr since the start: no good config was ever read
	path    string
	pathErr error
	swept   int

	apps appConfigs   // guarded by mu (appconfigs.go)
	reg  registrySync // registrysync.go

	regSearch registryCache // the registries' search index (registrymethods.go)

	quit     chan struct{}
	quitOnce sync.Once
}

// Run runs a host until ctx ends, it is asked to stop, it gets SIGINT,
// SIGTERM or SIGHUP (its terminal closed), or (on demand) it has had no client for IdleTimeout. It stops
// every server, waiting for every stop ladder, before it returns.
func Run(ctx context.Context, o Options) error {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	// The single-instance lock comes before anything else, in particular
	// before the sweep: a second host must never kill a live host's servers.
	lock, err := api.AcquireInstanceLock(o.RuntimeDir)
	if err != nil {
		return err
	}
	defer lock.Release()

	// The stop signals are caught from the start: one that comes while
	// the host starts stops it once it is up, with the whole ladder.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals()...)
	defer signal.Stop(sigs)
	// A closed stdout or stderr (`serve | head`, a terminal that went
	// away) must not kill the host at its next log line: with SIGPIPE
	// caught, such a write fails with EPIPE instead (Go's default is to
	// die for fds 1 and 2). Caught, not ignored: an ignored SIGPIPE would
	// be inherited by the servers. It stays caught after Run returns, for
	// whatever the process writes while it exits.
	if len(sigPIPE) > 0 {
		signal.Notify(make(chan os.Signal, 1), sigPIPE...)
	}

	h := &Host{opts: o, lock: lock, started: time.Now(), quit: make(chan struct{})}
	logClose := h.setupLog()
	defer logClose()
	h.log.Info("host starting", "pid", os.Getpid(), "version", o.Version, "config", o.ConfigPath, "socket", o.SocketPath)

	// A server's descendant that leaves its process group (setsid) and
	// loses its parent is re-parented to the host rather than to init, so
	// that the stop ladder still finds it (by its token) and its zombie is
	// reaped here.
	subreaper := true
	if err := engine.BecomeSubreaper(); err != nil {
		subreaper = false
		h.log.Warn("cannot adopt the orphans of servers; a process that leaves its server's group is still found by its token", "error", err)
	} else {
		// A host started from here (the tray's on-demand start, in the
		// same process) is left to its Wait by the orphan reaper.
		service.SetStartChild(engine.StartChild)
	}
	h.log.Info("a server's processes are tracked by " + engine.Tracking(subreaper))

	registry := engine.NewRegistry(filepath.Join(o.RuntimeDir, "servers.json"))
	if n, err := registry.Sweep(); err != nil {
		h.log.Warn("sweeping the survivors of an earlier host", "error", err, "killed", n)
	} else if n > 0 {
		h.log.Info("killed processes left behind by an earlier host that was killed", "count", n)
		h.swept = n
	}

	h.path, h.pathErr = LoginPath(ctx, 5*time.Second)
	if h.pathErr != nil {
		h.log.Warn("using the host's own PATH", "reason", h.pathErr)
	}

	// Switchboard's own state, which no sandboxed server is given: checked
	// by the config (a grant that holds it is a problem of the entry) and
	// by the engine (StartOptions.Protected).
	unregister := config.RegisterOwnState(h.ownState())
	defer unregister()

	h.pins = h.openPins(o.PinsPath)
	h.srv = api.NewServer(h.handlers(), api.Options{Logger: h.log, PeerGuard: h.peerGuard, APIVersion: hostapi.APIVersion})
	var resolver engine.SecretResolver
	if o.Secrets != nil {
		resolver = o.Secrets
	}
	h.mgr = NewManager(ManagerOptions{
		Start:    h.startOptions(resolver, registry),
		Policy:   o.Policy,
		Tokens:   o.Secrets,
		Version:  o.Version,
		Logger:   h.log,
		Held:     h.heldCount,
		ListsDir: listsDir(o.StateDir),
		WarmPath: func() string {
			if o.StateDir == "" {
				return ""
			}
			return filepath.Join(o.StateDir, "warm.json")
		}(),
		Publish: func(topic string, data any) {
			_ = h.srv.Publish(topic, data)
			if topic != hostapi.TopicLog {
				h.gw.Notify()
			}
		},
		Approvals: h.newApprovals(), // the call pipeline's stage after the activity log (pipeline.go)
		Fan:       hostFan{h},       // made below, before any server runs
	})
	h.mgr.inputs = &inputs{m: h.mgr, gw: func() *gateway.Gateway { return h.gw }, // inputs.go
		changed: func(qs []hostapi.InputRequest) { _ = h.srv.Publish(hostapi.TopicRequests, qs) },
		askers:  func() int { return h.srv.Subscribers(hostapi.TopicRequests) }}
	var backend gateway.Backend = h.mgr.GatewayBackend()
	if testBackend != nil {
		backend = testBackend(h.mgr.GatewayBackend())
	}
	h.gw = gateway.New(gateway.Options{Backend: backend, Version: o.Version, Logger: h.log, Secrets: o.Secrets,
		Observe: h.observer(), PeerGuard: h.peerGuard})
	defer h.gw.Close()

	h.file = config.New()
	var loadErr error
	if f, err := config.Load(o.ConfigPath); err == nil {
		h.file = f
	} else if !errors.Is(err, fs.ErrNotExist) {
		loadErr = err
		h.log.Error("the config file cannot be used; starting with no servers", "error", err)
	}
	defer h.mgr.activity.close() // after every server stopped: every call has its record (applyFile opens it)
	if o.RegistrySync && o.StateDir != "" {
		h.reg.wake = make(chan struct{}, 1) // before applyFile wakes it
	}
	h.watcher = config.NewWatcher(o.ConfigPath, config.DefaultDebounce, h.reload)
	h.watcher.Ignore(h.file.Sum())
	h.applyFile(h.file)
	if loadErr != nil { // applyFile cleared it: no good file was read
		h.mu.Lock()
		h.cfgErr, h.noGood = loadErr, true
		h.mu.Unlock()
	}
	h.gw.Refresh()

	// The gateway listens first: a bridge that started this host waits
	// for the API, then connects to the gateway.
	if err := h.startGateway(); err != nil {
		h.mgr.StopAll()
		return err
	}
	l, err := lock.Listen(o.SocketPath)
	if err != nil {
		h.mgr.StopAll()
		return fmt.Errorf("listening on %s: %w", o.SocketPath, err)
	}
	serveDone := make(chan error, 1)
	go func() { serveDone <- h.srv.Serve(l) }()

	wctx, wcancel := context.WithCancel(context.Background())
	defer wcancel()
	go func() {
		if err := h.watcher.Run(wctx); err != nil && wctx.Err() == nil {
			h.log.Error("watching the config file stopped; changes to it are not seen until the host restarts", "error", err)
		}
	}()
	h.refreshAppConfigs()
	appsDone := make(chan struct{})
	go func() { defer close(appsDone); h.watchAppConfigs(wctx, appConfigsEvery) }()
	regDone := make(chan struct{})
	if h.reg.wake != nil {
		every, delay, retry := registrySyncEvery, registrySyncDelay, registrySyncRetry // read before the goroutine starts
		go func() { defer close(regDone); h.watchRegistries(wctx, every, delay, retry) }()
	} else {
		close(regDone)
	}
	if o.Ready != nil {
		o.Ready()
	}
	h.log.Info("host ready", "servers", len(h.file.Servers))

	var idle <-chan time.Time
	var idleTimer *time.Timer
	resetIdle := func() {
		if !o.OnDemand {
			return
		}
		if idleTimer != nil {
			idleTimer.Stop()
		}
		if h.srv.Clients()+h.gw.Clients() == 0 {
			idleTimer = time.NewTimer(o.IdleTimeout)
			idle = idleTimer.C
		} else {
			idle = nil
		}
	}
	resetIdle()
	reason := ""
loop:
	for {
		select {
		case <-ctx.Done():
			reason = "context ended"
			break loop
		case s := <-sigs:
			reason = "signal " + s.String()
			break loop
		case <-h.quit:
			reason = "asked to stop"
			break loop
		case <-h.srv.ClientsChanged():
			resetIdle()
			h.approvals.ApproversChanged() // approvals: none left, no one to ask
		case <-h.gw.ClientsChanged():
			resetIdle()
		case <-idle:
			reason = fmt.Sprintf("no client for %v (started on demand)", o.IdleTimeout)
			break loop
		case err := <-serveDone:
			reason = "the API stopped: " + fmt.Sprint(err)
			break loop
		}
	}
	h.log.Info("host stopping", "reason", reason)
	_ = h.srv.Publish(hostapi.TopicHost, hostapi.HostEvent{State: "stopping", Reason: reason})
	wcancel()
	<-appsDone   // no check left running, nor publishing, after Run returns
	<-regDone    // nor a sync (its requests end with wctx)
	h.gw.Close() // ends the bridges' sessions; their calls are cancelled
	start := time.Now()
	h.mgr.StopAll()
	h.log.Info("every server stopped", "took", time.Since(start).Round(time.Millisecond))
	h.srv.Close()
	return nil
}

// setupLog sends the host's log to host.log (rotated) and, for a
// foreground serve, to stderr.
func (h *Host) setupLog() func() {
	var ws []io.Writer
	closeFn := func() {}
	if h.opts.LogPath != "" {
		if err := os.MkdirAll(filepath.Dir(h.opts.LogPath), 0o700); err == nil {
			lj := &lumberjack.Logger{Filename: h.opts.LogPath, MaxSize: 10, MaxBackups: 3}
			ws = append(ws, lj)
			closeFn = func() { lj.Close() }
		}
	}
	if h.opts.Stderr != nil {
		ws = append(ws, &bestEffort{w: h.opts.Stderr})
	}
	if len(ws) == 0 {
		h.log = slog.New(slog.DiscardHandler)
		return closeFn
	}
	h.log = slog.New(slog.NewTextHandler(io.MultiWriter(ws...), &slog.HandlerOptions{Level: slog.LevelInfo}))
	return closeFn
}

// bestEffort writes to a terminal or pipe that may go away: a failed
// write is reported as done, so that io.MultiWriter goes on to the other
// writers (host.log), and after a broken pipe it writes no more.
type bestEffort struct {
	mu     sync.Mutex
	w      io.Writer
	broken bool
}

func (b *bestEffort) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken {
		return len(p), nil
	}
	if _, err := b.w.Write(p); err != nil && (errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed)) {
		b.broken = true
	}
	return len(p), nil
}

// Stop asks the host to stop.
func (h *Host) Stop() { h.quitOnce.Do(func() { close(h.quit) }) }

// reload is the watcher's callback: the file changed on disk. A file that
// cannot be used (not JSON, a wrong type of mcpServers, too large, not a
// regular file) leaves the last good config in force, and so does a file
// that was removed: a removal is as likely a mistake, or an editor or a
// sync tool half-way through, as a wish to stop every server, and the
// empty file such a wish would leave is refused too. To stop every
// server, save "mcpServers": {}.
func (h *Host) reload() {
	h.applyMu.Lock()
	defer h.applyMu.Unlock()
	f, err := config.Load(h.opts.ConfigPath)
	if errors.Is(err, fs.ErrNotExist) {
		h.mu.Lock()
		hadFile := h.file != nil && h.file.Sum() != (config.Sum{})
		h.mu.Unlock()
		if hadFile {
			err = &removedError{path: h.opts.ConfigPath}
		} else {
			f, err = config.New(), nil // there never was one: nothing to keep
		}
	}
	if err != nil {
		h.mu.Lock()
		h.cfgErr = err
		h.mu.Unlock()
		h.log.Error("the config file changed but cannot be used; the last good config stays in force", "error", err)
		_ = h.srv.Publish(hostapi.TopicConfig, h.configStatus())
		return
	}
	h.log.Info("config file changed; applying the difference")
	h.applyFile(f)
}

// removedError is the config file removed while the host had it.
type removedError struct{ path string }

func (e *removedError) Error() string {
	return e.path + ` was removed: restore it (a change through 'switchboard servers' writes the config in force back), or save one with "mcpServers": {} to stop every server`
}

func (h *Host) applyFile(f *config.File) {
	h.mu.Lock()
	h.file = f
	h.cfgErr, h.noGood = nil, false
	h.mu.Unlock()
	h.openActivity(f) // before the servers start
	h.setOwnHosts(f)  // before the servers list their tools
	added, removed, changed := h.mgr.Apply(ServerConfigs(f))
	if len(added)+len(removed)+len(changed) > 0 {
		h.log.Info("servers updated", "added", added, "removed", removed, "changed", changed)
	}
	h.forgetPins(removed)
	h.mgr.gw.setProfiles(f) // before the rebuild that Notify asks for
	if h.gw != nil {
		h.gw.Notify() // an entry's trust mode may have changed, and nothing else
	}
	for _, p := range f.Report().Problems() {
		h.log.Warn("config problem", "problem", p.Error())
	}
	h.configureGateway(f)
	h.configureApprovals(f)
	_ = h.srv.Publish(hostapi.TopicConfig, h.configStatus())
	h.wakeRegistries() // the registries may have changed (registrysync.go)
}

func (h *Host) configStatus() hostapi.ConfigStatus {
	h.mu.Lock()
	defer h.mu.Unlock()
	st := hostapi.ConfigStatus{Path: h.opts.ConfigPath, OK: h.cfgErr == nil, NoGoodConfig: h.cfgErr != nil && h.noGood}
	if h.cfgErr != nil {
		st.Error = h.cfgErr.Error()
	}
	if h.file != nil {
		st.Problems = h.file.Report().Problems()
	}
	return st
}

// change applies fn to the config file through the watcher (so the
// host's own write does not come back as a reload), then applies the
// result.
func (h *Host) change(fn func(*config.File) error) error {
	h.applyMu.Lock()
	defer h.applyMu.Unlock()
	var out *config.File
	// A file removed under the host: the change applies to the config in
	// force (see reload), which it writes back.
	var missing *config.File
	h.mu.Lock()
	var re *removedError
	if errors.As(h.cfgErr, &re) {
		missing = h.file
	}
	h.mu.Unlock()
	err := h.watcher.UpdateOr(missing, func(f *config.File) error {
		if err := fn(f); err != nil {
			return err
		}
		out = f
		return nil
	})
	if err != nil {
		return err
	}
	// Update wrote it; read back what is on disk so sums and reports match.
	if f, err := config.Load(h.opts.ConfigPath); err == nil {
		out = f
	}
	h.applyFile(out)
	return nil
}

func (h *Host) info() hostapi.Info {
	h.mu.Lock()
	pathErr := ""
	if h.pathErr != nil {
		pathErr = h.pathErr.Error()
	}
	inf := hostapi.Info{PID: os.Getpid(), Version: h.opts.Version, Socket: h.opts.SocketPath, ConfigPath: h.opts.ConfigPath,
		LogPath: h.opts.LogPath, OnDemand: h.opts.OnDemand, Service: h.opts.Service, StartedAt: h.started, Path: h.path, PathError: pathErr, Swept: h.swept,
		UserEnvFilled: h.opts.UserEnvFilled, AppConfigs: h.apps.alerts,
		Registries: h.reg.status, Updates: h.reg.updates, RegistryNotices: h.reg.notices}
	h.mu.Unlock()
	inf.Clients = h.srv.Clients()
	inf.AIClients = h.gw.Clients()
	inf.AIApps = h.gw.ClientNames()
	inf.Config = h.configStatus()
	if h.pins != nil {
		inf.PinsPath = h.opts.PinsPath
		if h.pins.err != nil {
			inf.PinsError = h.pins.err.Error()
		}
	}
	inf.Activity = h.mgr.activity.apiStatus()
	return inf
}

// startOptions are how the host starts its servers: in the login PATH,
// with the keyring, the registry, the sandbox's shim and temp root, and
// Switchboard's own state protected from every sandboxed server (the
// paths the host registered, config.OwnState).
func (h *Host) startOptions(resolver engine.SecretResolver, registry *engine.Registry) engine.StartOptions {
	return engine.StartOptions{Path: h.path, Secrets: resolver, Registry: registry,
		Shim: shimPath(), SandboxTemp: h.opts.SandboxTemp, Protected: config.OwnState()}
}

// ownState lists the host's own state (config.StatePaths): its config
// file, runtime folder, sockets, state folder, pins, secrets' index and
// log, as its options name them.
func (h *Host) ownState() []string {
	o := h.opts
	p := config.StatePaths{Config: o.ConfigPath, Runtime: o.RuntimeDir, Socket: o.SocketPath, Gateway: o.GatewayPath,
		State: o.StateDir, Pins: o.PinsPath, Log: o.LogPath}
	if p.Gateway == "" && o.SocketPath != "" {
		p.Gateway = api.GatewayPathFor(o.SocketPath)
	}
	if o.Secrets != nil {
		p.Secrets, _ = o.Secrets.IndexPath()
	}
	return p.List()
}
