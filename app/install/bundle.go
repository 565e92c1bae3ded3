package install

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/bundle"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// EcosystemBundle is a bundle's Ecosystem in servers.lock.
const EcosystemBundle = "mcpb"

// BundlesRoot is the store of unpacked bundles: PackagesRoot/bundles,
// one folder per bundle and version (BundleFolder), beside the state
// directory for the reason PackagesRoot gives.
func BundlesRoot(stateDir string) string {
	return filepath.Join(PackagesRoot(stateDir), "bundles")
}

// BundleFolder is where the bundle name at version, whose file (or
// unpacked tree) has the hex SHA-256 sum, is unpacked:
// BundlesRoot/NAME@VERSION-SUM12. Two different files that claim the
// same name and version get two folders.
func BundleFolder(stateDir, name, version, sum string) string {
	if len(sum) > 12 {
		sum = sum[:12]
	}
	return filepath.Join(BundlesRoot(stateDir), safeSegment(name)+"@"+safeSegment(version)+"-"+sum)
}

// safeSegment makes s one path segment: the manifest's name and version
// are the author's text.
func safeSegment(s string) string {
	s = strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
	s = strings.TrimLeft(s, ".")
	if s == "" {
		s = "_"
	}
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// BundleRequest is one bundle to install as a server.
type BundleRequest struct {
	// File is the .mcpb (or .dxt) file; Dir an unpacked bundle instead
	// (Claude Desktop's extension folder), copied under the same
	// limits. Exactly one is given.
	File, Dir string
	// Local is the server's name in the config; "" is the manifest's
	// name made a valid server name.
	Local string
	// Values are user_config values by key, as typed (several for a
	// multiple option). A sensitive option's value goes to the keyring,
	// never into a file.
	Values map[string][]string
	// Insist installs a bundle whose signature is invalid.
	Insist bool
	// WantSHA256 is the file's SHA-256 its registry entry names
	// (fileSha256); "" when it did not come from a registry.
	WantSHA256 string
	// Registry, Entry and EntryVersion name the registry entry it came
	// from ("" for a file the user gave).
	Registry, Entry, EntryVersion string
	// Origin says where a Dir came from, for the lock and the card
	// ("Claude Desktop extension ant.dir.x"); "" for a file.
	Origin   string
	StateDir string
	// LookPath finds node and python in the PATH the host gives servers
	// (nil: this process's PATH).
	LookPath func(string) (string, error)
	// Sandbox says the sandbox can be enforced here; see AddRequest.
	Sandbox bool
	// Roots verify the signature (nil: the system's); Now is the time
	// it is verified at (zero: now).
	Roots *x509.CertPool
	Now   time.Time
	// Dirs are the user's folders (zero: from the home folder).
	Dirs     bundle.Dirs
	Progress io.Writer
	// Opened is the bundle OpenBundle opened already (the CLI opens it
	// first to tell an install from an upgrade); nil: AddBundle opens it.
	Opened *BundleOpened
}

// BundleOpened is a bundle unpacked into the store and read: what an
// install and an upgrade both start from.
type BundleOpened struct {
	Dir       string // its folder in the store
	Manifest  *bundle.Manifest
	Signature bundle.Signature
	SHA256    string // the file's (or, for a Dir, the tree listing's)
	Warnings  []string
	// made says the folder was made now (an undo removes it).
	made bool
}

// Undo removes the folder when OpenBundle made it.
func (o *BundleOpened) Undo() {
	if o.made {
		os.RemoveAll(o.Dir)
		os.Remove(ListingPath(o.Dir))
	}
}

// OpenBundle checks r's bundle and unpacks it into the store: its
// SHA-256 against WantSHA256, its signature (an invalid one refused
// unless Insist), safe unpacking (bundle.Unpack's refusals), every
// manifest problem at once, and its compatibility with this machine.
// A folder of the same name, version and SHA-256 made before is taken
// when its tree is still as unpacked.
func OpenBundle(ctx context.Context, r BundleRequest) (*BundleOpened, error) {
	if (r.File == "") == (r.Dir == "") {
		return nil, errors.New("give a bundle file or an unpacked bundle folder")
	}
	if r.StateDir == "" || !filepath.IsAbs(r.StateDir) {
		return nil, errors.New("no state directory to keep the bundle in (HOME or XDG_STATE_HOME unset?)")
	}
	what := r.File
	if what == "" {
		what = r.Dir
	}
	root := BundlesRoot(r.StateDir)
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(root, ".stage-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(stage)
	tree := filepath.Join(stage, "b")
	o := &BundleOpened{}
	if r.File != "" {
		sig, err := bundle.Verify(r.File, r.Roots, r.Now)
		if err != nil {
			return nil, err
		}
		o.Signature, o.SHA256 = sig, sig.SHA256
		if want := strings.ToLower(r.WantSHA256); want != "" && want != sig.SHA256 {
			return nil, fmt.Errorf("%s is not the bundle its registry entry names: its SHA-256 is %s, the entry's fileSha256 is %s: refused", r.File, sig.SHA256, want)
		}
		if sig.State == bundle.Invalid && !r.Insist {
			return nil, fmt.Errorf("%s has an invalid signature (%s): refused; install it only if you know why, with --insist", r.File, sig.Why)
		}
		if r.Progress != nil {
			fmt.Fprintf(r.Progress, "unpacking %s (SHA-256 %s)…\n", termtext.Escape(r.File), sig.SHA256)
		}
		if err := bundle.Unpack(r.File, tree, bundle.DefaultLimits); err != nil {
			return nil, err
		}
	} else {
		o.Signature = bundle.Signature{State: bundle.Unsigned}
		if err := copyBundleTree(r.Dir, tree, bundle.DefaultLimits); err != nil {
			return nil, err
		}
	}
	data, err := os.ReadFile(filepath.Join(tree, bundle.ManifestName))
	if err != nil {
		return nil, fmt.Errorf("%s has no %s at its root: a bundle needs one", what, bundle.ManifestName)
	}
	m, ps := bundle.ParseManifest(data)
	if ps.Refusing() {
		return nil, fmt.Errorf("%s: its manifest is refused:\n%w", what, refusing(ps))
	}
	for _, p := range ps {
		o.Warnings = append(o.Warnings, p.Error())
	}
	if m.Name == "switchboard" && strings.HasPrefix(filepath.Base(filepath.FromSlash(m.Server.EntryPoint)), "switchboard-bridge") {
		return nil, fmt.Errorf("%s is Switchboard's own bundle (its bridge, for AI apps to reach Switchboard): installed into Switchboard it would make Switchboard a server of itself; add it in Claude Desktop (Settings > Extensions), or connect an app with 'switchboard clients connect APP'", what)
	}
	if m.Server.MCPConfig == nil {
		return nil, fmt.Errorf("%s is a %q bundle without server.mcp_config: Switchboard runs only bundles that say their command (node, python and binary bundles do)", what, m.Server.Type)
	}
	look := r.LookPath
	if look == nil {
		look = exec.LookPath
	}
	if ps := m.Check(ctx, runtime.GOOS, look); ps.Refusing() {
		return nil, fmt.Errorf("%s cannot run here:\n%w", what, refusing(ps))
	}
	lines, err := Listing(tree)
	if err != nil {
		return nil, err
	}
	if o.SHA256 == "" {
		o.SHA256 = strings.TrimPrefix(Integrity(lines), "sha256-")
	}
	o.Manifest = m
	o.Dir = BundleFolder(r.StateDir, m.Name, m.Version, o.SHA256)
	if _, err := os.Lstat(o.Dir); err == nil {
		// Unpacked before (another server, or a reinstall): taken only
		// when its files are still the ones unpacked.
		was, rerr := readListing(o.Dir)
		now, lerr := Listing(o.Dir)
		if rerr != nil || lerr != nil || !slices.Equal(was, now) || !slices.Equal(now, lines) {
			return nil, fmt.Errorf("%s, where %s would go, was changed since it was unpacked (%v): remove that folder and install again", o.Dir, what, errors.Join(rerr, lerr))
		}
		return o, nil
	}
	if err := os.Rename(tree, o.Dir); err != nil {
		return nil, err
	}
	o.made = true
	if err := writeListing(o.Dir, lines); err != nil {
		o.Undo()
		return nil, err
	}
	return o, nil
}

// refusing is the problems of ps that refuse, one per line.
func refusing(ps bundle.Problems) error {
	var out bundle.Problems
	for _, p := range ps {
		if !p.Warning {
			out = append(out, p)
		}
	}
	return out
}

// copyBundleTree copies the unpacked bundle src into dst (which must not
// exist) under limits, refusing what bundle.Unpack refuses in a zip: a
// link, a device or any entry that is neither a file nor a folder.
func copyBundleTree(src, dst string, limits bundle.Limits) error {
	var total int64
	count := 0
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		if count++; count > limits.Entries {
			return fmt.Errorf("%s: more than %d entries: a bundle this large is refused", src, limits.Entries)
		}
		to := filepath.Join(dst, rel)
		switch t := d.Type(); {
		case t.IsDir():
			return os.MkdirAll(to, 0o755)
		case !t.IsRegular():
			return fmt.Errorf("%s: %s is not a file or a folder (%s): refused", src, rel, t)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Size() > limits.PerFile {
			return fmt.Errorf("%s: %s is larger than %d MiB: refused", src, rel, limits.PerFile>>20)
		}
		if total += fi.Size(); total > limits.Total {
			return fmt.Errorf("%s: more than %d MiB in all: refused", src, limits.Total>>20)
		}
		in, err := os.Open(path)
		if err != nil {
			return err
		}
		defer in.Close()
		mode := os.FileMode(0o644)
		if fi.Mode()&0o111 != 0 {
			mode = 0o755
		}
		out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, io.LimitReader(in, limits.PerFile+1))
		return errors.Join(err, out.Close())
	})
}

// BundleEntry is the config entry that runs the bundle m unpacked in
// dir with values: its command, args and env (a sensitive value as the
// keyring reference of secretName(key)), and the sandbox its options
// imply when sandbox is true (BundleSandbox). It returns the entry and
// why the sandbox is what it is, or every problem with the values.
func BundleEntry(m *bundle.Manifest, dir string, dirs bundle.Dirs, values map[string][]string, secretName func(key string) string, sandbox bool) (map[string]any, []string, error) {
	in, ps := bundleInputs(m, values, secretName)
	if strings.Contains(dir, "${") {
		ps = append(ps, bundle.Problem{Key: "__dirname", Message: fmt.Sprintf("the store's folder %q holds \"${\": move the state directory", dir)})
	}
	// Every problem at once: the values' and the expansion's.
	l, eps := m.Expand(dir, dirs, runtime.GOOS, in)
	if eps.Refusing() {
		ps = append(ps, refusing(eps).(bundle.Problems)...)
	}
	// The dynamic loader reads these before any code of the program runs,
	// the sandbox's shim included: a bundle (another author's manifest)
	// may not set them.
	for _, k := range slices.Sorted(maps.Keys(l.Env)) {
		if loaderVariable(k) {
			ps = append(ps, bundle.Problem{Key: "server.mcp_config.env." + k,
				Message: "is read by the dynamic loader before the server (and its sandbox) starts: a bundle may not set it; remove it from the manifest"})
		}
	}
	if len(ps) > 0 {
		return nil, nil, ps
	}
	entry := map[string]any{"command": l.Command, "args": l.Args}
	if len(l.Env) > 0 {
		entry["env"] = l.Env
	}
	var why []string
	if sandbox {
		sb, w := BundleSandbox(m, dir, dirs, values)
		entry["sandbox"], why = sb, w
	}
	return entry, why, nil
}

// bundleInputs turns the values as typed into bundle.Inputs: each
// sensitive key's value stands as its keyring reference. A value may not
// hold "${" (it would be read as a reference in env), except the user's
// folders' variables in a directory or file value.
func bundleInputs(m *bundle.Manifest, values map[string][]string, secretName func(string) string) (bundle.Inputs, bundle.Problems) {
	in := bundle.Inputs{Values: map[string]any{}, Secrets: map[string]string{}}
	var ps bundle.Problems
	for _, k := range slices.Sorted(maps.Keys(values)) {
		vs := values[k]
		o, ok := m.UserConfig[k]
		if !ok {
			ps = append(ps, bundle.Problem{Key: "user_config." + k, Message: fmt.Sprintf("is not an option of this bundle: use %s", strings.Join(append([]string{"none of"}, m.Keys...), " "))})
			continue
		}
		if len(vs) == 0 {
			continue
		}
		if o.Sensitive {
			in.Secrets[k] = config.KeyringRef(secretName(k))
			continue
		}
		for _, v := range vs {
			rest := v
			if o.Type == "directory" || o.Type == "file" {
				for _, s := range []string{"${HOME}", "${DESKTOP}", "${DOCUMENTS}", "${DOWNLOADS}"} {
					rest = strings.ReplaceAll(rest, s, "")
				}
			}
			if strings.Contains(rest, "${") {
				ps = append(ps, bundle.Problem{Key: "user_config." + k, Message: fmt.Sprintf("%q holds \"${\": a value is text, never a reference; give it without", v)})
			}
		}
		if o.Multiple {
			in.Values[k] = slices.Clone(vs)
		} else {
			in.Values[k] = vs[len(vs)-1]
		}
	}
	return in, ps
}

// BundleSandbox is the sandbox a bundle's options imply (as SandboxPreset
// does for a registry entry's inputs): the bundle's own folder read
// only; each directory or file value (given, else its default) read and
// write, or read only when its description says read-only; outbound
// network when an option is sensitive (an API key or token), is named
// like a service's address or key, or has a URL for its value; else
// strict.
func BundleSandbox(m *bundle.Manifest, dir string, dirs bundle.Dirs, values map[string][]string) (*config.Sandbox, []string) {
	sb := &config.Sandbox{Preset: config.SandboxStrict, Object: true, Read: []string{dir}}
	why := []string{"its own folder " + dir + ": read only"}
	sys := strings.NewReplacer("${HOME}", dirs.Home, "${DESKTOP}", dirs.Desktop, "${DOCUMENTS}", dirs.Documents, "${DOWNLOADS}", dirs.Downloads)
	network := ""
	for _, k := range m.Keys {
		o := m.UserConfig[k]
		vs := values[k]
		if len(vs) == 0 {
			switch d := o.Default.(type) {
			case string:
				vs = []string{d}
			case []string:
				vs = d
			}
		}
		up := strings.ToUpper(k)
		switch {
		case network != "":
		case o.Sensitive:
			network = fmt.Sprintf("%s is sensitive (an API key or token): a web API, outbound network", k)
		case hasSuffix(up, "URL", "URI", "ENDPOINT", "HOST") || strings.Contains(up, "API_KEY") || strings.Contains(up, "APIKEY") || strings.Contains(up, "TOKEN"):
			network = fmt.Sprintf("%s names a service's address or key: a web API, outbound network", k)
		case o.Type == "string" && slices.ContainsFunc(vs, isURL):
			network = fmt.Sprintf("%s is a URL: a web API, outbound network", k)
		}
		if o.Type != "directory" && o.Type != "file" {
			continue
		}
		for _, v := range vs {
			p := filepath.Clean(sys.Replace(v))
			if v == "" || !filepath.IsAbs(p) || slices.Contains(sb.Read, p) || slices.Contains(sb.Write, p) {
				continue
			}
			if readOnly(o.Description) || readOnly(o.Title) {
				sb.Read = append(sb.Read, p)
				why = append(why, fmt.Sprintf("%s (a %s you chose, described as read-only): %s, read only", k, o.Type, p))
			} else {
				sb.Write = append(sb.Write, p)
				why = append(why, fmt.Sprintf("%s (a %s you chose): %s, read and write", k, o.Type, p))
			}
			if _, err := os.Stat(p); err != nil {
				why = append(why, fmt.Sprintf("%s does not exist yet: a sandboxed server gets only what exists when it starts (create it first)", p))
			}
		}
	}
	if network != "" {
		sb.Preset = config.SandboxNetwork
		why = append(why, network)
	}
	return sb, why
}

// BundleDirs are the user's folders the manifest's variables name: the
// home folder's Desktop, Documents and Downloads, or where the XDG
// user-dirs file (XDG_CONFIG_HOME/user-dirs.dirs, what desktops write
// on Linux, where a non-English desktop names them otherwise) puts them.
func BundleDirs(home string) bundle.Dirs {
	d := bundle.Dirs{Home: home, Desktop: filepath.Join(home, "Desktop"), Documents: filepath.Join(home, "Documents"), Downloads: filepath.Join(home, "Downloads")}
	cfg := os.Getenv("XDG_CONFIG_HOME")
	if cfg == "" {
		cfg = filepath.Join(home, ".config")
	}
	b, err := os.ReadFile(filepath.Join(cfg, "user-dirs.dirs"))
	if err != nil || home == "" {
		return d
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		v = strings.Trim(v, `"`)
		switch {
		case strings.HasPrefix(v, "$HOME/"):
			v = filepath.Join(home, v[len("$HOME/"):])
		case !filepath.IsAbs(v):
			continue
		}
		switch k {
		case "XDG_DESKTOP_DIR":
			d.Desktop = v
		case "XDG_DOCUMENTS_DIR":
			d.Documents = v
		case "XDG_DOWNLOAD_DIR":
			d.Downloads = v
		}
	}
	return d
}

// AddBundle installs r's bundle as a server: OpenBundle, the entry
// (BundleEntry), its sensitive values in the keyring before the entry
// that refers to them, and its record in servers.lock (the folder's tree
// integrity, so 'servers verify' checks it, and the values as given, so
// an upgrade can carry them over). On any failure nothing is left.
func AddBundle(ctx context.Context, t Target, r BundleRequest) (*Added, error) {
	if r.Local != "" && !config.ValidServerName(r.Local) {
		return nil, fmt.Errorf("the name %q: use 1 to 31 lower-case letters, digits or '-', starting with a letter or digit", r.Local)
	}
	o := r.Opened
	if o == nil {
		var err error
		if o, err = OpenBundle(ctx, r); err != nil {
			return nil, err
		}
	}
	m := o.Manifest
	local := r.Local
	if local == "" {
		local = config.NormalizeName(m.Name)
	}
	if _, err := t.Get(local); err == nil {
		o.Undo()
		return nil, &ExistsError{Name: local}
	}
	if r.Dirs == (bundle.Dirs{}) {
		home, _ := os.UserHomeDir()
		r.Dirs = BundleDirs(home)
	}
	secretName := func(key string) string { return config.SuggestSecretName(local, key) }
	entry, why, err := BundleEntry(m, o.Dir, r.Dirs, r.Values, secretName, r.Sandbox)
	if err != nil {
		o.Undo()
		return nil, fmt.Errorf("%s %s cannot be installed with these values:\n%w", m.Name, m.Version, err)
	}
	added := &Added{Local: local, SandboxWhy: why}
	if sb, ok := entry["sandbox"].(*config.Sandbox); ok {
		if err := checkSandbox(sb); err != nil {
			o.Undo()
			return nil, fmt.Errorf("%s: %w (nothing was installed)", m.Name, err)
		}
		added.Sandbox = sb
	} else {
		added.Unconfined = "the sandbox cannot be enforced on this machine: it runs unconfined, with all your rights ('switchboard doctor' says why)"
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		o.Undo()
		return nil, err
	}
	secrets := map[string]string{}
	plain := map[string][]string{}
	for k, vs := range r.Values {
		if m.UserConfig[k].Sensitive {
			if len(vs) > 0 {
				secrets[k] = vs[len(vs)-1]
			}
		} else if len(vs) > 0 {
			plain[k] = slices.Clone(vs)
		}
	}
	stored, forget, err := storeSecrets(t, secrets, secretName)
	added.Secrets = stored
	if err != nil {
		o.Undo()
		return nil, fmt.Errorf("%w (nothing was installed)", err)
	}
	if err := t.Create(local, raw); err != nil {
		ferr := forget()
		o.Undo()
		return nil, errors.Join(err, ferr)
	}
	rec := BundleRecord(r, o, plain, secrets, secretName)
	added.Raw, added.Locked = raw, rec
	added.Argv = append([]string{entry["command"].(string)}, entry["args"].([]string)...)
	added.Warnings = o.Warnings
	added.LockErr = UpdateLock(r.StateDir, func(l *Lock) { l.Servers[local] = rec })
	if s, err := config.ParseServer(local, raw); err == nil {
		for _, n := range s.Notes(local) {
			added.Notes = append(added.Notes, n.Path()+": "+n.Message)
		}
	}
	return added, nil
}

// BundleRecord is servers.lock's record of the bundle o installed with
// the plain values and the sensitive keys given.
func BundleRecord(r BundleRequest, o *BundleOpened, plain map[string][]string, secrets map[string]string, secretName func(string) string) *Locked {
	m := o.Manifest
	lines, _ := readListing(o.Dir)
	rec := &Locked{Registry: r.Registry, Entry: r.Entry, EntryVersion: r.EntryVersion, Ecosystem: EcosystemBundle,
		Package: m.Name, Version: m.Version, Dir: o.Dir, TreeIntegrity: Integrity(lines),
		InstalledAt: time.Now().UTC().Truncate(time.Second),
		Bundle: &BundleLock{File: r.File, Origin: r.Origin, SHA256: o.SHA256, Signature: SignatureWords(o.Signature),
			Values: plain, Secrets: map[string]string{}}}
	if r.File != "" {
		if abs, err := filepath.Abs(r.File); err == nil {
			rec.Bundle.File = abs
		}
	}
	for k := range secrets {
		rec.Bundle.Secrets[k] = secretName(k)
	}
	if len(plain) == 0 {
		rec.Bundle.Values = nil
	}
	if len(rec.Bundle.Secrets) == 0 {
		rec.Bundle.Secrets = nil
	}
	return rec
}

// SignatureWords is a signature's verdict in a few words: "signed by CN
// (ORG)", "unsigned" or "invalid: WHY".
func SignatureWords(s bundle.Signature) string {
	switch s.State {
	case bundle.Signed:
		w := "signed by " + s.CommonName
		if s.Organization != "" {
			w += " (" + s.Organization + ")"
		}
		return w
	case bundle.Invalid:
		return "invalid: " + s.Why
	}
	return "unsigned"
}

// checkSandbox checks sb as the config checks an entry's sandbox: a path
// too wide to grant (the home folder, a credential folder) is an error
// naming it.
func checkSandbox(sb *config.Sandbox) error {
	raw, err := json.Marshal(map[string]any{"command": "server", "sandbox": sb})
	if err != nil {
		return err
	}
	s, err := config.ParseServer("server", raw)
	if err != nil {
		return err
	}
	if _, ps := s.SandboxPolicy(); len(ps) > 0 {
		var msgs []string
		for _, p := range ps {
			msgs = append(msgs, p.Message)
		}
		return fmt.Errorf("the sandbox its options imply cannot be given: %s", strings.Join(msgs, "; "))
	}
	return nil
}

// storeSecrets stores each value of secrets (by key) in the keyring as
// name(key), refusing a name another server uses. It returns what it
// stored and a forget that removes again the secrets that were new.
func storeSecrets(t Target, secrets map[string]string, name func(string) string) ([]AddedSecret, func() error, error) {
	nothing := func() error { return nil }
	if len(secrets) == 0 {
		return nil, nothing, nil
	}
	list, err := t.ListSecrets()
	if err != nil {
		return nil, nothing, fmt.Errorf("reading the keyring's secrets: %w", err)
	}
	had := map[string]bool{}
	keys := slices.Sorted(maps.Keys(secrets))
	for _, si := range list {
		had[si.Name] = true
		for _, key := range keys {
			if name(key) == si.Name && len(si.UsedBy) > 0 {
				return nil, nothing, fmt.Errorf("the keyring's secret %q, where %s would go, is used by %s: give another name with --name LOCAL", si.Name, key, strings.Join(si.UsedBy, ", "))
			}
		}
	}
	var stored []string
	forget := func() error {
		var errs []error
		for _, s := range stored {
			if err := t.DeleteSecret(s); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, fmt.Errorf("the secret %s stored for it could not be removed (%v): 'switchboard secret rm %s'", s, err, s))
			}
		}
		return errors.Join(errs...)
	}
	var out []AddedSecret
	for _, key := range keys {
		s := name(key)
		if err := t.SetSecret(s, secrets[key]); err != nil {
			return nil, nothing, errors.Join(fmt.Errorf("storing %s in the keyring as %q: %w", key, s, err), forget())
		}
		if !had[s] {
			stored = append(stored, s)
		}
		out = append(out, AddedSecret{Key: key, Name: s, Replaced: had[s]})
	}
	return out, forget, nil
}

// ReadBundleManifest reads the manifest of the bundle unpacked in dir.
func ReadBundleManifest(dir string) (*bundle.Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, bundle.ManifestName))
	if err != nil {
		return nil, err
	}
	m, ps := bundle.ParseManifest(data)
	if ps.Refusing() {
		return nil, fmt.Errorf("%s: %w", dir, refusing(ps))
	}
	return m, nil
}

// loaderVariable reports whether the dynamic loader of Linux (LD_*,
// GCONV_PATH) or macOS (DYLD_*) reads the environment variable name.
func loaderVariable(name string) bool {
	up := strings.ToUpper(name)
	return strings.HasPrefix(up, "LD_") || strings.HasPrefix(up, "DYLD_") || up == "GCONV_PATH"
}
