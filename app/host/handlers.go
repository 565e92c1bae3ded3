package host

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// handlers is the host's API: every method of app/hostapi with its
// handler, the one table of them. Each entry is made by handle from the
// method's descriptor, so a handler's params and result are the
// descriptor's (the compiler says so), and the contract test
// (TestContract) holds the table to hostapi.Methods(): a handler for each,
// none for another name.
//
// The table is built before the manager exists (NewServer takes it):
// a handler reaches h.mgr when it runs, never when the table is built.
func (h *Host) handlers() api.Methods {
	return table(
		handle(hostapi.MethodHostInfo, func(context.Context, *api.ConnInfo, hostapi.None) (hostapi.Info, error) {
			return h.info(), nil
		}),
		handle(hostapi.MethodHostStop, func(context.Context, *api.ConnInfo, hostapi.None) (hostapi.StopResult, error) {
			h.Stop()
			return hostapi.StopResult{Stopping: true}, nil
		}),
		handle(hostapi.MethodConfigStatus, func(context.Context, *api.ConnInfo, hostapi.None) (hostapi.ConfigStatus, error) {
			return h.configStatus(), nil
		}),

		handle(hostapi.MethodServersList, func(context.Context, *api.ConnInfo, hostapi.None) ([]hostapi.ServerStatus, error) {
			return h.mgr.Status(), nil
		}),
		handle(hostapi.MethodServersStart, h.each(hostapi.MethodServersStart.Name, func(name string) (<-chan struct{}, error) {
			return nil, h.mgr.StartServer(name)
		})),
		// A closure, not the method value h.mgr.StopServer: the table is
		// built before the manager exists, and a method value binds nil.
		handle(hostapi.MethodServersStop, h.each(hostapi.MethodServersStop.Name, func(name string) (<-chan struct{}, error) {
			return h.mgr.StopServer(name)
		})),
		handle(hostapi.MethodServersRestart, h.each(hostapi.MethodServersRestart.Name, func(name string) (<-chan struct{}, error) {
			return nil, h.mgr.RestartServer(name)
		})),
		handle(hostapi.MethodServersPut, func(_ context.Context, _ *api.ConnInfo, p hostapi.PutParams) (hostapi.None, error) {
			return none, h.change(func(f *config.File) error { return configedit.PutServer(f, p.Name, p.Entry, p.Create) })
		}),
		handle(hostapi.MethodServersGet, h.getServer),
		handle(hostapi.MethodServersRemove, func(ctx context.Context, ci *api.ConnInfo, p hostapi.NameParams) (hostapi.None, error) {
			if _, err := h.fileOp(hostapi.MethodServersRemove.Name, configedit.RemoveServer)(ctx, ci, p); err != nil {
				return none, err
			}
			return none, h.forgetLocked(p.Name)
		}),
		handle(hostapi.MethodServersRename, func(_ context.Context, _ *api.ConnInfo, p hostapi.RenameParams) (hostapi.None, error) {
			if p.Name == "" || p.NewName == "" {
				return none, api.Errorf(api.CodeBadRequest, "%s needs the server's name and its new name", hostapi.MethodServersRename.Name)
			}
			if err := h.rename(p.Name, p.NewName); err != nil {
				return none, err
			}
			return none, h.renameLocked(p.Name, p.NewName)
		}),
		handle(hostapi.MethodServersEnable, h.fileOp(hostapi.MethodServersEnable.Name, func(f *config.File, name string) error {
			return configedit.SetDisabled(f, name, false)
		})),
		handle(hostapi.MethodServersDisable, h.fileOp(hostapi.MethodServersDisable.Name, func(f *config.File, name string) error {
			return configedit.SetDisabled(f, name, true)
		})),
		handle(hostapi.MethodServersLogs, h.serverLogs),
		handle(hostapi.MethodServersTools, func(_ context.Context, _ *api.ConnInfo, p hostapi.NameParams) (hostapi.ToolsResult, error) {
			tools, err := h.mgr.Tools(p.Name)
			if err != nil {
				return hostapi.ToolsResult{}, notFound(err)
			}
			return hostapi.ToolsResult{Tools: tools}, nil
		}),
		handle(hostapi.MethodServersCall, func(ctx context.Context, ci *api.ConnInfo, p hostapi.CallParams) (*mcp.CallToolResult, error) {
			var args any
			if len(p.Arguments) > 0 {
				args = p.Arguments
			}
			res, err := h.mgr.Call(relay.WithCaller(ctx, apiCaller(ci)), p.Name, p.Tool, args)
			if err != nil {
				return nil, notFound(err)
			}
			return res, nil
		}),
		handle(hostapi.MethodServersLogin, h.login),   // oauthmethods.go
		handle(hostapi.MethodServersLogout, h.logout), // oauthmethods.go

		handle(hostapi.MethodSecretsSet, h.setSecret),
		handle(hostapi.MethodSecretsDelete, h.deleteSecret),
		handle(hostapi.MethodSecretsList, func(context.Context, *api.ConnInfo, hostapi.None) ([]hostapi.SecretInfo, error) {
			h.mu.Lock()
			f := h.file
			h.mu.Unlock()
			return configedit.ListSecrets(h.opts.Secrets, f)
		}),

		handle(hostapi.MethodGatewayTools, func(context.Context, *api.ConnInfo, hostapi.None) (hostapi.GatewayInfo, error) {
			info := hostapi.GatewayInfo{Socket: h.gwPath}
			if h.gw == nil {
				return info, nil
			}
			info.Mapping = h.gw.Mapping()
			if a := h.gw.HTTPAddr(); a != "" {
				info.HTTP = "http://" + a + gateway.HTTPPath
			}
			return info, nil
		}),
		handle(hostapi.MethodGatewayReloadToken, func(context.Context, *api.ConnInfo, hostapi.None) (hostapi.None, error) {
			if h.gw == nil {
				return none, nil
			}
			return none, h.gw.ReloadHTTPToken()
		}),

		handle(hostapi.MethodToolsCost, h.toolsCost),     // cost.go
		handle(hostapi.MethodToolsReview, h.reviewTools), // trust.go
		handle(hostapi.MethodToolsAccept, h.decideTool(hostapi.MethodToolsAccept.Name, func(s, t string) error { return h.pins.store.Accept(s, t) })),
		handle(hostapi.MethodToolsReject, h.decideTool(hostapi.MethodToolsReject.Name, func(s, t string) error { return h.pins.store.Reject(s, t) })),

		handle(hostapi.MethodActivityQuery, h.activityQuery),   // activity.go
		handle(hostapi.MethodActivityCounts, h.activityCounts), // activity.go

		handle(hostapi.MethodApprovalsList, func(context.Context, *api.ConnInfo, hostapi.None) ([]hostapi.Approval, error) {
			if h.approvals == nil {
				return []hostapi.Approval{}, nil
			}
			return h.approvals.List(), nil
		}),
		handle(hostapi.MethodApprovalsDecide, func(_ context.Context, _ *api.ConnInfo, p hostapi.DecideParams) (hostapi.None, error) {
			if h.approvals == nil {
				return none, &hostapi.Error{Code: hostapi.CodeNotFound, Message: "this host has no approvals"}
			}
			return none, h.approvals.Decide(p.ID, p.Decision)
		}),

		handle(hostapi.MethodRequestsList, func(context.Context, *api.ConnInfo, hostapi.None) ([]hostapi.InputRequest, error) {
			return h.mgr.inputs.list(), nil // inputs.go
		}),
		handle(hostapi.MethodRequestsAnswer, func(_ context.Context, _ *api.ConnInfo, p hostapi.AnswerParams) (hostapi.None, error) {
			return none, h.mgr.inputs.answer(p)
		}),

		handle(hostapi.MethodProfilesList, func(context.Context, *api.ConnInfo, hostapi.None) ([]hostapi.ProfileInfo, error) {
			h.mu.Lock()
			f := h.file
			h.mu.Unlock()
			if f == nil {
				return []hostapi.ProfileInfo{}, nil
			}
			return configedit.ListProfiles(f), nil
		}),
		handle(hostapi.MethodProfilesPut, func(_ context.Context, _ *api.ConnInfo, p hostapi.ProfilePutParams) (hostapi.None, error) {
			return none, h.change(func(f *config.File) error { return configedit.PutProfile(f, p.Name, p.Profile) })
		}),
		handle(hostapi.MethodProfilesRemove, func(_ context.Context, _ *api.ConnInfo, p hostapi.NameParams) (hostapi.None, error) {
			if p.Name == "" {
				return none, api.Errorf(api.CodeBadRequest, "%s needs a profile name", hostapi.MethodProfilesRemove.Name)
			}
			return none, h.change(func(f *config.File) error { return configedit.RemoveProfile(f, p.Name) })
		}),
		handle(hostapi.MethodProfilesRename, func(_ context.Context, _ *api.ConnInfo, p hostapi.RenameParams) (hostapi.None, error) {
			if p.Name == "" || p.NewName == "" {
				return none, api.Errorf(api.CodeBadRequest, "%s needs the profile's name and its new name", hostapi.MethodProfilesRename.Name)
			}
			return none, h.change(func(f *config.File) error { return configedit.RenameProfile(f, p.Name, p.NewName) })
		}),

		handle(hostapi.MethodRegistrySearch, h.registrySearch), // registrymethods.go
		handle(hostapi.MethodRegistryShow, h.registryShow),
		handle(hostapi.MethodRegistryAdd, h.registryAdd),
		handle(hostapi.MethodBundlesInspect, h.bundlesInspect), // bundlemethods.go
		handle(hostapi.MethodBundlesInstall, h.bundlesInstall),
	)
}

// none is the result of a method that has none.
var none = hostapi.None{}

// entry is one method of the table: its name and its untyped handler.
type entry struct {
	name string
	fn   api.Method
}

// handle makes the table's entry of method m from a handler that takes
// m's params and returns m's result. It decodes the params (a method
// without params ignores any it is sent, as before the table) and answers
// a null result for hostapi.None.
func handle[P, R any](m hostapi.Method[P, R], f func(ctx context.Context, ci *api.ConnInfo, p P) (R, error)) entry {
	_, noParams := any(*new(P)).(hostapi.None)
	_, noResult := any(*new(R)).(hostapi.None)
	return entry{name: m.Name, fn: func(ctx context.Context, ci *api.ConnInfo, raw json.RawMessage) (any, error) {
		var p P
		if !noParams {
			if err := api.DecodeParams(m.Name, raw, &p); err != nil {
				return nil, err
			}
		}
		r, err := f(ctx, ci, p)
		if err != nil || noResult {
			return nil, err
		}
		return r, nil
	}}
}

// table makes the api.Methods of entries; a name twice is a bug of the
// table above, found by every test that starts a host.
func table(es ...entry) api.Methods {
	ms := make(api.Methods, len(es))
	for _, e := range es {
		if _, dup := ms[e.name]; dup {
			panic(fmt.Sprintf("host: the method %s has two handlers", e.name))
		}
		ms[e.name] = e.fn
	}
	return ms
}

func (h *Host) getServer(_ context.Context, _ *api.ConnInfo, p hostapi.NameParams) (hostapi.EntryResult, error) {
	h.mu.Lock()
	s := h.file.Servers[p.Name]
	var known []string
	if s == nil {
		known = h.file.Names()
	}
	h.mu.Unlock()
	if s == nil {
		return hostapi.EntryResult{}, configedit.NotInConfig(p.Name, known)
	}
	b, err := json.Marshal(s)
	return hostapi.EntryResult{Entry: b}, err
}

func (h *Host) serverLogs(_ context.Context, _ *api.ConnInfo, p hostapi.NameParams) (hostapi.LogsResult, error) {
	ring, err := h.mgr.Logs(p.Name)
	if err != nil {
		return hostapi.LogsResult{}, notFound(err)
	}
	var res hostapi.LogsResult
	for _, l := range ring.Entries() {
		res.Lines = append(res.Lines, l.Text)
		res.Times = append(res.Times, l.Time)
	}
	return res, nil
}

func (h *Host) setSecret(_ context.Context, _ *api.ConnInfo, p hostapi.SecretParams) (hostapi.SecretSetResult, error) {
	if h.opts.Secrets == nil {
		return hostapi.SecretSetResult{}, noKeyring
	}
	if err := h.opts.Secrets.Set(p.Name, secrets.New(p.Value)); err != nil {
		return hostapi.SecretSetResult{}, secretError(p.Name, err)
	}
	h.tokenChanged(p.Name)
	return hostapi.SecretSetResult{Restarted: h.mgr.SecretChanged(p.Name)}, nil
}

func (h *Host) deleteSecret(_ context.Context, _ *api.ConnInfo, p hostapi.SecretParams) (hostapi.None, error) {
	if h.opts.Secrets == nil {
		return none, noKeyring
	}
	if err := h.opts.Secrets.Delete(p.Name); err != nil {
		return none, secretError(p.Name, err)
	}
	h.tokenChanged(p.Name)
	return none, nil
}
