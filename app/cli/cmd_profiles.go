package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// The profiles commands: through the running host's API when one runs,
// else on the file under its lock, with the same configedit edits.

const profilesHelp = `A profile is a named selection of servers and tools in the config
("profiles"), which an app's bridge asks for with --profile NAME
('switchboard clients connect APP --profile NAME' writes it). Tool patterns
are path.Match globs on the names the apps see (SERVER__TOOL, such as
files__write_*); deny wins; no --allow lets every tool through. A profile
that names a server the config lacks is reported, and works with the
others. Editing a profile changes what connected apps see at once; no
server restarts.
`

// profileOps are the profile edits, on the host or on the file.
type profileOps struct {
	list   func() ([]hostapi.ProfileInfo, error)
	put    func(name string, p hostapi.ProfileEntry) error
	remove func(name string) error
	rename func(name, newName string) error
}

func (e *env) profileOps(ctx context.Context) (profileOps, func(), error) {
	b, err := e.backend(ctx)
	if err != nil {
		return profileOps{}, nil, err
	}
	switch b := b.(type) {
	case *hostBackend:
		return profileOps{
			list:   func() ([]hostapi.ProfileInfo, error) { return b.c.Profiles(b.ctx) },
			put:    func(n string, p hostapi.ProfileEntry) error { return b.c.PutProfile(b.ctx, n, p) },
			remove: func(n string) error { return b.c.RemoveProfile(b.ctx, n) },
			rename: func(n, nn string) error { return b.c.RenameProfile(b.ctx, n, nn) },
		}, b.close, nil
	case *fileBackend:
		return profileOps{
			list: func() ([]hostapi.ProfileInfo, error) {
				f, err := config.Load(b.path)
				if errors.Is(err, os.ErrNotExist) {
					f, err = config.New(), nil
				}
				if err != nil {
					return nil, err
				}
				return configedit.ListProfiles(f), nil
			},
			put: func(n string, p hostapi.ProfileEntry) error {
				return b.update(func(f *config.File) error { return configedit.PutProfile(f, n, p) })
			},
			remove: func(n string) error {
				return b.update(func(f *config.File) error { return configedit.RemoveProfile(f, n) })
			},
			rename: func(n, nn string) error {
				return b.update(func(f *config.File) error { return configedit.RenameProfile(f, n, nn) })
			},
		}, b.close, nil
	}
	b.close()
	return profileOps{}, nil, fmt.Errorf("profiles: no way to reach the config")
}

// profilesList is 'profiles [list]'.
func (e *env) profilesList(a *argv) error {
	ops, done, err := e.profileOps(context.Background())
	if err != nil {
		return err
	}
	defer done()
	ps, err := ops.list()
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(ps)
	}
	if len(ps) == 0 {
		fmt.Fprintln(e.stdout, "no profiles; add one with 'switchboard profiles set NAME --servers a,b'")
		return nil
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "PROFILE\tSERVERS\tTOOLS\tMODE")
	for _, p := range ps {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termtext.Escape(p.Name), termtext.Escape(ServersText(p.ProfileEntry)),
			termtext.Escape(ToolRulesText(p.ProfileEntry)), termtext.Escape(modeText(p.ToolMode)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range ps {
		for _, pr := range p.Problems {
			what := "problem"
			if pr.Warning {
				what = "note"
			}
			fmt.Fprintf(e.stdout, "%s: %s: %s\n", what, termtext.Escape(p.Name), termtext.Escape(pr.Message))
		}
	}
	return nil
}

// ServersText is a profile's servers for a table: "every server", or the
// names.
func ServersText(p hostapi.ProfileEntry) string {
	if p.Servers == nil {
		return "every server"
	}
	if len(p.Servers) == 0 {
		return "none"
	}
	return strings.Join(p.Servers, ",")
}

// ToolRulesText is a profile's tool rules for a table.
func ToolRulesText(p hostapi.ProfileEntry) string {
	var parts []string
	if len(p.Allow) > 0 {
		parts = append(parts, "allow "+strings.Join(p.Allow, ","))
	}
	if len(p.Deny) > 0 {
		parts = append(parts, "deny "+strings.Join(p.Deny, ","))
	}
	if len(parts) == 0 {
		return "every tool"
	}
	return strings.Join(parts, "; ")
}

func modeText(m string) string {
	if m == "" {
		return config.ToolModeAll
	}
	return m
}

// profilesSet is 'profiles set NAME [flags]': a new profile, or a change
// of the fields the flags name (the others stay).
func (e *env) profilesSet(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("profiles set: give one profile NAME")
	}
	name := a.pos[0]
	mode := a.str("tool-mode")
	if !config.ValidToolMode(mode) {
		return usagef("profiles set: --tool-mode %q: use all or search", mode)
	}
	for _, p := range append(a.list("allow"), a.list("deny")...) {
		if err := (bridge.Filter{Tools: []string{p}}).Check(); err != nil {
			return usagef("profiles set: %v", err)
		}
	}
	ops, done, err := e.profileOps(context.Background())
	if err != nil {
		return err
	}
	defer done()
	ps, err := ops.list()
	if err != nil {
		return err
	}
	var p hostapi.ProfileEntry
	existed := false
	if i := slices.IndexFunc(ps, func(p hostapi.ProfileInfo) bool { return p.Name == name }); i >= 0 {
		p, existed = ps[i].ProfileEntry, true
	}
	if a.flag("all-servers") {
		p.Servers = nil
	}
	if s := a.list("servers"); len(s) > 0 {
		p.Servers = []string{}
		for _, v := range s {
			for _, n := range bridge.SplitServers(v) {
				if !slices.Contains(p.Servers, n) {
					p.Servers = append(p.Servers, n)
				}
			}
		}
	}
	if a.flag("clear-tools") {
		p.Allow, p.Deny = nil, nil
	}
	if l := a.list("allow"); len(l) > 0 {
		p.Allow = l
	}
	if l := a.list("deny"); len(l) > 0 {
		p.Deny = l
	}
	if mode != "" {
		p.ToolMode = mode
	}
	if err := ops.put(name, p); err != nil {
		return err
	}
	verb := "added"
	if existed {
		verb = "changed"
	}
	fmt.Fprintf(e.stdout, "%s profile %s: servers %s; tools %s; mode %s\n", verb, name, ServersText(p), ToolRulesText(p), modeText(p.ToolMode))
	if ps, err := ops.list(); err == nil {
		for _, info := range ps {
			if info.Name == name {
				for _, s := range info.Missing {
					fmt.Fprintf(e.stdout, "note: server %q is not in the config (yet): the profile works with its other servers, and shows it once it is added\n", s)
				}
			}
		}
	}
	if !existed {
		fmt.Fprintf(e.stdout, "connect an app with it: switchboard clients connect APP --profile %s\n", name)
	}
	return nil
}

// profilesRemove is 'profiles rm NAME'.
func (e *env) profilesRemove(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("profiles rm: give one profile NAME")
	}
	ops, done, err := e.profileOps(context.Background())
	if err != nil {
		return err
	}
	defer done()
	if err := ops.remove(a.pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "removed profile %s\n", a.pos[0])
	for _, n := range e.profileNotes(a.pos[0], "") {
		fmt.Fprintln(e.stdout, n)
	}
	return nil
}

// profilesRename is 'profiles rename OLD NEW'.
func (e *env) profilesRename(a *argv) error {
	if len(a.pos) != 2 {
		return usagef("profiles rename: give the profile's NAME and its NEWNAME")
	}
	name, newName := a.pos[0], a.pos[1]
	ops, done, err := e.profileOps(context.Background())
	if err != nil {
		return err
	}
	defer done()
	if err := ops.rename(name, newName); err != nil {
		return err
	}
	if name == newName {
		fmt.Fprintf(e.stdout, "%s: already its name\n", name)
		return nil
	}
	fmt.Fprintf(e.stdout, "renamed profile %s to %s\n", name, newName)
	for _, n := range e.profileNotes(name, newName) {
		fmt.Fprintln(e.stdout, n)
	}
	return nil
}

// profileNotes are the notes for the AI apps whose Switchboard entry
// names the profile name (--profile), renamed to newName ("": removed):
// their bridge sees no tools until the entry names a profile that exists.
// Their files are the user's: the notes say the command that updates
// them, which shows its diff first.
func (e *env) profileNotes(name, newName string) []string {
	var notes []string
	e.connectedApps(func(app *aiapps.App, path string, b aiapps.Bridge) {
		if b.Profile != name {
			return
		}
		fix := fmt.Sprintf("'switchboard clients connect %s --profile %s'", app.ID, newName)
		if newName == "" {
			fix = fmt.Sprintf("'switchboard clients connect %s' (every server) or --profile with another profile", app.ID)
		}
		if len(b.Servers) > 0 {
			fix = strings.TrimSuffix(fix, "'") + " --servers " + strings.Join(b.Servers, ",") + "'"
		}
		notes = append(notes, fmt.Sprintf("note: %s's Switchboard entry (%s) names --profile %s: it sees no tools until you run %s",
			app.Name, path, name, fix))
	})
	return notes
}
