package client

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Caller is a connection to the host that [Call] calls through: a
// [*Conn], a [*Live], or their [Methods].
type Caller interface {
	callHost(ctx context.Context, method string, params, result any) error
}

// Call calls the host's method m with params p and returns its result:
// the one call of the host's API, typed by m's descriptor (app/hostapi),
// so that the params sent and the result decoded are the ones the host's
// handler of m takes and returns. Pass hostapi.None{} for a method
// without params. The host's error answer is a *hostapi.Error.
func Call[P, R any](ctx context.Context, c Caller, m hostapi.Method[P, R], p P) (R, error) {
	var r R
	var res any = &r
	if _, none := any(r).(hostapi.None); none {
		res = nil
	}
	err := c.callHost(ctx, m.Name, params(p), res)
	return r, err
}

// CallRaw is [Call] with the result as the host sent it, undecoded: for
// a client that must tell a field the host left out (an older host) from
// its zero value, or keep a server's JSON as it is.
func CallRaw[P, R any](ctx context.Context, c Caller, m hostapi.Method[P, R], p P) (json.RawMessage, error) {
	var raw json.RawMessage
	err := c.callHost(ctx, m.Name, params(p), &raw)
	return raw, err
}

// params is p as sent: none for hostapi.None.
func params[P any](p P) any {
	if _, none := any(p).(hostapi.None); none {
		return nil
	}
	return p
}

// Methods are the host's API methods, one typed method each, over one
// connection ([Conn]) or the live view's current one ([Live]); each is
// [Call] with its method's descriptor. No caller above this package
// names a method by its name: adding one to the host's API is a
// descriptor and types in app/hostapi, its handler in the host's table,
// and a method here (the contract test in app/host checks all three).
type Methods struct {
	call func(ctx context.Context, method string, params, result any) error
}

func (m Methods) callHost(ctx context.Context, method string, params, result any) error {
	return m.call(ctx, method, params, result)
}

// Info returns the host's info (host.info).
func (m Methods) Info(ctx context.Context) (hostapi.Info, error) {
	return Call(ctx, m, hostapi.MethodHostInfo, hostapi.None{})
}

// InfoRaw returns host.info as the host sent it, for a client that must
// tell a field the host left out (an older host) from its zero value.
func (m Methods) InfoRaw(ctx context.Context) (json.RawMessage, error) {
	return CallRaw(ctx, m, hostapi.MethodHostInfo, hostapi.None{})
}

// StopHost asks the host to stop (host.stop): it stops every server, then
// exits; the connection ends.
func (m Methods) StopHost(ctx context.Context) error {
	_, err := Call(ctx, m, hostapi.MethodHostStop, hostapi.None{})
	return err
}

// ConfigStatus says whether the config file is in force (config.status).
func (m Methods) ConfigStatus(ctx context.Context) (hostapi.ConfigStatus, error) {
	return Call(ctx, m, hostapi.MethodConfigStatus, hostapi.None{})
}

// Servers returns every server's status, sorted by name (servers.list).
func (m Methods) Servers(ctx context.Context) ([]hostapi.ServerStatus, error) {
	return Call(ctx, m, hostapi.MethodServersList, hostapi.None{})
}

// Start starts a server (servers.start).
func (m Methods) Start(ctx context.Context, name string) error {
	_, err := Call(ctx, m, hostapi.MethodServersStart, hostapi.NameParams{Name: name})
	return err
}

// StartAll starts every server that can start.
func (m Methods) StartAll(ctx context.Context) error {
	_, err := Call(ctx, m, hostapi.MethodServersStart, hostapi.NameParams{All: true})
	return err
}

// Stop stops a server (servers.stop); with wait it returns once its stop
// ladder finished.
func (m Methods) Stop(ctx context.Context, name string, wait bool) error {
	_, err := Call(ctx, m, hostapi.MethodServersStop, hostapi.NameParams{Name: name, Wait: wait})
	return err
}

// StopAll stops every server; with wait it returns once every stop
// ladder finished.
func (m Methods) StopAll(ctx context.Context, wait bool) error {
	_, err := Call(ctx, m, hostapi.MethodServersStop, hostapi.NameParams{All: true, Wait: wait})
	return err
}

// Restart restarts a server (servers.restart).
func (m Methods) Restart(ctx context.Context, name string) error {
	_, err := Call(ctx, m, hostapi.MethodServersRestart, hostapi.NameParams{Name: name})
	return err
}

// RestartAll restarts every server that runs or tries to.
func (m Methods) RestartAll(ctx context.Context) error {
	_, err := Call(ctx, m, hostapi.MethodServersRestart, hostapi.NameParams{All: true})
	return err
}

// PutServer adds (create) or replaces an entry of the config
// (servers.put).
func (m Methods) PutServer(ctx context.Context, name string, entry json.RawMessage, create bool) error {
	_, err := Call(ctx, m, hostapi.MethodServersPut, hostapi.PutParams{Name: name, Entry: entry, Create: create})
	return err
}

// GetServer returns an entry of the config as written (servers.get).
func (m Methods) GetServer(ctx context.Context, name string) (json.RawMessage, error) {
	r, err := Call(ctx, m, hostapi.MethodServersGet, hostapi.NameParams{Name: name})
	return r.Entry, err
}

// RemoveServer removes an entry (servers.remove).
func (m Methods) RemoveServer(ctx context.Context, name string) error {
	_, err := Call(ctx, m, hostapi.MethodServersRemove, hostapi.NameParams{Name: name})
	return err
}

// RenameServer renames an entry (servers.rename): a running server is
// stopped under its old name and started under the new one.
func (m Methods) RenameServer(ctx context.Context, name, newName string) error {
	_, err := Call(ctx, m, hostapi.MethodServersRename, hostapi.RenameParams{Name: name, NewName: newName})
	return err
}

// SetDisabled disables or enables an entry (servers.disable,
// servers.enable).
func (m Methods) SetDisabled(ctx context.Context, name string, disabled bool) error {
	method := hostapi.MethodServersEnable
	if disabled {
		method = hostapi.MethodServersDisable
	}
	_, err := Call(ctx, m, method, hostapi.NameParams{Name: name})
	return err
}

// Logs returns a server's kept stderr lines (servers.logs).
func (m Methods) Logs(ctx context.Context, name string) ([]string, error) {
	r, err := Call(ctx, m, hostapi.MethodServersLogs, hostapi.NameParams{Name: name})
	return r.Lines, err
}

// LogLines returns a server's kept stderr lines with, where the host
// sends it, when each was read (servers.logs).
func (m Methods) LogLines(ctx context.Context, name string) ([]hostapi.LogLine, error) {
	r, err := Call(ctx, m, hostapi.MethodServersLogs, hostapi.NameParams{Name: name})
	if err != nil {
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
	r, err := Call(ctx, m, hostapi.MethodServersTools, hostapi.NameParams{Name: name})
	return r.Tools, err
}

// ToolsJSON returns a running server's tools each as the host sent it
// (servers.tools), for a front end that shows a tool's input schema with
// its keys in the server's order.
func (m Methods) ToolsJSON(ctx context.Context, name string) ([]json.RawMessage, error) {
	raw, err := CallRaw(ctx, m, hostapi.MethodServersTools, hostapi.NameParams{Name: name})
	if err != nil {
		return nil, err
	}
	var r struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	return r.Tools, nil
}

// Call calls a server's tool (servers.call) and returns its
// CallToolResult as the server sent it: decode it with
// mcp.CallToolResult, or more leniently where a front end must show any
// content. args may be nil.
func (m Methods) Call(ctx context.Context, server, tool string, args json.RawMessage) (json.RawMessage, error) {
	return CallRaw(ctx, m, hostapi.MethodServersCall, hostapi.CallParams{Name: server, Tool: tool, Arguments: args})
}

// SetSecret stores a secret in the host's keyring (secrets.set) and
// returns the servers it restarted (those that use it).
func (m Methods) SetSecret(ctx context.Context, name, value string) (restarted []string, err error) {
	r, err := Call(ctx, m, hostapi.MethodSecretsSet, hostapi.SecretParams{Name: name, Value: value})
	return r.Restarted, err
}

// DeleteSecret deletes a secret (secrets.delete).
func (m Methods) DeleteSecret(ctx context.Context, name string) error {
	_, err := Call(ctx, m, hostapi.MethodSecretsDelete, hostapi.SecretParams{Name: name})
	return err
}

// Secrets lists the stored secrets and the servers that use each, never
// a value (secrets.list).
func (m Methods) Secrets(ctx context.Context) ([]hostapi.SecretInfo, error) {
	return Call(ctx, m, hostapi.MethodSecretsList, hostapi.None{})
}

// Gateway returns the gateway's endpoints and naming (gateway.tools).
func (m Methods) Gateway(ctx context.Context) (hostapi.GatewayInfo, error) {
	return Call(ctx, m, hostapi.MethodGatewayTools, hostapi.None{})
}

// ReloadGatewayToken makes the gateway's HTTP endpoint read its bearer
// token from the keyring again (gateway.reloadToken).
func (m Methods) ReloadGatewayToken(ctx context.Context) error {
	_, err := Call(ctx, m, hostapi.MethodGatewayReloadToken, hostapi.None{})
	return err
}
