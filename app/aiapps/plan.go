package aiapps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/tailscale/hujson"
)

// ImportSource is one servers object an import reads: the app's own (its
// user scope), or one of a Claude Code project's.
type ImportSource struct {
	Doc     *Doc
	Path    string // the file the servers are in
	Project string // Claude Code: the project's directory; "" for the app's own servers
	// Hold, when set, is why none of these entries is imported (a
	// project the user did not ask for): they are listed with it.
	Hold string
}

// ImportEntry is one entry of an app's servers, as an import sees it:
// either a server Switchboard can run (Server), or one that stays in the
// app (Skip says why). The bridge entry is never one.
type ImportEntry struct {
	Source int    // index of its ImportSource
	Name   string // as in the app's file
	As     string // its name in Switchboard
	Server *config.Server
	// Secrets are the literal values of its env that look like secrets.
	Secrets []config.SecretCandidate
	// Expanded are the variables that were expanded (as written, like
	// "${userHome}"), never their values.
	Expanded []string
	// SameAs is the index of an earlier entry of the plan that is imported
	// under the same name with the same command: this one is taken with
	// it, not imported twice. -1 otherwise.
	SameAs int
	Skip   string // why it stays in the app; "" when it can be imported
	Remote string // a remote entry's URL, without its query
}

// ImportPlan is what an import of an app does, computed once so that a
// dry run and the import itself say and do the same.
type ImportPlan struct {
	App     *App
	Sources []ImportSource
	Entries []ImportEntry // sources in order, each in file order
}

// Where says where an entry is when it is not among the app's own
// servers: " (project DIR)" for a project's block of ~/.claude.json,
// " (DIR/.mcp.json)" for a project's file; "" otherwise.
func (p *ImportPlan) Where(i int) string {
	src := p.Sources[p.Entries[i].Source]
	switch {
	case src.Project == "":
		return ""
	case filepath.Base(src.Path) == ".mcp.json":
		return " (" + src.Path + ")"
	}
	return " (project " + src.Project + ")"
}

// Label names an entry for a report: "NAME", quoted, and where it is.
func (p *ImportPlan) Label(i int) string {
	return fmt.Sprintf("%q%s", p.Entries[i].Name, p.Where(i))
}

// Importable returns the indexes of the entries Switchboard can run.
func (p *ImportPlan) Importable() []int {
	var out []int
	for i, e := range p.Entries {
		if e.Skip == "" {
			out = append(out, i)
		}
	}
	return out
}

// Skipped returns, one line each, the entries that stay in the app and
// why: `"NAME": REASON`.
func (p *ImportPlan) Skipped() []string {
	var out []string
	for i, e := range p.Entries {
		if e.Skip != "" {
			out = append(out, p.Label(i)+": "+e.Skip)
		}
	}
	return out
}

// PlanImport reads the sources' entries and decides, for each, whether
// Switchboard can run it as the app does:
//
//   - a remote entry with "url" (Windsurf's "serverUrl", Gemini CLI's
//     "httpUrl") is imported as one; an entry that runs npx mcp-remote URL
//     becomes the remote entry it stands for (config.FromMCPRemote), or
//     stays with why; other remote forms (a type with no url) stay:
//     "remote: not managed yet";
//   - the app's own keys are translated (see [Doc.ImportBlock]); an entry
//     that reads an envFile, or belongs to a Zed extension, stays;
//   - variables are expanded as the app would where the value does not
//     depend on the app (${userHome}, ${pathSeparator}, and environment
//     variables set in env: VS Code's ${env:NAME}, Claude Code's ${VAR}
//     and ${VAR:-default}, Gemini CLI's $VAR); an entry with any other
//     (${workspaceFolder}, ${input:ID}, an unset variable...) stays;
//   - the entry must then pass the checks Switchboard applies when it is
//     saved, so that an import never moves what it then refuses.
//
// env is the environment the import runs in (home, GOOS, variables).
func PlanImport(app *App, env Env, sources []ImportSource) *ImportPlan {
	p := &ImportPlan{App: app, Sources: sources}
	first := map[string]int{} // Switchboard name -> the entry imported under it
	for si, src := range sources {
		for _, s := range src.Doc.Servers() {
			if s.IsBridge() {
				continue
			}
			e := ImportEntry{Source: si, Name: s.Name, As: config.NormalizeName(s.Name), SameAs: -1}
			if why := src.Doc.importSkip(s); why != "" {
				e.Skip = "not imported: " + why
			} else {
				p.plan(&e, src, env, s.JSON)
			}
			if e.Skip == "" {
				if j, ok := first[e.As]; ok {
					if sameServer(p.Entries[j].Server, e.Server) {
						e.SameAs = j
					} else {
						e.Skip = fmt.Sprintf("not imported: %s is also imported as %s and runs another command: rename one of them in %s and import again",
							p.Label(j), e.As, app.Name)
						e.Server, e.Secrets = nil, nil
					}
				} else {
					first[e.As] = len(p.Entries)
				}
			}
			p.Entries = append(p.Entries, e)
		}
	}
	return p
}

func (p *ImportPlan) plan(e *ImportEntry, src ImportSource, env Env, raw json.RawMessage) {
	if u, ok := remoteURL(raw); ok {
		e.Remote = u
		conv, why, proxy := config.FromMCPRemote(raw, false)
		switch {
		case proxy && why != "":
			e.Skip = fmt.Sprintf("not imported: an mcp-remote entry (%s): %s: it stays in %s", u, why, p.App.Name)
			return
		case proxy:
			raw = conv
		case !hasURL(raw, p.App.ID):
			e.Skip = fmt.Sprintf("remote: not managed yet (%s): it stays in %s", u, p.App.Name)
			return
		}
	}
	if src.Hold != "" {
		e.Skip = src.Hold
		return
	}
	v, err := hujson.Parse(bytes.Clone(raw))
	if err != nil {
		e.Skip = "not imported: " + err.Error() // cannot happen: raw is standard JSON
		return
	}
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		e.Skip = "not imported: an entry must be an object with a command"
		return
	}
	if why := src.Doc.translate(obj); why != "" {
		e.Skip = "not imported: " + why
		return
	}
	x := newExpander(p.App, env)
	expandEntry(obj, x)
	if len(x.stuck) > 0 {
		e.Skip = "not imported: " + strings.Join(x.stuck, "; ") +
			fmt.Sprintf(". It stays in %s, where it works; to run it in Switchboard, add it with 'switchboard servers add' and the values written out", p.App.Name)
		return
	}
	e.Expanded = x.used
	block, _ := json.Marshal(map[string]map[string]json.RawMessage{"mcpServers": {e.Name: standard(v)}})
	servers, skipped, cands, err := config.ParseImportSkips(block)
	if err != nil {
		e.Skip = "not imported: " + err.Error()
		return
	}
	srv := servers[e.Name]
	if srv == nil {
		why := "it is not a server Switchboard can run"
		if len(skipped) > 0 {
			why = skipped[0].Why
		}
		e.Skip = "not imported: " + why
		return
	}
	// The checks of a save: what they refuse is never moved.
	b, err := json.Marshal(srv)
	if err != nil {
		e.Skip = "not imported: " + err.Error()
		return
	}
	checked, err := config.ParseServer(e.As, b)
	if err != nil {
		e.Skip = "not imported: " + err.Error()
		return
	}
	// A header's literal secret is a problem that the move to the keyring
	// solves (the import moves it, or the save refuses it with the remedy).
	ps := slices.DeleteFunc(checked.Problems(), func(pr config.Problem) bool {
		return pr.Remedy != nil && pr.Remedy.Kind == "keyring_ref" && slices.ContainsFunc(cands, func(c config.SecretCandidate) bool {
			return c.Header && pr.Remedy.From == c.Key()
		})
	})
	if len(ps) > 0 {
		var msgs []string
		for _, pr := range ps {
			msgs = append(msgs, pr.Error())
		}
		e.Skip = fmt.Sprintf("not imported: Switchboard cannot run it as written (%s); it stays in %s", strings.Join(msgs, "; "), p.App.Name)
		return
	}
	e.Server, e.Secrets = srv, cands
}

// expandEntry expands the variables of command, args, env values, cwd,
// url and header values in place. Env and header values are then escaped for Switchboard's config, where
// "${" starts a ${keyring:NAME} reference: a "${" left is literal text.
func expandEntry(obj *hujson.Object, x *expander) {
	str := func(v *hujson.Value, env bool) {
		l, ok := v.Value.(hujson.Literal)
		if !ok || l.Kind() != '"' {
			return
		}
		s := x.expand(l.String())
		if env {
			s = strings.ReplaceAll(s, "${", "$${")
		}
		if s != l.String() {
			v.Value = hujson.String(s)
		}
	}
	for i := range obj.Members {
		m := &obj.Members[i]
		switch memberName(*m) {
		case "command", "cwd":
			str(&m.Value, false)
		case "args":
			if a, ok := m.Value.Value.(*hujson.Array); ok {
				for j := range a.Elements {
					str(&a.Elements[j], false)
				}
			}
		case "url":
			str(&m.Value, false)
		case "env", "headers":
			if o, ok := m.Value.Value.(*hujson.Object); ok {
				for j := range o.Members {
					str(&o.Members[j].Value, true)
				}
			}
		}
	}
}

// remoteURL reports whether an entry is a remote server, and its URL for
// a report (user info, query and fragment left out: they may hold a
// token).
func remoteURL(raw json.RawMessage) (string, bool) {
	var e struct {
		URL       string   `json:"url"`
		ServerURL string   `json:"serverUrl"`
		HTTPURL   string   `json:"httpUrl"`
		Type      string   `json:"type"`
		Command   string   `json:"command"`
		Args      []string `json:"args"`
	}
	if json.Unmarshal(raw, &e) != nil {
		var loose map[string]any // a key of another type: read what can be read
		if json.Unmarshal(raw, &loose) != nil {
			return "", false
		}
		e.URL, _ = loose["url"].(string)
		e.ServerURL, _ = loose["serverUrl"].(string)
		e.HTTPURL, _ = loose["httpUrl"].(string)
		e.Type, _ = loose["type"].(string)
	}
	for _, u := range []string{e.URL, e.ServerURL, e.HTTPURL} {
		if u != "" {
			return shownURL(u), true
		}
	}
	switch e.Type {
	case "http", "sse", "streamable-http", "streamableHttp":
		return "type " + e.Type, true
	}
	if u := mcpRemote(e.Command, e.Args); u != "" {
		return "mcp-remote " + shownURL(u), true
	}
	return "", false
}

// mcpRemote returns the URL of a command that runs the mcp-remote proxy
// (config.MCPRemoteArgs: npx [-y] mcp-remote URL, bunx, pnpm dlx, yarn
// dlx, bun x, npm exec, or mcp-remote itself), "(no URL)" for the proxy
// run by a package runner without one, or "".
func mcpRemote(command string, args []string) string {
	rest, ok := config.MCPRemoteArgs(command, args)
	if !ok {
		return ""
	}
	for _, a := range rest {
		if strings.HasPrefix(a, "http://") || strings.HasPrefix(a, "https://") {
			return a
		}
	}
	if base := strings.ToLower(path.Base(strings.ReplaceAll(command, `\`, "/"))); strings.HasPrefix(base, "mcp-remote") {
		return "" // no URL: not recognisable as the proxy
	}
	return "(no URL)"
}

// shownURL is a URL as a report shows it: without user info, query and
// fragment.
func shownURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		if i := strings.IndexAny(s, "?#"); i >= 0 {
			s = s[:i]
		}
		return s
	}
	u.User, u.RawQuery, u.Fragment, u.ForceQuery = nil, "", "", false
	return u.String()
}

// sameServer reports whether two imported entries run the same command
// with the same arguments.
func sameServer(a, b *config.Server) bool {
	return a != nil && b != nil && a.Command == b.Command && slices.Equal(a.Args, b.Args) && a.URL == b.URL
}

// hasURL reports whether a remote entry has what Switchboard reads as its
// address: "url" (Switchboard's, Claude Code's, VS Code's, Cursor's), or
// an app's own key that translate turns into it (Windsurf's "serverUrl",
// Gemini CLI's "httpUrl").
func hasURL(raw json.RawMessage, app string) bool {
	var e struct {
		URL       string `json:"url"`
		ServerURL string `json:"serverUrl"`
		HTTPURL   string `json:"httpUrl"`
	}
	_ = json.Unmarshal(raw, &e)
	return e.URL != "" || e.ServerURL != "" && app == "windsurf" || e.HTTPURL != "" && app == "gemini-cli"
}

// ClaudeProjects returns the projects of Claude Code's ~/.claude.json (the
// keys of its "projects" object: the absolute directories Claude Code ran
// in), in file order, each once. Their servers are in [Doc.ClaudeProject]
// and in each directory's .mcp.json ([ClaudeProjectFile]).
func (d *Doc) ClaudeProjects() []string {
	projects := d.projectsObj()
	if projects == nil {
		return nil
	}
	var out []string
	for _, m := range projects.Members {
		if name := memberName(m); name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func (d *Doc) projectsObj() *hujson.Object {
	root := d.rootObj()
	i := lastMember(root, "projects")
	if i < 0 {
		return nil
	}
	o, _ := root.Members[i].Value.Value.(*hujson.Object)
	return o
}

// ClaudeProject returns the block of one project (as keyed) in Claude
// Code's ~/.claude.json as a Doc of its own: its "mcpServers" are Claude
// Code's local-scope servers for that project. Changes made through it
// are changes of d (d.Bytes has them). nil if the project has no block, or
// its mcpServers is not an object.
func (d *Doc) ClaudeProject(key string) *Doc {
	projects := d.projectsObj()
	if projects == nil {
		return nil
	}
	i := lastMember(projects, key)
	if i < 0 {
		return nil
	}
	obj, ok := projects.Members[i].Value.Value.(*hujson.Object)
	if !ok {
		return nil
	}
	app := *d.app
	app.OwnFile = true // Claude Code writes "mcpServers": {} in every project: an emptied one stays
	sub := &Doc{app: &app, root: hujson.Value{Value: obj}, nl: d.nl, unit: d.unit}
	if j := sub.serversIndex(); j >= 0 {
		if _, ok := obj.Members[j].Value.Value.(*hujson.Object); !ok {
			return nil
		}
	}
	return sub
}

// ClaudeProjectFile returns Claude Code's project-scope file of a project,
// DIR/.mcp.json, and the App that reads and edits it (its own file of
// mcpServers).
func ClaudeProjectFile(dir string) (*App, string) {
	cc, _ := Lookup("claude-code")
	app := *cc
	app.OwnFile = true
	return &app, filepath.Join(dir, ".mcp.json")
}
