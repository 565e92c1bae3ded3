package host

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/secrets"
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

func (h *Host) methods() api.Methods {
	return api.Methods{
		hostapi.MethodInfo: func(ctx context.Context, _ *api.ConnInfo, p json.RawMessage) (any, error) {
			return h.info(), nil
		},
		hostapi.MethodStop: func(ctx context.Context, _ *api.ConnInfo, p json.RawMessage) (any, error) {
			h.Stop()
			return hostapi.StopResult{Stopping: true}, nil
		},
		hostapi.MethodConfig: func(ctx context.Context, _ *api.ConnInfo, p json.RawMessage) (any, error) {
			return h.configStatus(), nil
		},
		hostapi.MethodList: func(ctx context.Context, _ *api.ConnInfo, p json.RawMessage) (any, error) {
			return h.mgr.Status(), nil
		},
		hostapi.MethodStart: h.each(hostapi.MethodStart, func(name string) (<-chan struct{}, error) {
			return nil, h.mgr.StartServer(name)
		}),
		hostapi.MethodRestart: h.each(hostapi.MethodRestart, func(name string) (<-chan struct{}, error) {
			return nil, h.mgr.RestartServer(name)
		}),
		// A closure, not the method value h.mgr.StopServer: methods() runs
		// before the manager exists, and a method value binds nil.
		hostapi.MethodStopServer: h.each(hostapi.MethodStopServer, func(name string) (<-chan struct{}, error) {
			return h.mgr.StopServer(name)
		}),
		hostapi.MethodPut: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[hostapi.PutParams](hostapi.MethodPut, raw)
			if err != nil {
				return nil, err
			}
			return nil, h.change(func(f *config.File) error { return configedit.PutServer(f, p.Name, p.Entry, p.Create) })
		},
		hostapi.MethodGet: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[hostapi.NameParams](hostapi.MethodGet, raw)
			if err != nil {
				return nil, err
			}
			h.mu.Lock()
			s := h.file.Servers[p.Name]
			var known []string
			if s == nil {
				known = h.file.Names()
			}
			h.mu.Unlock()
			if s == nil {
				return nil, configedit.NotInConfig(p.Name, known)
			}
			b, err := json.Marshal(s)
			return hostapi.EntryResult{Entry: b}, err
		},
		hostapi.MethodRename: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[hostapi.RenameParams](hostapi.MethodRename, raw)
			if err != nil {
				return nil, err
			}
			if p.Name == "" || p.NewName == "" {
				return nil, api.Errorf(api.CodeBadRequest, "%s needs the server's name and its new name", hostapi.MethodRename)
			}
			return nil, h.rename(p.Name, p.NewName)
		},
		hostapi.MethodRemove: h.fileOp(hostapi.MethodRemove, configedit.RemoveServer),
		hostapi.MethodEnable: h.fileOp(hostapi.MethodEnable, func(f *config.File, name string) error { return configedit.SetDisabled(f, name, false) }),
		hostapi.MethodDisable: h.fileOp(hostapi.MethodDisable, func(f *config.File, name string) error {
			return configedit.SetDisabled(f, name, true)
		}),
		hostapi.MethodLogs: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[hostapi.NameParams](hostapi.MethodLogs, raw)
			if err != nil {
				return nil, err
			}
			ring, err := h.mgr.Logs(p.Name)
			if err != nil {
				return nil, notFound(err)
			}
			var res hostapi.LogsResult
			for _, l := range ring.Entries() {
				res.Lines = append(res.Lines, l.Text)
				res.Times = append(res.Times, l.Time)
			}
			return res, nil
		},
		hostapi.MethodTools: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[hostapi.NameParams](hostapi.MethodTools, raw)
			if err != nil {
				return nil, err
			}
			tools, err := h.mgr.Tools(p.Name)
			if err != nil {
				return nil, notFound(err)
			}
			return hostapi.ToolsResult{Tools: tools}, nil
		},
		hostapi.MethodCall: func(ctx context.Context, ci *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[hostapi.CallParams](hostapi.MethodCall, raw)
			if err != nil {
				return nil, err
			}
			var args any
			if len(p.Arguments) > 0 {
				args = p.Arguments
			}
			res, err := h.mgr.Call(relay.WithCaller(ctx, apiCaller(ci)), p.Name, p.Tool, args)
			if err != nil {
				return nil, notFound(err)
			}
			return res, nil
		},
		hostapi.MethodSecretSet: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[hostapi.SecretParams](hostapi.MethodSecretSet, raw)
			if err != nil {
				return nil, err
			}
			if h.opts.Secrets == nil {
				return nil, noKeyring
			}
			if err := h.opts.Secrets.Set(p.Name, secrets.New(p.Value)); err != nil {
				return nil, secretError(p.Name, err)
			}
			h.tokenChanged(p.Name)
			return hostapi.SecretSetResult{Restarted: h.mgr.SecretChanged(p.Name)}, nil
		},
		hostapi.MethodSecretDelete: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[hostapi.SecretParams](hostapi.MethodSecretDelete, raw)
			if err != nil {
				return nil, err
			}
			if h.opts.Secrets == nil {
				return nil, noKeyring
			}
			if err := h.opts.Secrets.Delete(p.Name); err != nil {
				return nil, secretError(p.Name, err)
			}
			h.tokenChanged(p.Name)
			return nil, nil
		},
		hostapi.MethodSecretList: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			h.mu.Lock()
			f := h.file
			h.mu.Unlock()
			return configedit.ListSecrets(h.opts.Secrets, f)
		},
	}
}

// each runs op on the named server or on all of them.
func (h *Host) each(method string, op func(name string) (<-chan struct{}, error)) api.Method {
	return func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
		p, err := decode[hostapi.NameParams](method, raw)
		if err != nil {
			return nil, err
		}
		names := []string{p.Name}
		if p.All {
			names = h.mgr.Names()
		} else if p.Name == "" {
			return nil, api.Errorf(api.CodeBadRequest, "%s needs a server name or all", method)
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
					return nil, ctx.Err()
				}
			}
		}
		return nil, joinErrors(errs)
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

func (h *Host) fileOp(method string, op func(*config.File, string) error) api.Method {
	return func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
		p, err := decode[hostapi.NameParams](method, raw)
		if err != nil {
			return nil, err
		}
		if p.Name == "" {
			return nil, api.Errorf(api.CodeBadRequest, "%s needs a server name", method)
		}
		return nil, h.change(func(f *config.File) error { return op(f, p.Name) })
	}
}
