package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/bundle"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	sbx "github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"golang.org/x/term"
)

var bundlesImportRow = &command{name: "bundles import", args: "claude-desktop [ID...]",
	summary: "Claude Desktop's extensions into Switchboard, for every AI app: without ID, list them; with IDs (or --all), install each as 'bundles install' does, its options carried over",
	help: `Claude Desktop keeps each extension it installed (an MCP bundle) unpacked
in "Claude Extensions/ID" under its folder, and its options in "Claude
Extensions Settings/ID.json". Without ID, import lists them: id, name,
version, whether Claude Desktop has it enabled, whether a server of it is in
Switchboard already, and the sensitive options that must be given again.

With IDs (or --all: every enabled one; a disabled one is imported only when
named), each is copied into Switchboard's store (links and devices refused),
its manifest checked, and installed as a server shared through the gateway.
Its non-sensitive options are carried over from Claude's settings. Sensitive
ones are not: Claude Desktop keeps them encrypted with a key in its own
keychain entry. They are asked for on a terminal (not shown), else given with
--set ID.KEY=VALUE (or KEY=VALUE for every chosen extension that has KEY);
they go to the keyring, never into a file. An extension missing a required
sensitive value is skipped with the remedy; the others are still installed.
Exit 1 when one was not imported.
`,
	flags: []flagDef{
		{name: "all", kind: boolFlag, help: "every extension Claude Desktop has enabled"},
		{name: "set", kind: multiFlag, arg: "ID.KEY=VALUE", help: "an option's value for the extension ID (KEY=VALUE: for each chosen one that has KEY); over Claude's value; a sensitive one goes to the keyring"},
		{name: "name", kind: stringFlag, arg: "LOCAL", help: "the server's name in the config, for one ID (default: the bundle's name)"},
		{name: "no-start", kind: boolFlag, help: "skip the first start (the server started once under its sandbox: its tools listed, their hashes locked, their pins taken)"},
	},
	run: (*env).bundlesImport}

// claudeOrigin is servers.lock's Origin of a server imported from the
// Claude Desktop extension id.
func claudeOrigin(id string) string { return "Claude Desktop extension " + id }

// claudeExt is an extension as import reads it: Claude's record and its
// manifest (nil, with why, when it cannot be read or is refused).
type claudeExt struct {
	aiapps.ClaudeExtension
	m        *bundle.Manifest
	problems string
	// in is the server of it already in Switchboard ("": none).
	in string
}

// claudeExtRow is a line of the list, as --json prints it.
type claudeExtRow struct {
	ID        string   `json:"id"`
	Name      string   `json:"name,omitempty"`
	Version   string   `json:"version,omitempty"`
	Enabled   bool     `json:"enabled"`
	Server    string   `json:"server,omitempty"`
	Sensitive []string `json:"sensitive,omitempty"`
	Problem   string   `json:"problem,omitempty"`
	Dir       string   `json:"dir"`
}

// readClaudeManifest reads the manifest at the extension's root: a link
// is refused, as the copy refuses it.
func readClaudeManifest(dir string) (*bundle.Manifest, string) {
	p := filepath.Join(dir, bundle.ManifestName)
	fi, err := os.Lstat(p)
	switch {
	case err != nil:
		return nil, fmt.Sprintf("no %s at its root: not a bundle", bundle.ManifestName)
	case !fi.Mode().IsRegular():
		return nil, fmt.Sprintf("its %s is not a file (%s): refused", bundle.ManifestName, fi.Mode().Type())
	case fi.Size() > 4<<20:
		return nil, fmt.Sprintf("its %s is larger than 4 MiB: refused", bundle.ManifestName)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err.Error()
	}
	m, ps := bundle.ParseManifest(data)
	if ps.Refusing() {
		var ms []string
		for _, pr := range ps {
			if !pr.Warning {
				ms = append(ms, pr.Error())
			}
		}
		return nil, "its manifest is refused: " + strings.Join(ms, "; ")
	}
	return m, ""
}

// claudeExtensions reads Claude Desktop's extensions with their manifests
// and the servers of them in servers.lock.
func (e *env) claudeExtensions(state string) (string, []*claudeExt, error) {
	folder, err := aiapps.ClaudeFolder(e.clientsEnv(), pathExists)
	if err != nil {
		return "", nil, err
	}
	list, err := aiapps.ClaudeExtensions(folder)
	if err != nil {
		return folder, nil, err
	}
	lock, _ := install.ReadLock(state)
	var out []*claudeExt
	for _, x := range list {
		c := &claudeExt{ClaudeExtension: x}
		c.m, c.problems = readClaudeManifest(x.Dir)
		if lock != nil {
			for _, name := range slices.Sorted(maps.Keys(lock.Servers)) {
				if l := lock.Servers[name]; l.Bundle != nil && l.Bundle.Origin == claudeOrigin(x.ID) && c.in == "" {
					c.in = name
				}
			}
		}
		out = append(out, c)
	}
	return folder, out, nil
}

// sensitive is m's sensitive options, "KEY (required)" for a required one.
func (c *claudeExt) sensitive() []string {
	var out []string
	if c.m == nil {
		return nil
	}
	for _, k := range c.m.Keys {
		if o := c.m.UserConfig[k]; o.Sensitive {
			if o.Required {
				k += " (required)"
			}
			out = append(out, k)
		}
	}
	return out
}

// bundlesImport is 'switchboard bundles import claude-desktop [ID...]'.
func (e *env) bundlesImport(a *argv) error {
	if len(a.pos) == 0 {
		return usagef("bundles import takes the app to import from: claude-desktop")
	}
	if app, err := aiapps.Lookup(a.pos[0]); err != nil || app.ID != "claude-desktop" {
		return usagef("bundles import %q: only Claude Desktop's extensions can be imported (bundles import claude-desktop); another app's servers: 'switchboard clients import APP'", a.pos[0])
	}
	ids := a.pos[1:]
	state := config.StateDir(e.getenv)
	folder, exts, err := e.claudeExtensions(state)
	if err != nil {
		return err
	}
	if len(ids) == 0 && !a.flag("all") {
		if len(a.list("set")) > 0 || a.str("name") != "" {
			return usagef("name the extensions to import (or --all): without them, import lists them")
		}
		return e.listClaudeExtensions(folder, exts)
	}
	if len(exts) == 0 {
		return fmt.Errorf("no extension of Claude Desktop in %s: nothing to import", termtext.Escape(filepath.Join(folder, aiapps.ClaudeExtensionsDir)))
	}
	byID := map[string]*claudeExt{}
	for _, c := range exts {
		byID[c.ID] = c
	}
	var chosen []*claudeExt
	for _, id := range ids {
		c, ok := byID[id]
		if !ok {
			var known []string
			for _, c := range exts {
				known = append(known, c.ID)
			}
			return usagef("Claude Desktop has no extension %q: it has %s ('switchboard bundles import claude-desktop' lists them)", id, english.List(known))
		}
		if !slices.Contains(chosen, c) {
			chosen = append(chosen, c)
		}
	}
	if a.flag("all") {
		for _, c := range exts {
			if c.Enabled && !slices.Contains(chosen, c) {
				chosen = append(chosen, c)
			}
		}
		if len(chosen) == 0 {
			return errors.New("no extension of Claude Desktop is enabled: name the ones to import")
		}
	}
	local := a.str("name")
	if local != "" && len(chosen) != 1 {
		return usagef("--name names the server of one extension: give one ID with it")
	}
	if local != "" && !config.ValidServerName(local) {
		return usagef("--name %q: use 1 to 31 lower-case letters, digits or '-', starting with a letter or digit", local)
	}
	sets, err := claudeSets(a.list("set"), chosen)
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	sandbox := runtime.GOOS == "linux" && sbx.Probe().Available()
	var imported, failed []string
	for i, c := range chosen {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		if c.in != "" && local == "" {
			fmt.Fprintf(e.stdout, "%s is already in Switchboard as %s: skipped ('switchboard bundles remove %s' first to import it again, or --name LOCAL for a second server)\n", termtext.Escape(c.ID), c.in, c.in)
			continue
		}
		name, err := e.importClaudeExtension(ctx, b, c, sets[c.ID], local, state, sandbox, a.flag("no-start"))
		switch {
		case name == "":
			fmt.Fprintf(e.stdout, "not imported: %s: %s\n", termtext.Escape(c.ID), escapeLines(err.Error()))
			failed = append(failed, c.ID)
		case err != nil: // added, but its first start failed
			fmt.Fprintf(e.stdout, "problem: %s\n", escapeLines(err.Error()))
			failed = append(failed, c.ID)
			imported = append(imported, name)
		default:
			imported = append(imported, name)
		}
	}
	if len(imported) > 0 {
		fmt.Fprintln(e.stdout)
		e.printShared(imported)
	}
	if len(failed) > 0 {
		fmt.Fprintf(e.stderr, "switchboard: %s: not imported, or not started (above: why, and the remedy)\n", english.List(failed))
		return exitError{1}
	}
	return nil
}

// escapeLines is termtext.Escape of each line of s, the lines after the
// first indented.
func escapeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = termtext.Escape(l)
	}
	return strings.Join(lines, "\n  ")
}

// claudeSets sorts the --set values by the chosen extension they are for:
// ID.KEY=VALUE for that one (the longest ID that prefixes it), KEY=VALUE
// for each one whose manifest has KEY (at least one must).
func claudeSets(kvs []string, chosen []*claudeExt) (map[string]map[string][]string, error) {
	out := map[string]map[string][]string{}
	add := func(id, k, v string) {
		if out[id] == nil {
			out[id] = map[string][]string{}
		}
		out[id][k] = append(out[id][k], v)
	}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("--set %q: write it as ID.KEY=VALUE (or KEY=VALUE)", kv)
		}
		var target *claudeExt
		for _, c := range chosen {
			if strings.HasPrefix(k, c.ID+".") && len(k) > len(c.ID)+1 && (target == nil || len(c.ID) > len(target.ID)) {
				target = c
			}
		}
		if target != nil {
			add(target.ID, k[len(target.ID)+1:], v)
			continue
		}
		n := 0
		for _, c := range chosen {
			if c.m != nil {
				if _, has := c.m.UserConfig[k]; has {
					add(c.ID, k, v)
					n++
				}
			}
		}
		if n == 0 {
			return nil, usagef("--set %s: no extension chosen has an option %s: write ID.KEY=VALUE for one of %s", k, k, english.List(claudeIDs(chosen)))
		}
	}
	return out, nil
}

func claudeIDs(cs []*claudeExt) []string {
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

// listClaudeExtensions prints Claude Desktop's extensions.
func (e *env) listClaudeExtensions(folder string, exts []*claudeExt) error {
	var rows []claudeExtRow
	for _, c := range exts {
		r := claudeExtRow{ID: c.ID, Enabled: c.Enabled, Server: c.in, Sensitive: c.sensitive(), Problem: c.problems, Dir: c.Dir}
		if c.m != nil {
			r.Name, r.Version = c.m.Name, c.m.Version
			if c.m.DisplayName != "" {
				r.Name = c.m.DisplayName
			}
		}
		if c.SettingsErr != nil {
			if r.Problem != "" {
				r.Problem += "; "
			}
			r.Problem += "its settings: " + c.SettingsErr.Error()
		}
		rows = append(rows, r)
	}
	if e.json {
		if rows == nil {
			rows = []claudeExtRow{}
		}
		return e.printJSON(rows)
	}
	x := termtext.Escape
	if len(rows) == 0 {
		fmt.Fprintf(e.stdout, "Claude Desktop has no extensions (none in %s)\n", x(filepath.Join(folder, aiapps.ClaudeExtensionsDir)))
		return nil
	}
	fmt.Fprintf(e.stdout, "Claude Desktop's extensions (%s):\n", x(filepath.Join(folder, aiapps.ClaudeExtensionsDir)))
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tVERSION\tENABLED\tIN SWITCHBOARD\tGIVE AGAIN (SENSITIVE)")
	var notes []string
	for _, r := range rows {
		name, version, in, sens := r.Name, r.Version, "no", "-"
		if name == "" {
			name, version = "?", "?"
		}
		if r.Server != "" {
			in = "as " + r.Server
		}
		if len(r.Sensitive) > 0 {
			sens = strings.Join(r.Sensitive, ", ")
		}
		enabled := "no"
		if r.Enabled {
			enabled = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", x(r.ID), x(name), x(version), enabled, x(in), x(sens))
		if r.Problem != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", r.ID, r.Problem))
		}
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintf(e.stdout, "problem: %s\n", x(n))
	}
	fmt.Fprintln(e.stdout, "import: 'switchboard bundles import claude-desktop ID... [--set ID.KEY=VALUE]...' (or --all: the enabled ones); sensitive values are asked again: Claude Desktop keeps them encrypted with its own keychain's key")
	return nil
}

// importClaudeExtension installs one extension: Claude's values carried
// over (not the sensitive ones, nor a key its manifest lacks), sets over
// them, the sensitive ones asked for on a terminal; then printed as
// 'registry add' prints, and its first start. It returns the server's
// name ("" when nothing was added; with an error when its first start
// failed).
func (e *env) importClaudeExtension(ctx context.Context, b backend, c *claudeExt, sets map[string][]string, local, state string, sandbox, noStart bool) (string, error) {
	x := termtext.Escape
	if c.SettingsErr != nil {
		fmt.Fprintf(e.stdout, "warning: %s: its settings could not be read, so no value is carried over: %s\n", x(c.ID), x(c.SettingsErr.Error()))
	}
	if !c.Enabled {
		fmt.Fprintf(e.stdout, "note: %s is disabled in Claude Desktop: imported because it was named\n", x(c.ID))
	}
	values := map[string][]string{}
	var carried, dropped []string
	if c.m != nil {
		for _, k := range slices.Sorted(maps.Keys(c.Values)) {
			o, ok := c.m.UserConfig[k]
			switch {
			case !ok:
				dropped = append(dropped, k+" (not an option of this version)")
			case o.Sensitive:
				dropped = append(dropped, k+" (sensitive: given again below)")
			default:
				values[k] = c.Values[k]
				carried = append(carried, k)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(sets)) {
			values[k] = sets[k]
		}
		for _, k := range c.m.Keys {
			o := c.m.UserConfig[k]
			if !o.Sensitive || len(values[k]) > 0 {
				continue
			}
			v, err := e.askClaudeSecret(c.ID, k, o)
			if err != nil {
				return "", err
			}
			switch {
			case v != "":
				values[k] = []string{v}
			case o.Required:
				return "", fmt.Errorf("%s (%s) is required and sensitive: Claude Desktop keeps it encrypted with its own keychain's key, which Switchboard does not read: give it with --set %s.%s=VALUE (it goes to the keyring), or run this in a terminal to be asked", k, o.Title, c.ID, k)
			default:
				fmt.Fprintf(e.stdout, "note: %s: the sensitive option %s is left unset (give it with --set %s.%s=VALUE)\n", x(c.ID), x(k), x(c.ID), x(k))
			}
		}
	}
	added, err := install.AddBundle(ctx, addTarget{b}, install.BundleRequest{Dir: c.Dir, Origin: claudeOrigin(c.ID),
		Local: local, Values: values, StateDir: state, LookPath: e.serversLookPath(), Sandbox: sandbox, Progress: e.stderr})
	if err != nil {
		var exists *install.ExistsError
		if errors.As(err, &exists) {
			return "", fmt.Errorf("%w; with one ID: 'switchboard bundles import claude-desktop %s --name LOCAL'", err, c.ID)
		}
		return "", err
	}
	lk := added.Locked
	if added.LockErr != nil {
		fmt.Fprintf(e.stderr, "switchboard: %s was added, but its lock could not be written: %v ('switchboard servers verify %s' cannot check it; remove it and import it again)\n", added.Local, added.LockErr, added.Local)
	}
	fmt.Fprintf(e.stdout, "added %s: Claude Desktop extension %s (%s %s)\n", added.Local, x(c.ID), x(lk.Package), x(lk.Version))
	fmt.Fprintf(e.stdout, "  runs:   %s\n", x(install.ArgvLine(added.Argv)))
	fmt.Fprintf(e.stdout, "  copied: into %s (links and devices refused); tree %s in %s\n", x(lk.Dir), lk.TreeIntegrity, install.LockPath(state))
	if len(carried) > 0 {
		fmt.Fprintf(e.stdout, "  from Claude Desktop's settings: %s\n", x(strings.Join(carried, ", ")))
	}
	if len(dropped) > 0 {
		fmt.Fprintf(e.stdout, "  not carried over: %s\n", x(strings.Join(dropped, ", ")))
	}
	e.printAddedSandbox(added)
	for _, w := range added.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s\n", x(w))
	}
	for _, n := range added.Notes {
		fmt.Fprintf(e.stdout, "note: %s\n", x(n))
	}
	if c.Enabled {
		fmt.Fprintf(e.stdout, "note: Claude Desktop still runs its own copy: turn %s off there (Settings > Extensions) if Claude Desktop reaches it through Switchboard\n", x(c.ID))
	}
	if noStart {
		fmt.Fprintf(e.stdout, "not started (--no-start): its tools are pinned when it first lists them to a host\n")
		return added.Local, nil
	}
	return added.Local, e.firstStart(ctx, b, added, state)
}

// askClaudeSecret asks for the sensitive option k of the extension id on
// a terminal, not shown; "" when none was typed or no terminal is there.
func (e *env) askClaudeSecret(id, k string, o bundle.Option) (string, error) {
	f, ok := e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return "", nil
	}
	what := "optional: empty leaves it unset"
	if o.Required {
		what = "required"
	}
	title := ""
	if o.Title != "" {
		title = " (" + termtext.Escape(o.Title) + ")"
	}
	fmt.Fprintf(e.stderr, "%s: %s%s is sensitive: Claude Desktop keeps it in its keychain; type it again (not shown; %s): ", termtext.Escape(id), termtext.Escape(k), title, what)
	v, err := term.ReadPassword(int(f.Fd()))
	fmt.Fprintln(e.stderr)
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(v, 0) >= 0 {
		return "", errNUL(k)
	}
	return string(v), nil
}

// printShared says which AI apps can use the servers now: the ones
// connected to Switchboard (through the gateway), in one line.
func (e *env) printShared(names []string) {
	var apps []string
	for _, app := range aiapps.Apps() {
		loc, err := app.Locate(e.clientsEnv(), pathExists)
		if err != nil || !loc.Exists {
			continue
		}
		if _, doc, err := readClient(app, loc); err == nil {
			if _, _, ok := doc.Connected(); ok {
				apps = append(apps, app.Name)
			}
		}
	}
	what := english.List(names)
	if len(apps) == 0 {
		fmt.Fprintf(e.stdout, "shared through the gateway: no AI app is connected to Switchboard yet; 'switchboard clients connect APP' (cursor, vscode, claude-code, ...) and it can use %s\n", what)
		return
	}
	fmt.Fprintf(e.stdout, "shared through the gateway: %s can use %s now ('switchboard clients connect APP' for another app)\n", english.List(apps), what)
}
