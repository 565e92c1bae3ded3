package aiapps

import (
	"encoding/json"
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"maps"
)

// The normalize functions of the apps turn one entry of an app's file
// into Switchboard's shape ({command, args, env, cwd, disabled,
// inheritEnv, callTimeout, handshakeTimeout, ...}, as a Claude-style
// entry), for the list and the import; the keys they do not know are
// left as they are, for the import to report.

// rename moves m[from] to m[to] (unless to is set already).
func rename(m map[string]any, from, to string) {
	if v, ok := m[from]; ok {
		delete(m, from)
		if _, set := m[to]; !set {
			m[to] = v
		}
	}
}

// seconds turns m[from] (seconds) into m[to] (milliseconds).
func seconds(m map[string]any, from, to string) {
	v, ok := m[from]
	if !ok {
		return
	}
	delete(m, from)
	switch n := v.(type) {
	case int64:
		m[to] = n * 1000
	case int:
		m[to] = int64(n) * 1000
	case float64:
		m[to] = int64(n * 1000)
	}
}

// codexServer: Codex's [mcp_servers.NAME] (codex-rs config types):
// env_vars (variables passed through) is Switchboard's inheritEnv,
// startup_timeout_sec and tool_timeout_sec are handshakeTimeout and
// callTimeout, enabled_tools and disabled_tools are the tools allowed and
// denied; the per-tool approval table and Codex's own switches go.
func codexServer(in map[string]any) map[string]any {
	m := maps.Clone(in)
	rename(m, "env_vars", "inheritEnv")
	seconds(m, "startup_timeout_sec", "handshakeTimeout")
	rename(m, "startup_timeout_ms", "handshakeTimeout")
	seconds(m, "tool_timeout_sec", "callTimeout")
	rename(m, "enabled_tools", "includeTools")
	rename(m, "disabled_tools", "excludeTools")
	rename(m, "http_headers", "headers")
	delete(m, "tools")
	delete(m, "required")
	return m
}

// copilotServer: Copilot CLI's "type": "local" is stdio; its "tools"
// is a list of the tools allowed ("*": all).
func copilotServer(in map[string]any) map[string]any {
	m := maps.Clone(in)
	if m["type"] == "local" {
		m["type"] = "stdio"
	}
	if tools, ok := m["tools"].([]any); ok {
		delete(m, "tools")
		if !(len(tools) == 1 && tools[0] == "*") {
			m["includeTools"] = tools
		}
	}
	return m
}

// clineServer: Cline's timeout is in seconds; its CLI writes the command
// nested in "transport".
func clineServer(in map[string]any) map[string]any {
	m := maps.Clone(in)
	if t, ok := m["transport"].(map[string]any); ok {
		delete(m, "transport")
		for k, v := range t {
			if _, set := m[k]; !set {
				m[k] = v
			}
		}
	}
	if v, ok := m["timeout"].(float64); ok {
		delete(m, "timeout")
		m["callTimeout"] = int64(v * 1000)
	}
	return m
}

// continueServer: Continue's list items carry their name; its
// connectionTimeout and requestOptions are Continue's own.
func continueServer(in map[string]any) map[string]any {
	m := maps.Clone(in)
	delete(m, "name")
	delete(m, "connectionTimeout")
	delete(m, "requestOptions")
	return m
}

// gooseServer: Goose's extensions (crates/goose/src/agents/extension.rs)
// are MCP servers when their type is stdio (cmd, args, envs; timeout in
// seconds) or remote (uri); its built-in, platform and front-end
// extensions are not: they are left out.
func gooseServer(in map[string]any) map[string]any {
	m := maps.Clone(in)
	switch m["type"] {
	case "stdio":
		delete(m, "type")
	case "streamable_http":
		m["type"] = "http"
		rename(m, "uri", "url")
	case "sse":
		rename(m, "uri", "url")
	default:
		return nil
	}
	rename(m, "cmd", "command")
	rename(m, "envs", "env")
	seconds(m, "timeout", "callTimeout")
	rename(m, "available_tools", "includeTools")
	if tools, ok := m["includeTools"].([]any); ok && len(tools) == 0 {
		delete(m, "includeTools")
	}
	if keys, ok := m["env_keys"].([]any); ok && len(keys) == 0 {
		delete(m, "env_keys")
	}
	for _, k := range []string{"name", "description", "bundled", "display_name"} {
		delete(m, k)
	}
	return m
}

// kiroServer: Kiro's (and Amazon Q CLI's) disabledTools are the tools
// denied.
func kiroServer(in map[string]any) map[string]any {
	m := maps.Clone(in)
	rename(m, "disabledTools", "excludeTools")
	return m
}

// importSkip says why an entry (as Servers gives it) cannot be imported,
// for what only the app's own format can say; "" if it can.
func (d *Doc) importSkip(s Server) string {
	if d.app.ID != "goose" {
		return ""
	}
	var e struct {
		EnvKeys []string `json:"env_keys"`
	}
	if json.Unmarshal(s.JSON, &e) == nil && len(e.EnvKeys) > 0 {
		return fmt.Sprintf("its %s from Goose's secret store, which Switchboard does not read: add it with 'switchboard servers add' and --secret-env", varsComeFrom(e.EnvKeys))
	}
	return ""
}

// varsComeFrom is "variable A comes" or "variables A and B come".
func varsComeFrom(keys []string) string {
	if len(keys) == 1 {
		return "variable " + keys[0] + " comes"
	}
	return "variables " + english.List(keys) + " come"
}
