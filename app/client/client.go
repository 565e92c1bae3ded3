// Package client keeps a live view of the host for the tray, the window
// and the bridge: it connects to the running host (starting one on demand
// when none runs), subscribes to its events, keeps the servers' states
// current without polling, and reconnects when the host goes away.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Options configure a [Live] view.
type Options struct {
	// Socket is the host's API endpoint.
	Socket string
	// StartHost starts a host when none runs (nil: never start one, wait).
	StartHost func(ctx context.Context) error
	// Logger receives connection changes; nil discards them.
	Logger *slog.Logger
}

// Snapshot is what the view knows at one moment.
type Snapshot struct {
	Connected bool
	Info      hostapi.Info
	Servers   []hostapi.ServerStatus // sorted by name
	Err       string                 // why it is not connected, for a person
	Approvals []hostapi.Approval     // calls waiting for the user, oldest first
	Requests  []hostapi.InputRequest // servers' questions waiting for the user, oldest first
}

// Live is a live view of the host. Its methods are safe for concurrent
// use. Its [Methods] call the host through the current connection, and
// fail with [ErrNotConnected] while there is none.
type Live struct {
	Methods
	opts Options
	log  *slog.Logger

	mu      sync.Mutex
	c       *api.Client
	snap    Snapshot
	servers map[string]hostapi.ServerStatus
	changed chan struct{} // capacity 1: a burst of events wakes a reader once
	watches map[chan struct{}]struct{}
	logSubs map[chan hostapi.LogLine]struct{}
}

// New returns a view that is not connected yet; call Run.
func New(o Options) *Live {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	l := &Live{opts: o, log: o.Logger, servers: map[string]hostapi.ServerStatus{},
		changed: make(chan struct{}, 1), watches: map[chan struct{}]struct{}{}, logSubs: map[chan hostapi.LogLine]struct{}{}}
	l.Methods = Methods{call: l.call}
	return l
}

// Changed delivers one wake-up after any number of changes: read the
// Snapshot then. A burst of events costs one rebuild.
func (l *Live) Changed() <-chan struct{} { return l.changed }

// Watch returns another wake-up channel like [Live.Changed], for a second
// reader (the window beside the tray); call stop when done.
func (l *Live) Watch() (ch <-chan struct{}, stop func()) {
	c := make(chan struct{}, 1)
	l.mu.Lock()
	l.watches[c] = struct{}{}
	l.mu.Unlock()
	c <- struct{}{} // the first read shows the current state
	return c, func() {
		l.mu.Lock()
		delete(l.watches, c)
		l.mu.Unlock()
	}
}

func (l *Live) notify() {
	select {
	case l.changed <- struct{}{}:
	default:
	}
	l.mu.Lock()
	for c := range l.watches {
		select {
		case c <- struct{}{}:
		default:
		}
	}
	l.mu.Unlock()
}

// Snapshot returns the current state.
func (l *Live) Snapshot() Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.snap
	s.Servers = make([]hostapi.ServerStatus, 0, len(l.servers))
	for _, st := range l.servers {
		s.Servers = append(s.Servers, st)
	}
	sort.Slice(s.Servers, func(i, j int) bool { return s.Servers[i].Name < s.Servers[j].Name })
	return s
}

// ErrNotConnected is returned by the methods while no host is connected.
var ErrNotConnected = errors.New("not connected to the Switchboard host")

// call calls a method of the host through the current connection.
func (l *Live) call(ctx context.Context, method string, params, result any) error {
	l.mu.Lock()
	c := l.c
	l.mu.Unlock()
	if c == nil {
		return ErrNotConnected
	}
	return callHost(ctx, c, method, params, result)
}

// FollowLogs delivers every stderr line the host publishes until cancel.
func (l *Live) FollowLogs() (<-chan hostapi.LogLine, func()) {
	ch := make(chan hostapi.LogLine, 256)
	l.mu.Lock()
	l.logSubs[ch] = struct{}{}
	l.mu.Unlock()
	return ch, func() {
		l.mu.Lock()
		delete(l.logSubs, ch)
		l.mu.Unlock()
	}
}

// Run connects and stays connected until ctx ends, reconnecting (and, if
// StartHost is set, starting a host) with a short backoff.
func (l *Live) Run(ctx context.Context) {
	backoff := 200 * time.Millisecond
	for ctx.Err() == nil {
		err := l.session(ctx)
		if ctx.Err() != nil {
			return
		}
		l.mu.Lock()
		l.c = nil
		l.snap.Connected = false
		if err != nil {
			l.snap.Err = err.Error()
		}
		l.mu.Unlock()
		l.notify()
		l.log.Info("not connected to the host", "error", err)
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(backoff*2, 5*time.Second)
	}
}

// session runs one connection: dial (starting a host if allowed),
// subscribe, snapshot, then apply events until the connection ends.
func (l *Live) session(ctx context.Context) error {
	c, err := dial(ctx, l.opts.Socket)
	if errors.Is(err, api.ErrNoHost) && l.opts.StartHost != nil {
		if serr := l.opts.StartHost(ctx); serr != nil {
			return serr
		}
		c, err = dial(ctx, l.opts.Socket)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	events, err := c.Subscribe(ctx, hostapi.Topics()...)
	if err != nil {
		return err
	}
	// The snapshot comes after the subscription: no change falls between.
	m := Methods{call: over(c)}
	info, err := m.Info(ctx)
	if err != nil {
		return err
	}
	list, err := m.Servers(ctx)
	if err != nil {
		return err
	}
	pending, _ := m.Approvals(ctx) // an older host has none
	questions, _ := m.Requests(ctx)
	l.mu.Lock()
	l.c = c
	l.snap = Snapshot{Connected: true, Info: info, Approvals: pending, Requests: questions}
	l.servers = map[string]hostapi.ServerStatus{}
	for _, s := range list {
		l.servers[s.Name] = s
	}
	l.mu.Unlock()
	l.notify()
	l.log.Info("connected to the host", "pid", info.PID)
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-events:
			if !ok {
				if err := c.Err(); err != nil {
					return err
				}
				return api.ErrDisconnected
			}
			l.apply(ev)
		}
	}
}

func (l *Live) apply(ev api.Event) {
	switch ev.Topic {
	case hostapi.TopicState:
		var s hostapi.ServerStatus
		if json.Unmarshal(ev.Data, &s) != nil {
			return
		}
		l.mu.Lock()
		if s.State == hostapi.StateRemoved {
			delete(l.servers, s.Name)
		} else {
			l.servers[s.Name] = s
		}
		l.mu.Unlock()
	case hostapi.TopicConfig:
		var cs hostapi.ConfigStatus
		if json.Unmarshal(ev.Data, &cs) != nil {
			return
		}
		l.mu.Lock()
		l.snap.Info.Config = cs
		l.mu.Unlock()
	case hostapi.TopicLog:
		var line hostapi.LogLine
		if json.Unmarshal(ev.Data, &line) != nil {
			return
		}
		l.mu.Lock()
		for ch := range l.logSubs {
			select {
			case ch <- line:
			default: // a slow reader misses lines, never blocks the view
			}
		}
		l.mu.Unlock()
		return // log lines do not change the snapshot
	case hostapi.TopicApprovals:
		var pending []hostapi.Approval
		if json.Unmarshal(ev.Data, &pending) != nil {
			return
		}
		l.mu.Lock()
		l.snap.Approvals = pending
		l.mu.Unlock()
	case hostapi.TopicRequests:
		var qs []hostapi.InputRequest
		if json.Unmarshal(ev.Data, &qs) != nil {
			return
		}
		l.mu.Lock()
		l.snap.Requests = qs
		l.mu.Unlock()
	case hostapi.TopicAppConfigs:
		var alerts []hostapi.AppConfigAlert
		if json.Unmarshal(ev.Data, &alerts) != nil {
			return
		}
		l.mu.Lock()
		l.snap.Info.AppConfigs = alerts
		l.mu.Unlock()
	case hostapi.TopicRegistry:
		var re hostapi.RegistryEvent
		if json.Unmarshal(ev.Data, &re) != nil {
			return
		}
		l.mu.Lock()
		l.snap.Info.Registries, l.snap.Info.Updates, l.snap.Info.RegistryNotices = re.Registries, re.Updates, re.Notices
		l.mu.Unlock()
	case hostapi.TopicHost:
		// The host is stopping; the connection ends soon and Run reconnects.
	}
	l.notify()
}
