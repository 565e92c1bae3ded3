package gateway

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/app/trust"
)

// Backend is what the gateway needs of the host: a snapshot of the servers
// with their cached lists, and the calls forwarded to a server's session.
// The host's manager implements it (app/host); tests use a fake. Every
// method is safe for concurrent use.
type Backend interface {
	// Servers returns every configured server, in any order.
	Servers() []Server
	// CallTool calls a tool of a running server with the server's own tool
	// name, bounded by its callTimeout. progress, if not nil, receives the
	// server's progress notifications for the call (whose params carry
	// the progress token the caller set). A server that is not running
	// yields a [*NotRunningError]; an error answer of the server a
	// *jsonrpc.Error.
	CallTool(ctx context.Context, server string, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error)
	// GetPrompt, ReadResource (of a listed resource, or of a URI that
	// matches one of the server's resource templates) and Complete
	// (completion/complete) forward to a running server, bounded by its
	// callTimeout, with the server's own names. Errors as for CallTool.
	GetPrompt(ctx context.Context, server string, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error)
	ReadResource(ctx context.Context, server string, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error)
	Complete(ctx context.Context, server string, p *mcp.CompleteParams) (*mcp.CompleteResult, error)
}

// Server is one configured server as the gateway sees it.
type Server struct {
	Name string
	// State is the server's public state, the one the host's status
	// gives (app/host's PublicState): the gateway tells an AI app the
	// same words a person sees in 'switchboard status'.
	State       hostapi.State
	LastError   string
	UserStopped bool // stopped by the user ('switchboard servers stop'); stays stopped across reloads
	Disabled    bool
	// Cached says that the lists below belong to the running session (or,
	// for a sleeping server, are the host's cache of its last lists); they
	// are nil otherwise (the host refreshes them after each start and each
	// list_changed).
	Cached    bool
	Tools     []*mcp.Tool
	Prompts   []*mcp.Prompt
	Resources []*mcp.Resource
	Templates []*mcp.ResourceTemplate // resources/templates/list
	// Completions says that the running session's server advertises the
	// completions capability (completion/complete).
	Completions bool
	// Subscribe says that the running session's server advertises
	// resources.subscribe (subscribe.go).
	Subscribe bool
	// ListedAt is when the lists above were read; TTLMs, if not nil, is
	// the ttlMs they came with (the shortest of their pages: a server of
	// the 2026-07-28 era), CacheScope their cacheScope ("private" if any
	// page said so). lists.go lists the server again once it passed.
	ListedAt   time.Time
	TTLMs      *int
	CacheScope string
	// Filter is the entry's "tools" option (nil: every tool).
	Filter *config.Tools
	// StartTimeout bounds a start: the probe and handshake timeouts.
	StartTimeout time.Duration
	// Trust is the entry's trust mode (config "trust"; "" is pin): how a
	// new or changed tool definition is treated when the gateway has a
	// pin store (Options.Pins).
	Trust trust.Mode
}

// NotRunningError is what a call to a server that is not running gets.
type NotRunningError struct {
	Server    string
	State     hostapi.State
	LastError string
	// UserStopped: the user stopped it ('switchboard servers stop'); a
	// stopped server that is not is between two runs (a restart).
	UserStopped bool
}

func (e *NotRunningError) Error() string {
	return notRunningText(e.Server, e.State, e.LastError, e.UserStopped, false)
}

// notRunningText tells the model (and the person reading its transcript)
// why a server cannot take a call, and what brings it back.
func notRunningText(server string, state hostapi.State, lastErr string, userStopped, disabled bool) string {
	why := ""
	if lastErr != "" {
		why = " (" + lastErr + ")"
	}
	switch {
	case disabled || state == hostapi.StateDisabled:
		return fmt.Sprintf("Switchboard server %q is disabled: enable it with 'switchboard servers enable %s'", server, server)
	case state == hostapi.StateInvalid:
		return fmt.Sprintf("Switchboard server %q cannot run: its config entry has problems; 'switchboard status' lists them", server)
	case userStopped:
		return fmt.Sprintf("Switchboard server %q is stopped: start it with 'switchboard servers start %s'", server, server)
	case state == hostapi.StateStopped || state == hostapi.StateRestarting:
		// Not stopped by the user: between the two runs of a restart (or
		// a change of its entry), or waiting to try again after a crash.
		return fmt.Sprintf("Switchboard server %q is restarting%s: try again in a moment", server, why)
	case state == hostapi.StateFailed:
		return fmt.Sprintf("Switchboard server %q has failed%s and is not restarted any more: fix it, then run 'switchboard servers restart %s'", server, why, server)
	case state == hostapi.StateWaiting:
		return fmt.Sprintf("Switchboard server %q is waiting for a secret%s: set it with 'switchboard secret set NAME'", server, why)
	case state == hostapi.StateSignInNeeded:
		return fmt.Sprintf("Switchboard server %q needs a sign-in%s: the user signs in with 'switchboard servers login %s'", server, why, server)
	case state == hostapi.StateSigningIn:
		return fmt.Sprintf("Switchboard server %q is waiting for the user to finish signing in: try again once they have", server)
	case state == hostapi.StateUnauthorized:
		// why says whether credentials were sent and refused, or none
		// were (app/host's round tripper): "refused the credentials"
		// only in the first case (issue 27 §6).
		return fmt.Sprintf("Switchboard server %q was refused access by the remote server%s: fix the credentials of its entry, then run 'switchboard servers restart %s'", server, why, server)
	case state == hostapi.StateUnreachable:
		return fmt.Sprintf("Switchboard server %q cannot be reached%s; it is retried: try again in a moment", server, why)
	case state == hostapi.StateSleeping:
		return fmt.Sprintf("Switchboard server %q is sleeping and could not be started for the call%s: try again, or see 'switchboard status'", server, why)
	case state == hostapi.StateStarting || state == hostapi.StateStopping:
		return fmt.Sprintf("Switchboard server %q is %s%s: try again in a moment", server, state, why)
	}
	return fmt.Sprintf("Switchboard server %q is %s%s", server, state, why)
}

// RawBackend is a [Backend] that relays a tools/call through app/relay
// without the go-sdk decoding it: every tools/call of the gateway (the
// lean path, the go-sdk's server, HTTP) goes through it when the backend
// has it; the host's does. [relay.Call]'s Progress and Done may run on the
// goroutine that reads the server's output: they must not block.
type RawBackend interface {
	Backend
	// StartToolCall sends the call and returns at once. stop withdraws
	// it (the server gets notifications/cancelled). A server that is not
	// running is a [*NotRunningError], and Done is not called.
	relay.Starter
}
