package bundle

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Limits bound what Unpack writes. They are enforced on the bytes read,
// never on the sizes a zip's headers claim.
type Limits struct {
	Total   int64 // bytes of all files together
	PerFile int64 // bytes of one file
	Entries int   // files and folders
}

// DefaultLimits fit the largest bundles published (github-mcp-server's is
// 31 MB for six platforms; a node bundle carries node_modules) with room.
var DefaultLimits = Limits{Total: 1 << 30, PerFile: 512 << 20, Entries: 50000}

// ManifestName is the manifest's file at a bundle's root.
const ManifestName = "manifest.json"

// Unpack unpacks the bundle at zipPath into destDir, which must not exist
// (the store's folder for the bundle's name and version). It unpacks into
// a temporary folder beside destDir and renames it into place, so a refusal
// or a failure leaves nothing. It refuses, naming the entry: a path that
// leaves the folder (".."), an absolute path or a volume name, a
// backslash, a symbolic link or any entry that is neither a file nor a
// folder (by the mode bits of the zip's external attributes), two entries
// whose names differ only by case or Unicode normalization, and more than
// limits allow. A signature block appended to the bundle is not part of
// the zip and is left out.
func Unpack(zipPath, destDir string, limits Limits) (err error) {
	if _, err := os.Lstat(destDir); err == nil {
		return fmt.Errorf("%s already exists: remove it first (a bundle's version is unpacked once)", destDir)
	}
	f, err := os.Open(zipPath)
	if err != nil {
		return err
	}
	defer f.Close()
	size, _, err := zipPart(f)
	if err != nil {
		return fmt.Errorf("%s: %w", zipPath, err)
	}
	zr, err := zip.NewReader(io.NewSectionReader(f, 0, size), size)
	if errors.Is(err, zip.ErrInsecurePath) {
		err = nil // checkEntries names the entry
	}
	if err != nil {
		return fmt.Errorf("%s is not a zip archive (%v): a bundle is a zip with manifest.json at its root", zipPath, err)
	}
	if err := checkEntries(zr.File, limits); err != nil {
		return fmt.Errorf("%s: %w", zipPath, err)
	}
	if err := os.MkdirAll(filepath.Dir(destDir), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(destDir), "."+filepath.Base(destDir)+".unpack-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	var total int64
	for _, e := range zr.File {
		if err := extract(e, tmp, limits, &total); err != nil {
			return fmt.Errorf("%s: entry %q: %w", zipPath, e.Name, err)
		}
	}
	return os.Rename(tmp, destDir)
}

// checkEntries refuses a bundle by its directory before anything is written.
func checkEntries(files []*zip.File, limits Limits) error {
	if len(files) > limits.Entries {
		return fmt.Errorf("%d entries, more than the limit of %d: a bundle this large is refused", len(files), limits.Entries)
	}
	seen := map[string]string{}
	hasManifest := false
	for _, e := range files {
		if err := checkName(e.Name); err != nil {
			return fmt.Errorf("entry %q: %w", e.Name, err)
		}
		if err := checkMode(e); err != nil {
			return fmt.Errorf("entry %q: %w", e.Name, err)
		}
		clean := strings.TrimSuffix(e.Name, "/")
		key := strings.ToLower(norm.NFC.String(clean))
		if other, ok := seen[key]; ok {
			return fmt.Errorf("entry %q: duplicates %q (names equal but for case or Unicode normalization): refused, as it would overwrite the other on some systems", e.Name, other)
		}
		seen[key] = e.Name
		if clean == ManifestName {
			hasManifest = true
		}
		if e.UncompressedSize64 > uint64(limits.PerFile) {
			return fmt.Errorf("entry %q: declares %d bytes, more than the per-file limit of %d", e.Name, e.UncompressedSize64, limits.PerFile)
		}
	}
	if !hasManifest {
		return errors.New("no manifest.json at the root: not a bundle (the manifest must be at the zip's top level)")
	}
	return nil
}

// checkName refuses a name that could land outside the folder.
func checkName(name string) error {
	switch {
	case name == "" || name == "/":
		return errors.New("empty name: refused")
	case strings.ContainsRune(name, 0):
		return errors.New("the name holds a NUL byte: refused")
	case strings.Contains(name, `\`):
		return errors.New(`the name holds a backslash, a folder separator on Windows: refused (zip names use "/")`)
	case strings.HasPrefix(name, "/"):
		return errors.New("absolute path: refused (entries are relative to the bundle's folder)")
	case len(name) >= 2 && name[1] == ':':
		return errors.New("the name starts with a volume name: refused (entries are relative to the bundle's folder)")
	}
	for part := range strings.SplitSeq(strings.TrimSuffix(name, "/"), "/") {
		if part == ".." {
			return errors.New(`the path climbs out of the folder with "..": refused (zip-slip)`)
		}
		if part == "" || part == "." {
			return errors.New(`the path has an empty or "." part: refused`)
		}
	}
	return nil
}

// Unix file-type bits in the upper half of a zip entry's external
// attributes.
const (
	sIFMT  = 0o170000
	sIFREG = 0o100000
	sIFDIR = 0o040000
	sIFLNK = 0o120000
)

// checkMode refuses anything but a regular file or a folder. It reads the
// Unix type bits whatever the creator system says (archive/zip trusts them
// only for Unix and macOS creators) and the mode Go derives.
func checkMode(e *zip.File) error {
	t := (e.ExternalAttrs >> 16) & sIFMT
	m := e.Mode()
	switch {
	case t == sIFLNK || m&fs.ModeSymlink != 0:
		return errors.New("a symbolic link: refused (a link could point outside the bundle's folder)")
	case t != 0 && t != sIFREG && t != sIFDIR, m.Type()&^fs.ModeDir != 0:
		return fmt.Errorf("not a regular file or folder (type %s, bits %06o): refused", m.Type(), t)
	case strings.HasSuffix(e.Name, "/") != (m.IsDir() || t == sIFDIR):
		if strings.HasSuffix(e.Name, "/") {
			return errors.New("a folder name marked as a file: refused")
		}
		return errors.New("a file marked as a folder: refused")
	}
	return nil
}

// extract writes one entry under dir, counting its bytes as it reads them.
func extract(e *zip.File, dir string, limits Limits, total *int64) error {
	target := filepath.Join(dir, filepath.FromSlash(path.Clean(e.Name)))
	if !strings.HasPrefix(target, dir+string(filepath.Separator)) {
		return errors.New("the path leaves the folder: refused")
	}
	if strings.HasSuffix(e.Name, "/") {
		return os.MkdirAll(target, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	perm := os.FileMode(0o644)
	if e.Mode()&0o111 != 0 {
		perm = 0o755
	}
	rc, err := e.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	allowed := min(limits.PerFile, limits.Total-*total)
	n, err := io.Copy(out, io.LimitReader(rc, allowed+1))
	*total += n
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrChecksum) {
		return fmt.Errorf("its data does not match its header's size or checksum (%v): refused, the bundle is damaged or forged", err)
	}
	if err != nil {
		return err
	}
	if n > allowed {
		if n > limits.PerFile {
			return fmt.Errorf("more than the per-file limit of %d bytes when unpacked: refused (a zip bomb, or a bundle too large)", limits.PerFile)
		}
		return fmt.Errorf("the bundle passes the total limit of %d bytes when unpacked: refused (a zip bomb, or a bundle too large)", limits.Total)
	}
	return nil
}
