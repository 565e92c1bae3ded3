package cli

import (
	"bufio"
	"context"
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// importFile is one file an import reads and may change: the app's config
// file, or a Claude Code project's .mcp.json.
type importFile struct {
	app    *aiapps.App
	path   string
	before []byte
	doc    *aiapps.Doc
}

// importSources reads what `clients import` looks at: the app's own
// servers and, for Claude Code, its projects' servers (the blocks of
// ~/.claude.json and the projects' .mcp.json). Without --project or
// --all-projects, the projects' servers are listed but held; with
// --project DIR only those projects are read; with --all-projects
// everything is imported.
func (e *env) importSources(app *aiapps.App, loc aiapps.Location, projects []string, all bool) (files []*importFile, sources []aiapps.ImportSource, notes []string, err error) {
	var main *importFile
	if loc.Exists {
		before, doc, err := readClient(app, loc)
		if err != nil {
			return nil, nil, nil, err
		}
		main = &importFile{app: app, path: loc.Path, before: before, doc: doc}
		files = append(files, main)
		if len(projects) == 0 {
			sources = append(sources, aiapps.ImportSource{Doc: doc, Path: loc.Path})
		}
	}
	if app.ID != "claude-code" {
		return files, sources, nil, nil
	}
	var dirs []string // the projects to read, as ~/.claude.json keys them when it does
	if main != nil {
		dirs = main.doc.ClaudeProjects()
	}
	var asked []string
	for _, p := range projects {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, nil, usagef("clients import: --project %s: %v", p, err)
		}
		asked = append(asked, abs)
		if !slices.ContainsFunc(dirs, func(d string) bool { return samePath(filepath.FromSlash(d), abs) }) {
			dirs = append(dirs, abs)
		}
	}
	found := make([]bool, len(asked))
	for _, dir := range dirs {
		hold := ""
		if len(projects) > 0 {
			i := slices.IndexFunc(asked, func(a string) bool { return samePath(filepath.FromSlash(dir), a) })
			if i < 0 {
				continue // another project than the one asked for
			}
			found[i] = true
		} else if !all {
			hold = fmt.Sprintf("a server of the project %s: imported only when asked ('switchboard clients import %s --project %s')", dir, app.ID, dir)
		}
		if main != nil {
			if sub := main.doc.ClaudeProject(dir); sub != nil && len(sub.Servers()) > 0 {
				sources = append(sources, aiapps.ImportSource{Doc: sub, Path: main.path, Project: dir, Hold: hold})
			}
		}
		papp, path := aiapps.ClaudeProjectFile(filepath.FromSlash(dir))
		before, exists, err := aiapps.ReadFile(path)
		if err != nil {
			notes = append(notes, fmt.Sprintf("note: cannot read %s: %v", path, err))
			continue
		}
		if !exists {
			continue
		}
		doc, err := papp.Parse(before)
		if err != nil {
			notes = append(notes, fmt.Sprintf("note: %s is left alone: %v", path, err))
			continue
		}
		if len(doc.Servers()) == 0 {
			continue
		}
		files = append(files, &importFile{app: papp, path: path, before: before, doc: doc})
		sources = append(sources, aiapps.ImportSource{Doc: doc, Path: path, Project: dir, Hold: hold})
	}
	for i, ok := range found {
		if !ok {
			_, path := aiapps.ClaudeProjectFile(asked[i])
			notes = append(notes, fmt.Sprintf("Claude Code has no servers for the project %s (none in %s, no %s)", asked[i], loc.Path, path))
		}
	}
	return files, sources, notes, nil
}

func (e *env) clientsImport(a *argv) error {
	move, yes, dry, all := a.flag("move-secrets"), a.flag("yes"), a.flag("dry-run"), a.flag("all-projects")
	unrunnable := a.flag("replace-unrunnable")
	projects, pos := a.list("project"), a.pos
	app, loc, err := e.clientApp("import", pos)
	if err != nil {
		return err
	}
	if (len(projects) > 0 || all) && app.ID != "claude-code" {
		return usagef("clients import: --project and --all-projects are for claude-code (its projects' servers)")
	}
	if len(projects) > 0 && all {
		return usagef("clients import: give --project DIR or --all-projects, not both")
	}
	if !loc.Exists && len(projects) == 0 {
		fmt.Fprintf(e.stdout, "%s has no config file (%s does not exist): nothing to import\n", app.Name, loc.Path)
		return nil
	}
	files, sources, notes, err := e.importSources(app, loc, projects, all)
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(e.stdout, n)
	}
	plan := aiapps.PlanImport(app, e.clientsEnv(), sources)
	for _, s := range plan.Skipped() {
		fmt.Fprintln(e.stdout, "skipped:", s)
	}
	where := loc.Path
	if len(projects) > 0 {
		where = "the projects asked for"
	}
	importable := plan.Importable()
	if len(plan.Entries) == 0 {
		fmt.Fprintf(e.stdout, "%s has no servers of its own in %s: nothing to import\n", app.Name, where)
		return nil
	}
	if len(importable) == 0 {
		fmt.Fprintf(e.stdout, "%s has no servers of its own that Switchboard can run in %s: nothing to import\n", app.Name, where)
		return nil
	}

	in := bufio.NewReader(e.stdin)
	ask := func(q string) bool {
		if yes {
			return true
		}
		fmt.Fprintf(e.stdout, "%s [y/N] ", q)
		line, _ := in.ReadString('\n')
		return strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
	}

	// What Switchboard has already: the same for a dry run and the import.
	ctx := context.Background()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	fresh := map[int]bool{} // entries Switchboard does not have yet
	taken := map[int]bool{} // entries Switchboard now has (imported, or there with the same command)
	failed := 0
	for _, i := range importable {
		ent := plan.Entries[i]
		if ent.SameAs >= 0 {
			continue
		}
		raw, err := b.get(ent.As)
		if err != nil {
			fresh[i] = true
			continue
		}
		if sameCommand(raw, ent.Server) {
			fmt.Fprintf(e.stdout, "%s%s is already in Switchboard as %s\n", ent.Name, plan.Where(i), ent.As)
			taken[i] = true
			continue
		}
		fmt.Fprintf(e.stdout, "not imported: %s%s: Switchboard has another server named %s; rename one of them and import again\n", ent.Name, plan.Where(i), ent.As)
		failed++
	}
	// An entry whose command the host will not find (the host's one
	// resolution, in the PATH it gives servers: issue 27 §4) stays in the
	// app, where it works, unless --replace-unrunnable.
	e.keepUnrunnable(b, plan, importable, fresh, unrunnable, dry)
	for _, i := range importable {
		if !fresh[i] {
			continue
		}
		if x := plan.Entries[i].Expanded; len(x) > 0 {
			fmt.Fprintf(e.stdout, "%s%s: expanded %s from this environment\n", plan.Entries[i].Name, plan.Where(i), strings.Join(x, ", "))
		}
	}
	// Values that look like secrets: moved into the keyring, or the entry
	// is not imported (the one rule of servers import, keptSecrets).
	moved := map[int]map[string]string{} // entry -> var -> secret name
	kept := map[int][]string{}           // entry -> keys not moved
	for _, i := range importable {
		if !fresh[i] {
			continue
		}
		for _, c := range plan.Entries[i].Secrets {
			// A dry run asks nothing: it says what --move-secrets would move.
			if !move || !dry && !ask(fmt.Sprintf("move %s.%s into the keyring as %q?", c.Server, c.Key(), c.Secret)) {
				kept[i] = append(kept[i], c.Key())
				continue
			}
			if err := e.moveSecret(b, c, dry); err != nil {
				return err
			}
			if moved[i] == nil {
				moved[i] = map[string]string{}
			}
			moved[i][c.Var] = c.Secret
		}
	}
	for _, i := range importable {
		if !fresh[i] {
			continue
		}
		ent := plan.Entries[i]
		if keys := kept[i]; len(keys) > 0 {
			verb := "not imported"
			if dry {
				verb = "would not import"
			}
			fmt.Fprintf(e.stdout, "%s: %s%s: %s (it stays in %s)\n", verb, ent.Name, plan.Where(i), keptSecrets(keys, move), app.Name)
			failed++
			continue
		}
		if dry {
			fmt.Fprintf(e.stdout, "would import %s%s as %s\n", ent.Name, plan.Where(i), ent.As)
			taken[i] = true
			continue
		}
		_, ok, err := e.importOne(b, ent.Name, ent.Server, moved[i], false)
		if err != nil {
			return err
		}
		if !ok {
			failed++
			continue
		}
		taken[i] = true
	}
	for _, i := range importable {
		if j := plan.Entries[i].SameAs; j >= 0 {
			if taken[j] {
				taken[i] = true
				fmt.Fprintf(e.stdout, "%s%s runs the same as %s: it is taken with it\n", plan.Entries[i].Name, plan.Where(i), plan.Label(j))
			}
		}
	}
	if len(taken) == 0 {
		return exitError{1}
	}

	// Offer to put the bridge entry in the place of the taken entries, file
	// by file.
	exe, err := bridgeExecutable()
	if err != nil {
		return err
	}
	var replaced, declined int
	for _, file := range files {
		var names []string
		secrets := []string{}
		for _, src := range plan.Sources {
			if src.Path == file.path {
				secrets = append(secrets, src.Doc.SecretValues()...)
			}
		}
		for si, src := range plan.Sources {
			if src.Path != file.path {
				continue
			}
			var drop, added []string
			for i, ent := range plan.Entries {
				if ent.Source == si && taken[i] {
					drop = append(drop, ent.Name)
					added = append(added, ent.As)
					names = append(names, ent.Name+plan.Where(i))
				}
			}
			if len(drop) == 0 {
				continue
			}
			replaceInScope(src, file, exe, drop, added)
		}
		if len(names) == 0 {
			continue
		}
		after := file.doc.Bytes()
		fmt.Fprintf(e.stdout, "\nIn %s, the %q entry can now take the place of what Switchboard runs for it (%s):\n",
			file.path, aiapps.EntryName, strings.Join(names, ", "))
		if dry {
			if err := e.writeClient(file.app, aiapps.Location{Path: file.path}, file.before, after, true, secrets); err != nil {
				return err
			}
			continue
		}
		fmt.Fprint(e.stdout, aiapps.Redact(aiapps.Diff(file.path, file.path, file.before, after), secrets))
		if !ask(fmt.Sprintf("Replace them in %s?", file.path)) {
			fmt.Fprintf(e.stdout, "%s was not changed: 'switchboard clients connect %s' adds the entry later (remove the imported servers from the app yourself, or it runs them twice)\n", file.path, app.ID)
			if len(secrets) > 0 {
				fmt.Fprintf(e.stdout, "note: %s still holds secrets in plain text\n", file.path)
			}
			declined++
			continue
		}
		if err := e.writeClient(file.app, aiapps.Location{Path: file.path}, file.before, after, false, nil); err != nil {
			return err
		}
		e.recordWritten(file.app, file.path, file.doc, false)
		fmt.Fprintf(e.stdout, "replaced %s in %s with the %q entry\n", english.Plural(len(names), "server"), file.path, aiapps.EntryName)
		if len(secrets) > 0 {
			fmt.Fprintf(e.stdout, "note: the backup still holds the old entries with their secrets in plain text: delete it once %s works\n", app.Name)
		}
		replaced++
	}
	if !dry && replaced > 0 {
		e.noteExecutable(exe)
		fmt.Fprintln(e.stdout, app.Restart)
	}
	if failed > 0 {
		return exitError{1}
	}
	return nil
}

// keepUnrunnable takes out of fresh the local entries whose command the
// host will not find: resolved as the host resolves it, in the PATH it
// gives servers (the running host's; with none, the login shell's), not
// this terminal's. Each is named with the command, that PATH and the
// remedy, and stays in the app, where it works (VS Code's uvx
// mcp-server-fetch on a host without uvx). With replace (the flag
// --replace-unrunnable) it is imported anyway, with the same warning.
func (e *env) keepUnrunnable(b backend, plan *aiapps.ImportPlan, importable []int, fresh map[int]bool, replace, dry bool) {
	var path string
	asked, ok := false, false
	for _, i := range importable {
		ent := plan.Entries[i]
		if !fresh[i] || ent.Server.IsRemote() {
			continue
		}
		if !asked {
			path, ok = e.hostPath(b)
			asked = true
		}
		if !ok {
			return // the host could not say: its start will
		}
		why, remedy := notFound(ent.As, ent.Server, path)
		if why == "" {
			continue
		}
		why = termtext.Escape(why)
		if remedy != "" {
			why += "; " + remedy
		} else {
			why += " ('switchboard doctor' shows the PATH the host gives servers)"
		}
		if replace {
			fmt.Fprintf(e.stdout, "warning: %s%s: the host will not find its command, and it is imported anyway (--replace-unrunnable): %s\n",
				ent.Name, plan.Where(i), why)
			continue
		}
		verb := "not imported"
		if dry {
			verb = "would not import"
		}
		fmt.Fprintf(e.stdout, "%s: %s%s: the host will not find its command, so it stays in %s, where it runs: %s. Then import again, or import it now with --replace-unrunnable\n",
			verb, ent.Name, plan.Where(i), plan.App.Name, why)
		delete(fresh, i)
	}
}

// replaceInScope puts the bridge entry in place of the entries drop of one
// servers object. The bridge reaches every server, or, when the scope's
// entry (or, in a Claude Code project's block, the user-scope entry)
// names some, those and the imported ones (added). In a project's block
// of ~/.claude.json that the user-scope entry already covers (it reaches
// every server), the entries are only removed: Claude Code gives the
// project the user's servers too.
func replaceInScope(src aiapps.ImportSource, file *importFile, exe string, drop, added []string) {
	bridge := aiapps.Bridge{Command: exe}
	old, _, ok := src.Doc.Connected()
	if !ok && src.Project != "" && src.Path == file.path && src.Doc != file.doc {
		user, _, userOK := file.doc.Connected()
		if userOK && len(user.Servers) == 0 {
			src.Doc.Remove(drop...)
			return
		}
		old, ok = user, userOK
	}
	if ok && len(old.Servers) > 0 {
		bridge.Servers = slices.Clone(old.Servers)
		for _, n := range added {
			if !slices.Contains(bridge.Servers, n) {
				bridge.Servers = append(bridge.Servers, n)
			}
		}
	}
	src.Doc.Replace(drop, bridge)
}
