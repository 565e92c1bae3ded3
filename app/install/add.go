package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// Target is where Add puts an entry and its secrets: the host's API, or
// the config file (under its lock) and the keyring when no host runs.
// The CLI and the host each give theirs; the rules of adding live here
// once.
type Target interface {
	// Get is the config's entry name, or an error when there is none.
	Get(name string) (json.RawMessage, error)
	// Create adds the entry name, refused when one exists.
	Create(name string, entry json.RawMessage) error
	ListSecrets() ([]hostapi.SecretInfo, error)
	SetSecret(name, value string) error
	DeleteSecret(name string) error
}

// AddRequest is one registry entry to add as a server.
type AddRequest struct {
	Entry *registry.Entry
	// Local is the server's name in the config; "" is the entry's name
	// after its namespace.
	Local string
	// Values, Package and Remote are registry.SetupOptions'.
	Values          map[string]string
	Package, Remote int
	// Unlocked runs an npm package with 'npx -y PACKAGE@VERSION'
	// instead of installing it locked.
	Unlocked bool
	StateDir string
	// LookPath finds a program in the PATH the host gives servers (nil:
	// this process's PATH).
	LookPath func(string) (string, error)
	// NPMEnv is the environment npm, python3 and docker run in (a
	// locked install, an image's digest).
	NPMEnv []string
	// PyPIIndex is the package index pip resolves and installs from (its
	// "simple" URL); "": pip's own setting (PyPI).
	PyPIIndex string
	// HTTP downloads an .mcpb bundle (nil: http.DefaultClient).
	HTTP *http.Client
	// Progress receives a line when an install starts (may be nil).
	Progress io.Writer
	// Sandbox says the sandbox can be enforced here (Linux with
	// Landlock): the entry gets the sandbox its inputs imply
	// (SandboxPreset); false: no sandbox key, and Added.Unconfined says so.
	Sandbox bool
}

// AddedSecret is one secret Add stored in the keyring.
type AddedSecret struct {
	Key      string // the input's key (an environment variable, a header)
	Name     string // the keyring's name for it
	Replaced bool   // a secret of that name no server used was replaced
}

// Added is what Add made.
type Added struct {
	Local   string
	Entry   *registry.Entry
	Setup   *registry.Setup
	Raw     json.RawMessage // the config entry
	Argv    []string        // what runs (nil: a remote)
	Locked  *Locked         // the lock's record (Dir "" when not installed locked)
	Secrets []AddedSecret
	// Warnings are things the user should fix for the server to start
	// (a runtime missing from the servers' PATH, a deprecated entry);
	// Notes are the config's notes on the entry.
	Warnings, Notes []string
	// LockErr is set when the entry was added but servers.lock could
	// not be written.
	LockErr error
	// Sandbox is the entry's sandbox (nil: none) and SandboxWhy the
	// rules of SandboxPreset that chose it; Unconfined says why a
	// package runs with no sandbox ("" when it has one, or is a remote).
	Sandbox    *config.Sandbox
	SandboxWhy []string
	Unconfined string
}

// ExistsError is Add's error when the config has a server of the
// chosen name.
type ExistsError struct{ Name string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("a server named %q is in the config already: give another name with --name LOCAL (or remove it first: 'switchboard servers remove %s')", e.Name, e.Name)
}

// DefaultName is the config name an entry gets without --name: its
// name after the namespace, made a valid server name.
func DefaultName(e *registry.Entry) string {
	_, short := registry.SplitName(e.Server.Name)
	return config.NormalizeName(short)
}

// Add adds r's entry as a server: the package (installed locked when it
// is npm and not Unlocked) or the remote, with the values given, its
// secret values in the keyring before the entry that refers to them,
// and its record in servers.lock. On any failure nothing is left: the
// install made now, the secrets stored now and the entry are removed.
func Add(ctx context.Context, t Target, r AddRequest) (*Added, error) {
	en := r.Entry
	local := r.Local
	if local == "" {
		local = DefaultName(en)
	} else if !config.ValidServerName(local) {
		return nil, fmt.Errorf("the name %q: use 1 to 31 lower-case letters, digits or '-', starting with a letter or digit", local)
	}
	secretName := func(key string) string { return config.SuggestSecretName(local, key) }
	o := registry.SetupOptions{Values: r.Values, Package: r.Package, Remote: r.Remote,
		Literal:   func(v string) string { return strings.ReplaceAll(v, "${", "$${") }, // a literal value, never a reference
		SecretRef: func(key string) string { return config.KeyringRef(secretName(key)) }}
	if o.Values == nil {
		o.Values = map[string]string{}
	}
	lookPath := r.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	if n := r.Package; n > 0 && n <= len(en.Server.Packages) && en.Server.Packages[n-1].RegistryType == "mcpb" {
		return addBundle(ctx, t, r, &en.Server.Packages[n-1])
	}
	st, err := registry.MakeSetup(&en.Server, lookPath, o)
	if err != nil {
		return nil, fmt.Errorf("registry add %s: %w", en.Server.Name, err)
	}
	// An npm or PyPI package is installed locked (docs/registry.md,
	// "Locked installs") unless Unlocked: checked here, installed once
	// the name is known to be free. An OCI image runs by its digest,
	// which needs Docker at the add, unless Unlocked (the tag, as the
	// card shows it: a warning when docker is missing).
	var npmPath, pythonPath, dockerPath string
	locked := st.Package != nil && (st.Package.RegistryType == "npm" || st.Package.RegistryType == "pypi") && !r.Unlocked
	if locked && len(st.Package.RuntimeArgs) > 0 {
		return nil, fmt.Errorf("registry add %s: its package gives %s the arguments %s, which a locked install cannot pass: add it with --unlocked to run it with %s",
			en.Server.Name, st.Command, termtext.Escape(ArgvLine(st.Package.RuntimeArgs)), st.Command)
	}
	switch {
	case locked && st.Package.RegistryType == "npm":
		if npmPath, err = lookPath("npm"); err != nil {
			return nil, fmt.Errorf("registry add %s: %w: a locked install needs npm (Node.js: %s), or add it with --unlocked to run it with 'npx -y' (which needs Node.js too, and resolves the package's dependencies at each start)",
				en.Server.Name, ErrNoNPM, st.Package.RuntimeURL)
		}
	case locked && st.Package.RegistryType == "pypi":
		if pythonPath, err = lookPath("python3"); err != nil {
			return nil, fmt.Errorf("registry add %s: %w: a locked install needs Python 3 with its venv module (https://www.python.org/downloads/; Debian and Ubuntu: apt-get install python3 python3-venv), or add it with --unlocked to run it with 'uvx %s==%s' (which needs uv: %s, and resolves the package's dependencies at each start)",
				en.Server.Name, ErrNoPython, st.Package.Identifier, st.Package.Version, st.Package.RuntimeURL)
		}
	case st.Package != nil && st.Package.RegistryType == "oci" && !r.Unlocked:
		if dockerPath, err = lookPath("docker"); err != nil {
			return nil, fmt.Errorf("registry add %s: %w: its package is an OCI image, which needs Docker (install it from %s); nothing was added",
				en.Server.Name, ErrNoDocker, st.Package.RuntimeURL)
		}
	}

	entry := map[string]any{}
	if st.Package != nil {
		entry["command"], entry["args"] = st.Command, st.Args
		if len(st.Env) > 0 {
			entry["env"] = st.Env
		}
	} else {
		entry["url"] = st.URL
		entry["type"] = map[string]string{"streamable-http": config.RemoteHTTP, "sse": config.RemoteSSE}[st.Type]
		if len(st.Headers) > 0 {
			headers := map[string]string{}
			for k, v := range st.Headers {
				headers[textproto.CanonicalMIMEHeaderKey(k)] = v // as 'servers add --header' writes them
			}
			entry["headers"] = headers
		}
	}
	sb, sbWhy, unconfined, err := entrySandbox(r, st)
	if err != nil {
		return nil, fmt.Errorf("registry add %s: %w (nothing was added)", en.Server.Name, err)
	}
	if sb != nil {
		entry["sandbox"] = sb
	}
	if _, err := t.Get(local); err == nil {
		return nil, &ExistsError{Name: local}
	}
	rec := &Locked{Registry: en.Registry, Entry: en.Server.Name, EntryVersion: en.Server.Version, InstalledAt: time.Now().UTC().Truncate(time.Second)}
	if p := st.Package; p != nil {
		rec.Ecosystem, rec.Package, rec.Version = p.RegistryType, p.Identifier, p.Version
	} else {
		rec.Ecosystem = "remote"
	}
	undoInstall := func() {}
	switch {
	case npmPath != "":
		lk, undo, err := installNPM(ctx, r, npmPath, local, st)
		if err != nil {
			return nil, fmt.Errorf("registry add %s: %w (nothing was added)", en.Server.Name, err)
		}
		rec, undoInstall = lk, undo
		entry["command"], entry["args"] = "node", append([]string{lk.Bin}, st.Package.PackageArgs...)
	case pythonPath != "":
		lk, undo, err := installPyPI(ctx, r, pythonPath, local, st)
		if err != nil {
			return nil, fmt.Errorf("registry add %s: %w (nothing was added)", en.Server.Name, err)
		}
		rec, undoInstall = lk, undo
		entry["command"], entry["args"] = lk.Bin, append(slices.Clone(lk.Args), st.Package.PackageArgs...)
	case dockerPath != "":
		image, err := PinImage(ctx, Docker{Path: dockerPath, Env: r.NPMEnv}, st.Package.Identifier, st.Package.Version)
		if err != nil {
			return nil, fmt.Errorf("registry add %s: %w (nothing was added; --unlocked runs the image by its tag)", en.Server.Name, err)
		}
		args := slices.Clone(st.Args)
		args[len(args)-len(st.Package.PackageArgs)-1] = image
		entry["args"] = args
		rec.Image = image
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		undoInstall()
		return nil, err
	}
	// The secrets first (the entry refers to them), each under the
	// entry's name; if the entry is refused, those that were new are
	// removed again. A secret of that name that another server uses is
	// never replaced.
	added := &Added{Local: local, Entry: en, Setup: st, Raw: raw, Locked: rec, Sandbox: sb, SandboxWhy: sbWhy, Unconfined: unconfined}
	stored, forget, err := storeSecrets(t, st.Secrets, secretName)
	if err != nil {
		undoInstall()
		return nil, fmt.Errorf("%w (nothing was added)", err)
	}
	added.Secrets = stored
	if err := t.Create(local, raw); err != nil {
		ferr := forget()
		undoInstall()
		return nil, errors.Join(err, ferr)
	}
	added.LockErr = UpdateLock(r.StateDir, func(l *Lock) { l.Servers[local] = rec })

	if st.Package != nil {
		added.Argv = append([]string{entry["command"].(string)}, entry["args"].([]string)...)
	}
	if en.Deprecated() {
		added.Warnings = append(added.Warnings, "its registry marks it deprecated: "+en.StatusMessage)
	}
	if _, err := lookPath("node"); npmPath != "" && err != nil {
		added.Warnings = append(added.Warnings, "node (Node.js) is not in the PATH the host gives servers: the server will not start until it is ('switchboard doctor' shows that PATH)")
	}
	if p := st.Package; p != nil && !p.RuntimeFound && !locked {
		added.Warnings = append(added.Warnings, fmt.Sprintf("%s (%s) is not in the PATH the host gives servers: install it from %s; the server will not start until then ('switchboard doctor' shows that PATH)",
			st.Command, p.Runtime, p.RuntimeURL))
	}
	if s, err := config.ParseServer(local, raw); err == nil {
		for _, n := range s.Notes(local) {
			added.Notes = append(added.Notes, n.Path()+": "+n.Message)
		}
	}
	return added, nil
}

// entrySandbox is the sandbox of the entry Add writes (SandboxPreset)
// when the sandbox can be enforced here, checked as the config checks
// it: a path too wide to grant (the home folder, a credential folder)
// is an error naming it.
func entrySandbox(r AddRequest, st *registry.Setup) (*config.Sandbox, []string, string, error) {
	if st.Package == nil {
		return nil, nil, "", nil
	}
	if !r.Sandbox {
		return nil, nil, "the sandbox cannot be enforced on this machine: it runs unconfined, with all your rights ('switchboard doctor' says why)", nil
	}
	sb, why := SandboxPreset(&r.Entry.Server, st, r.Values)
	if sb == nil {
		return nil, nil, "Docker isolates it (a container); Switchboard's sandbox is not applied to the docker command", nil
	}
	raw, err := json.Marshal(map[string]any{"command": "server", "sandbox": sb})
	if err != nil {
		return nil, nil, "", err
	}
	s, err := config.ParseServer("server", raw)
	if err != nil {
		return nil, nil, "", err
	}
	if _, ps := s.SandboxPolicy(); len(ps) > 0 {
		var msgs []string
		for _, p := range ps {
			msgs = append(msgs, p.Message)
		}
		return nil, nil, "", fmt.Errorf("the sandbox its inputs imply cannot be given: %s", strings.Join(msgs, "; "))
	}
	return sb, why, "", nil
}

// installNPM installs the npm package of st locked into the state
// directory and returns its lock entry, and an undo that removes the
// install again when it was made now (not one another server had).
func installNPM(ctx context.Context, r AddRequest, npmPath, local string, st *registry.Setup) (*Locked, func(), error) {
	p := st.Package
	dir := Folder(r.StateDir, p.Identifier, p.Version)
	_, statErr := os.Stat(dir)
	existed := statErr == nil
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, "installing %s@%s into %s (npm, install scripts off)…\n", termtext.Escape(p.Identifier), termtext.Escape(p.Version), termtext.Escape(dir))
	}
	environ := r.NPMEnv
	if path := filepath.Dir(npmPath); path != "" {
		// npm's own "#!/usr/bin/env node" finds the node beside it first.
		environ = append(slices.Clip(environ), "PATH="+path+string(os.PathListSeparator)+pathOf(environ))
	}
	en := r.Entry
	lk, err := InstallNPM(ctx, r.StateDir, NPM{Path: npmPath, Env: environ},
		Request{Server: local, Registry: en.Registry, Entry: en.Server.Name, EntryVersion: en.Server.Version, Package: p.Identifier, Version: p.Version})
	if err != nil {
		return nil, nil, err
	}
	return lk, undoFolder(dir, existed), nil
}

// addBundle downloads an .mcpb package's file, checks it against its
// fileSha256 (a file that is not the entry's is refused before it is
// opened), and installs it as AddBundle does, with the registry entry
// in its lock record.
func addBundle(ctx context.Context, t Target, r AddRequest, p *registry.Package) (*Added, error) {
	c := r.HTTP
	if c == nil {
		c = http.DefaultClient
	}
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, "downloading the bundle %s and checking its SHA-256…\n", termtext.Escape(p.Identifier))
	}
	path, err := FetchBundle(ctx, c, r.StateDir, p.Identifier, p.FileSHA256)
	if err != nil {
		return nil, fmt.Errorf("registry add %s: %w (nothing was added)", r.Entry.Server.Name, err)
	}
	values := map[string][]string{}
	for k, v := range r.Values {
		values[k] = []string{v}
	}
	en := r.Entry
	local := r.Local
	if local == "" {
		local = DefaultName(en)
	}
	added, err := AddBundle(ctx, t, BundleRequest{File: path, Local: local, Values: values, WantSHA256: p.FileSHA256,
		Registry: en.Registry, Entry: en.Server.Name, EntryVersion: en.Server.Version,
		StateDir: r.StateDir, LookPath: r.LookPath, Sandbox: r.Sandbox, Progress: r.Progress})
	if err != nil {
		return nil, fmt.Errorf("registry add %s: %w (nothing was added)", en.Server.Name, err)
	}
	added.Entry = en
	added.Setup = &registry.Setup{Command: added.Argv[0], Args: added.Argv[1:],
		Package: &registry.PackageCard{RegistryType: "mcpb", Identifier: p.Identifier, Version: added.Locked.Version},
		Chosen:  fmt.Sprintf("bundle %s %s (%s)", added.Locked.Package, added.Locked.Version, added.Locked.Bundle.Signature)}
	return added, nil
}

// installPyPI installs the PyPI package of st locked into the state
// directory (installNPM's twin).
func installPyPI(ctx context.Context, r AddRequest, pythonPath, local string, st *registry.Setup) (*Locked, func(), error) {
	p := st.Package
	dir := PyPIFolder(r.StateDir, p.Identifier, p.Version)
	_, statErr := os.Stat(dir)
	existed := statErr == nil
	if r.Progress != nil {
		fmt.Fprintf(r.Progress, "installing %s==%s into %s (a Python venv, every file hash-checked, wheels only)…\n", termtext.Escape(p.Identifier), termtext.Escape(p.Version), termtext.Escape(dir))
	}
	en := r.Entry
	lk, err := InstallPyPI(ctx, r.StateDir, Python{Path: pythonPath, Env: r.NPMEnv, Index: r.PyPIIndex},
		Request{Server: local, Registry: en.Registry, Entry: en.Server.Name, EntryVersion: en.Server.Version, Package: p.Identifier, Version: p.Version})
	if err != nil {
		return nil, nil, err
	}
	return lk, undoFolder(dir, existed), nil
}

// pathOf is PATH's value in environ (the last one wins, as exec does).
func pathOf(environ []string) string {
	v := ""
	for _, kv := range environ {
		if s, ok := strings.CutPrefix(kv, "PATH="); ok {
			v = s
		}
	}
	return v
}

// ArgvLine is an argv for reading: each argument that holds a space or
// a quote is single-quoted (for reading only: nothing runs it in a shell).
func ArgvLine(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t'\"\\$`") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return strings.Join(out, " ")
}
