//lint:file-ignore SA1019 the servers' log messages (logging, deprecated by SEP-2577 and still functional) are what this file carries to the apps and the Logs

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
)

// What a server sends for the apps besides answers (issue 30 §4): its log
// messages (notifications/message) and its resources' updates
// (notifications/resources/updated). The host's client of the server
// takes them: a log message goes to the server's log ring (what
// 'switchboard logs' and the window's Logs tab show, beside its stderr,
// marked "[log LEVEL]") and to the gateway, which hands it to the apps
// that see the server at the level each set; an update goes to the
// gateway, which hands it to the apps that subscribed. The host keeps,
// per server, the URIs the apps subscribed to and the lowest log level
// they asked for, and applies both to every session of the server (a
// restart makes a new session, which has neither).

// Fan receives what the servers send for the apps: the gateway.
type Fan interface {
	ResourceUpdated(server, uri string)
	ServerLog(server string, p *mcp.LoggingMessageParams)
}

// defaultLogLevel is the level the host asks of every server that offers
// logging when no app asked for a lower one: what the Logs tab shows
// without debug floods (a TypeScript SDK server that was never asked sends
// every level, debug too).
const defaultLogLevel mcp.LoggingLevel = "info"

// serverFan is a server's subscriptions and wanted log level.
type serverFan struct {
	mu    sync.Mutex
	subs  map[string]bool  // the server's own URIs the apps subscribed to
	level mcp.LoggingLevel // the lowest level an app asked for; "": none
}

// logLevelFor is what the host asks of a server: the lower of
// defaultLogLevel and what the apps asked for.
func logLevelFor(wanted mcp.LoggingLevel) mcp.LoggingLevel {
	lv := []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}
	if i := slices.Index(lv, wanted); i >= 0 && i < slices.Index(lv, defaultLogLevel) {
		return wanted
	}
	return defaultLogLevel
}

// onLog takes a server's log message.
func (s *server) onLog(_ context.Context, r *mcp.LoggingMessageRequest) {
	p := r.Params
	if p == nil {
		return
	}
	m := s.reg
	name := s.name()
	var data string
	if str, ok := p.Data.(string); ok {
		data = str
	} else if b, err := json.Marshal(p.Data); err == nil {
		data = string(b)
	}
	text := fmt.Sprintf("[log %s] %s", p.Level, data)
	if p.Logger != "" {
		text = fmt.Sprintf("[log %s %s] %s", p.Level, p.Logger, data)
	}
	l := engine.Line{Time: time.Now(), Text: m.activity.redactString(text)}
	s.logs.Add(l)
	m.publish(hostapi.TopicLog, hostapi.LogLine{Server: name, Line: l.Text, Time: l.Time})
	if m.fan != nil {
		m.fan.ServerLog(name, p)
	}
}

// onResourceUpdated takes a server's notifications/resources/updated.
func (s *server) onResourceUpdated(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
	if r.Params == nil || s.reg.fan == nil {
		return
	}
	s.reg.fan.ResourceUpdated(s.name(), r.Params.URI)
}

// resume applies the server's log level and subscriptions to a new
// session of it.
func (s *server) resume(cs *mcp.ClientSession) {
	s.fan.mu.Lock()
	level := s.fan.level
	uris := make([]string, 0, len(s.fan.subs))
	for u := range s.fan.subs {
		uris = append(uris, u)
	}
	s.fan.mu.Unlock()
	s.applyLevel(cs, level)
	for _, u := range uris {
		if err := s.subscribeOn(cs, u); err != nil {
			s.reg.log.Warn("subscribing again to a resource after the server's start failed", "server", s.name(), "uri", u, "error", err)
		}
	}
}

// applyLevel asks a session's server for the level the apps want.
func (s *server) applyLevel(cs *mcp.ClientSession, wanted mcp.LoggingLevel) {
	ir := cs.InitializeResult()
	if ir == nil || ir.Capabilities == nil || ir.Capabilities.Logging == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: logLevelFor(wanted)}); err != nil {
		s.reg.log.Debug("setting a server's log level failed", "server", s.name(), "error", err)
	}
}

// newEra reports whether a session speaks the 2026-07-28 protocol.
func newEra(cs *mcp.ClientSession) bool {
	ir := cs.InitializeResult()
	return ir != nil && ir.ProtocolVersion >= "2026-07-28"
}

// subscribeOn subscribes a session to uri. In the 2026-07-28 era that is
// a subscriptions/listen that lasts until Unsubscribe: it runs on a
// goroutine of its own.
func (s *server) subscribeOn(cs *mcp.ClientSession, uri string) error {
	ir := cs.InitializeResult()
	if ir == nil || ir.Capabilities == nil || ir.Capabilities.Resources == nil || !ir.Capabilities.Resources.Subscribe {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Switchboard server %q does not offer resource subscriptions (it does not advertise resources.subscribe)", s.name())}
	}
	if newEra(cs) {
		go func() { _ = cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}) }()
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
}

// running is a server's live session, or nil.
func (b *gatewayBackend) running(server string) (*server, *mcp.ClientSession) {
	s, sup, err := b.lookup(server)
	if err != nil {
		return nil, nil
	}
	return s, liveSession(sup)
}

// Subscribe implements [gateway.Subscriber]: the URI is kept for every
// session of the server; a server that is not running subscribes when it
// runs.
func (b *gatewayBackend) Subscribe(ctx context.Context, server, uri string) error {
	s, cs := b.running(server)
	if s == nil {
		_, _, err := b.lookup(server)
		return err
	}
	if cs != nil {
		if err := s.subscribeOn(cs, uri); err != nil {
			return err
		}
	}
	s.fan.mu.Lock()
	if s.fan.subs == nil {
		s.fan.subs = map[string]bool{}
	}
	s.fan.subs[uri] = true
	s.fan.mu.Unlock()
	return nil
}

// Unsubscribe implements [gateway.Subscriber].
func (b *gatewayBackend) Unsubscribe(ctx context.Context, server, uri string) error {
	s, cs := b.running(server)
	if s == nil {
		return nil
	}
	s.fan.mu.Lock()
	delete(s.fan.subs, uri)
	s.fan.mu.Unlock()
	if cs == nil {
		return nil
	}
	return cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: uri})
}

// SetLogLevel implements [gateway.Subscriber].
func (b *gatewayBackend) SetLogLevel(server string, level mcp.LoggingLevel) {
	s, cs := b.running(server)
	if s == nil {
		return
	}
	s.fan.mu.Lock()
	changed := logLevelFor(s.fan.level) != logLevelFor(level)
	s.fan.level = level
	s.fan.mu.Unlock()
	if cs != nil && changed {
		go s.applyLevel(cs, level)
	}
}

// Relist implements [gateway.Relister]: the server's lists are read again
// now (the last ones stay if that fails).
func (b *gatewayBackend) Relist(ctx context.Context, server string) error {
	s, cs := b.running(server)
	if s == nil || cs == nil {
		return nil
	}
	return s.refreshCtx(ctx, s.name(), cs)
}

// keepList is a list read again: the one before if reading failed (served
// stale) or if the new one is the same (so that the gateway sees no
// change), else the new one.
func keepList[T any](before, now []T, failed bool) []T {
	if failed {
		return before
	}
	if len(before) == len(now) {
		a, errA := json.Marshal(before)
		b, errB := json.Marshal(now)
		if errA == nil && errB == nil && string(a) == string(b) {
			return before
		}
	}
	return now
}

// hostFan is a host's gateway as the manager's Fan (the gateway is made
// after the manager, before any server starts).
type hostFan struct{ h *Host }

func (f hostFan) ResourceUpdated(server, uri string) {
	if gw := f.h.gw; gw != nil {
		gw.ResourceUpdated(server, uri)
	}
}

func (f hostFan) ServerLog(server string, p *mcp.LoggingMessageParams) {
	if gw := f.h.gw; gw != nil {
		gw.ServerLog(server, p)
	}
}
