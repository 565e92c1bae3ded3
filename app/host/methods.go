package host

import (
	"context"
	"errors"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

func notFound(err error) error {
	if errors.Is(err, ErrNoServer) {
		return &hostapi.Error{Code: hostapi.CodeNotFound, Message: err.Error(), Err: err}
	}
	return err
}

// noKeyring is the error of a secret's method on a host without a
// keyring.
var noKeyring = &hostapi.Error{Code: hostapi.CodeNoKeyring, Message: "this host has no keyring"}

// each runs op on the named server or on all of them.
func (h *Host) each(method string, op func(name string) (<-chan struct{}, error)) func(context.Context, *api.ConnInfo, hostapi.NameParams) (hostapi.None, error) {
	return func(ctx context.Context, _ *api.ConnInfo, p hostapi.NameParams) (hostapi.None, error) {
		names := []string{p.Name}
		if p.All {
			names = h.mgr.Names()
		} else if p.Name == "" {
			return none, api.Errorf(api.CodeBadRequest, "%s needs a server name or all", method)
		}
		var errs []error
		var dones []<-chan struct{}
		for _, n := range names {
			if p.All {
				// Skip what the operation does not apply to.
				st := h.statusOf(n)
				if st.State == hostapi.StateInvalid || st.State == hostapi.StateDisabled {
					continue
				}
			}
			done, err := op(n)
			if err != nil {
				errs = append(errs, notFound(err))
			}
			if done != nil {
				dones = append(dones, done)
			}
		}
		if p.Wait {
			for _, d := range dones {
				select {
				case <-d:
				case <-ctx.Done():
					return none, ctx.Err()
				}
			}
		}
		return none, joinErrors(errs)
	}
}

func (h *Host) statusOf(name string) hostapi.ServerStatus {
	for _, st := range h.mgr.Status() {
		if st.Name == name {
			return st
		}
	}
	return hostapi.ServerStatus{}
}

func (h *Host) fileOp(method string, op func(*config.File, string) error) func(context.Context, *api.ConnInfo, hostapi.NameParams) (hostapi.None, error) {
	return func(_ context.Context, _ *api.ConnInfo, p hostapi.NameParams) (hostapi.None, error) {
		if p.Name == "" {
			return none, api.Errorf(api.CodeBadRequest, "%s needs a server name", method)
		}
		return none, h.change(func(f *config.File) error { return op(f, p.Name) })
	}
}
