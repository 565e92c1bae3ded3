package host

import (
	"context"
	"errors"
	"maps"
	"net/url"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/trust"
)

// The host's side of the pinned tool definitions (app/trust,
// docs/trust.md): it opens the pin store, gives the gateway its Observer,
// forgets a removed entry, and serves tools.review, tools.accept and
// tools.reject.

// pins is the host's pin store and what it last told its clients.
type pins struct {
	store *trust.Store // nil: no pinning (Options.PinsPath empty)
	err   error        // a damaged file moved aside at start, or a file that cannot be used

	mu   sync.Mutex
	held map[string]int // the counts last published
}

// openPins opens the pin store at path. A damaged file was moved aside by
// trust.Open: the host logs it, keeps the error for host.info (the window
// and 'switchboard status' show it), and starts an empty store. A file it
// cannot use at all (a newer format, unreadable) leaves pinning off, with
// the error shown the same way: it is never overwritten.
func (h *Host) openPins(path string) *pins {
	p := &pins{held: map[string]int{}}
	if path == "" {
		return p
	}
	s, err := trust.Open(path)
	var ce *trust.CorruptError
	if errors.As(err, &ce) {
		h.log.Error("tool pins", "error", err)
		p.err = err
		s, err = trust.Open(path)
	}
	if err != nil {
		h.log.Error("tool pins are off: new and changed tools are not held for review", "error", err)
		p.err = err
		return p
	}
	p.store = s
	p.held = s.HeldCounts()
	return p
}

// observer is the gateway's Observer: it records a server's list and, when
// the held counts changed, tells the clients (the server's status, and a
// TopicTrust event).
func (h *Host) observer() gateway.Observer {
	if h.pins.store == nil {
		return nil
	}
	return func(server string, mode trust.Mode, tools []*mcp.Tool) *trust.Verdict {
		v, err := h.pins.store.Observe(server, mode, tools)
		if err != nil {
			h.log.Error("tool pins: the pin file could not be written; the pins are kept in memory until it can", "server", server, "error", err)
		}
		if v != nil {
			for _, tv := range v.Tools {
				if tv.New && len(tv.Flags) > 0 {
					h.log.Warn("tool definition flagged", "server", server, "tool", tv.Name, "state", tv.State, "flags", len(tv.Flags), "first", tv.Flags[0].String())
				}
				if tv.New && tv.State.Held() {
					h.log.Info("tool held for review", "server", server, "tool", tv.Name, "state", tv.State)
				}
			}
		}
		// Published from another goroutine: the observer runs under the
		// gateway's rebuild, and publishing a state reads the manager.
		go h.trustChanged()
		return v
	}
}

// trustChanged publishes the held counts if they changed since last
// published, and the status of each server whose count changed.
func (h *Host) trustChanged() {
	if h.pins.store == nil {
		return
	}
	h.pins.mu.Lock()
	now := h.pins.store.HeldCounts()
	if maps.Equal(now, h.pins.held) {
		h.pins.mu.Unlock()
		return
	}
	var changed []string
	for n, c := range now {
		if h.pins.held[n] != c {
			changed = append(changed, n)
		}
	}
	for n := range h.pins.held {
		if _, ok := now[n]; !ok {
			changed = append(changed, n)
		}
	}
	h.pins.held = now
	// Published under the lock: two changes are sent in their order.
	_ = h.srv.Publish(hostapi.TopicTrust, hostapi.TrustEvent{Held: now})
	h.pins.mu.Unlock()
	for _, n := range changed {
		if s, err := h.mgr.get(n); err == nil {
			s.publishState()
		}
	}
}

// heldCount is a server's held tools, for its status.
func (h *Host) heldCount(server string) int {
	if h.pins == nil || h.pins.store == nil {
		return 0
	}
	h.pins.mu.Lock()
	defer h.pins.mu.Unlock()
	return h.pins.held[server]
}

// forgetPins forgets the pins of removed entries: one added again later is
// trusted on first use, as a new one.
func (h *Host) forgetPins(removed []string) {
	if h.pins == nil || h.pins.store == nil {
		return
	}
	for _, n := range removed {
		if err := h.pins.store.Forget(n); err != nil {
			h.log.Error("tool pins: forgetting a removed server", "server", n, "error", err)
		}
	}
	if len(removed) > 0 {
		go h.trustChanged()
	}
}

// renamePins moves the pins of a renamed entry to its new name, so that
// renaming a server does not trust its held tools as first seen.
func (h *Host) renamePins(old, new string) {
	if h.pins == nil || h.pins.store == nil {
		return
	}
	if err := h.pins.store.Rename(old, new); err != nil {
		h.log.Error("tool pins: renaming a server's pins", "server", old, "to", new, "error", err)
	}
}

var noPins = &hostapi.Error{Code: hostapi.CodeBadRequest, Message: "this host pins no tool definitions (it was started without a pin file)"}

// reviewTools answers tools.review.
func (h *Host) reviewTools(_ context.Context, _ *api.ConnInfo, p hostapi.NameParams) (hostapi.ReviewResult, error) {
	if h.pins.store == nil {
		return hostapi.ReviewResult{Held: []trust.Held{}}, nil
	}
	if p.Name != "" {
		if _, err := h.mgr.get(p.Name); err != nil {
			return hostapi.ReviewResult{}, notFound(err)
		}
		if h.pins.store.Pins(p.Name) == nil {
			return hostapi.ReviewResult{Enabled: true, Held: []trust.Held{}}, nil // not listed yet
		}
	}
	held, err := h.pins.store.Review(p.Name)
	if err != nil {
		return hostapi.ReviewResult{}, err
	}
	if held == nil {
		held = []trust.Held{}
	}
	return hostapi.ReviewResult{Enabled: true, Held: held}, nil
}

// decideTool answers tools.accept and tools.reject, with op the pin
// store's decision.
func (h *Host) decideTool(method string, op func(server, tool string) error) func(context.Context, *api.ConnInfo, hostapi.ToolParams) (hostapi.None, error) {
	return func(_ context.Context, _ *api.ConnInfo, p hostapi.ToolParams) (hostapi.None, error) {
		if p.Name == "" || p.Tool == "" {
			return none, api.Errorf(api.CodeBadRequest, "%s needs the server's name and the tool's", method)
		}
		if h.pins.store == nil {
			return none, noPins
		}
		if _, err := h.mgr.get(p.Name); err != nil {
			return none, notFound(err)
		}
		if err := op(p.Name, p.Tool); err != nil {
			return none, &hostapi.Error{Code: hostapi.CodeBadRequest, Message: err.Error(), Err: err}
		}
		h.log.Info("tool reviewed", "method", method, "server", p.Name, "tool", p.Tool)
		// Observed again and the view rebuilt before the answer: the
		// clients' list_changed is on its way when the caller hears.
		h.gw.Retrust(p.Name)
		h.trustChanged()
		return none, nil
	}
}

// setOwnHosts tells the pin store each server's own hosts, which its
// definitions' scan does not flag in a URL (trust.KindForeignURL, issue
// 27 item 21): a remote entry's URL host; a command's none (the host
// reads no package metadata: docs/trust.md).
func (h *Host) setOwnHosts(f *config.File) {
	if h.pins == nil || h.pins.store == nil {
		return
	}
	h.pins.store.SetOwnHosts(ownHosts(f))
}

func ownHosts(f *config.File) map[string][]string {
	own := map[string][]string{}
	for name, s := range f.Servers {
		if s == nil || s.URL == "" {
			continue
		}
		if u, err := url.Parse(s.URL); err == nil && u.Hostname() != "" {
			own[name] = []string{u.Hostname()}
		}
	}
	return own
}
