package stdio

import (
	"context"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine"
)

// Transport is an [mcp.Transport] that starts one server process per
// Connect. A Transport is meant for one Connect; the supervisor makes a
// fresh one for every attempt, so the executable is resolved and the
// secrets are read anew each time.
type Transport struct {
	// Spec describes the server; Connect checks it.
	Spec engine.Spec
	// Options are passed to [engine.Start].
	Options engine.StartOptions
	// FloodRate and FloodWindow override the flood limit's defaults.
	FloodRate   int
	FloodWindow time.Duration
	// Started, if set, is called with the process right after it starts.
	Started func(*engine.Process)
}

var _ mcp.Transport = (*Transport)(nil)

// Connect starts the server and returns a [*Conn] over its pipes.
func (t *Transport) Connect(ctx context.Context) (mcp.Connection, error) {
	p, err := engine.Start(ctx, t.Spec, t.Options)
	if err != nil {
		return nil, err
	}
	spec := p.Spec()
	log := t.Options.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	opts := ConnOptions{
		Server:          spec.Name,
		MaxMessageBytes: spec.MaxMessageBytes,
		MaxJunkLines:    spec.MaxJunkLines,
		WriteQueueBytes: spec.WriteQueueBytes,
		ProbeTimeout:    spec.ProbeTimeout,
		FloodRate:       t.FloodRate,
		FloodWindow:     t.FloodWindow,
		Logger:          log,
	}
	if spec.MaxJunkLines == 0 {
		opts.MaxJunkLines = -1
	}
	if ring := p.Stderr(); ring != nil {
		opts.Stderr = func() []string {
			// A server that exited may still have its last words in the
			// pipe: give the stderr pump a moment to read them.
			select {
			case <-p.Exited():
				t := time.NewTimer(200 * time.Millisecond)
				select {
				case <-p.StderrDrained():
				case <-t.C:
				}
				t.Stop()
			default:
			}
			return ring.Tail(20)
		}
	}
	c := newProcConn(p, opts)
	if t.Started != nil {
		t.Started(p)
	}
	return c, nil
}

func newProcConn(p *engine.Process, opts ConnOptions) *Conn {
	opts.fill()
	c := &Conn{proc: p}
	c.init(p.Stdout(), p.Stdin(), opts)
	go c.watchExit()
	return c
}
