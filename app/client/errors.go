package client

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// hostError turns the host's error answer (an *api.Error) into a
// *hostapi.Error with its code and problems, so that a front end acts on
// data, never on the message's words. An older host's answer (no data)
// becomes an *hostapi.Error with its code and message and no problems.
// Any other error (the connection, the context) is returned as it is.
func hostError(err error) error {
	var ae *api.Error
	if err == nil || !errors.As(err, &ae) {
		return err
	}
	he := &hostapi.Error{Code: ae.Code, Message: ae.Message, Err: err}
	if len(ae.Data) > 0 {
		var ps []hostapi.Problem
		if json.Unmarshal(ae.Data, &ps) == nil {
			he.Problems = ps
		}
	}
	return he
}

// over is the call function of [Methods] over the connection c.
func over(c *api.Client) func(ctx context.Context, method string, params, result any) error {
	return func(ctx context.Context, method string, params, result any) error {
		return callHost(ctx, c, method, params, result)
	}
}
