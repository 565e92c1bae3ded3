package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/registry"
)

// TestFetchBundle: a bundle whose bytes match the entry's fileSha256 is
// kept in the state directory; one whose bytes differ is refused with
// both hashes named and nothing kept; one without a fileSha256, or at an
// http address, is not downloaded.
func TestFetchBundle(t *testing.T) {
	good, bad := []byte("PK\x03\x04 a bundle"), []byte("PK\x03\x04 another bundle")
	var mu sync.Mutex
	served, hits := good, 0
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits++
		b := served
		mu.Unlock()
		w.Write(b)
	}))
	defer srv.Close()
	sum := sha256.Sum256(good)
	want := hex.EncodeToString(sum[:])
	state := t.TempDir()
	ctx := context.Background()

	p, err := FetchBundle(ctx, srv.Client(), state, srv.URL+"/x.mcpb", strings.ToUpper(want))
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != string(good) || p != BundlePath(state, want) {
		t.Errorf("kept %s: %q", p, b)
	}

	mu.Lock()
	served = bad
	mu.Unlock()
	badSum := sha256.Sum256(bad)
	other := t.TempDir()
	_, err = FetchBundle(ctx, srv.Client(), other, srv.URL+"/x.mcpb", want)
	if err == nil || !strings.Contains(err.Error(), "its SHA-256 is "+hex.EncodeToString(badSum[:])+", the entry's fileSha256 is "+want) {
		t.Fatalf("a bundle that is not the entry's: %v", err)
	}
	if left, _ := os.ReadDir(filepath.Join(PackagesRoot(other), "mcpb")); len(left) > 0 {
		t.Errorf("a refused bundle left %v", left)
	}

	mu.Lock()
	before := hits
	mu.Unlock()
	for _, c := range []struct{ url, sum, err string }{
		{srv.URL + "/x.mcpb", "", "has no fileSha256"},
		{srv.URL + "/x.mcpb", "abc", "has no fileSha256"},
		{strings.Replace(srv.URL, "https", "http", 1) + "/x.mcpb", want, "not an https URL"},
	} {
		if _, err := FetchBundle(ctx, srv.Client(), t.TempDir(), c.url, c.sum); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s %q: %v", c.url, c.sum, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if hits != before {
		t.Errorf("a bundle that cannot be checked was downloaded (%d requests)", hits-before)
	}
}

// TestAddBundle: 'registry add --package N' of an .mcpb package
// downloads it and checks it: a mismatch is refused naming both hashes;
// a match is kept and said not to run yet; nothing is added either way.
func TestAddBundle(t *testing.T) {
	good := []byte("PK\x03\x04 a bundle")
	var mu sync.Mutex
	served := []byte("PK\x03\x04 a changed bundle")
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := served
		mu.Unlock()
		w.Write(b)
	}))
	defer srv.Close()
	sum := sha256.Sum256(good)
	en := pkgEntry("io.github.x/bundled", registry.Package{RegistryType: "mcpb", Identifier: srv.URL + "/b.mcpb", FileSHA256: hex.EncodeToString(sum[:]), Version: "1.0.0"})
	m := entries{}
	r := AddRequest{Entry: en, Package: 1, StateDir: t.TempDir(), HTTP: srv.Client(), LookPath: only(nil)}
	if _, err := Add(context.Background(), m, r); err == nil || !strings.Contains(err.Error(), "the entry's fileSha256 is "+hex.EncodeToString(sum[:])) || len(m) != 0 {
		t.Errorf("a changed bundle: %v (entries %v)", err, m)
	}
	mu.Lock()
	served = good
	mu.Unlock()
	if _, err := Add(context.Background(), m, r); err == nil || !strings.Contains(err.Error(), "matches its fileSha256 ("+BundlePath(r.StateDir, hex.EncodeToString(sum[:]))+")") || len(m) != 0 {
		t.Errorf("the entry's bundle: %v (entries %v)", err, m)
	}
}
