package client

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestHostErrorDecoding: the wire error becomes a *hostapi.Error with its
// code and problems; an older host's (no data) keeps its code and message;
// the wire error stays in the chain; other errors pass unchanged.
func TestHostErrorDecoding(t *testing.T) {
	call := func(err error) func(ctx context.Context, method string, params, result any) error {
		return func(context.Context, string, any, any) error { return err }
	}
	decoding := func(call func(ctx context.Context, method string, params, result any) error) func(ctx context.Context, method string, params, result any) error {
		return func(ctx context.Context, method string, params, result any) error {
			return hostError(call(ctx, method, params, result))
		}
	}
	m := Methods{call: decoding(call(&api.Error{Code: "secret_missing", Message: "server \"s\" waits",
		Data: []byte(`[{"server":"s","key":"env.T","message":"waits","remedy":{"kind":"set_secret","secret":"gh"}}]`)}))}
	err := m.Start(context.Background(), "s")
	var he *hostapi.Error
	if !errors.As(err, &he) || he.Code != hostapi.CodeSecretMissing || err.Error() != `server "s" waits` {
		t.Fatalf("err = %v (%T)", err, err)
	}
	if !errors.Is(err, hostapi.ErrSecretMissing) || errors.Is(err, hostapi.ErrNotFound) {
		t.Error("errors.Is does not match by code")
	}
	if r := he.Remedies(); len(he.Problems) != 1 || he.Problems[0].Key != "env.T" || len(r) != 1 || r[0].Kind != hostapi.RemedySetSecret || r[0].Secret != "gh" {
		t.Errorf("problems = %+v", he.Problems)
	}
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != "secret_missing" {
		t.Error("the wire error is not in the chain")
	}

	// An older host: no data.
	m = Methods{call: decoding(call(&api.Error{Code: api.CodeNotFound, Message: "no such server"}))}
	err = m.RemoveServer(context.Background(), "x")
	if !errors.Is(err, hostapi.ErrNotFound) || err.Error() != "no such server" || !errors.As(err, &he) || he.Problems != nil {
		t.Errorf("an older host's error: %v (%T)", err, err)
	}
	// Data that is not problems: the code and message still arrive.
	m = Methods{call: decoding(call(&api.Error{Code: "x", Message: "m", Data: []byte(`{"not":"a list"}`)}))}
	if err := m.StopHost(context.Background()); !errors.As(err, &he) || he.Code != "x" || he.Problems != nil {
		t.Errorf("odd data: %v", err)
	}
	// Not the host's answer: unchanged.
	other := fmt.Errorf("servers.start: %w", context.DeadlineExceeded)
	m = Methods{call: decoding(call(other))}
	if err := m.Start(context.Background(), "s"); err != other {
		t.Errorf("a non-host error became %v (%T)", err, err)
	}
	if hostError(nil) != nil {
		t.Error("nil became an error")
	}
}
