package config

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/english"
)

// SecretCandidate is a literal value in an imported entry's env that looks
// like a secret (the variable's name contains TOKEN, KEY, SECRET or
// PASSWORD), or in a remote entry's headers (a header the literal-secret
// problem names: Authorization, *token*, *key*...; of "Authorization:
// Bearer abc", the secret is "abc"). Move it into the keyring under
// Secret, then call [Server.ReferenceSecret] so that the file only refers
// to it.
type SecretCandidate struct {
	Server string // the entry's name as imported
	Var    string // the env variable, or the header when Header is set
	Value  string // the literal value: a secret, never log it
	Secret string // a suggested secret name (see SuggestSecretName)
	Header bool   // Var is a header of a remote entry
}

// Key is the candidate's key in its entry: "env.VAR" or "headers.NAME".
func (c SecretCandidate) Key() string {
	if c.Header {
		return "headers." + c.Var
	}
	return "env." + c.Var
}

// KeptSecrets says that the keys ("gh.env.TOKEN", ...) hold literal
// secrets an import did not move into the keyring, and so does not take
// their entry: the one rule of every import (the command line's and the
// window's), worded once. The caller adds its remedy after a colon.
func KeptSecrets(keys []string) string {
	verb := "look"
	if len(keys) == 1 {
		verb = "looks"
	}
	return fmt.Sprintf("%s %s like a secret, and a secret is kept only in the keyring, never as plain text in the config", english.List(keys), verb)
}

// ParseImport reads servers pasted from another client's config: a whole
// file or block with "mcpServers" (Claude Desktop, Cursor, Claude Code) or
// "servers" (VS Code), a bare object of entries by name, or a single
// `"name": {...}` line without the outer braces. The servers are keyed by
// their names as written: give each its NormalizeName before adding it.
// skipped says, one line each, which entries were not imported and why
// (entries that are neither a stdio server nor a remote one). Remote
// entries are taken: "url" ones as written, mcp-remote ones as the
// remote entry they stand for ([FromMCPRemote]). literalSecrets are the
// env values and header secrets to move into the keyring, in the block's
// order.
func ParseImport(data []byte) (servers map[string]*Server, skipped []string, literalSecrets []SecretCandidate, err error) {
	servers, skips, literalSecrets, err := ParseImportSkips(data)
	for _, s := range skips {
		skipped = append(skipped, s.String())
	}
	return servers, skipped, literalSecrets, err
}

// Skip is an entry that an import leaves out, and why: in words, and as
// the entry's problems (with their keys and remedies, for a front end to
// phrase) where its problems are why.
type Skip struct {
	Name     string    // as the block names it
	Why      string    // why it is left out, in words
	Problems []Problem // the entry's problems, when they are why
}

// String is the line that says it: `"NAME": not imported: WHY`.
func (s Skip) String() string { return fmt.Sprintf("%q: not imported: %s", s.Name, s.Why) }

// ParseImportSkips is [ParseImport] with the skipped entries as data.
func ParseImportSkips(data []byte) (servers map[string]*Server, skipped []Skip, literalSecrets []SecretCandidate, err error) {
	data = bytes.TrimSpace(bytes.TrimPrefix(data, utf8BOM))
	if err := checkSyntax(data); err != nil {
		// A snippet copied from a README often lacks the outer braces.
		wrapped := append(append([]byte("{"), bytes.TrimSuffix(data, []byte(","))...), '}')
		if checkSyntax(wrapped) != nil {
			return nil, nil, nil, err
		}
		data = wrapped
	}
	ms, _, err := decodeObject(data)
	if err != nil {
		return nil, nil, nil, err
	}
	entries := ms
	if block := serversBlock(ms); block != nil {
		if entries, _, err = decodeObject(block); err != nil {
			return nil, nil, nil, err
		}
	}
	servers = map[string]*Server{}
	for _, m := range entries {
		if !isObject(m.Value) {
			skipped = append(skipped, Skip{Name: m.Key, Why: "an entry must be an object with a command"})
			continue
		}
		value := m.Value
		if conv, why, ok := FromMCPRemote(value, true); ok {
			if why != "" {
				skipped = append(skipped, Skip{Name: m.Key, Why: "an mcp-remote entry: " + why + ": it stays with your AI client (or write it as a \"url\" entry: docs/remote.md)"})
				continue
			}
			value = conv
		}
		s := parseServer(value)
		switch {
		case s.remote != "" && s.URL == "" && len(s.decodeProblems) == 0:
			why := fmt.Sprintf(`a remote entry (%s) with no "url": give the server's address`, s.remote)
			if s.remote == emptyURL {
				why = `a remote entry with an empty "url": give the server's address`
			}
			skipped = append(skipped, Skip{Name: m.Key, Why: why})
			continue
		case len(s.decodeProblems) > 0:
			sk := Skip{Name: m.Key}
			var msgs []string
			for _, p := range s.decodeProblems {
				p.Server = m.Key
				sk.Problems = append(sk.Problems, p)
				msgs = append(msgs, p.Error())
			}
			sk.Why = strings.Join(msgs, "; ")
			skipped = append(skipped, sk)
			continue
		case s.Command == "" && !s.IsRemote():
			skipped = append(skipped, Skip{Name: m.Key, Why: "it has no command, so it is not a stdio server"})
			continue
		}
		servers[m.Key] = s
		literalSecrets = append(literalSecrets, s.headerCandidates(m.Key)...)
		for _, k := range s.envOrder {
			v := s.Env[k]
			if !secretLike(k) || v == "" {
				continue
			}
			if ev, err := ParseEnvValue(v); err != nil || len(ev.Secrets()) > 0 {
				continue
			}
			literalSecrets = append(literalSecrets, SecretCandidate{
				Server: m.Key, Var: k, Value: v, Secret: SuggestSecretName(NormalizeName(m.Key), k),
			})
		}
	}
	if len(servers) == 0 && len(skipped) == 0 {
		return nil, nil, nil, errors.New(`no servers found: paste the "mcpServers" block, or entries like {"name": {"command": "npx", "args": [...]}}`)
	}
	return servers, skipped, literalSecrets, nil
}

// serversBlock returns the value of "mcpServers" or "servers", if one of
// them is an object.
func serversBlock(ms []member) []byte {
	for _, key := range []string{"mcpServers", "servers"} {
		for _, m := range ms {
			if m.Key == key && isObject(m.Value) {
				return m.Value
			}
		}
	}
	return nil
}

// secretLike reports whether an env variable's name says it holds a secret.
func secretLike(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "KEY", "SECRET", "PASSWORD"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

// NormalizeName turns any name into a valid server name: lower case, each
// run of other characters a single '-', at most 31 bytes ("GitHub MCP" →
// "github-mcp", "my_server" → "my-server"). A valid name is returned as it
// is; a name with nothing usable becomes "server".
func NormalizeName(name string) string {
	if ValidServerName(name) {
		return name
	}
	return normalize(strings.ToLower(name), 31, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9'
	}, "server")
}

// SuggestSecretName suggests the keyring name for the value of an env
// variable of a server: "<server>-<variable>" in lower case, made valid
// ("github", "GITHUB_PERSONAL_ACCESS_TOKEN" →
// "github-github_personal_access_token").
func SuggestSecretName(server, variable string) string {
	return normalize(strings.ToLower(server+"-"+variable), 64, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.'
	}, "secret")
}

// normalize keeps the runes ok accepts, turns each run of others into one
// '-', trims '-' at both ends and cuts to max bytes.
func normalize(s string, max int, ok func(rune) bool, fallback string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if ok(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
	}
	out := b.String()
	if len(out) > max {
		out = out[:max]
	}
	out = strings.Trim(out, "-._")
	if out == "" {
		return fallback
	}
	return out
}
