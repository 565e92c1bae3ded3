package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostrun"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

var registryRows = []*command{
	{name: "registry", group: "Registries", summary: "MCP registries: search them, and read an entry's card before adding it", help: registryHelp},
	{name: "registry sync", args: "[NAME]", summary: "bring the local index of every registry (or NAME) up to date: what changed since the last sync",
		flags: []flagDef{{name: "full", kind: boolFlag, help: "read every server again, not only those changed since the last sync"}},
		run:   (*env).registrySync},
	{name: "registry search", args: "QUERY...", summary: "search the local indexes and the built-in catalog (no network: 'registry sync' refreshes them)",
		flags: []flagDef{{name: "limit", kind: stringFlag, arg: "N", help: "at most N results (default 20)"}},
		run:   (*env).registrySearch},
	{name: "registry show", args: "NAME", summary: "an entry's card: publisher and how verified, repository, version and age, the exact command line, runtime, inputs",
		flags: []flagDef{{name: "registry", kind: stringFlag, arg: "R", help: "only the registry R's entry (a name in two registries)"}},
		run:   (*env).registryShow},
	registryAddRow,
	registryUpgradeRow,
	registryRollbackRow,
	registryOutdatedRow,
}

const registryHelp = `The registries are the config's "registries" (the official one,
https://registry.modelcontextprotocol.io, when it has none). Each has a
local index of its servers' latest versions under Switchboard's state
directory; 'registry sync' updates it (the registry can take 20 s a page:
never on a keystroke). Before the official registry's first sync, a
snapshot built into Switchboard answers. Search and show read the indexes
and the built-in catalog only, with no network. 'registry add' writes an
entry to the config as 'servers add' does, with the card's exact command
line; the values of secret inputs given with --set go to the keyring,
never into the file. An npm package is installed locked first (beside the
state directory, install scripts off, every package's integrity in
servers.lock) and run with 'node ENTRY', never through npx; a PyPI
package into a venv of its own, every file checked against its SHA-256,
run with the venv's python, never through uvx; an OCI image by its
digest ('--unlocked' keeps npx, uvx or the tag). A package runs under the
sandbox its inputs imply; a locked install starts once, its tools
shown and pinned ('--no-start' skips that). 'servers verify' re-checks the
installed trees; 'registry upgrade' shows its diffs before it switches
(three for a locked install), and 'registry rollback' returns to the
previous one.
docs/registry.md says more.
`

// registryState is the config's registries and their indexes' folder.
func (e *env) registryState() ([]config.RegistrySettings, string, error) {
	path, _, err := e.configPath()
	if err != nil {
		return nil, "", err
	}
	f, err := config.Load(path)
	if errors.Is(err, os.ErrNotExist) {
		f, err = config.New(), nil
	}
	if err != nil {
		return nil, "", err
	}
	regs, err := f.Registries()
	if err != nil {
		return nil, "", fmt.Errorf("the config's registries: %w", err)
	}
	state := config.StateDir(e.getenv)
	if state == "" {
		return nil, "", errors.New("no state directory to keep the registries' indexes in (neither XDG_STATE_HOME nor HOME is set): set HOME")
	}
	return regs, registry.Dir(state), nil
}

// registryIndexes loads every configured registry's index.
func (e *env) registryIndexes() ([]*registry.Index, error) {
	regs, dir, err := e.registryState()
	if err != nil {
		return nil, err
	}
	var out []*registry.Index
	for _, r := range regs {
		ix, err := registry.Load(dir, r.Name, r.URL)
		if err != nil {
			return nil, err
		}
		out = append(out, ix)
	}
	return out, nil
}

// registryEntries are every index's entries, then the catalog's.
func registryEntries(ixs []*registry.Index) []registry.Entry {
	var all []registry.Entry
	for _, ix := range ixs {
		all = append(all, ix.Entries...)
	}
	return append(all, registry.CatalogEntries()...)
}

func (e *env) registrySync(a *argv) error {
	if len(a.pos) > 1 {
		return usagef("registry sync takes at most one registry NAME")
	}
	regs, dir, err := e.registryState()
	if err != nil {
		return err
	}
	if len(a.pos) == 1 {
		var only []config.RegistrySettings
		var known []string
		for _, r := range regs {
			known = append(known, r.Name)
			if r.Name == a.pos[0] {
				only = append(only, r)
			}
		}
		if len(only) == 0 {
			return fmt.Errorf("no registry named %q in the config (it has %s): add it to \"registries\" (docs/registry.md)", a.pos[0], english.List(quoteAll(known)))
		}
		regs = only
	}
	if len(regs) == 0 {
		fmt.Fprintln(e.stdout, `The config names no registry ("registries": []): nothing to sync.`)
		return nil
	}
	failed := 0
	for _, r := range regs {
		if err := e.syncOne(dir, r, a.flag("full")); err != nil {
			failed++
			printError(e.stderr, "switchboard:", fmt.Errorf("registry %s: %w", r.Name, err))
		}
	}
	if failed > 0 {
		return exitError{1}
	}
	return nil
}

// syncOne syncs one registry and saves its index (also what a failed
// sync read: the next one starts from the same point).
func (e *env) syncOne(dir string, r config.RegistrySettings, full bool) error {
	c, err := registry.NewClient(r.URL)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// Under the registry's lock, from loading the index to saving it: the
	// host's background sync, or another command, waits or is waited for
	// (registry.SyncLocked).
	ix, res, serr := registry.SyncLocked(ctx, c, registry.Locked{Dir: dir, Name: r.Name, URL: r.URL, Wait: true,
		Waiting: func() {
			fmt.Fprintf(e.stderr, "%s: another sync of this registry is running (the host's, or another command's): waiting for its end (Ctrl-C stops)…\n", r.Name)
		},
		Options: registry.SyncOptions{Full: full, Start: func(ix *registry.Index, full bool) {
			kind := "changes since " + ix.Since.Format(time.RFC3339)
			if full {
				kind = "every server (a full sync)"
			}
			fmt.Fprintf(e.stderr, "%s: reading %s from %s…\n", r.Name, kind, r.URL)
		}, Progress: func(page, servers int) {
			fmt.Fprintf(e.stderr, "%s: page %d, %s\n", r.Name, page, english.Plural(servers, "server"))
		}}})
	if ix == nil {
		return serr
	}
	if serr != nil {
		return fmt.Errorf("%w (the %s read so far are kept; sync again to go on)", serr, english.Plural(res.Pages, "page"))
	}
	fmt.Fprintf(e.stdout, "%s: %s (%d added, %d updated, %d removed, %d newly deprecated)\n", r.Name,
		english.Plural(len(ix.Entries), "server"), res.Added, res.Updated, res.Removed, res.Deprecated)
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// searchResult is a result of 'registry search --json'.
type searchResult struct {
	Name          string   `json:"name"`
	Registry      string   `json:"registry"`
	Title         string   `json:"title,omitempty"`
	Description   string   `json:"description,omitempty"`
	Version       string   `json:"version,omitempty"`
	Status        string   `json:"status"`
	StatusMessage string   `json:"statusMessage,omitempty"`
	Packages      []string `json:"packages,omitempty"` // registryType:identifier
	Remote        bool     `json:"remote,omitempty"`
	Score         float64  `json:"score"`
}

func (e *env) registrySearch(a *argv) error {
	query := strings.TrimSpace(strings.Join(a.pos, " "))
	if query == "" {
		return usagef("registry search needs a QUERY: what the server is for, or its name")
	}
	limit := 20
	if s := a.str("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return usagef("--limit %q is not a number of results (1 or more)", s)
		}
		limit = n
	}
	ixs, err := e.registryIndexes()
	if err != nil {
		return err
	}
	s := registry.NewSearcher(registryEntries(ixs))
	hits := s.Search(query, limit)
	results := make([]searchResult, 0, len(hits))
	for _, h := range hits {
		en := h.Entry
		r := searchResult{Name: en.Server.Name, Registry: en.Registry, Title: en.Server.Title, Description: en.Server.Description,
			Version: en.Server.Version, Status: en.Status, StatusMessage: en.StatusMessage, Remote: len(en.Server.Remotes) > 0, Score: h.Score}
		if r.Status == "" {
			r.Status = registry.StatusActive
		}
		for _, p := range en.Server.Packages {
			r.Packages = append(r.Packages, p.RegistryType+":"+p.Identifier)
		}
		results = append(results, r)
	}
	if e.json {
		return e.printJSON(results)
	}
	if len(results) == 0 {
		fmt.Fprintf(e.stdout, "No server matches %q in %s.\n", termtext.Escape(query), english.Plural(s.Len(), "entry", "entries"))
	} else {
		tw := tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tVERSION\tREGISTRY\tDESCRIPTION")
		for _, r := range results {
			desc := r.Description
			if r.Title != "" {
				desc = r.Title + ": " + desc
			}
			if r.Status == registry.StatusDeprecated {
				desc = "[DEPRECATED] " + desc
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termtext.Escape(r.Name), termtext.Escape(r.Version), r.Registry, termtext.Escape(shorten(desc, 70)))
		}
		_ = tw.Flush()
	}
	e.snapshotNote(e.stdout, ixs)
	return nil
}

// snapshotNote says which indexes were never synced.
func (e *env) snapshotNote(w io.Writer, ixs []*registry.Index) {
	for _, ix := range ixs {
		switch {
		case ix.Snapshot && len(ix.Entries) > 0:
			fmt.Fprintf(w, "(%s: the snapshot built into Switchboard, never synced: 'switchboard registry sync' reads the registry's current entries)\n", ix.Registry)
		case ix.Snapshot:
			fmt.Fprintf(w, "(%s: never synced: 'switchboard registry sync %s' reads it)\n", ix.Registry, ix.Registry)
		}
	}
}

func (e *env) registryShow(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("registry show takes one server NAME (as 'registry search' lists it)")
	}
	en, _, err := e.findEntry(a.pos[0], a.str("registry"))
	if err != nil {
		return err
	}
	card := registry.MakeCard(en, e.serversLookPath(), time.Now())
	if e.json {
		return e.printJSON(card)
	}
	printCard(e.stdout, &card)
	return nil
}

// serversLookPath resolves a command as a server's would be: in the
// PATH the running host gives servers, else the login shell's (which a
// host started now would use), not this terminal's (issue 27 §12).
func (e *env) serversLookPath() func(string) (string, error) {
	ctx := context.Background()
	var path string
	c, err := e.dial(ctx)
	if err == nil && c != nil {
		if hi, err := c.Info(ctx); err == nil {
			path = hi.Path
		}
		c.Close()
	}
	if path == "" {
		path, _ = hostrun.LoginPath(ctx, 5*time.Second)
	}
	return func(cmd string) (string, error) {
		l, err := engine.Resolve(&engine.Spec{Name: cmd, Command: cmd}, path)
		if err != nil {
			return "", err
		}
		return l.Path, nil
	}
}

// printCard writes a card for a person. Everything that comes from the
// registry is escaped: a registry's text is not the terminal's to act on.
func printCard(w io.Writer, c *registry.Card) {
	x := termtext.Escape
	line := func(label, format string, args ...any) {
		fmt.Fprintf(w, "%-12s %s\n", label+":", fmt.Sprintf(format, args...))
	}
	title := c.Name
	if c.Title != "" {
		title = c.Title + " (" + c.Name + ")"
	}
	fmt.Fprintln(w, x(title))
	if c.Description != "" {
		fmt.Fprintln(w, "  "+x(c.Description))
	}
	if c.Status == registry.StatusDeprecated {
		msg := c.StatusMsg
		if msg == "" {
			msg = "no reason given"
		}
		fmt.Fprintf(w, "DEPRECATED by its registry: %s\n", x(msg))
	}
	fmt.Fprintln(w)
	line("registry", "%s", x(c.Registry))
	line("publisher", "%s: %s", x(c.Namespace), x(c.VerifiedText))
	if c.Repository != "" {
		id := ""
		if c.RepositoryID != "" {
			id = " (id " + x(c.RepositoryID) + ")"
		}
		line("repository", "%s%s", x(c.Repository), id)
	}
	if c.Website != "" {
		line("website", "%s", x(c.Website))
	}
	switch {
	case c.Age != "":
		line("version", "%s, published %s ago (%s)", x(c.Version), c.Age, x(c.PublishedAt))
	case c.Version != "":
		line("version", "%s (publish date not known)", x(c.Version))
	}
	for _, ic := range c.Icons {
		line("icon", "%s", x(ic))
	}
	if c.Note != "" {
		line("note", "%s", x(c.Note))
	}
	for i, p := range c.Packages {
		fmt.Fprintln(w)
		ver := ""
		if p.Version != "" {
			ver = " " + p.Version
		}
		fmt.Fprintf(w, "Package %d: %s %s%s, transport %s\n", i+1, x(p.RegistryType), x(p.Identifier), x(ver), x(p.Transport))
		if p.Argv == nil {
			fmt.Fprintf(w, "  cannot run: %s\n", x(p.Unsupported))
			if p.FileSHA256 != "" {
				fmt.Fprintf(w, "  sha-256: %s\n", x(p.FileSHA256))
			}
		} else {
			fmt.Fprintf(w, "  would run:  %s\n", x(install.ArgvLine(p.Argv)))
			fmt.Fprintln(w, "              (an argv, started without a shell; <NAME> is a value to give)")
			fmt.Fprintf(w, "  pinned:     %s\n", x(p.Pin))
			found := "NOT FOUND in the PATH servers get: install it from " + p.RuntimeURL
			if p.RuntimeFound {
				found = "found: " + x(p.RuntimePath)
			}
			fmt.Fprintf(w, "  needs:      %s (%s), %s\n", p.Runtime, p.Argv[0], found)
		}
		if p.TransportURL != "" {
			fmt.Fprintf(w, "  serves at:  %s\n", x(p.TransportURL))
		}
		printInputs(w, "  argument", p.Inputs)
		printInputs(w, "  env", p.Env)
	}
	for i, r := range c.Remotes {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Remote %d: %s %s\n", i+1, x(r.Type), x(r.URL))
		printInputs(w, "  variable", r.Variables)
		printInputs(w, "  header", r.Headers)
	}
	if len(c.Packages) == 0 && len(c.Remotes) == 0 {
		fmt.Fprintln(w, "\nNo package or remote: nothing to run.")
	}
}

// printInputs writes one line per input: its name, whether required and
// secret, its default or choices, its description.
func printInputs(w io.Writer, label string, ins []registry.InputCard) {
	x := termtext.Escape
	for _, in := range ins {
		var tags []string
		if in.Required {
			tags = append(tags, "required")
		} else {
			tags = append(tags, "optional")
		}
		if in.Secret {
			tags = append(tags, "secret")
		}
		if in.Format != "" && in.Format != "string" {
			tags = append(tags, in.Format)
		}
		switch {
		case in.Value != "":
			tags = append(tags, "fixed: "+x(in.Value))
		case in.Default != "":
			tags = append(tags, "default "+x(in.Default))
		}
		if len(in.Choices) > 0 {
			tags = append(tags, "one of "+x(strings.Join(in.Choices, ", ")))
		}
		desc := ""
		if in.Description != "" {
			desc = ": " + x(shorten(in.Description, 100))
		}
		fmt.Fprintf(w, "%s %s (%s)%s\n", label, x(in.Name), strings.Join(tags, ", "), desc)
	}
}
