package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// A tools/call to a remote server. A local server's calls are written to
// its stdio connection by app/relay (the lean path); a remote server has
// no such connection, so its calls go through its go-sdk session
// (ClientSession.CallTool), with what the relay gives every call: the
// Hook's Before (which may refuse or hold the call: approvals) and After
// (the activity log), the callTimeout, progress, and the caller's
// withdrawal. The gateway and servers.call cannot tell the two apart.

// startRemoteCall starts c on a remote server's session cs; see
// relay.Relay.Start for the contract (Done once, unless withdrawn).
func (b *gatewayBackend) startRemoteCall(name string, s *server, cs *mcp.ClientSession, c *relay.Call) (func(), error) {
	timeout := callTimeout(s)
	args := bytes.TrimSpace(c.Arguments)
	if len(args) == 0 {
		args = []byte("{}")
	} else if !relay.Valid(args) {
		return nil, relay.ArgumentsError(name, c.Tool, errors.New("not valid JSON"))
	}
	info := &relay.Info{Kind: relay.KindToolCall, Server: name, Tool: c.Tool, Caller: c.Caller, Timeout: timeout,
		Started: time.Now(), Waited: c.Waited, Arguments: args, Meta: c.Meta}
	hook := b.m.relayHook
	if hook != nil {
		if err := hook.Before(info); err != nil {
			return nil, err
		}
	}
	info.Arguments, info.Meta = nil, nil // valid during Before only
	params := &mcp.CallToolParams{Name: c.Tool, Arguments: json.RawMessage(bytes.Clone(args))}
	if len(c.Meta) > 0 {
		var meta mcp.Meta
		if err := json.Unmarshal(append(append([]byte{'{'}, c.Meta...), '}'), &meta); err == nil {
			params.Meta = meta
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	after := func(res *relay.Result, err error) {
		once.Do(func() {
			if hook != nil {
				hook.After(info, res, err)
			}
		})
	}
	go func() {
		defer cancel()
		if h := info.Hold; h != nil {
			if !relay.AwaitDecision(c, h, ctx.Done()) {
				h.Withdraw()
				after(nil, relay.ErrWithdrawn)
				return
			}
			approval, err := h.Decision()
			info.Approval = approval
			if err != nil {
				after(nil, err)
				c.Done(nil, err)
				return
			}
			info.Started = time.Now() // the callTimeout starts now
		}
		if c.Progress != nil {
			tok := "switchboard-" + strconv.FormatUint(b.m.progressSeq.Add(1), 10)
			b.m.progress.Store(tok, func(p *mcp.ProgressNotificationParams) {
				if raw, err := json.Marshal(p); err == nil {
					c.Progress(raw)
				}
			})
			defer time.AfterFunc(time.Second, func() { b.m.progress.Delete(tok) })
			if params.Meta == nil {
				params.Meta = mcp.Meta{}
			}
			params.Meta["progressToken"] = tok
		}
		cctx, ccancel := context.WithTimeout(ctx, timeout)
		defer ccancel()
		res, err := cs.CallTool(cctx, params)
		if ctx.Err() != nil && !errors.Is(cctx.Err(), context.DeadlineExceeded) {
			after(nil, relay.ErrWithdrawn) // withdrawn: no Done
			return
		}
		if err != nil {
			var rpc *jsonrpc.Error
			switch {
			case errors.Is(cctx.Err(), context.DeadlineExceeded):
				err = &relay.TimeoutError{Server: name, Tool: c.Tool, Timeout: timeout}
			case errors.As(err, &rpc):
			default:
				state := "restarting"
				if sup := s.sup; sup != nil && sup.Session() != cs {
					state = string(sup.Status().State)
				}
				err = &relay.StoppedError{Server: name, Tool: c.Tool, Reason: err.Error(), State: state}
			}
			after(nil, err)
			c.Done(nil, err)
			return
		}
		raw, merr := json.Marshal(res)
		var r *relay.Result
		if merr == nil {
			r, merr = relay.ScanResult(raw)
		}
		if merr != nil {
			err := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server's answer could not be read: " + merr.Error()}
			after(nil, err)
			c.Done(nil, err)
			return
		}
		after(r, nil)
		c.Done(r, nil)
	}()
	return cancel, nil
}
