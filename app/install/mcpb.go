package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/bundle"
)

// maxBundle bounds a downloaded .mcpb bundle.
const maxBundle = 512 << 20

var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// BundlePath is where a bundle of that SHA-256 is kept:
// STATE/packages/mcpb/SHA256.mcpb (by content: one file per bundle).
func BundlePath(stateDir, sum string) string {
	return filepath.Join(PackagesRoot(stateDir), "mcpb", sum+".mcpb")
}

// FetchBundle downloads the .mcpb bundle at rawURL (https only) into the
// state directory and checks it against the fileSha256 its registry
// entry gives: a bundle whose SHA-256 differs is refused, both hashes
// named, and nothing is kept; one without a fileSha256 is not
// downloaded. It returns the verified file's path. Unpacking and
// running a bundle is not done here.
func FetchBundle(ctx context.Context, c *http.Client, stateDir, rawURL, entrySHA256 string) (string, error) {
	want := strings.ToLower(entrySHA256)
	if !sha256Hex.MatchString(want) {
		return "", fmt.Errorf("the bundle %s has no fileSha256 in its registry entry (or not 64 hex digits: %q): Switchboard does not download a bundle it cannot check", rawURL, entrySHA256)
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("the bundle's address %q is not an https URL", rawURL)
	}
	if stateDir == "" || !filepath.IsAbs(stateDir) {
		return "", fmt.Errorf("no state directory to download %s into (HOME or XDG_STATE_HOME unset?)", rawURL)
	}
	dst := BundlePath(stateDir, want)
	if got, err := bundle.FileSHA256(dst); err == nil && got == want {
		return dst, nil // downloaded before, still the same bytes
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", fmt.Errorf("downloading the bundle %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("downloading the bundle %s: %s", rawURL, resp.Status)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".bundle.*.tmp")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name()) // gone after the rename; else what a failure left
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(resp.Body, maxBundle+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("downloading the bundle %s: %w", rawURL, err)
	}
	if n > maxBundle {
		return "", fmt.Errorf("the bundle %s is larger than %d MiB: not kept", rawURL, maxBundle>>20)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return "", fmt.Errorf("the bundle downloaded from %s is not the one its registry entry names: its SHA-256 is %s, the entry's fileSha256 is %s (a changed or replaced file): refused, nothing kept", rawURL, got, want)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", err
	}
	return dst, nil
}
