package gateway

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// ProfileSource is a [Backend] that knows the config's profiles (the
// host's does, from the config in force). A backend without it knows no
// profile: a client that names one sees nothing.
type ProfileSource interface {
	// Profile returns the profile called name, or nil if the config has
	// none of that name. It is called when a client connects and on every
	// rebuild of the view (the host rebuilds it after every config
	// change), never on a request.
	Profile(name string) *config.Profile
}

// ProfileNamer is what a [ProfileSource] may also do: name every profile,
// for a "did you mean" when a client asks for one that does not exist.
type ProfileNamer interface {
	ProfileNames() []string
}

// selection is what one client sees: its own [Filter] (a bridge's
// --servers and --tools) and the profile it names, both narrowing (the
// client sees their intersection), and its effective tool mode. It is
// resolved when the client connects and again whenever the view is
// rebuilt, so that editing a profile changes what its connected apps see
// (with list_changed); a request only reads it.
type selection struct {
	req     Filter
	profile *config.Profile // nil: the client names no profile
	// none: the client names a profile the config lacks, or one that
	// cannot be read whole; it sees nothing until the profile is there
	// (showing everything would give the app more than was asked for).
	none bool
	// ToolMode is the client's --tool-mode if it gave one, else its
	// profile's, else "all".
	ToolMode string
}

// everything is the selection of a client with no filter and no profile.
var everything = &selection{ToolMode: config.ToolModeAll}

// Search reports whether the client is in search mode (find_tools and
// call_tool in place of every tool).
func (s *selection) Search() bool { return s.ToolMode == config.ToolModeSearch }

// SeesServer reports whether the client sees the server at all.
func (s *selection) SeesServer(name string) bool {
	if s.none || !s.req.SeesServer(name) {
		return false
	}
	return s.profile == nil || s.profile.SeesServer(name)
}

// SeesTool reports whether the client sees a tool of a server, by the
// server's own name for it and the gateway's exposed name.
func (s *selection) SeesTool(server, name, exposed string) bool {
	if s.none || !s.req.SeesTool(server, name, exposed) {
		return false
	}
	return s.profile == nil || s.profile.SeesTool(server, name, exposed)
}

// effective resolves a client's filter against the current config: the
// selection it sees, and what to tell it (the bridge prints the warnings
// on its stderr, which the app logs): servers it names that the config
// lacks, a profile that does not exist or cannot be read, and servers the
// profile names that the config lacks.
func (g *Gateway) effective(f Filter) (*selection, []string) {
	warnings := g.filterWarnings(f)
	s := &selection{req: f, ToolMode: f.ToolMode}
	if f.Profile != "" {
		var p *config.Profile
		if ps, ok := g.backend.(ProfileSource); ok {
			p = ps.Profile(f.Profile)
		}
		switch {
		case p == nil:
			s.none = true
			guess := ""
			if pn, ok := g.backend.(ProfileNamer); ok {
				guess = english.DidYouMean(f.Profile, pn.ProfileNames())
			}
			warnings = append(warnings, fmt.Sprintf("no profile is named %q (yet)%s: the app sees no tools until it is added ('switchboard profiles' lists them; 'switchboard profiles set %s --servers ...' adds it)", f.Profile, guess, f.Profile))
		case !p.Valid():
			s.none = true
			msg := fmt.Sprintf("profile %q cannot be read whole, so the app sees no tools until it is corrected", f.Profile)
			if ps := p.Problems(); len(ps) > 0 {
				msg += ": " + ps[0].Error()
			}
			warnings = append(warnings, msg)
		default:
			s.profile = p
			v := g.current()
			for _, name := range p.Servers {
				if v.servers[name] == nil {
					warnings = append(warnings, fmt.Sprintf("profile %q names the server %q, which is not configured (yet): the app sees the profile's other servers", f.Profile, name))
				}
			}
			if s.ToolMode == "" {
				s.ToolMode = p.ToolMode
			}
		}
	}
	if s.ToolMode == "" {
		s.ToolMode = config.ToolModeAll
	}
	return s, warnings
}
