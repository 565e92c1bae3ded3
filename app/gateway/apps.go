//lint:file-ignore SA1019 roots and sampling are deprecated as of 2026-07-28 (SEP-2577) and still used by the apps and servers of the eras before it, for whom Switchboard carries them

package gateway

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
)

// An App is a client of the gateway as a server's request reaches it: the
// host sends an app the elicitation/create, sampling/createMessage or
// roots/list that a server sent while serving that app's call
// (app/host/inputs.go). Its requests go over the app's own session, so
// the app gets ids of that session and the host answers the server under
// the server's id; a request whose context ends is cancelled at the app
// (the go-sdk sends notifications/cancelled).
type App struct {
	// Name is the name the app gave in its handshake, cleaned ("" if none).
	Name string
	// ID is its connection's [relay.Caller] ID.
	ID uint64
	ss *mcp.ServerSession
	f  *facade
}

// Capabilities are what the app declared in its handshake: nil when it
// declared none, or speaks the 2026-07-28 protocol (whose sessions take
// no request from a server while it serves a call: such an app answers
// input_required rounds itself).
func (a *App) Capabilities() *mcp.ClientCapabilities {
	if p := a.ss.InitializeParams(); p != nil && p.ProtocolVersion < "2026-07-28" {
		return p.Capabilities
	}
	return nil
}

// Sees reports whether the app's view has the server (its filter and
// profile let it through).
func (a *App) Sees(server string) bool { return a.f.cur().SeesServer(server) }

// Profile is the profile the app's filter names, nil if none (or one the
// config lacks).
func (a *App) Profile() *config.Profile { return a.f.cur().profile }

// Elicit sends the app an elicitation/create.
func (a *App) Elicit(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	return a.ss.Elicit(ctx, p)
}

// CreateMessage sends the app a sampling/createMessage.
func (a *App) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return a.ss.CreateMessage(ctx, p)
}

// ListRoots sends the app a roots/list.
func (a *App) ListRoots(ctx context.Context) (*mcp.ListRootsResult, error) {
	return a.ss.ListRoots(ctx, &mcp.ListRootsParams{})
}

// App is the connected app whose calls carry caller ID id (nil: none, or
// gone).
func (g *Gateway) App(id uint64) *App {
	for _, a := range g.Apps() {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// Apps are the apps connected now: the socket's clients and the HTTP
// endpoint's sessions.
func (g *Gateway) Apps() []*App {
	g.mu.Lock()
	var out []*App
	for c := range g.conns {
		if ss := c.ss.Load(); ss != nil {
			out = append(out, &App{Name: c.f.callerOf(ss).App, ID: c.f.connID, ss: ss, f: c.f})
		}
	}
	e := g.http
	g.mu.Unlock()
	if e == nil {
		return out
	}
	e.mu.Lock()
	fs := []*facade{e.f, e.search}
	e.mu.Unlock()
	for _, f := range fs {
		if f == nil {
			continue
		}
		f.sessionIDs.Range(func(k, v any) bool {
			ss := k.(*mcp.ServerSession)
			out = append(out, &App{Name: f.callerOf(ss).App, ID: v.(uint64), ss: ss, f: f})
			return true
		})
	}
	return out
}
