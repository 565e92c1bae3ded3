//lint:file-ignore SA1019 roots and sampling are deprecated as of 2026-07-28 (SEP-2577) and still used by the apps and servers of the eras before it, for whom Switchboard carries them

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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
}

// roundsCall runs a tools/call through start, completing its
// input_required rounds: c.Done gets the final result. It returns the
// withdrawal of whichever round is in flight.
func (in *inputs) roundsCall(server string, c *relay.Call, start func(*relay.Call) (func(), error)) (func(), error) {
	done := c.Done
	if done == nil {
		return start(c)
	}
	var mu sync.Mutex
	var stop func()
	ctx, cancel := context.WithCancel(context.Background())
	round := 0
	var next func(res *relay.Result, err error)
	next = func(res *relay.Result, err error) {
		if err != nil || res == nil || !res.Round {
			cancel()
			done(res, err)
			return
		}
		var ir inputRequired
		if json.Unmarshal(res.Raw, &ir) != nil || ir.ResultType != "input_required" {
			cancel()
			done(res, err)
			return
		}
		round++
		if round > maxRounds {
			cancel()
			done(nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
				"Switchboard server %q asked for input %d times for one call of tool %q; the call was ended (at most %d rounds)", server, round, c.Tool, maxRounds)})
			return
		}
		go func() { // never on the goroutine that reads the server
			responses, err := in.fulfil(ctx, server, c.Caller, ir)
			if err != nil {
				cancel()
				done(nil, err)
				return
			}
			extra, _ := json.Marshal(map[string]any{"inputResponses": responses, "requestState": ir.RequestState})
			retry := *c
			retry.Params = extra[1 : len(extra)-1]
			retry.Done = next
			mu.Lock()
			if ctx.Err() != nil { // withdrawn meanwhile
				mu.Unlock()
				return
			}
			s, err := start(&retry)
			stop = s
			mu.Unlock()
			if err != nil {
				cancel()
				done(nil, err)
			}
		}()
	}
	first := *c
	first.Done = next
	s, err := start(&first)
	if err != nil {
		cancel()
		return nil, err
	}
	mu.Lock()
	if stop == nil {
		stop = s
	}
	mu.Unlock()
	return func() {
		mu.Lock()
		st := stop
		cancel()
		mu.Unlock()
		if st != nil {
			st()
		}
	}, nil
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
