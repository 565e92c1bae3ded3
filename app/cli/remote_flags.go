package cli

import (
	"encoding/json"
	"fmt"
	"net/textproto"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// remoteFlagDefs are the flags of servers add and set for a remote server
// (issue 17, docs/remote.md): its address instead of a command, the
// transport, headers (literal, or from the keyring) and the OAuth sign-in.
var remoteFlagDefs = []flagDef{
	{name: "url", kind: stringFlag, arg: "URL", help: "a remote server's address, instead of a command: https://, or http:// for this machine only"},
	{name: "transport", kind: stringFlag, arg: "TYPE", help: "a remote server's transport: http-first (the default: Streamable HTTP, then the older HTTP+SSE if the server refuses it), http (Streamable HTTP only) or sse (HTTP+SSE only)"},
	{name: "header", kind: multiFlag, arg: "'NAME: VALUE'", help: "send a header with every request to the remote server (a literal value: put tokens in the keyring with --bearer or --secret-header)"},
	{name: "secret-header", kind: multiFlag, arg: "NAME=SECRET", help: "send a header whose value is a secret of the keyring ('switchboard secret set SECRET' stores it)"},
	{name: "bearer", kind: stringFlag, arg: "SECRET", help: "send Authorization: Bearer with the token stored in the keyring as SECRET"},
	{name: "oauth", kind: boolFlag, help: "sign in to the remote server with OAuth ('switchboard servers login NAME' opens the page); with no --client-id the host registers itself"},
	{name: "client-id", kind: stringFlag, arg: "ID", help: "with --oauth: the client ID registered with the server's authorization server"},
	{name: "client-secret", kind: stringFlag, arg: "SECRET", help: "with --client-id: the keyring secret that holds that client's secret"},
	{name: "scope", kind: multiFlag, arg: "SCOPE", help: "with --oauth: a scope to ask for (repeat for more; none: the server's own)"},
}

// The remote flags belong to both servers add and servers set.
func init() { entryFlagDefs = append(entryFlagDefs, remoteFlagDefs...) }

// processFlags are the flags of a local server's process, which a remote
// server does not have.
var processFlags = []string{"env", "secret-env", "inherit-env", "unset-env", "cwd", "stderr", "allow-batch-files",
	"sandbox", "sandbox-read", "sandbox-write", "sandbox-net"}

// remoteOnlyFlags are the flags that only a remote server has.
var remoteOnlyFlags = []string{"transport", "header", "secret-header", "bearer", "unset-header", "oauth", "client-id", "client-secret", "scope"}

// given returns the flags of names that the command line sets (of those
// the command has), as --NAME.
func given(a *argv, names []string) []string {
	var out []string
	for _, n := range names {
		if a.given(n) {
			out = append(out, "--"+n)
		}
	}
	return out
}

// setRemote applies the remote flags to the entry: its url, type,
// headers and oauth. remote says whether the entry is (now) a remote
// server; it returns the keyring secrets the flags name, for the note
// that a secret is not set yet. A flag of the other kind of server is a
// usage error that names it.
func setRemote(entry map[string]json.RawMessage, a *argv, verb, name string) (secrets []string, err error) {
	set := func(k string, v any) {
		raw, _ := json.Marshal(v)
		entry[k] = raw
	}
	u := a.str("url")
	_, hasCommand := entry["command"]
	_, hasURL := entry["url"]
	switch {
	case u != "" && hasCommand:
		return nil, usagef("servers %s %s: the entry runs a command; a remote server has an address instead: remove it ('switchboard servers remove %s') and add it again with --url", verb, name, name)
	case u != "":
		set("url", u)
		hasURL = true
	}
	if hasURL {
		if bad := given(a, processFlags); len(bad) > 0 {
			return nil, usagef("servers %s %s: %s: a remote server has no process (no environment, folder, stderr or sandbox); give them to a server that runs a command", verb, name, strings.Join(bad, ", "))
		}
	} else if bad := given(a, remoteOnlyFlags); len(bad) > 0 {
		return nil, usagef("servers %s %s: %s: only a remote server has them: add one with --url URL", verb, name, strings.Join(bad, ", "))
	}
	if !hasURL {
		return nil, nil
	}
	if t := a.str("transport"); t != "" {
		switch t {
		case "http-first":
			delete(entry, "type") // the default: Streamable HTTP, then SSE (docs/remote.md)
		case config.RemoteHTTP, config.RemoteSSE:
			set("type", t) // the one transport used, as chosen
		default:
			return nil, usagef("--transport %q: give http-first (the default: Streamable HTTP, then SSE), http (Streamable HTTP only) or sse (the older HTTP+SSE only)", t)
		}
	}
	headers := map[string]string{}
	if raw, ok := entry["headers"]; ok {
		if err := json.Unmarshal(raw, &headers); err != nil {
			return nil, fmt.Errorf(`the entry's "headers" is not an object of strings (%s): fix it in the config file`, raw)
		}
	}
	n := len(headers)
	var unset []string
	if verb == "set" { // as --unset-env: servers set only
		unset = a.list("unset-header")
	}
	for _, h := range unset {
		k := textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(h))
		if _, ok := headers[k]; !ok {
			return nil, usagef("--unset-header %q: the entry sends no such header", h)
		}
		delete(headers, k)
	}
	for _, h := range a.list("header") {
		k, v, ok := strings.Cut(h, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, usagef("--header %q: write it as 'NAME: VALUE'", h)
		}
		headers[textproto.CanonicalMIMEHeaderKey(k)] = strings.ReplaceAll(v, "${", "$${") // a literal value, never a reference
	}
	for _, h := range a.list("secret-header") {
		k, s, ok := strings.Cut(h, "=")
		if !ok || strings.TrimSpace(k) == "" || !config.ValidSecretName(s) {
			return nil, usagef("--secret-header %q: write it as NAME=SECRETNAME (a secret name is letters, digits, '_', '.', '-')", h)
		}
		headers[textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(k))] = config.KeyringRef(s)
		secrets = append(secrets, s)
	}
	if s := a.str("bearer"); s != "" {
		if !config.ValidSecretName(s) {
			return nil, usagef("--bearer %q: give the name of a keyring secret (letters, digits, '_', '.', '-') that holds the token", s)
		}
		headers["Authorization"] = "Bearer " + config.KeyringRef(s)
		secrets = append(secrets, s)
	}
	switch {
	case len(headers) == 0 && len(unset) > 0:
		delete(entry, "headers")
	case len(headers) != n || len(a.list("header")) > 0 || len(unset) > 0:
		set("headers", headers)
	}
	if len(given(a, []string{"oauth", "client-id", "client-secret", "scope"})) > 0 {
		o := map[string]json.RawMessage{}
		if raw, ok := entry["oauth"]; ok {
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, fmt.Errorf(`the entry's "oauth" is not an object (%s): fix it in the config file`, raw)
			}
		}
		put := func(k string, v any) { o[k], _ = json.Marshal(v) }
		if id := a.str("client-id"); id != "" {
			put("clientId", id)
		}
		if s := a.str("client-secret"); s != "" {
			if !config.ValidSecretName(s) {
				return nil, usagef("--client-secret %q: give the name of a keyring secret (letters, digits, '_', '.', '-') that holds the client's secret", s)
			}
			put("clientSecret", config.KeyringRef(s))
			secrets = append(secrets, s)
		}
		if sc := a.list("scope"); len(sc) > 0 {
			put("scopes", slices.Compact(slices.Clone(sc)))
		}
		set("oauth", o)
	}
	return secrets, nil
}
