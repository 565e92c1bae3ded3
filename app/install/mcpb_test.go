package install

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
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
// downloads it and checks it: a mismatch is refused naming both hashes
// and adds nothing; the entry's own file is installed as a bundle, its
// lock record naming the registry entry and the file's SHA-256.
func TestAddBundle(t *testing.T) {
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	w, _ := zw.Create("manifest.json")
	w.Write([]byte(`{"manifest_version": "0.3", "name": "bundled", "version": "1.0.0", "description": "d", "author": {"name": "A"},
		"server": {"type": "binary", "entry_point": "server/run", "mcp_config": {"command": "${__dirname}/server/run", "args": ["--level", "${user_config.level}"]}},
		"user_config": {"level": {"type": "number", "title": "Level", "description": "how much", "default": 2, "min": 1, "max": 5}}}`))
	w, _ = zw.Create("server/run")
	w.Write([]byte("#!/bin/sh\n"))
	zw.Close()
	good := zb.Bytes()
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
	r := AddRequest{Entry: en, Package: 1, StateDir: t.TempDir(), HTTP: srv.Client(), LookPath: only(nil), Values: map[string]string{"level": "4"}}
	if _, err := Add(context.Background(), m, r); err == nil || !strings.Contains(err.Error(), "the entry's fileSha256 is "+hex.EncodeToString(sum[:])) || len(m) != 0 {
		t.Errorf("a changed bundle: %v (entries %v)", err, m)
	}
	mu.Lock()
	served = good
	mu.Unlock()
	added, err := Add(context.Background(), m, r)
	if err != nil {
		t.Fatal(err)
	}
	dir := BundleFolder(r.StateDir, "bundled", "1.0.0", hex.EncodeToString(sum[:]))
	var e struct {
		Command string
		Args    []string
	}
	if err := json.Unmarshal(m["bundled"], &e); err != nil || e.Command != filepath.Join(dir, "server", "run") || !slices.Equal(e.Args, []string{"--level", "4"}) {
		t.Errorf("the entry: %s (%v)", m["bundled"], err)
	}
	lock, err := ReadLock(r.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	l := lock.Servers["bundled"]
	if l == nil || l.Ecosystem != EcosystemBundle || l.Registry != en.Registry || l.Entry != "io.github.x/bundled" || l.Dir != dir || l.Bundle.SHA256 != hex.EncodeToString(sum[:]) ||
		!slices.Equal(l.Bundle.Values["level"], []string{"4"}) || added.Setup.Chosen != "bundle bundled 1.0.0 (unsigned)" {
		t.Errorf("the lock's record: %+v %+v (chosen %q)", l, l.Bundle, added.Setup.Chosen)
	}
	if changes, err := Verify(l, 5); err != nil || changes != nil {
		t.Errorf("servers verify of the unpacked bundle: %v %v", changes, err)
	}
	os.WriteFile(filepath.Join(dir, "server", "run"), []byte("#!/bin/sh\nevil\n"), 0o755)
	if changes, _ := Verify(l, 5); len(changes) == 0 || !strings.Contains(changes[0], "server/run") {
		t.Errorf("a changed file of the bundle: %v", changes)
	}
}
