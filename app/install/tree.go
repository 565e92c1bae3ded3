package install

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/bundle"
	"github.com/switchboard-mcp/switchboard/app/config"
)

// Listing is what an install's tree integrity is the hash of: sorted
// lines, one per package of package-lock.json (npm) or of the
// hash-checked requirements (pypi) and one per thing under the install
// folder:
//
//	package PATH VERSION INTEGRITY   (npm: PATH as the lockfile names it, node_modules/a/node_modules/b, "-" for a missing field; pypi: the normalized name and sha256:HEX)
//	file PATH SHA256 MODE            (MODE "x" for an executable file, else "-")
//	link PATH TARGET                 (a symbolic link, not followed)
//	other PATH                       (anything else but a folder)
//
// PATHs are relative to the folder, with forward slashes. A PATH with a
// space or a line break is quoted (Go's %q) so that a line is always
// one thing. The listing of a fresh install is kept beside the folder
// (DIR.tree) so that Verify can name what changed.
func Listing(dir string) ([]string, error) {
	var lines []string
	var err error
	_, bundleErr := os.Stat(filepath.Join(dir, "manifest.json"))
	_, lockErr := os.Stat(filepath.Join(dir, "package-lock.json"))
	if _, serr := os.Stat(filepath.Join(dir, RequirementsFile)); serr == nil {
		lines, err = requirementsPackages(dir)
	} else if bundleErr == nil && lockErr != nil {
		// An MCP bundle without a package-lock.json: its files only.
	} else {
		lines, err = npmPackages(dir)
	}
	if err != nil {
		return nil, err
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		rel = quote(filepath.ToSlash(rel))
		switch t := d.Type(); {
		case t.IsDir():
		case t&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			lines = append(lines, fmt.Sprintf("link %s %s", rel, quote(filepath.ToSlash(target))))
		case t.IsRegular():
			sum, err := bundle.FileSHA256(path)
			if err != nil {
				return err
			}
			mode := "-"
			if fi, err := d.Info(); err == nil && fi.Mode()&0o111 != 0 {
				mode = "x"
			}
			lines = append(lines, fmt.Sprintf("file %s %s %s", rel, sum, mode))
		default:
			lines = append(lines, "other "+rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(lines)
	return lines, nil
}

// npmPackages are the package lines of an npm install: one per package
// of its package-lock.json.
func npmPackages(dir string) ([]string, error) {
	var lines []string
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return nil, fmt.Errorf("the install's package-lock.json: %w", err)
	}
	var pl struct {
		Packages map[string]struct {
			Version   string `json:"version"`
			Integrity string `json:"integrity"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(lock, &pl); err != nil {
		return nil, fmt.Errorf("the install's package-lock.json: %w", err)
	}
	for p, e := range pl.Packages {
		if p == "" {
			continue // the install folder's own package.json
		}
		lines = append(lines, fmt.Sprintf("package %s %s %s", quote(p), dash(e.Version), dash(e.Integrity)))
	}
	return lines, nil
}

// Integrity is the tree integrity of a listing: "sha256-" and the hex
// SHA-256 of its lines, each ended by "\n".
func Integrity(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		io.WriteString(h, l+"\n")
	}
	return "sha256-" + hex.EncodeToString(h.Sum(nil))
}

// ListingPath is where the listing of the install at dir is kept.
func ListingPath(dir string) string { return filepath.Clean(dir) + ".tree" }

func writeListing(dir string, lines []string) error {
	return config.WriteFile(ListingPath(dir), []byte(strings.Join(lines, "\n")+"\n"))
}

func readListing(dir string) ([]string, error) {
	b, err := os.ReadFile(ListingPath(dir))
	if err != nil {
		return nil, err
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"), nil
}

// Verify re-checks an install against its lock: nil when the tree is as
// installed, else what changed, one line each (a package whose
// integrity or version differs, a file added, removed or changed, a
// link changed), at most max lines and a count of the rest.
func Verify(l *Locked, max int) ([]string, error) {
	if _, err := os.Stat(l.Dir); err != nil {
		return []string{fmt.Sprintf("the install folder %s is gone (%v)", l.Dir, errors.Unwrap(err))}, nil
	}
	now, err := Listing(l.Dir)
	if err != nil {
		return []string{err.Error()}, nil
	}
	if Integrity(now) == l.TreeIntegrity {
		return nil, nil
	}
	was, err := readListing(l.Dir)
	switch {
	case err != nil:
		return []string{fmt.Sprintf("the tree's integrity is %s, its lock says %s; what changed cannot be named: its listing %s cannot be read (%v)",
			Integrity(now), l.TreeIntegrity, ListingPath(l.Dir), err)}, nil
	case Integrity(was) != l.TreeIntegrity:
		return []string{fmt.Sprintf("the tree's integrity is %s, its lock says %s; what changed cannot be named: its listing %s was changed too",
			Integrity(now), l.TreeIntegrity, ListingPath(l.Dir))}, nil
	}
	changes := Diff(was, now)
	if len(changes) > max && max > 0 {
		changes = append(changes[:max], fmt.Sprintf("and %d more", len(changes)-max))
	}
	return changes, nil
}

// Diff names what differs between two listings: by kind and path, in
// path order.
func Diff(was, now []string) []string {
	type item struct{ kind, path, rest string }
	split := func(lines []string) map[string]item {
		m := map[string]item{}
		for _, l := range lines {
			kind, after, _ := strings.Cut(l, " ")
			path, rest := splitPath(after)
			m[kind+" "+path] = item{kind, path, rest}
		}
		return m
	}
	a, b := split(was), split(now)
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.SortFunc(sorted, func(x, y string) int {
		_, px, _ := strings.Cut(x, " ")
		_, py, _ := strings.Cut(y, " ")
		return strings.Compare(px+" "+x, py+" "+y)
	})
	var out []string
	for _, k := range sorted {
		o, inA := a[k]
		n, inB := b[k]
		it := n
		if !inB {
			it = o
		}
		what := map[string]string{"package": "package", "file": "file", "link": "link", "other": "special file"}[it.kind]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("%s %s: added", what, it.path))
		case !inB:
			out = append(out, fmt.Sprintf("%s %s: removed", what, it.path))
		case o.rest == n.rest:
		case it.kind == "package":
			out = append(out, fmt.Sprintf("package %s: was %s, now %s", it.path, o.rest, n.rest))
		case it.kind == "file":
			ho, mo, _ := strings.Cut(o.rest, " ")
			hn, mn, _ := strings.Cut(n.rest, " ")
			switch {
			case ho != hn:
				out = append(out, fmt.Sprintf("file %s: changed (SHA-256 was %s, now %s)", it.path, short(ho), short(hn)))
			case mo != mn:
				out = append(out, fmt.Sprintf("file %s: its executable bit changed", it.path))
			}
		default:
			out = append(out, fmt.Sprintf("%s %s: was %s, now %s", what, it.path, o.rest, n.rest))
		}
	}
	return out
}

// splitPath splits "PATH REST" (PATH maybe quoted).
func splitPath(s string) (path, rest string) {
	if strings.HasPrefix(s, `"`) {
		for i := 1; i < len(s); i++ {
			if s[i] == '\\' {
				i++
				continue
			}
			if s[i] == '"' {
				path, rest = s[:i+1], strings.TrimPrefix(s[i+1:], " ")
				return path, rest
			}
		}
	}
	path, rest, _ = strings.Cut(s, " ")
	return path, rest
}

func quote(s string) string {
	if s == "" || strings.ContainsAny(s, " \"\\\n\r\t") {
		return fmt.Sprintf("%q", s)
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return quote(s)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
