package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// The params and results of the host's API methods; the command line and
// the tray use the same types.

// NameParams name one server, or all of them.
type NameParams struct {
	Name string `json:"name,omitempty"`
	All  bool   `json:"all,omitempty"`
	// Wait, for servers.stop, waits until the stop ladders finished.
	Wait bool `json:"wait,omitempty"`
}

// PutParams add (Create) or replace an entry.
type PutParams struct {
	Name   string          `json:"name"`
	Entry  json.RawMessage `json:"entry"`
	Create bool            `json:"create,omitempty"`
}

// CallParams call a tool.
type CallParams struct {
	Name      string          `json:"name"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// SecretParams set or delete a secret; Value is only for secrets.set.
type SecretParams struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

// SecretInfo describes a stored secret: never its value.
type SecretInfo struct {
	Name   string   `json:"name"`
	UsedBy []string `json:"usedBy,omitempty"`
}

// LogsResult holds a server's kept stderr lines.
type LogsResult struct {
	Lines []string `json:"lines"`
}

// ToolsResult holds a running server's tools.
type ToolsResult struct {
	Tools []*mcp.Tool `json:"tools"`
}

// EntryResult holds one entry of the config file as written.
type EntryResult struct {
	Entry json.RawMessage `json:"entry"`
}

// The method names.
const (
	MethodInfo         = "host.info"
	MethodStop         = "host.stop"
	MethodList         = "servers.list"
	MethodStart        = "servers.start"
	MethodStopServer   = "servers.stop"
	MethodRestart      = "servers.restart"
	MethodPut          = "servers.put"
	MethodGet          = "servers.get"
	MethodRemove       = "servers.remove"
	MethodEnable       = "servers.enable"
	MethodDisable      = "servers.disable"
	MethodLogs         = "servers.logs"
	MethodTools        = "servers.tools"
	MethodCall         = "servers.call"
	MethodSecretSet    = "secrets.set"
	MethodSecretDelete = "secrets.delete"
	MethodSecretList   = "secrets.list"
	MethodConfig       = "config.status"
)

func notFound(err error) error {
	if errors.Is(err, ErrNoServer) {
		return &api.Error{Code: api.CodeNotFound, Message: err.Error()}
	}
	return err
}

func (h *Host) methods() api.Methods {
	return api.Methods{
		MethodInfo: func(ctx context.Context, _ *api.ConnInfo, p json.RawMessage) (any, error) {
			return h.info(), nil
		},
		MethodStop: func(ctx context.Context, _ *api.ConnInfo, p json.RawMessage) (any, error) {
			h.Stop()
			return map[string]bool{"stopping": true}, nil
		},
		MethodConfig: func(ctx context.Context, _ *api.ConnInfo, p json.RawMessage) (any, error) {
			return h.configStatus(), nil
		},
		MethodList: func(ctx context.Context, _ *api.ConnInfo, p json.RawMessage) (any, error) {
			return h.mgr.Status(), nil
		},
		MethodStart: h.each(MethodStart, func(name string) (<-chan struct{}, error) {
			return nil, h.mgr.StartServer(name)
		}),
		MethodRestart: h.each(MethodRestart, func(name string) (<-chan struct{}, error) {
			return nil, h.mgr.RestartServer(name)
		}),
		// A closure, not the method value h.mgr.StopServer: methods() runs
		// before the manager exists, and a method value binds nil.
		MethodStopServer: h.each(MethodStopServer, func(name string) (<-chan struct{}, error) {
			return h.mgr.StopServer(name)
		}),
		MethodPut: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[PutParams](MethodPut, raw)
			if err != nil {
				return nil, err
			}
			return nil, h.change(func(f *config.File) error { return PutServer(f, p.Name, p.Entry, p.Create) })
		},
		MethodGet: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[NameParams](MethodGet, raw)
			if err != nil {
				return nil, err
			}
			h.mu.Lock()
			s := h.file.Servers[p.Name]
			h.mu.Unlock()
			if s == nil {
				return nil, api.Errorf(api.CodeNotFound, "server %q is not in the config; 'switchboard status' lists the servers", p.Name)
			}
			b, err := json.Marshal(s)
			return EntryResult{Entry: b}, err
		},
		MethodRemove: h.fileOp(MethodRemove, RemoveServer),
		MethodEnable: h.fileOp(MethodEnable, func(f *config.File, name string) error { return SetDisabled(f, name, false) }),
		MethodDisable: h.fileOp(MethodDisable, func(f *config.File, name string) error {
			return SetDisabled(f, name, true)
		}),
		MethodLogs: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[NameParams](MethodLogs, raw)
			if err != nil {
				return nil, err
			}
			ring, err := h.mgr.Logs(p.Name)
			if err != nil {
				return nil, notFound(err)
			}
			return LogsResult{Lines: ring.Lines()}, nil
		},
		MethodTools: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[NameParams](MethodTools, raw)
			if err != nil {
				return nil, err
			}
			tools, err := h.mgr.Tools(p.Name)
			if err != nil {
				return nil, notFound(err)
			}
			return ToolsResult{Tools: tools}, nil
		},
		MethodCall: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[CallParams](MethodCall, raw)
			if err != nil {
				return nil, err
			}
			var args any
			if len(p.Arguments) > 0 {
				args = p.Arguments
			}
			res, err := h.mgr.Call(ctx, p.Name, p.Tool, args)
			if err != nil {
				return nil, notFound(err)
			}
			return res, nil
		},
		MethodSecretSet: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[SecretParams](MethodSecretSet, raw)
			if err != nil {
				return nil, err
			}
			if h.opts.Secrets == nil {
				return nil, errors.New("this host has no keyring")
			}
			if err := h.opts.Secrets.Set(p.Name, secrets.New(p.Value)); err != nil {
				return nil, err
			}
			h.tokenChanged(p.Name)
			return map[string][]string{"restarted": h.mgr.SecretChanged(p.Name)}, nil
		},
		MethodSecretDelete: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			p, err := decode[SecretParams](MethodSecretDelete, raw)
			if err != nil {
				return nil, err
			}
			if h.opts.Secrets == nil {
				return nil, errors.New("this host has no keyring")
			}
			if err := h.opts.Secrets.Delete(p.Name); err != nil {
				return nil, err
			}
			h.tokenChanged(p.Name)
			return nil, nil
		},
		MethodSecretList: func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
			h.mu.Lock()
			f := h.file
			h.mu.Unlock()
			return ListSecrets(h.opts.Secrets, f)
		},
	}
}

// ListSecrets lists the stored secrets and the servers that use each,
// plus the referenced ones that are not stored (UsedBy set, marked by the
// caller through the store's absence).
func ListSecrets(store *secrets.Store, f *config.File) ([]SecretInfo, error) {
	var names []string
	if store != nil {
		var err error
		if names, err = store.List(); err != nil {
			return nil, err
		}
	}
	used := map[string][]string{}
	for _, n := range f.Names() {
		if s := f.Servers[n]; s != nil {
			for _, ref := range s.SecretRefs() {
				used[ref] = append(used[ref], n)
			}
		}
	}
	out := make([]SecretInfo, 0, len(names))
	for _, n := range names {
		out = append(out, SecretInfo{Name: n, UsedBy: used[n]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// each runs op on the named server or on all of them.
func (h *Host) each(method string, op func(name string) (<-chan struct{}, error)) api.Method {
	return func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
		p, err := decode[NameParams](method, raw)
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
				if st.State == StateInvalid || st.State == StateDisabled {
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
		if len(errs) == 1 {
			return nil, errs[0]
		}
		return nil, errors.Join(errs...)
	}
}

func (h *Host) statusOf(name string) ServerStatus {
	for _, st := range h.mgr.Status() {
		if st.Name == name {
			return st
		}
	}
	return ServerStatus{}
}

func (h *Host) fileOp(method string, op func(*config.File, string) error) api.Method {
	return func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
		p, err := decode[NameParams](method, raw)
		if err != nil {
			return nil, err
		}
		if p.Name == "" {
			return nil, api.Errorf(api.CodeBadRequest, "%s needs a server name", method)
		}
		return nil, h.change(func(f *config.File) error { return op(f, p.Name) })
	}
}

var _ = slices.Contains[[]string]
var _ = fmt.Sprint
