package host

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
