package install

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
)

// RequirementsFile is the hash-checked requirements of a PyPI install,
// kept in its folder (what package-lock.json is to an npm install): one
// line per package of the tree, NAME==VERSION --hash=sha256:HEX.
const RequirementsFile = "switchboard-requirements.txt"

// Python runs Python 3 to make an install's virtual environment.
type Python struct {
	Path string   // python3's absolute path
	Env  []string // its environment and pip's (nil: this process's)
	// Index is the package index's "simple" URL given to pip
	// (--index-url); "" leaves pip's own setting (PyPI, or the user's
	// pip.conf / PIP_INDEX_URL).
	Index  string
	Output io.Writer // pip's output (nil: dropped; an error quotes its end)
}

// ErrNoPython says python3 is not where servers' PATH would find it.
var ErrNoPython = errors.New("python3 is not in the PATH the host gives servers")

// pypiName is a PyPI project name (PEP 508).
var pypiName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)

// pypiVersion is one exact public version (PEP 440, no range, no
// wildcard, no local part).
var pypiVersion = regexp.MustCompile(`^([1-9][0-9]*!)?[0-9]+(\.[0-9]+)*((a|b|rc)[0-9]+)?(\.post[0-9]+)?(\.dev[0-9]+)?$`)

// normalizePyPI is a project name as PyPI compares them (PEP 503):
// lower case, each run of '-', '_' and '.' one '-'.
func normalizePyPI(name string) string {
	return strings.ToLower(regexp.MustCompile(`[-_.]+`).ReplaceAllString(name, "-"))
}

// SamePackage says whether a and b name the same package of
// ecosystem (PyPI's names compare normalized: "My_Pkg" is "my-pkg").
func SamePackage(ecosystem, a, b string) bool {
	if ecosystem == "pypi" {
		return normalizePyPI(a) == normalizePyPI(b)
	}
	return a == b
}

// PyPIFolder is where version of the PyPI project pkg is installed:
// STATE/packages/pypi/NAME@VERSION (the name normalized).
func PyPIFolder(stateDir, pkg, version string) string {
	return filepath.Join(PackagesRoot(stateDir), "pypi", normalizePyPI(pkg)+"@"+version)
}

// venvPython is a virtual environment's python.
func venvPython(dir string) string {
	if runtime.GOOS == "windows" {
		return filepath.Join(dir, "Scripts", "python.exe")
	}
	return filepath.Join(dir, "bin", "python")
}

// pipResolveArgs is pip's argument vector that resolves spec's whole
// tree once without installing it (--dry-run --report): wheels only (no
// sdist is built, so no package's code runs at install, as npm's
// --ignore-scripts), the report naming each file and the SHA-256 the
// index gives for it.
func pipResolveArgs(index, report, spec string) []string {
	a := []string{"-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--dry-run", "--ignore-installed",
		"--only-binary=:all:", "--report", report}
	if index != "" {
		a = append(a, "--index-url", index)
	}
	return append(a, spec)
}

// pipInstallArgs is pip's argument vector that installs the
// requirements file: every package pinned to one version with its hash,
// which pip checks (--require-hashes), nothing else (--no-deps), wheels
// only.
func pipInstallArgs(index, requirements string) []string {
	a := []string{"-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--require-hashes", "--no-deps",
		"--only-binary=:all:"}
	if index != "" {
		a = append(a, "--index-url", index)
	}
	return append(a, "-r", requirements)
}

// InstallPyPI installs r's PyPI package into a virtual environment of
// its own (or takes the one a server installed before, when it still
// matches its lock), with every package of its tree pinned to the
// version and SHA-256 one resolution gave, and returns what the lock
// records of it. The config entry runs Bin with Args (the venv's python
// calling the package's console script): no resolver at run time.
func InstallPyPI(ctx context.Context, stateDir string, py Python, r Request) (*Locked, error) {
	if !pypiName.MatchString(r.Package) {
		return nil, fmt.Errorf("%q is not a PyPI project name (letters, digits, '-', '_', '.')", r.Package)
	}
	if !pypiVersion.MatchString(r.Version) {
		return nil, fmt.Errorf("%s's version %q is not one exact version (like 1.2.3): a locked install needs one", r.Package, r.Version)
	}
	if stateDir == "" || !filepath.IsAbs(stateDir) {
		return nil, fmt.Errorf("no state directory to install %s into (HOME or XDG_STATE_HOME unset?)", r.Package)
	}
	name := normalizePyPI(r.Package)
	dir := PyPIFolder(stateDir, r.Package, r.Version)
	l := &Locked{Registry: r.Registry, Entry: r.Entry, EntryVersion: r.EntryVersion, Ecosystem: "pypi",
		Package: name, Version: r.Version, Dir: dir, InstalledAt: time.Now().UTC().Truncate(time.Second)}
	if kept, err := reuse(stateDir, dir, name+"=="+r.Version, l); err != nil || kept {
		return l, err
	}

	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".*.tmp")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // gone after the rename; else what a failure left
	work, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".*.work")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	run := func(what string, argv0 string, args ...string) error {
		return runTool(ctx, work, py.Env, py.Output, what, argv0, args...)
	}

	// The virtual environment, with the pip Python ships (ensurepip).
	if err := run("python3 -m venv", py.Path, "-m", "venv", tmp); err != nil {
		return nil, fmt.Errorf("%w (Debian and Ubuntu: apt-get install python3-venv)", err)
	}
	python := venvPython(tmp)
	if out, err := exec.CommandContext(ctx, python, "-m", "pip", "--version").Output(); err != nil {
		return nil, fmt.Errorf("the venv has no pip (%v): Debian and Ubuntu: apt-get install python3-venv", err)
	} else if err := pipNewEnough(string(out)); err != nil {
		return nil, err
	}
	spec := r.Package + "==" + r.Version
	if r.Source != "" {
		spec = r.Source
	}
	// Resolve once: which file of which version of each package, and its
	// SHA-256 as the index gives it.
	report := filepath.Join(work, "report.json")
	if err := run("resolving "+spec+" (pip install --dry-run)", python, pipResolveArgs(py.Index, report, spec)...); err != nil {
		return nil, err
	}
	reqs, err := requirementsFromReport(report, name, r.Version)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, RequirementsFile), []byte(strings.Join(reqs, "\n")+"\n"), 0o600); err != nil {
		return nil, err
	}
	// Install exactly those files, each checked against its hash.
	if err := run("installing "+spec+" (pip install --require-hashes)", python, pipInstallArgs(py.Index, filepath.Join(tmp, RequirementsFile))...); err != nil {
		return nil, err
	}

	script, target, err := consoleScript(tmp, name, r.Version)
	if err != nil {
		return nil, err
	}
	lines, err := Listing(tmp)
	if err != nil {
		return nil, err
	}
	for _, line := range lines {
		if strings.HasPrefix(line, "package ") {
			l.Packages++
		}
	}
	l.TreeIntegrity = Integrity(lines)
	l.Bin = venvPython(dir)
	l.Args = []string{"-c", runCode(script, target)}
	if err := writeListing(dir, lines); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("moving the install into %s: %w", dir, err)
	}
	return l, nil
}

// pipNewEnough checks `pip --version`'s answer ("pip 23.0.1 from ..."):
// the resolution's --report needs pip 22.2 or newer.
func pipNewEnough(version string) error {
	var major, minor int
	if _, err := fmt.Sscanf(version, "pip %d.%d", &major, &minor); err != nil {
		return fmt.Errorf("the venv's pip answered %q to --version: not a pip Switchboard knows", strings.TrimSpace(version))
	}
	if major < 22 || major == 22 && minor < 2 {
		return fmt.Errorf("the venv's pip is %d.%d (the one this Python ships): a locked install needs pip 22.2 or newer (a newer Python, or --unlocked to run it with uvx)", major, minor)
	}
	return nil
}

// requirementsFromReport turns pip's install report into requirements
// lines, NAME==VERSION --hash=sha256:HEX, sorted; the package asked for
// must be in it at its version, and every file must have a SHA-256.
func requirementsFromReport(path, name, version string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("pip's report: %w", err)
	}
	var rep struct {
		Install []struct {
			Metadata struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"metadata"`
			DownloadInfo struct {
				URL         string `json:"url"`
				ArchiveInfo *struct {
					Hash   string            `json:"hash"`
					Hashes map[string]string `json:"hashes"`
				} `json:"archive_info"`
			} `json:"download_info"`
		} `json:"install"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("pip's report: %w", err)
	}
	var reqs []string
	found := false
	for _, it := range rep.Install {
		n, v := normalizePyPI(it.Metadata.Name), it.Metadata.Version
		if !pypiName.MatchString(n) || !pypiVersion.MatchString(v) {
			return nil, fmt.Errorf("pip resolved %q version %q, which is not a plain name and exact version: not used", it.Metadata.Name, v)
		}
		ai := it.DownloadInfo.ArchiveInfo
		var sum string
		if ai != nil {
			sum = ai.Hashes["sha256"]
			if h, ok := strings.CutPrefix(ai.Hash, "sha256="); sum == "" && ok {
				sum = h
			}
		}
		if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(sum) {
			return nil, fmt.Errorf("the index gave no SHA-256 for %s %s (%s): a locked install needs every file's hash", n, v, it.DownloadInfo.URL)
		}
		if n == name {
			if v != version {
				return nil, fmt.Errorf("pip resolved %s %s when asked for %s: not used", n, v, version)
			}
			found = true
		}
		reqs = append(reqs, fmt.Sprintf("%s==%s --hash=sha256:%s", n, v, sum))
	}
	if !found {
		return nil, fmt.Errorf("pip's resolution has no %s %s", name, version)
	}
	slices.Sort(reqs)
	return reqs, nil
}

// requirementsPackages are the package lines of a PyPI install: one per
// line of its requirements file, "package NAME VERSION sha256:HEX".
func requirementsPackages(dir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(dir, RequirementsFile))
	if err != nil {
		return nil, fmt.Errorf("the install's %s: %w", RequirementsFile, err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		n, v, _ := strings.Cut(f[0], "==")
		var hashes []string
		for _, h := range f[1:] {
			if h, ok := strings.CutPrefix(h, "--hash="); ok {
				hashes = append(hashes, h)
			}
		}
		lines = append(lines, fmt.Sprintf("package %s %s %s", quote(n), dash(v), dash(strings.Join(hashes, ","))))
	}
	return lines, nil
}

// pyIdent is a dotted Python name.
var pyIdent = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// consoleScript is the console script the server is: the one named like
// the package, else the only one; target is its "module:attr".
func consoleScript(venv, name, version string) (script, target string, err error) {
	var eps string
	pattern := filepath.Join(venv, "lib", "python*", "site-packages", "*.dist-info", "METADATA")
	if runtime.GOOS == "windows" {
		pattern = filepath.Join(venv, "Lib", "site-packages", "*.dist-info", "METADATA")
	}
	metas, _ := filepath.Glob(pattern)
	for _, m := range metas {
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		var n, v string
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimRight(line, "\r")
			if line == "" {
				break // the headers end
			}
			if s, ok := strings.CutPrefix(line, "Name: "); ok {
				n = normalizePyPI(strings.TrimSpace(s))
			}
			if s, ok := strings.CutPrefix(line, "Version: "); ok {
				v = strings.TrimSpace(s)
			}
		}
		if n == name && v == version {
			b, err := os.ReadFile(filepath.Join(filepath.Dir(m), "entry_points.txt"))
			if err != nil {
				return "", "", fmt.Errorf("%s %s has no console script (no entry_points.txt): there is no program to run (it may be a library, not a server)", name, version)
			}
			eps = string(b)
			break
		}
	}
	if eps == "" {
		return "", "", fmt.Errorf("pip installed no %s %s, or it has no console script", name, version)
	}
	scripts := map[string]string{}
	in := false
	for _, line := range strings.Split(eps, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "["):
			in = line == "[console_scripts]"
		case in && strings.Contains(line, "="):
			k, v, _ := strings.Cut(line, "=")
			scripts[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	pick := ""
	for _, k := range []string{name, strings.ReplaceAll(name, "-", "_")} {
		if _, ok := scripts[k]; ok && pick == "" {
			pick = k
		}
	}
	if pick == "" && len(scripts) == 1 {
		for k := range scripts {
			pick = k
		}
	}
	if pick == "" {
		names := slices.Sorted(func(yield func(string) bool) {
			for k := range scripts {
				if !yield(k) {
					return
				}
			}
		})
		if len(names) == 0 {
			return "", "", fmt.Errorf("%s %s has no console script: there is no program to run (it may be a library, not a server)", name, version)
		}
		return "", "", fmt.Errorf("%s %s has %d console scripts (%s) and none is named %s: Switchboard cannot tell which is the server", name, version, len(names), strings.Join(names, ", "), name)
	}
	target = scripts[pick]
	mod, attr, ok := strings.Cut(target, ":")
	if !ok || !pyIdent.MatchString(strings.TrimSpace(mod)) || !pyIdent.MatchString(strings.TrimSpace(attr)) {
		return "", "", fmt.Errorf("%s's console script %s = %q is not MODULE:FUNCTION", name, pick, target)
	}
	return pick, strings.TrimSpace(mod) + ":" + strings.TrimSpace(attr), nil
}

// runCode is the Python the config entry runs with -c: what the console
// script's own file does (whose #! names the folder it was installed
// in, not where it is now), program name included.
func runCode(script, target string) string {
	mod, attr, _ := strings.Cut(target, ":")
	first, _, _ := strings.Cut(attr, ".")
	return fmt.Sprintf("import sys; sys.argv[0] = %q; from %s import %s; sys.exit(%s())", script, mod, first, attr)
}
