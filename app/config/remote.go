package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// Remote servers (issue 17, docs/remote.md): an entry with "url" instead of
// "command" is an MCP server reached over HTTP, which the host connects to
// with the go-sdk's client (Streamable HTTP, or the deprecated SSE
// transport) and supervises as it does a local one:
//
//	"github": {"url": "https://api.githubcopilot.com/mcp/",
//	           "headers": {"Authorization": "Bearer ${keyring:github}"}}
//	"linear": {"url": "https://mcp.linear.app/sse", "type": "sse",
//	           "oauth": {"scopes": ["read"]}}
//
// The entry's other options (callTimeout, maxReconnects, tools, trust,
// policy, start, disabled) are those of a local entry and mean the same;
// the options of a process (args, env, cwd, stderr, inheritEnv,
// allowBatchFiles, sandbox: the sandbox confines a process) are problems on a remote entry.

// The transports of a remote entry: the value of "type".
const (
	RemoteHTTP = "http" // Streamable HTTP (the default, falling back to SSE: RemoteSpec.HTTPFirst)
	RemoteSSE  = "sse"  // HTTP+SSE, the 2024-11-05 transport
)

// remoteTypes maps each "type" a remote entry may have (the spellings of
// Claude Code, VS Code and Cursor) to its transport.
var remoteTypes = map[string]string{
	"http": RemoteHTTP, "streamable-http": RemoteHTTP, "streamableHttp": RemoteHTTP,
	"sse": RemoteSSE,
}

// OAuth is a remote entry's "oauth": how the host signs in to the server
// (docs/remote.md). ClientID is a client registered with the server's
// authorization server; empty, the host registers itself (dynamic client
// registration). Scopes are asked for; empty, the server's own.
// ClientSecret, for a confidential client, is a ${keyring:NAME}
// reference, never the secret itself. ClientMetadataURL is the https
// address of a client ID metadata document describing Switchboard
// (docs/remote.md shows it): where the authorization server
// accepts such documents, it is the client ID, and nothing is registered;
// elsewhere ClientID, else dynamic registration, is used.
type OAuth struct {
	ClientID          string   `json:"clientId,omitempty"`
	ClientSecret      string   `json:"clientSecret,omitempty"`
	Scopes            []string `json:"scopes,omitempty"`
	ClientMetadataURL string   `json:"clientMetadataUrl,omitempty"`
}

// ClientSecretRef is the name of the keyring secret ClientSecret refers
// to, or "".
func (o *OAuth) ClientSecretRef() string {
	if o == nil {
		return ""
	}
	ev, err := ParseEnvValue(o.ClientSecret)
	if err != nil || len(ev) != 1 || ev[0].Secret == "" {
		return ""
	}
	return ev[0].Secret
}

// RemoteSpec is a remote entry as the host connects to it. The engine runs
// processes and knows nothing of it: the host's ServerConfig carries it
// next to an engine spec that holds only the entry's numeric options
// (maxReconnects, handshakeTimeout), which the supervisor reads for both
// kinds. Its JSON (the host's fingerprint of the entry) names the secrets
// of the headers, never their values.
type RemoteSpec struct {
	Name string `json:"name"`
	URL  string `json:"url"`
	Type string `json:"type"` // RemoteHTTP or RemoteSSE
	// HTTPFirst is set for an entry that names no "type": Streamable
	// HTTP, and the older HTTP+SSE when the server answers Streamable
	// HTTP's first requests with 400, 404 or 405 (mcp-remote's default,
	// http-first). A "type" written is the one transport used.
	HTTPFirst bool `json:"httpFirst,omitempty"`
	// Headers are sent with every request; their ${keyring:NAME}
	// references are resolved when the host connects.
	Headers map[string]serverspec.EnvValue `json:"headers,omitempty"`
	OAuth   *OAuth                         `json:"oauth,omitempty"`
}

// Secrets returns the names of the keyring secrets the headers (and the
// oauth client secret) refer to, sorted, each once.
func (r *RemoteSpec) Secrets() []string {
	var names []string
	if n := r.OAuth.ClientSecretRef(); n != "" {
		names = append(names, n)
	}
	for _, v := range r.Headers {
		for _, n := range v.Secrets() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	return names
}

// IsRemote reports whether the entry is a remote server: it has a "url",
// or a "type" of a remote transport.
func (s *Server) IsRemote() bool {
	return s.remote != "" || s.URL != "" || remoteTypes[s.Type] != ""
}

// RemoteSpec returns the remote spec of the entry named name, or nil for a
// local entry; the error joins the entry's problems.
func (s *Server) RemoteSpec(name string) (*RemoteSpec, error) {
	if !s.IsRemote() || s.raw != nil {
		return nil, nil
	}
	err := problemsErr(s.validate(name))
	r := &RemoteSpec{Name: name, URL: s.URL, Type: remoteTypes[s.Type]}
	if r.Type == "" {
		r.Type, r.HTTPFirst = RemoteHTTP, true
	}
	if len(s.Headers) > 0 {
		r.Headers = map[string]serverspec.EnvValue{}
		for k, v := range s.Headers {
			if ev, perr := ParseEnvValue(v); perr == nil {
				r.Headers[k] = ev
			}
		}
	}
	if s.OAuth != nil {
		o := *s.OAuth
		o.Scopes = slices.Clone(o.Scopes)
		r.OAuth = &o
	}
	return r, err
}

// localOnlyKeys are the keys of a process, which a remote entry cannot
// have.
var localOnlyKeys = []string{"args", "env", "cwd", "stderr", "inheritEnv", "allowBatchFiles", "sandbox", "sandboxRequired"}

// transportHeaders are set by the transport: an entry cannot set them.
var transportHeaders = []string{"Host", "Content-Length", "Content-Type", "Accept", "Connection",
	"Transfer-Encoding", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-Id"}

// validateRemote checks a remote entry (see validate), with ps the
// problems found while reading it.
func (s *Server) validateRemote(name string, ps []Problem) []Problem {
	bad := func(key, format string, args ...any) {
		ps = append(ps, Problem{Server: name, Key: key, Message: fmt.Sprintf(format, args...)})
	}
	if s.Command != "" {
		bad("command", `an entry has either "url" (a remote server) or "command" (a local one), not both: remove one`)
	}
	for _, k := range localOnlyKeys {
		if slices.Contains(s.keys, k) {
			bad(k, `is an option of a local server (one with "command"); this entry is a remote server ("url"): remove it`)
		}
	}
	switch {
	case s.URL == "" && !slices.Contains(s.keys, "url"):
		bad("url", `is missing: a remote entry ("type" %q) needs the server's address, like "https://mcp.example.com/mcp"`, s.Type)
	case s.URL == "" && (s.extra["url"] == nil || isNull(s.extra["url"])):
		bad("url", `is empty: give the server's address, like "https://mcp.example.com/mcp"`)
	case s.URL != "":
		if msg := checkRemoteURL(s.URL); msg != "" {
			bad("url", "%s", msg)
		}
	}
	names := make([]string, 0, len(s.Headers))
	for k := range s.Headers {
		names = append(names, k)
	}
	sort.Strings(names)
	auth := false
	for _, h := range names {
		key := "headers." + h
		if !validToken(h) {
			bad(key, "%q is not a valid header name: use letters, digits and - (like X-Api-Key)", h)
			continue
		}
		if slices.ContainsFunc(transportHeaders, func(t string) bool { return strings.EqualFold(t, h) }) {
			bad(key, "is set by the transport: remove it")
			continue
		}
		if strings.EqualFold(h, "Authorization") {
			auth = true
		}
		v := s.Headers[h]
		if strings.ContainsAny(v, "\r\n\x00") {
			bad(key, "contains a line break or NUL byte, which no header can carry: remove it")
			continue
		}
		ev, err := ParseEnvValue(v)
		if err != nil {
			bad(key, "%v", err)
			continue
		}
		if secretHeader(h) && len(ev.Secrets()) == 0 && strings.TrimSpace(v) != "" {
			secret := SuggestSecretName(name, h)
			ref := KeyringRef(secret)
			if scheme, _, ok := strings.Cut(v, " "); ok && strings.EqualFold(h, "Authorization") {
				ref = scheme + " " + ref
			}
			fact := "holds a literal secret: the file holds only references to the keyring"
			ps = append(ps, Problem{Server: name, Key: key, Fact: fact,
				Message: fmt.Sprintf("%s: store the value with 'switchboard secret set %s' and write %q", fact, secret, ref),
				Remedy:  &Remedy{Kind: "keyring_ref", Server: name, From: key, To: secret}})
		}
	}
	if s.OAuth != nil {
		if auth {
			bad("oauth", `and headers.Authorization both authenticate: keep one ("oauth" to sign in, or the header with a ${keyring:NAME} token)`)
		}
		if strings.IndexFunc(s.OAuth.ClientID, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			bad("oauth.clientId", "contains a space or control character: give the client ID as the authorization server registered it")
		}
		if s.OAuth.ClientSecret != "" && s.OAuth.ClientSecretRef() == "" {
			fact := "must be a reference to the keyring, not the secret itself"
			secret := SuggestSecretName(name, "oauth-client")
			ps = append(ps, Problem{Server: name, Key: "oauth.clientSecret", Fact: fact,
				Message: fmt.Sprintf("%s: store it with 'switchboard secret set %s' and write %q", fact, secret, KeyringRef(secret)),
				Remedy:  &Remedy{Kind: "keyring_ref", Server: name, From: "oauth.clientSecret", To: secret}})
		}
		if s.OAuth.ClientSecret != "" && s.OAuth.ClientID == "" {
			bad("oauth.clientSecret", `needs "clientId": a client secret belongs to a registered client`)
		}
		if u := s.OAuth.ClientMetadataURL; u != "" {
			if why := checkClientMetadataURL(u); why != "" {
				bad("oauth.clientMetadataUrl", "%s", why)
			}
		}
		for i, sc := range s.OAuth.Scopes {
			if sc == "" || strings.IndexFunc(sc, func(r rune) bool { return r <= ' ' || r == '"' || r == '\\' || r == 0x7f }) >= 0 {
				bad(fmt.Sprintf("oauth.scopes[%d]", i), "%q is not a scope: one scope per string, without spaces or quotes", sc)
			}
		}
	}
	s.checkNumbers(bad)
	ps = append(ps, s.toolProblems(name)...)
	sortProblems(ps)
	return ps
}

// checkClientMetadataURL returns what is wrong with a client ID metadata
// document's address, or "": the authorization server fetches it, so it
// is an https address with a path (draft-ietf-oauth-client-id-metadata-
// document: no fragment, no user, no "." or ".." segments).
func checkClientMetadataURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Scheme != "https" || u.Host == "":
		return fmt.Sprintf("%q is not an https address: the authorization server fetches the document from it, like https://example.com/switchboard/client.json", raw)
	case u.Path == "" || u.Path == "/":
		return fmt.Sprintf("%q has no path: give the document's own address, like https://example.com/switchboard/client.json", raw)
	case u.Fragment != "" || u.User != nil || slices.Contains(strings.Split(u.Path, "/"), ".") || slices.Contains(strings.Split(u.Path, "/"), ".."):
		return fmt.Sprintf("%q may not hold a fragment, a user or \".\" segments: give the document's plain address", raw)
	}
	return ""
}

// checkRemoteURL returns what is wrong with a remote entry's url, or "".
func checkRemoteURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return fmt.Sprintf(`%q is not an http(s) address: give the server's full address, like "https://mcp.example.com/mcp"`, raw)
	}
	if u.User != nil {
		return "holds a user name or password: remove it, and put credentials in headers as ${keyring:NAME} references (or use \"oauth\")"
	}
	if strings.Contains(raw, "${") {
		return "cannot hold a ${...} reference: put secrets in headers as ${keyring:NAME}"
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		return fmt.Sprintf("%q is not encrypted: use https:// (plain http:// is accepted for this machine only: localhost, 127.0.0.1, ::1)", raw)
	}
	return ""
}

// loopbackHost reports whether host is this machine: localhost, or an
// address of 127.0.0.0/8 or ::1.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// validToken reports whether s is an RFC 7230 token (a header name).
func validToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r) {
			continue
		}
		return false
	}
	return true
}

// secretHeader reports whether a header's name says it carries a secret.
func secretHeader(name string) bool {
	l := strings.ToLower(name)
	if l == "authorization" || l == "proxy-authorization" || l == "cookie" {
		return true
	}
	for _, w := range []string{"token", "key", "secret", "password", "auth"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

// toolProblems checks the patterns of the entry's "tools".
func (s *Server) toolProblems(name string) []Problem {
	if s.Tools == nil {
		return nil
	}
	var ps []Problem
	for _, l := range []struct {
		key      string
		patterns []string
	}{{"tools.allow", s.Tools.Allow}, {"tools.deny", s.Tools.Deny}} {
		for i, p := range l.patterns {
			if _, err := path.Match(p, "x"); err != nil {
				ps = append(ps, Problem{Server: name, Key: fmt.Sprintf("%s[%d]", l.key, i),
					Message: fmt.Sprintf("%q is not a valid pattern: use * and ? wildcards, and close every [", p)})
			}
		}
	}
	return ps
}

// decodeType reads "type": "stdio" (kept as written) or a remote
// transport.
func (s *Server) decodeType(raw json.RawMessage) bool {
	var v string
	if json.Unmarshal(raw, &v) != nil || v != "stdio" && remoteTypes[v] == "" {
		s.bad("type", `%s is not supported: use "http" or "sse" for a remote server ("url"), "stdio" or no type for a local one`, rawString(raw))
		return false
	}
	if v == "stdio" {
		return false // kept as written
	}
	s.Type = v
	return true
}

// decodeHeaders reads "headers": an object of strings, kept in order.
func (s *Server) decodeHeaders(raw json.RawMessage) bool {
	ms, dups, err := decodeObject(raw)
	if err != nil {
		s.bad("headers", `must be an object of strings, like {"Authorization": "Bearer ${keyring:NAME}"}`)
		return false
	}
	for _, d := range dups {
		s.bad("headers."+d, "appears more than once: keep one (the last one is used)")
	}
	h := make(map[string]string, len(ms))
	var order []string
	ok := true
	for _, m := range ms {
		var v string
		if err := json.Unmarshal(m.Value, &v); err != nil {
			s.bad("headers."+m.Key, "%s", mustBeString(m.Value))
			ok = false
			continue
		}
		h[m.Key] = v
		order = append(order, m.Key)
	}
	if ok {
		s.Headers, s.headerOrder = h, order
	}
	return ok
}

// decodeOAuth reads "oauth": {"clientId": "...", "scopes": [...]}.
func (s *Server) decodeOAuth(raw json.RawMessage) bool {
	ms, _, err := decodeObject(raw)
	if err != nil {
		s.bad("oauth", `must be an object, like {"clientId": "abc", "scopes": ["read"]} (or {} to sign in with the server's defaults)`)
		return false
	}
	o := &OAuth{}
	ok := true
	for _, m := range ms {
		switch m.Key {
		case "clientId":
			ok = s.decodeString("oauth.clientId", m.Value, &o.ClientID, "a string: the client ID registered with the authorization server") && ok
		case "clientSecret":
			ok = s.decodeString("oauth.clientSecret", m.Value, &o.ClientSecret, "a string: a ${keyring:NAME} reference to the client's secret") && ok
		case "scopes":
			ok = s.decodeStrings("oauth.scopes", m.Value, &o.Scopes, `["read", "write"]`) && ok
		case "clientMetadataUrl":
			ok = s.decodeString("oauth.clientMetadataUrl", m.Value, &o.ClientMetadataURL, "a string: the https address of Switchboard's client ID metadata document") && ok
		default:
			s.bad("oauth."+m.Key, `is not a known key: use "clientId", "clientSecret", "scopes" or "clientMetadataUrl"`)
			ok = false
		}
	}
	if ok {
		s.OAuth = o
	}
	return ok
}

// headersJSON writes headers in the file's order, new ones sorted at the
// end.
func (s *Server) headersJSON() (json.RawMessage, error) {
	names := make([]string, 0, len(s.Headers))
	for _, k := range s.headerOrder {
		if _, ok := s.Headers[k]; ok && !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	var more []string
	for k := range s.Headers {
		if !slices.Contains(names, k) {
			more = append(more, k)
		}
	}
	sort.Strings(more)
	ms := make([]member, 0, len(s.Headers))
	for _, k := range append(names, more...) {
		v, err := encode(s.Headers[k])
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{k, v})
	}
	return objectJSON(ms)
}

// ShownURL is a remote entry's url as the host, the window and logs show
// it: without its query, fragment or user (a token may hide there: an
// address may carry ?key=...).
func ShownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	c := *u
	c.RawQuery, c.Fragment, c.User, c.ForceQuery = "", "", nil, false
	return c.String()
}

// OAuthSecret is the keyring name of a remote server's sign-in (its
// tokens, as one JSON record), which only the host reads and writes.
func OAuthSecret(server string) string { return "oauth." + server }

// SignInRefused reads, from a sign-in record (the value of OAuthSecret,
// which the host writes), why the authorization server refused to renew
// it: "" when it did not. Only that field is read; the tokens are not
// kept. The host's record has the field under the same name
// (app/host TestSignInRecordRefused ties the two).
func SignInRefused(record string) (string, error) {
	var rec struct {
		Refused string `json:"refused"`
	}
	if err := json.Unmarshal([]byte(record), &rec); err != nil {
		return "", errors.New("the stored sign-in is not a sign-in record")
	}
	return rec.Refused, nil
}
