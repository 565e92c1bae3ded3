package client

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Methods are the host's API methods, one typed method each, over one
// connection ([Conn]) or the live view's current one ([Live]). No caller
// above this package names a method: adding one to the host's API is a
// constant and types in app/hostapi and a method here.
type Methods struct {
	call func(ctx context.Context, method string, params, result any) error
}

// Info returns the host's info (host.info).
func (m Methods) Info(ctx context.Context) (hostapi.Info, error) {
	var info hostapi.Info
	err := m.call(ctx, hostapi.MethodInfo, nil, &info)
	return info, err
}

// InfoRaw returns host.info as the host sent it, for a client that must
// tell a field the host left out (an older host) from its zero value.
func (m Methods) InfoRaw(ctx context.Context) (json.RawMessage, error) {
	var raw json.RawMessage
	err := m.call(ctx, hostapi.MethodInfo, nil, &raw)
	return raw, err
}

// StopHost asks the host to stop (host.stop): it stops every server, then
// exits; the connection ends.
func (m Methods) StopHost(ctx context.Context) error {
	return m.call(ctx, hostapi.MethodStop, nil, nil)
}

// ConfigStatus says whether the config file is in force (config.status).
func (m Methods) ConfigStatus(ctx context.Context) (hostapi.ConfigStatus, error) {
	var cs hostapi.ConfigStatus
	err := m.call(ctx, hostapi.MethodConfig, nil, &cs)
	return cs, err
}

// Servers returns every server's status, sorted by name (servers.list).
func (m Methods) Servers(ctx context.Context) ([]hostapi.ServerStatus, error) {
	var list []hostapi.ServerStatus
	err := m.call(ctx, hostapi.MethodList, nil, &list)
	return list, err
}

// Start starts a server (servers.start).
func (m Methods) Start(ctx context.Context, name string) error {
	return m.call(ctx, hostapi.MethodStart, hostapi.NameParams{Name: name}, nil)
}

// StartAll starts every server that can start.
func (m Methods) StartAll(ctx context.Context) error {
	return m.call(ctx, hostapi.MethodStart, hostapi.NameParams{All: true}, nil)
}

// Stop stops a server (servers.stop); with wait it returns once its stop
// ladder finished.
func (m Methods) Stop(ctx context.Context, name string, wait bool) error {
	return m.call(ctx, hostapi.MethodStopServer, hostapi.NameParams{Name: name, Wait: wait}, nil)
}

// StopAll stops every server; with wait it returns once every stop
// ladder finished.
func (m Methods) StopAll(ctx context.Context, wait bool) error {
	return m.call(ctx, hostapi.MethodStopServer, hostapi.NameParams{All: true, Wait: wait}, nil)
}

// Restart restarts a server (servers.restart).
func (m Methods) Restart(ctx context.Context, name string) error {
	return m.call(ctx, hostapi.MethodRestart, hostapi.NameParams{Name: name}, nil)
}

// RestartAll restarts every server that runs or tries to.
func (m Methods) RestartAll(ctx context.Context) error {
	return m.call(ctx, hostapi.MethodRestart, hostapi.NameParams{All: true}, nil)
}

// PutServer adds (create) or replaces an entry of the config
// (servers.put).
func (m Methods) PutServer(ctx context.Context, name string, entry json.RawMessage, create bool) error {
	return m.call(ctx, hostapi.MethodPut, hostapi.PutParams{Name: name, Entry: entry, Create: create}, nil)
}

// GetServer returns an entry of the config as written (servers.get).
func (m Methods) GetServer(ctx context.Context, name string) (json.RawMessage, error) {
	var r hostapi.EntryResult
	err := m.call(ctx, hostapi.MethodGet, hostapi.NameParams{Name: name}, &r)
	return r.Entry, err
}

// RemoveServer removes an entry (servers.remove).
func (m Methods) RemoveServer(ctx context.Context, name string) error {
	return m.call(ctx, hostapi.MethodRemove, hostapi.NameParams{Name: name}, nil)
}

// RenameServer renames an entry (servers.rename): a running server is
// stopped under its old name and started under the new one.
func (m Methods) RenameServer(ctx context.Context, name, newName string) error {
	return m.call(ctx, hostapi.MethodRename, hostapi.RenameParams{Name: name, NewName: newName}, nil)
}

// SetDisabled disables or enables an entry (servers.disable,
// servers.enable).
func (m Methods) SetDisabled(ctx context.Context, name string, disabled bool) error {
	method := hostapi.MethodEnable
	if disabled {
		method = hostapi.MethodDisable
	}
	return m.call(ctx, method, hostapi.NameParams{Name: name}, nil)
}

// Logs returns a server's kept stderr lines (servers.logs).
func (m Methods) Logs(ctx context.Context, name string) ([]string, error) {
	var r hostapi.LogsResult
	err := m.call(ctx, hostapi.MethodLogs, hostapi.NameParams{Name: name}, &r)
	return r.Lines, err
}

// LogLines returns a server's kept stderr lines with, where the host
// sends it, when each was read (servers.logs).
func (m Methods) LogLines(ctx context.Context, name string) ([]hostapi.LogLine, error) {
	var r hostapi.LogsResult
	if err := m.call(ctx, hostapi.MethodLogs, hostapi.NameParams{Name: name}, &r); err != nil {
		return nil, err
	}
	out := make([]hostapi.LogLine, len(r.Lines))
	for i, l := range r.Lines {
		out[i] = hostapi.LogLine{Server: name, Line: l}
		if len(r.Times) == len(r.Lines) {
			out[i].Time = r.Times[i]
		}
	}
	return out, nil
}

// Tools returns a running server's tools (servers.tools).
func (m Methods) Tools(ctx context.Context, name string) ([]*mcp.Tool, error) {
	var r hostapi.ToolsResult
	err := m.call(ctx, hostapi.MethodTools, hostapi.NameParams{Name: name}, &r)
	return r.Tools, err
}

// ToolsJSON returns a running server's tools each as the host sent it
// (servers.tools), for a front end that shows a tool's input schema with
// its keys in the server's order.
func (m Methods) ToolsJSON(ctx context.Context, name string) ([]json.RawMessage, error) {
	var r struct {
		Tools []json.RawMessage `json:"tools"`
	}
	err := m.call(ctx, hostapi.MethodTools, hostapi.NameParams{Name: name}, &r)
	return r.Tools, err
}

// Call calls a server's tool (servers.call) and returns its
// CallToolResult as the server sent it: decode it with
// mcp.CallToolResult, or more leniently where a front end must show any
// content. args may be nil.
func (m Methods) Call(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	var res json.RawMessage
	err := m.call(ctx, hostapi.MethodCall, hostapi.CallParams{Name: server, Tool: tool, Arguments: args}, &res)
	return res, err
}

// SetSecret stores a secret in the host's keyring (secrets.set) and
// returns the servers it restarted (those that use it).
func (m Methods) SetSecret(ctx context.Context, name, value string) (restarted []string, err error) {
	var r hostapi.SecretSetResult
	err = m.call(ctx, hostapi.MethodSecretSet, hostapi.SecretParams{Name: name, Value: value}, &r)
	return r.Restarted, err
}

// DeleteSecret deletes a secret (secrets.delete).
func (m Methods) DeleteSecret(ctx context.Context, name string) error {
	return m.call(ctx, hostapi.MethodSecretDelete, hostapi.SecretParams{Name: name}, nil)
}

// Secrets lists the stored secrets and the servers that use each, never
// a value (secrets.list).
func (m Methods) Secrets(ctx context.Context) ([]hostapi.SecretInfo, error) {
	var out []hostapi.SecretInfo
	err := m.call(ctx, hostapi.MethodSecretList, nil, &out)
	return out, err
}

// Gateway returns the gateway's endpoints and naming (gateway.tools).
func (m Methods) Gateway(ctx context.Context) (hostapi.GatewayInfo, error) {
	var info hostapi.GatewayInfo
	err := m.call(ctx, hostapi.MethodGatewayTools, nil, &info)
	return info, err
}

// ReloadGatewayToken makes the gateway's HTTP endpoint read its bearer
// token from the keyring again (gateway.reloadToken).
func (m Methods) ReloadGatewayToken(ctx context.Context) error {
	return m.call(ctx, hostapi.MethodGatewayReloadToken, nil, nil)
}
