package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/hostrun"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// entryFlags are the flags of servers add and set.
type entryFlags struct {
	env, secretEnv, inherit, unsetEnv []string
	cwd, stderr                       string
	allowTool, denyTool               []string
	disabled, enabled, batch          bool
	clearTools                        bool
}

func (e *env) serversPut(a *argv, create bool) error {
	verb := "set"
	if create {
		verb = "add"
	}
	pos, cmdline := a.pos, a.rest
	ef := entryFlags{env: a.list("env"), secretEnv: a.list("secret-env"), inherit: a.list("inherit-env"),
		cwd: a.str("cwd"), stderr: a.str("stderr"), disabled: a.flag("disabled"), batch: a.flag("allow-batch-files"),
		allowTool: a.list("allow-tool"), denyTool: a.list("deny-tool")}
	if !create {
		ef.unsetEnv, ef.enabled, ef.clearTools = a.list("unset-env"), a.flag("enabled"), a.flag("clear-tool-filter")
	}
	for _, g := range slices.Concat(ef.allowTool, ef.denyTool) {
		if _, err := path.Match(g, ""); err != nil || g == "" {
			return usagef("tool pattern %q is not a valid glob: use * and ? (path.Match), such as read_* or *_file", g)
		}
	}
	if len(pos) != 1 {
		return usagef("servers %s: give one server NAME (then -- COMMAND [ARGS...])", verb)
	}
	sp, err := parseStartPolicy(a) // startpolicy.go
	if err != nil {
		return err
	}
	name := pos[0]
	remote := a.str("url") != ""
	if create && len(cmdline) == 0 && !remote {
		return usagef("servers add %s: give the command after --, e.g. switchboard servers add %s -- npx -y @modelcontextprotocol/server-everything (or a remote server's address: --url URL)", name, name)
	}
	if remote && len(cmdline) > 0 {
		return usagef("servers %s %s: give a command after -- or a remote server's --url, not both", verb, name)
	}
	ctx := context.Background()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()

	entry := map[string]json.RawMessage{}
	if !create {
		raw, err := b.get(name)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(raw, &entry); err != nil {
			return err
		}
	}
	set := func(k string, v any) {
		raw, _ := json.Marshal(v)
		entry[k] = raw
	}
	if len(cmdline) > 0 {
		set("command", cmdline[0])
		set("args", cmdline[1:])
	}
	env := map[string]string{}
	if raw, ok := entry["env"]; ok {
		_ = json.Unmarshal(raw, &env)
	}
	for _, kv := range ef.env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usagef("--env %q: write it as NAME=VALUE", kv)
		}
		if err := config.CheckEnvName(k); err != nil {
			return usagef("--env %q: %v", kv, err)
		}
		env[k] = strings.ReplaceAll(v, "${", "$${") // a literal value, never a reference
	}
	var missing []string
	secretNames := map[string]bool{}
	if len(ef.secretEnv) > 0 {
		if list, err := b.listSecrets(); err == nil {
			for _, s := range list {
				secretNames[s.Name] = true
			}
		}
	}
	for _, kv := range ef.secretEnv {
		k, s, ok := strings.Cut(kv, "=")
		if !ok || k == "" || !config.ValidSecretName(s) {
			return usagef("--secret-env %q: write it as VARIABLE=SECRETNAME (a secret name is letters, digits, '_', '.', '-')", kv)
		}
		if err := config.CheckEnvName(k); err != nil {
			return usagef("--secret-env %q: %v", kv, err)
		}
		env[k] = config.KeyringRef(s)
		if !secretNames[s] {
			missing = append(missing, s)
		}
	}
	for _, k := range ef.unsetEnv {
		if _, ok := env[k]; !ok {
			// A misspelled variable would stay set while the command
			// said "updated": refuse, and say what the entry has.
			have := slices.Sorted(maps.Keys(env))
			if len(have) == 0 {
				return fmt.Errorf("servers %s %s: --unset-env %s: its env has no variables; nothing was changed", verb, name, k)
			}
			return fmt.Errorf("servers %s %s: --unset-env %s: its env has no %s%s, only %s: nothing was changed",
				verb, name, k, k, english.DidYouMean(k, have), english.List(have))
		}
		delete(env, k)
	}
	if len(env) > 0 || entry["env"] != nil {
		set("env", env)
	}
	if len(ef.inherit) > 0 {
		for _, k := range ef.inherit {
			if err := config.CheckEnvName(k); err != nil {
				return usagef("--inherit-env %q: %v", k, err)
			}
		}
		set("inheritEnv", ef.inherit)
	}
	if ef.cwd != "" {
		set("cwd", ef.cwd)
	}
	if t := a.str("trust"); t != "" {
		if !config.ValidTrust(t) {
			return usagef("--trust %q: give pin (hold new and changed tools for review) or auto (accept them)", t)
		}
		set("trust", t)
	}
	if ef.stderr != "" {
		if p, ok := strings.CutPrefix(ef.stderr, "file:"); ok {
			set("stderr", map[string]string{"file": p})
		} else {
			set("stderr", ef.stderr)
		}
	}
	if ef.disabled {
		set("disabled", true)
	}
	if ef.enabled {
		delete(entry, "disabled")
	}
	if ef.batch {
		set("allowBatchFiles", true)
	}
	if err := setToolFilter(entry, ef); err != nil {
		return err
	}
	remoteSecrets, err := setRemote(entry, a, verb, name)
	if err != nil {
		return err
	}
	if err := setSandbox(entry, a); err != nil {
		return err
	}
	if err := sp.checkPolicyTools(name, e.serverTools(b, name)); err != nil {
		return err
	}
	if err := sp.apply(entry); err != nil {
		return err
	}
	if len(remoteSecrets) > 0 {
		if len(secretNames) == 0 {
			if list, err := b.listSecrets(); err == nil {
				for _, s := range list {
					secretNames[s.Name] = true
				}
			}
		}
		for _, s := range remoteSecrets {
			if !secretNames[s] && !slices.Contains(missing, s) {
				missing = append(missing, s)
			}
		}
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		return err
	}
	if err := b.put(name, raw, create); err != nil {
		return err
	}
	if create {
		fmt.Fprintf(e.stdout, "added %s\n", name)
	} else {
		fmt.Fprintf(e.stdout, "updated %s\n", name)
	}
	for _, n := range sp.notes(entry) {
		fmt.Fprintln(e.stdout, n)
	}
	for _, s := range missing {
		fmt.Fprintf(e.stdout, "note: secret %q is not set yet: run 'switchboard secret set %s'\n", s, s)
	}
	if s, err := config.ParseServer(name, raw); err == nil {
		for _, n := range s.Notes(name) {
			fmt.Fprintf(e.stdout, "note: %s: %s\n", n.Path(), termtext.Escape(n.Message))
		}
		e.warnNotFound(b, name, s)
	}
	return nil
}

// serverTools are the names of a server's tools as the running host
// lists them, or nil when they are not known (no host, a server not
// running).
func (e *env) serverTools(b backend, name string) []string {
	hb, ok := b.(*hostBackend)
	if !ok {
		return nil
	}
	tools, err := hb.c.Tools(hb.ctx, name)
	if err != nil || len(tools) == 0 { // not running, or not listed yet
		return nil
	}
	names := make([]string, 0, len(tools))
	for _, t := range tools {
		names = append(names, t.Name)
	}
	return names
}

// warnNotFound says when the host will not find the entry's command: it
// resolves it as the host does, in the PATH the host gives servers (the
// running host's; with none, the login shell's, which a host started now
// would use), not this terminal's.
func (e *env) warnNotFound(b backend, name string, s *config.Server) {
	path, ok := e.hostPath(b)
	if !ok {
		return
	}
	if why, _ := notFound(name, s, path); why != "" {
		fmt.Fprintf(e.stdout, "warning: the host will not find this server's command: %s ('switchboard doctor' shows the PATH the host gives servers)\n", termtext.Escape(why))
	}
}

// hostPath is the PATH the host gives servers: the running host's; with
// none, the login shell's, which a host started now would use. ok is
// false when the running host could not say.
func (e *env) hostPath(b backend) (path string, ok bool) {
	if hb, isHost := b.(*hostBackend); isHost {
		hi, err := hb.c.Info(hb.ctx)
		if err != nil {
			return "", false
		}
		return hi.Path, true
	}
	path, _ = hostrun.LoginPath(context.Background(), 5*time.Second)
	return path, true
}

// notFound says why the host will not find a local entry's command in
// path (the one resolution, hostrun.Statuses, as status and doctor say
// it), and the remedy of its issue (what to install, where), or "" when
// it will, or when the entry is remote.
func notFound(name string, s *config.Server, path string) (why, remedy string) {
	if s.IsRemote() || s.Command == "" {
		return "", ""
	}
	f := config.New()
	f.Servers[name] = s
	for _, st := range hostrun.Statuses(f, path, "") {
		if st.Name != name || st.ResolveError == "" {
			continue
		}
		for _, is := range st.Issues {
			if is.Remedy != nil && is.Remedy.Kind == hostapi.RemedyInstall {
				remedy = is.Remedy.Text
			}
		}
		return st.ResolveError, remedy
	}
	return "", ""
}

// setToolFilter applies --clear-tool-filter, then --allow-tool and
// --deny-tool (each added to its list once) to the entry's "tools".
func setToolFilter(entry map[string]json.RawMessage, ef entryFlags) error {
	if ef.clearTools {
		delete(entry, "tools")
	}
	if len(ef.allowTool)+len(ef.denyTool) == 0 {
		return nil
	}
	// Keep any other key of "tools" as written: the config's check names
	// what it does not know.
	tools := map[string]json.RawMessage{}
	if raw, ok := entry["tools"]; ok {
		if err := json.Unmarshal(raw, &tools); err != nil {
			return fmt.Errorf(`the entry's "tools" is not an object (%s): fix it in the config file, or give --clear-tool-filter`, raw)
		}
	}
	add := func(key string, globs []string) error {
		if len(globs) == 0 {
			return nil
		}
		var list []string
		if raw, ok := tools[key]; ok {
			if err := json.Unmarshal(raw, &list); err != nil {
				return fmt.Errorf(`the entry's "tools.%s" is not a list of strings (%s): fix it in the config file, or give --clear-tool-filter`, key, raw)
			}
		}
		for _, g := range globs {
			if !slices.Contains(list, g) {
				list = append(list, g)
			}
		}
		tools[key], _ = json.Marshal(list)
		return nil
	}
	if err := add("allow", ef.allowTool); err != nil {
		return err
	}
	if err := add("deny", ef.denyTool); err != nil {
		return err
	}
	entry["tools"], _ = json.Marshal(tools)
	return nil
}

// serversRename is 'switchboard servers rename NAME NEWNAME'.
func (e *env) serversRename(a *argv) error {
	if len(a.pos) != 2 {
		return usagef("servers rename: give the server's NAME and its NEWNAME")
	}
	name, newName := a.pos[0], a.pos[1]
	ctx := context.Background()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	if err := b.rename(name, newName); err != nil {
		return err
	}
	if name == newName {
		fmt.Fprintf(e.stdout, "%s: already its name\n", name)
		return nil
	}
	fmt.Fprintf(e.stdout, "renamed %s to %s\n", name, newName)
	fmt.Fprintf(e.stdout, "note: the AI apps now see its tools as %s__TOOL, no longer %s__TOOL\n", newName, name)
	for _, n := range e.renameNotes(name, newName) {
		fmt.Fprintln(e.stdout, n)
	}
	return nil
}

// renameNotes are the notes for the AI apps whose Switchboard entry limits
// the bridge to the servers it names (--servers) and names the renamed
// server: their bridge no longer sees it until the entry names the new
// name. Their files are the user's: the notes say the command that
// updates them, which shows its diff first, rather than change them here.
func (e *env) renameNotes(name, newName string) []string {
	var notes []string
	e.connectedApps(func(app *aiapps.App, path string, b aiapps.Bridge) {
		if !slices.Contains(b.Servers, name) {
			return
		}
		list := slices.Clone(b.Servers)
		list[slices.Index(list, name)] = newName
		notes = append(notes, fmt.Sprintf("note: %s's Switchboard entry (%s) limits it to --servers %s, which names %s: it no longer sees that server until you run 'switchboard clients connect %s --servers %s'",
			app.Name, path, strings.Join(b.Servers, ","), name, app.ID, strings.Join(slices.Compact(list), ",")))
	})
	return notes
}

// connectedApps calls f for each AI app whose config file has a
// Switchboard entry, with the file's path and the entry's bridge; apps
// whose file is absent or cannot be read are left out.
func (e *env) connectedApps(f func(app *aiapps.App, path string, b aiapps.Bridge)) {
	for _, app := range aiapps.Apps() {
		loc, err := app.Locate(e.clientsEnv(), pathExists)
		if err != nil || !loc.Exists {
			continue
		}
		_, doc, err := readClient(app, loc)
		if err != nil {
			continue
		}
		if b, _, ok := doc.Connected(); ok {
			f(app, loc.Path, b)
		}
	}
}

func (e *env) serversFileOp(a *argv, done string) error {
	verb, pos := a.cmd.last(), a.pos
	op := map[string]func(backend, string) error{
		"removed":  func(b backend, n string) error { return b.remove(n) },
		"enabled":  func(b backend, n string) error { return b.setDisabled(n, false) },
		"disabled": func(b backend, n string) error { return b.setDisabled(n, true) },
	}[done]
	if len(pos) != 1 {
		return usagef("servers %s: give one server NAME", verb)
	}
	ctx := context.Background()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	var installDir string // a removed server's locked install
	if done == "removed" {
		if l, err := install.ReadLock(config.StateDir(e.getenv)); err == nil && l.Servers[pos[0]] != nil {
			installDir = l.Servers[pos[0]].Dir
		}
	}
	if err := op(b, pos[0]); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s %s\n", done, pos[0])
	if installDir != "" {
		e.unusedInstallNote(installDir)
	}
	return nil
}

// unusedInstallNote says how to remove a locked install that no entry of
// servers.lock uses any more (the host or the file backend dropped the
// removed server's entry).
func (e *env) unusedInstallNote(dir string) {
	l, err := install.ReadLock(config.StateDir(e.getenv))
	if err != nil {
		return
	}
	for _, other := range l.Servers {
		if filepath.Clean(other.Dir) == filepath.Clean(dir) {
			return
		}
	}
	if _, err := os.Stat(dir); err != nil {
		return
	}
	fmt.Fprintf(e.stdout, "note: its locked install %s is used by no other server: delete that folder and %s beside it to free the space (a later 'registry add' of the same version installs it again)\n",
		termtext.Escape(dir), termtext.Escape(filepath.Base(install.ListingPath(dir))))
}

func (e *env) serversRuntime(verb string, a *argv) error {
	all, pos := a.flag("all"), a.pos
	var err error
	if (len(pos) != 1) == !all || len(pos) > 1 {
		return usagef("servers %s: give one server NAME, or --all", verb)
	}
	ctx := context.Background()
	c, err := e.needHost(ctx, "servers "+verb)
	if err != nil {
		return err
	}
	defer c.Close()
	what := "every server"
	switch {
	case verb == "start" && all:
		err = c.StartAll(ctx)
	case verb == "start":
		err = c.Start(ctx, pos[0])
	case verb == "stop" && all:
		err = c.StopAll(ctx, true)
	case verb == "stop":
		err = c.Stop(ctx, pos[0], true)
	case verb == "restart" && all:
		err = c.RestartAll(ctx)
	default:
		err = c.Restart(ctx, pos[0])
	}
	if err != nil {
		return err
	}
	if !all {
		what = pos[0]
	}
	fmt.Fprintf(e.stdout, "%s: %s\n", verb, what)
	return nil
}

func (e *env) serversImport(a *argv) error {
	move, yes, dry, pos := a.flag("move-secrets"), a.flag("yes"), a.flag("dry-run"), a.pos
	var err error
	if len(pos) != 1 {
		return usagef("servers import: give FILE, or - for stdin")
	}
	var data []byte
	source := pos[0]
	if source == "-" {
		source = "stdin"
		data, err = io.ReadAll(e.stdin)
	} else {
		data, err = os.ReadFile(source)
	}
	if err != nil {
		return fmt.Errorf("servers import: cannot read %s (%w): give a JSON file with a Claude-style \"mcpServers\" block, or - to read it from stdin", source, err)
	}
	servers, skipped, candidates, err := config.ParseImportSkips(data)
	if err != nil {
		// What was read says nothing of where it came from: name it.
		return fmt.Errorf("servers import: %s is not a Claude-style \"mcpServers\" block (%w): give JSON like {\"mcpServers\": {\"files\": {\"command\": \"npx\", \"args\": [...]}}}", source, err)
	}
	for _, s := range skipped {
		printSkip(e.stdout, s)
	}
	ctx := context.Background()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	in := bufio.NewReader(e.stdin)
	ask := func(q string) bool {
		if yes {
			return true
		}
		fmt.Fprintf(e.stdout, "%s [y/N] ", q)
		line, _ := in.ReadString('\n')
		return strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
	}
	// One rule for env and headers (docs/decisions.md): a value that
	// looks like a secret never lands in the config as plain text. Moved
	// into the keyring (--move-secrets), or its entry is not imported.
	moved := map[string]map[string]string{} // server -> var -> secret name
	kept := map[string][]string{}           // server -> keys not moved
	for _, c := range candidates {
		if !move || !ask(fmt.Sprintf("move %s.%s into the keyring as %q?", c.Server, c.Key(), c.Secret)) {
			kept[c.Server] = append(kept[c.Server], c.Key())
			continue
		}
		if err := e.moveSecret(b, c, dry); err != nil {
			return err
		}
		if moved[c.Server] == nil {
			moved[c.Server] = map[string]string{}
		}
		moved[c.Server][c.Var] = c.Secret
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	failed := 0
	for _, orig := range names {
		if keys := kept[orig]; len(keys) > 0 {
			fmt.Fprintf(e.stdout, "not imported: %s: %s\n", orig, keptSecrets(keys, move))
			failed++
			continue
		}
		if _, ok, err := e.importOne(b, orig, servers[orig], moved[orig], dry); err != nil {
			return err
		} else if !ok {
			failed++
		}
	}
	if dry {
		fmt.Fprintln(e.stdout, "dry run: nothing was written (the config and the keyring are as they were)")
	}
	if failed > 0 {
		return exitError{1}
	}
	return nil
}

// importOne adds one imported entry under its normalized name, with the
// variables in moved referring to their keyring secrets, and says so. ok
// is false when the host or the file refused it (reported, not fatal).
func (e *env) importOne(b backend, orig string, s *config.Server, moved map[string]string, dry bool) (name string, ok bool, err error) {
	for v, secret := range moved {
		if err := s.ReferenceSecret(v, secret); err != nil {
			return "", false, err
		}
	}
	name = config.NormalizeName(orig)
	raw, err := json.Marshal(s)
	if err != nil {
		return "", false, err
	}
	if dry {
		// What the put would check: the entry, and that the name is free.
		err := configedit.PutServer(config.New(), name, raw, true) // on an empty config: the entry's own problems
		if _, gerr := b.get(name); err == nil && gerr == nil {
			err = fmt.Errorf("a server named %q is in the config already", name)
		}
		if err != nil {
			printError(e.stdout, "would not import: "+orig+":", err)
			return name, false, nil
		}
		fmt.Fprintf(e.stdout, "would import %s as %s\n", orig, name)
		return name, true, nil
	}
	if err := b.put(name, raw, true); err != nil {
		// The refusal's problems one a line, each with its remedy.
		printError(e.stdout, "not imported: "+orig+":", err)
		return name, false, nil
	}
	if name != orig {
		fmt.Fprintf(e.stdout, "imported %s as %s\n", orig, name)
	} else {
		fmt.Fprintf(e.stdout, "imported %s\n", name)
	}
	return name, true, nil
}

// moveSecret moves an import's literal secret into the keyring (a dry run
// says it would), saying so; an error says nothing of its server was
// imported.
func (e *env) moveSecret(b backend, c config.SecretCandidate, dry bool) error {
	if dry {
		fmt.Fprintf(e.stdout, "would move %s.%s into the keyring as %q\n", c.Server, c.Key(), c.Secret)
		return nil
	}
	if _, err := b.setSecret(c.Secret, c.Value); err != nil {
		return fmt.Errorf("moving %s.%s into the keyring: %w (nothing of this server was imported)", c.Server, c.Key(), err)
	}
	fmt.Fprintf(e.stdout, "moved %s.%s into the keyring as %q\n", c.Server, c.Key(), c.Secret)
	return nil
}

// keptSecrets says why an entry with values that look like secrets, not
// moved into the keyring, is not imported, and the remedy: the one rule of
// `servers import` and `clients import`, for env and headers alike
// (docs/decisions.md): a secret never lands in the config as plain text.
// keys are the entry's keys of those values (env.NAME, headers.NAME);
// move says whether --move-secrets was given (the user answered no).
func keptSecrets(keys []string, move bool) string {
	remedy := "run the import with --move-secrets to move it into the keyring"
	if move {
		remedy = "answer yes to move it into the keyring, or add the server with 'switchboard servers add' and --secret-env"
	}
	return config.KeptSecrets(keys) + ": " + remedy
}
