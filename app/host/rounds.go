//lint:file-ignore SA1019 roots and sampling are deprecated as of 2026-07-28 (SEP-2577) and still used by the apps and servers of the eras before it, for whom Switchboard carries them

package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// Input-required rounds (issue 30 §3, the 2026-07-28 protocol's
// multi-round-trip requests): a server of that era does not send its
// client requests while it serves a call; it answers the call with
// resultType "input_required", the requests it needs answered
// (inputRequests: elicitation, sampling, roots) and an opaque
// requestState, and the client calls again with a new id, the answers
// (inputResponses) and the requestState. The host completes these rounds
// itself, for every app: each request goes where a server's request
// goes (inputs.go), to the calling app, which is known exactly here, or a
// person, or the profile, and the call is sent again, at most maxRounds
// times, for an app of an earlier era. So an app of any era can use a
// server of the new one. An app of the 2026-07-28 era (relay.Caller's
// Modern) gets the input_required result as the server wrote it, and
// completes the rounds itself: its retry reaches the server with its
// inputResponses and the requestState (the gateway's go-sdk path).

// maxRounds bounds the rounds of one call (the go-sdk's client allows 10).
const maxRounds = 10

// inputRequired is the part of an input_required result the host reads.
type inputRequired struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	RequestState string `json:"requestState"`

	// urls are the pages of a -32042 error (URL elicitation required),
	// err the error itself, for a round made of them.
	urls []*mcp.ElicitParams
	err  error
}

// urlsRequired are the pages of a server's -32042 error (a sign-in, a
// payment: URL elicitation required before the call can run) when the
// calling app cannot show them itself; nil otherwise.
func (r *rounds) urlsRequired(err error) []*mcp.ElicitParams {
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code != mcp.CodeURLElicitationRequired || len(rpc.Data) == 0 {
		return nil
	}
	if app := r.in.appOf([]relay.Caller{r.first.Caller}); app != nil && canElicit(app.Capabilities(), hostapi.InputURL) {
		return nil // the app handles it (the go-sdk's client does)
	}
	var data struct {
		Elicitations []*mcp.ElicitParams `json:"elicitations"`
	}
	if json.Unmarshal(rpc.Data, &data) != nil || len(data.Elicitations) == 0 {
		return nil
	}
	for _, p := range data.Elicitations {
		if p == nil || p.Mode != hostapi.InputURL {
			return nil
		}
	}
	return data.Elicitations
}

// roundsCall runs a tools/call through start, completing its
// input_required rounds: c.Done gets the final result. It returns the
// withdrawal of whichever round is in flight. A call that needs no round
// costs one small allocation here (a context is made only for a round).
func (in *inputs) roundsCall(server string, c *relay.Call, start func(*relay.Call) (func(), error)) (func(), error) {
	if c.Done == nil {
		return start(c)
	}
	r := &rounds{in: in, server: server, start: start, done: c.Done, first: c}
	c.Done = r.next
	s, err := start(c)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if r.stop == nil {
		r.stop = s
	}
	r.mu.Unlock()
	return r.withdraw, nil
}

// rounds is a call's state across its rounds.
type rounds struct {
	in     *inputs
	server string
	first  *relay.Call // the first round's (copied for each retry)
	start  func(*relay.Call) (func(), error)
	done   func(*relay.Result, error) // the caller's

	mu        sync.Mutex
	stop      func()          // the round in flight's withdrawal
	ctx       context.Context // the rounds' questions; made at the first round
	cancel    context.CancelFunc
	withdrawn bool
	n         int // rounds so far
}

// next is each round's Done: the final answer goes to the caller; an
// input_required one starts the next round on a goroutine of its own
// (never on the one that reads the server).
func (r *rounds) next(res *relay.Result, err error) {
	var ir inputRequired
	if urls := r.urlsRequired(err); urls != nil {
		// A page the user must open first (-32042), which the app cannot
		// show: asked as a round whose answers are not sent, the call
		// sent again as it was.
		ir.ResultType = "url_required"
		ir.urls, ir.err = urls, err
	} else if err != nil || res == nil || !res.Round {
		r.finish(res, err)
		return
	} else if json.Unmarshal(res.Raw, &ir) != nil || ir.ResultType != "input_required" {
		r.finish(res, err)
		return
	}
	r.mu.Lock()
	if r.withdrawn {
		r.mu.Unlock()
		return
	}
	r.n++
	if r.n > maxRounds {
		r.mu.Unlock()
		r.finish(nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"Switchboard server %q asked for input %d times for one call of tool %q; the call was ended (at most %d rounds)", r.server, r.n, r.first.Tool, maxRounds)})
		return
	}
	if r.ctx == nil {
		r.ctx, r.cancel = context.WithCancel(context.Background())
	}
	r.mu.Unlock()
	go r.round(ir)
}

// round answers a round's requests and sends the call again.
func (r *rounds) round(ir inputRequired) {
	retry := *r.first
	retry.Done = r.next
	if ir.urls != nil {
		for _, p := range ir.urls {
			res, err := r.in.elicit(r.ctx, r.server, []relay.Caller{r.first.Caller}, p)
			if r.ctx.Err() != nil {
				return // withdrawn: no answer is due
			}
			if err != nil || res.Action != hostapi.ActionAccept {
				r.finish(nil, ir.err) // not opened: the server's own error
				return
			}
		}
	} else {
		responses, err := r.in.fulfil(r.ctx, r.server, r.first.Caller, ir)
		if err != nil {
			if r.ctx.Err() == nil { // else withdrawn: no answer is due
				r.finish(nil, err)
			}
			return
		}
		extra, _ := json.Marshal(map[string]any{"inputResponses": responses, "requestState": ir.RequestState})
		retry.Params = extra[1 : len(extra)-1]
	}
	r.mu.Lock()
	withdrawn := r.withdrawn
	r.mu.Unlock()
	if withdrawn {
		return
	}
	s, err := r.start(&retry) // not under mu: its Done may come at once
	if err != nil {
		r.finish(nil, err)
		return
	}
	r.mu.Lock()
	withdrawn = r.withdrawn
	r.stop = s
	r.mu.Unlock()
	if withdrawn { // while it was sent
		s()
	}
}

// finish gives the caller its answer.
func (r *rounds) finish(res *relay.Result, err error) {
	r.mu.Lock()
	if r.cancel != nil {
		r.cancel()
	}
	r.mu.Unlock()
	r.done(res, err)
}

// withdraw withdraws the round in flight, and its questions.
func (r *rounds) withdraw() {
	r.mu.Lock()
	r.withdrawn = true
	st := r.stop
	if r.cancel != nil {
		r.cancel()
	}
	r.mu.Unlock()
	if st != nil {
		st()
	}
}

// fulfil answers an input_required result's requests for the caller.
func (in *inputs) fulfil(ctx context.Context, server string, caller relay.Caller, ir inputRequired) (map[string]any, error) {
	callers := []relay.Caller{caller}
	out := map[string]any{}
	for key, r := range ir.InputRequests {
		var res any
		var err error
		switch r.Method {
		case "elicitation/create":
			var p mcp.ElicitParams
			if err = json.Unmarshal(r.Params, &p); err == nil {
				res, err = in.elicit(ctx, server, callers, &p)
			}
		case "sampling/createMessage":
			var p mcp.CreateMessageParams
			if err = json.Unmarshal(r.Params, &p); err == nil {
				res, err = in.sample(ctx, server, callers, &p)
			}
		case "roots/list":
			res, err = in.roots(ctx, server, callers)
		default:
			err = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: fmt.Sprintf(
				"Switchboard server %q asked for input of a kind Switchboard does not know (%q)", server, r.Method)}
		}
		if err != nil {
			return nil, err
		}
		out[key] = res
	}
	return out, nil
}
