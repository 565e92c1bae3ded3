package aiapps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/tailscale/hujson"
)

// ImportBlock returns the app's servers as a Claude-style block,
// {"mcpServers": {...}}, for config.ParseImport, with the bridge entry left
// out and the app's own keys translated to Switchboard's:
//
//   - Zed: "source" goes, "enabled": false becomes "disabled": true,
//     "timeout" (seconds) becomes "callTimeout" (ms), the old
//     "command": {"path", "args", "env"} form is flattened; extension
//     servers ("source": "extension") are skipped;
//   - Gemini CLI: "timeout" (ms) becomes "callTimeout", "includeTools" and
//     "excludeTools" become "tools": {"allow", "deny"}; "trust" goes;
//   - remote entries: Windsurf's "serverUrl" and Gemini CLI's "httpUrl" (and
//     "url", SSE) become "url" and "type"; Codex's bearer_token_env_var and
//     env_http_headers are skipped (Switchboard does not read its environment);
//   - VS Code: entries with an "envFile" are skipped (Switchboard does not
//     read it), "dev" goes;
//   - every app: "autoApprove", "alwaysAllow" (tool approvals of the app)
//     go.
//
// names are the entries in the block, by their names in the app's file;
// skipped says, one line each, which entries were left out and why. The
// block has no entry when every entry was skipped.
func (d *Doc) ImportBlock() (block []byte, names, skipped []string) {
	out := &hujson.Object{}
	for _, s := range d.Servers() {
		if s.IsBridge() {
			continue
		}
		if why := d.importSkip(s); why != "" {
			skipped = append(skipped, fmt.Sprintf("%q: not imported: %s", s.Name, why))
			continue
		}
		v, err := hujson.Parse(bytes.Clone(s.JSON))
		if err != nil {
			continue // cannot happen: s.JSON is standard JSON
		}
		if obj, ok := v.Value.(*hujson.Object); ok {
			if why := d.translate(obj); why != "" {
				skipped = append(skipped, fmt.Sprintf("%q: not imported: %s", s.Name, why))
				continue
			}
		}
		out.Members = append(out.Members, hujson.ObjectMember{
			Name:  hujson.Value{Value: hujson.String(s.Name)},
			Value: v,
		})
		names = append(names, s.Name)
	}
	wrap := hujson.Value{Value: &hujson.Object{Members: []hujson.ObjectMember{{
		Name:  hujson.Value{Value: hujson.String("mcpServers")},
		Value: hujson.Value{Value: out},
	}}}}
	wrap.Minimize()
	return wrap.Pack(), names, skipped
}

// translate rewrites one entry's app-specific keys in place; a non-empty
// result is why the entry cannot be imported.
func (d *Doc) translate(obj *hujson.Object) string {
	get := func(key string) *hujson.Value {
		if i := lastMember(obj, key); i >= 0 {
			return &obj.Members[i].Value
		}
		return nil
	}
	drop := func(keys ...string) {
		for _, k := range keys {
			for i := lastMember(obj, k); i >= 0; i = lastMember(obj, k) {
				obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
			}
		}
	}
	set := func(key string, raw string) {
		v, err := hujson.Parse([]byte(raw))
		if err != nil {
			return
		}
		drop(key)
		obj.Members = append(obj.Members, hujson.ObjectMember{Name: hujson.Value{Value: hujson.String(key)}, Value: v})
	}
	literal := func(v *hujson.Value) (hujson.Literal, bool) {
		if v == nil {
			return nil, false
		}
		l, ok := v.Value.(hujson.Literal)
		return l, ok
	}
	if l, ok := literal(get("source")); ok && l.String() == "extension" {
		return "a server of a Zed extension: it stays in Zed"
	}
	if get("envFile") != nil {
		return `it reads variables from an "envFile", which Switchboard does not: add it with 'switchboard servers add' and --env or --secret-env`
	}
	// Zed's older form: "command": {"path": ..., "args": [...], "env": {...}}.
	if c := get("command"); c != nil {
		if co, ok := c.Value.(*hujson.Object); ok {
			inner := *co
			for _, m := range inner.Members {
				name := memberName(m)
				raw := string(standard(m.Value))
				switch name {
				case "path":
					set("command", raw)
				case "args", "env":
					if get(name) == nil {
						set(name, raw)
					}
				}
			}
		}
	}
	// Codex's remote entries may take their token or headers from its
	// environment, which Switchboard does not read.
	if l, ok := literal(get("bearer_token_env_var")); ok {
		return fmt.Sprintf("its bearer token comes from the variable %s of Codex's environment: add it with 'switchboard servers add' and the token in the keyring (docs/remote.md)", l.String())
	}
	if get("env_http_headers") != nil {
		return `its "env_http_headers" come from Codex's environment: add it with 'switchboard servers add' and the values in the keyring (docs/remote.md)`
	}
	// Remote entries: Windsurf's "serverUrl" is Streamable HTTP; Gemini
	// CLI's "httpUrl" is Streamable HTTP and its "url" SSE.
	if v := get("serverUrl"); v != nil && d.app.ID == "windsurf" && get("url") == nil {
		set("url", string(standard(*v)))
		if l, ok := literal(v); ok && strings.HasSuffix(l.String(), "/sse") && get("type") == nil {
			set("type", `"sse"`) // Windsurf tells the transports apart; an address ending in /sse is SSE
		}
	}
	if v := get("httpUrl"); v != nil && d.app.ID == "gemini-cli" {
		set("url", string(standard(*v)))
		set("type", `"http"`)
	} else if d.app.ID == "gemini-cli" && get("url") != nil && get("type") == nil {
		set("type", `"sse"`)
	}
	if l, ok := literal(get("enabled")); ok && l.Kind() == 'f' {
		set("disabled", "true")
	}
	if l, ok := literal(get("timeout")); ok && l.Kind() == '0' {
		ms := l.Float()
		if d.app.ID == "zed" {
			ms *= 1000 // Zed's timeout is in seconds
		}
		if ms >= 1 {
			set("callTimeout", fmt.Sprintf("%d", int64(ms)))
		}
	}
	include, exclude := get("includeTools"), get("excludeTools")
	if include != nil || exclude != nil {
		tools := map[string]json.RawMessage{}
		if include != nil {
			tools["allow"] = standard(*include)
		}
		if exclude != nil {
			tools["deny"] = standard(*exclude)
		}
		if b, err := json.Marshal(tools); err == nil {
			set("tools", string(b))
		}
	}
	drop("source", "enabled", "remote", "serverUrl", "httpUrl", "timeout", "includeTools", "excludeTools", "trust", "dev", "autoApprove", "alwaysAllow")
	return ""
}

// SecretValues returns the literal values in the env of the app's servers
// that look like secrets (by the variable's name, as config.ParseImport
// finds them), so that a diff or a message can hide them.
//
// The query values and password of a remote entry's address are among
// them (an address may carry a key: ?key=...).
func (d *Doc) SecretValues() []string {
	var out []string
	for _, s := range d.Servers() {
		out = append(out, urlSecrets(s.JSON)...)
	}
	block, names, _ := d.ImportBlock()
	if len(names) == 0 {
		return out
	}
	_, _, cands, err := config.ParseImport(block)
	if err != nil {
		return out
	}
	for _, c := range cands {
		out = append(out, c.Value)
	}
	return out
}

// urlSecrets returns the query values and the password of an entry's
// address (url, serverUrl, httpUrl).
func urlSecrets(raw json.RawMessage) []string {
	var e map[string]any
	if json.Unmarshal(raw, &e) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"url", "serverUrl", "httpUrl"} {
		s, _ := e[k].(string)
		u, err := url.Parse(s)
		if s == "" || err != nil {
			continue
		}
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
		for _, vs := range u.Query() {
			out = append(out, vs...)
		}
	}
	return out
}

// Redact replaces every secret in text, as written or as escaped in a JSON
// string, with "********".
func Redact(text string, secrets []string) string {
	for _, s := range secrets {
		if len(s) < 4 {
			continue // too short to hide without hiding everything else
		}
		q := string(jsonString(s))
		text = strings.ReplaceAll(text, q[1:len(q)-1], "********")
		text = strings.ReplaceAll(text, s, "********")
	}
	return text
}
