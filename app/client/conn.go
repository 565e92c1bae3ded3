package client

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Conn is one connection to the host, with its API's typed [Methods]:
// for a command that asks one thing and exits. It does not reconnect
// ([Live] does).
type Conn struct {
	Methods
	c *api.Client
}

// Dial connects to the host on socket. With no host it returns an error
// that wraps api.ErrNoHost; with a host whose API is of another major
// version than this program's (hostapi.APIVersion), an
// [*APIVersionError] that says which to restart or update.
func Dial(ctx context.Context, socket string) (*Conn, error) {
	c, err := dial(ctx, socket)
	if err != nil {
		return nil, err
	}
	return &Conn{Methods: Methods{call: over(c)}, c: c}, nil
}

// Close closes the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Done is closed when the connection ends (the host stopped or went
// away).
func (c *Conn) Done() <-chan struct{} { return c.c.Done() }

// Err says why the connection ended; nil while it is up.
func (c *Conn) Err() error { return c.c.Err() }

// FollowLogs delivers the stderr lines of every server as the host
// publishes them (server.log events), until ctx ends or the connection
// does; then the channel is closed.
func (c *Conn) FollowLogs(ctx context.Context) (<-chan hostapi.LogLine, error) {
	events, err := c.c.Subscribe(ctx, hostapi.TopicLog)
	if err != nil {
		return nil, err
	}
	out := make(chan hostapi.LogLine, 64)
	go func() {
		defer close(out)
		for ev := range events {
			var l hostapi.LogLine
			if json.Unmarshal(ev.Data, &l) != nil {
				continue
			}
			select {
			case out <- l:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// HostPID is the pid of the host at the other end, from its greeting.
func (c *Conn) HostPID() int { return c.c.HostPID() }

// Subscribe delivers the host's events of the given topics
// (hostapi.Topic*) as they come, each with its payload undecoded, until
// ctx ends or the connection does. [Live] folds them into a snapshot;
// this is for a client that wants them one by one (a benchmark timing
// each state change).
func (c *Conn) Subscribe(ctx context.Context, topics ...string) (<-chan api.Event, error) {
	return c.c.Subscribe(ctx, topics...)
}
