package config

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
)

// Importing remote servers (issue 17, docs/remote.md "Import"): a pasted or
// imported entry with "url" is a remote entry as it is; an entry that runs
// the mcp-remote proxy (npx [-y] mcp-remote URL [--header "Name: value"]...
// [--transport sse-only|http-only]) becomes the remote entry the proxy
// stands for. A literal secret in a header is a SecretCandidate (Header
// set), moved to the keyring as an env one is.

// headerVarRE is mcp-remote's substitution in header values: ${VAR} from
// its environment.
var headerVarRE = regexp.MustCompile(`\$\{([^}]*)\}`)

// FromMCPRemote reports whether the entry (the JSON object of a server)
// runs the mcp-remote proxy with npx, bunx, pnpx or mcp-remote itself,
// and returns the remote entry it stands for: "url", "type" (from
// --transport sse-only or http-only) and "headers" (each --header, with
// ${VAR} taken from the entry's env, as mcp-remote does), the entry's other
// keys kept. With escape, a "${" left in a header value is written "$${"
// (the config's literal form). why, when not empty, says what the proxy's
// command line has that Switchboard does not understand: the entry stays
// with its app.
func FromMCPRemote(raw json.RawMessage, escape bool) (entry json.RawMessage, why string, ok bool) {
	ms, _, err := decodeObject(raw)
	if err != nil {
		return nil, "", false
	}
	var command string
	var args []string
	env := map[string]string{}
	var keep []member
	for _, m := range ms {
		switch m.Key {
		case "command":
			if json.Unmarshal(m.Value, &command) != nil {
				return nil, "", false
			}
		case "args":
			if json.Unmarshal(m.Value, &args) != nil {
				return nil, "", false
			}
		case "env":
			if json.Unmarshal(m.Value, &env) != nil {
				return nil, "", false
			}
		case "type":
			var t string
			if json.Unmarshal(m.Value, &t) != nil || t != "stdio" {
				return nil, "", false
			}
		default:
			keep = append(keep, m)
		}
	}
	rest, isProxy := mcpRemoteArgs(command, args)
	if !isProxy {
		return nil, "", false
	}
	if len(rest) == 0 || !strings.HasPrefix(rest[0], "https://") && !strings.HasPrefix(rest[0], "http://") {
		return nil, "mcp-remote is given no server address (its first argument after the package)", true
	}
	u, typ := rest[0], ""
	headers := []member{}
	used := map[string]bool{}
	for i := 1; i < len(rest); i++ {
		a := rest[i]
		val := func() (string, bool) {
			if i+1 >= len(rest) {
				return "", false
			}
			i++
			return rest[i], true
		}
		switch {
		case a == "--header":
			h, ok := val()
			name, value, found := strings.Cut(h, ":")
			name, value = strings.TrimSpace(name), strings.TrimSpace(value)
			if !ok || !found || name == "" {
				return nil, `a --header is not "Name: value"`, true
			}
			var missing []string
			value = headerVarRE.ReplaceAllStringFunc(value, func(ref string) string {
				v := ref[2 : len(ref)-1]
				used[v] = true
				got, set := env[v]
				if !set {
					missing = append(missing, v)
				}
				return got
			})
			if len(missing) > 0 {
				return nil, fmt.Sprintf("its header %s uses ${%s}, which the entry's env does not set (it would come from the app's environment)", name, missing[0]), true
			}
			if escape {
				value = strings.ReplaceAll(value, "${", "$${")
			}
			b, _ := json.Marshal(value)
			headers = slices.DeleteFunc(headers, func(m member) bool { return m.Key == name })
			headers = append(headers, member{name, b})
		case a == "--transport":
			t, _ := val()
			switch t {
			case "http-first":
				typ = "" // no "type": Streamable HTTP, then SSE (RemoteSpec.HTTPFirst)
			case "http-only":
				typ = RemoteHTTP
			case "sse-only":
				typ = RemoteSSE
			default:
				return nil, fmt.Sprintf("--transport %q: Switchboard tries Streamable HTTP, then SSE (http-first, its default), or connects with one transport (sse-only or http-only)", t), true
			}
		case a == "--host":
			val() // the OAuth callback's host: Switchboard signs in its own way
		case a == "--allow-http", a == "--debug", a == "--silent":
			// plain http is allowed for this machine only by the config's own rule
		case strings.Trim(a, "0123456789") == "":
			// the OAuth callback port
		default:
			return nil, fmt.Sprintf("mcp-remote's option %q is not one Switchboard understands", a), true
		}
	}
	var extra []string
	for k := range env {
		if !used[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		slices.Sort(extra)
		return nil, fmt.Sprintf("its env sets %s, which no header uses (a remote server has no process to pass it to)", strings.Join(extra, ", ")), true
	}
	out := []member{{"url", mustJSON(u)}}
	if typ != "" {
		out = append(out, member{"type", mustJSON(typ)})
	}
	if len(headers) > 0 {
		h, err := objectJSON(headers)
		if err != nil {
			return nil, err.Error(), true
		}
		out = append(out, member{"headers", h})
	}
	b, err := objectJSON(append(out, keep...))
	if err != nil {
		return nil, err.Error(), true
	}
	return b, "", true
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// MCPRemoteArgs returns the arguments after the mcp-remote package when
// command and args run it (npx/bunx/pnpx [flags] mcp-remote[@version],
// pnpm dlx, yarn dlx, bun x or npm exec the same way, or mcp-remote
// itself): the one recognizer of the proxy, for imports and the AI apps'
// pages alike.
func MCPRemoteArgs(command string, args []string) ([]string, bool) {
	return mcpRemoteArgs(command, args)
}

func mcpRemoteArgs(command string, args []string) ([]string, bool) {
	base := strings.ToLower(path.Base(strings.ReplaceAll(command, `\`, "/")))
	for _, ext := range []string{".cmd", ".exe", ".bat", ".ps1"} {
		base = strings.TrimSuffix(base, ext)
	}
	switch base {
	case "mcp-remote":
		return args, true
	case "pnpm", "yarn", "bun", "npm":
		// pnpm dlx, yarn dlx, bun x and npm exec (or x) [--] are npx by
		// other names.
		subs := map[string][]string{"pnpm": {"dlx"}, "yarn": {"dlx"}, "bun": {"x"}, "npm": {"exec", "x"}}[base]
		i := slices.IndexFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") })
		if i < 0 || !slices.Contains(subs, args[i]) {
			return nil, false
		}
		return mcpRemoteArgs("npx", args[i+1:])
	case "npx", "bunx", "pnpx":
		i := slices.IndexFunc(args, func(a string) bool { return !strings.HasPrefix(a, "-") })
		if i < 0 || !(args[i] == "mcp-remote" || strings.HasPrefix(args[i], "mcp-remote@")) {
			return nil, false
		}
		return args[i+1:], true
	}
	return nil, false
}

// authSplit splits a header's value into the part that stays in the file
// and the secret: "Bearer abc" of Authorization is "Bearer " and "abc"
// (the rule of the literal-secret problem, remote.go); any other header's
// whole value is the secret.
func authSplit(header, value string) (prefix, secret string) {
	if scheme, tok, ok := strings.Cut(value, " "); ok && strings.EqualFold(header, "Authorization") {
		return scheme + " ", tok
	}
	return "", value
}

// headerCandidates returns the literal secrets of a remote entry's
// headers (by the header's name, as the literal-secret problem finds
// them), in the file's order.
func (s *Server) headerCandidates(key string) []SecretCandidate {
	var out []SecretCandidate
	for _, h := range s.headerOrder {
		v, ok := s.Headers[h]
		if !ok || !secretHeader(h) || strings.TrimSpace(v) == "" {
			continue
		}
		ev, err := ParseEnvValue(v)
		if err != nil || len(ev.Secrets()) > 0 || len(ev) != 1 {
			continue
		}
		_, secret := authSplit(h, ev[0].Text)
		if secret == "" {
			continue
		}
		out = append(out, SecretCandidate{Server: key, Var: h, Header: true, Value: secret,
			Secret: SuggestSecretName(NormalizeName(key), h)})
	}
	return out
}

// referenceHeader replaces the secret part of a header's literal value
// with a reference to the keyring secret (see authSplit).
func (s *Server) referenceHeader(header, secret string) error {
	v, ok := s.Headers[header]
	if !ok {
		return fmt.Errorf("headers has no %q", header)
	}
	prefix, _ := authSplit(header, v)
	s.Headers[header] = prefix + KeyringRef(secret)
	return nil
}
