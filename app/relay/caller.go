package relay

import "context"

type callerKey struct{}

// WithCaller returns ctx carrying c: how a request that does not pass
// through a Relay (resources/read, prompts/get, completion/complete, which
// the host forwards through the go-sdk's client) tells the host who made
// it, for the activity log.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom is the Caller that WithCaller put in ctx (zero if none).
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// Kinds of the requests other than tools/call, as [Info.Kind] and the
// activity log name them.
const (
	KindResourceRead = "resources/read"
	KindPromptGet    = "prompts/get"
	KindComplete     = "completion/complete"
)
