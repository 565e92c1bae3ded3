//go:build linux

package host

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// helperBundle writes a bundle (a zip) of type binary whose server is
// this test binary as the modern helper, with manifest as its
// manifest.json (%s there is replaced by the helper's env), into dir.
func helperBundle(t *testing.T, dir, manifest string) string {
	t.Helper()
	p := filepath.Join(dir, "helper.mcpb")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, err := zw.Create("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, manifest)
	hdr := &zip.FileHeader{Name: "bin/server", Method: zip.Store}
	hdr.SetMode(0o755)
	w, err = zw.CreateHeader(hdr)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Open(testExe)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	if _, err := io.Copy(w, exe); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// helperManifest is a binary bundle running the modern helper, with a
// sensitive option (given to the server in its env), a directory option
// (a sandbox grant) and a number option with a range.
const helperManifest = `{"manifest_version":"0.3","name":"helper-files","version":"1.0.0","description":"the host tests' helper","author":{"name":"Switchboard tests"},
 "server":{"type":"binary","entry_point":"bin/server","mcp_config":{"command":"${__dirname}/bin/server","args":["--root","${user_config.root}"],
  "env":{"SWITCHBOARD_HOST_TEST_HELPER":"modern","SWITCHBOARD_HOST_TEST_MARK":"bundle","GORACE":"atexit_sleep_ms=0","API_TOKEN":"${user_config.token}","DEPTH":"${user_config.depth}"}}},
 "tools":[{"name":"echo","description":"echoes"}],
 "user_config":{"token":{"type":"string","title":"API token","description":"the service's token","sensitive":true,"required":true},
  "root":{"type":"directory","title":"Root","description":"the files it serves","required":true},
  "depth":{"type":"number","title":"Depth","description":"how deep","min":1,"max":5,"default":2}}}`

// TestBundleMethods: bundles.inspect is the card (options in the file's
// order, the sensitive one as the keyring reference); bundles.install
// with every problem of the values named at once adds nothing; with
// good values it adds the entry (the keyring reference in its env, the
// directory a sandbox grant, the servers.lock record), stores the
// secret in the keyring and in no file under HOME, the config, the
// state or the host's log, and makes the first start (the helper's
// tools); a manifest the format refuses names every problem; the name
// taken is already_exists; a relative path is bad_request.
func TestBundleMethods(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	th := runHostWith(t, store, nil, func(o *Options) {
		o.StateDir = filepath.Join(filepath.Dir(filepath.Dir(o.ConfigPath)), "state")
	})
	files := filepath.Join(home, "files")
	if err := os.MkdirAll(files, 0o755); err != nil {
		t.Fatal(err)
	}
	file := helperBundle(t, t.TempDir(), helperManifest)

	var ir hostapi.BundleInspectResult
	th.must(t, hostapi.MethodBundlesInspect.Name, hostapi.BundleInspectParams{Path: file}, &ir)
	var card install.BundleCard
	if err := json.Unmarshal(ir.Card, &card); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range card.Options {
		keys = append(keys, o.Key)
	}
	if card.Name != "helper-files" || card.SignatureText != "unsigned" || !slices.Equal(keys, []string{"token", "root", "depth"}) ||
		card.Env["API_TOKEN"] != "${keyring:helper-files-token}" || len(card.Tools) != 1 {
		t.Errorf("bundles.inspect: %s", ir.Card)
	}
	if err := th.call(t, hostapi.MethodBundlesInspect.Name, hostapi.BundleInspectParams{Path: "helper.mcpb"}, nil); apiCode(err) != api.CodeBadRequest {
		t.Errorf("a relative path: %v", err)
	}

	// Every problem of the values at once; nothing added, nothing stored.
	// Made at run time: the server is this test binary, and a literal
	// would be in its bytes (in the bundle's store folder).
	secret := fmt.Sprintf("sk-bundle-%d-SECRET", os.Getpid())
	err := th.call(t, hostapi.MethodBundlesInstall.Name, hostapi.BundleInstallParams{Path: file,
		Values: map[string][]string{"token": {secret}, "depth": {"9"}, "nope": {"x"}}}, nil)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != api.CodeBadRequest {
		t.Fatalf("bundles.install with bad values: %v", err)
	}
	for _, want := range []string{"user_config.root: is required", "user_config.depth: 9 is above max 5", "user_config.nope: is not an option"} {
		if !strings.Contains(ae.Message, want) || !strings.Contains(string(ae.Data), want) {
			t.Errorf("the refusal lacks %q: %s %s", want, ae.Message, ae.Data)
		}
	}
	if strings.Contains(ae.Message+string(ae.Data), secret) {
		t.Errorf("the refusal holds the secret: %s", ae.Message)
	}
	if names, _ := store.List(); len(names) != 0 {
		t.Errorf("a refused install stored %v", names)
	}
	if f, err := config.Load(th.opts.ConfigPath); err == nil && len(f.Servers) > 0 {
		t.Errorf("a refused install added %v", f.Names())
	}

	var res hostapi.BundleInstallResult
	th.must(t, hostapi.MethodBundlesInstall.Name, hostapi.BundleInstallParams{Path: file,
		Values: map[string][]string{"token": {secret}, "root": {files}}}, &res)
	const secretName = "helper-files-token"
	t.Logf("installed: sandbox %s (%q), unconfined %q", res.Sandbox, res.SandboxWhy, res.Unconfined)
	if res.Local != "helper-files" || res.Version != "1.0.0" || res.Signature != "unsigned" || !slices.Equal(res.Secrets, []string{secretName}) ||
		len(res.Argv) != 3 || res.Argv[1] != "--root" || res.Argv[2] != files || !strings.HasPrefix(res.Argv[0], res.Dir) {
		t.Errorf("bundles.install: %+v", res)
	}
	if v, err := store.Get(secretName); err != nil || v.Reveal() != secret {
		t.Errorf("the keyring's %s: %v", secretName, err)
	}
	f, err := config.Load(th.opts.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Servers["helper-files"]
	if s == nil || s.Env["API_TOKEN"] != config.KeyringRef(secretName) || s.Env["DEPTH"] != "2" {
		t.Fatalf("the config's entry: %+v", s)
	}
	if res.Unconfined == "" && (s.Sandbox == nil || !slices.Contains(s.Sandbox.Write, files)) {
		t.Errorf("the directory is not a sandbox grant: %+v (%q)", s.Sandbox, res.SandboxWhy)
	}
	lock, err := install.ReadLock(th.opts.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	if lk := lock.Servers["helper-files"]; lk == nil || lk.Bundle == nil || lk.Bundle.Secrets["token"] != secretName || lk.Bundle.File != file {
		t.Errorf("servers.lock: %+v", lk)
	}
	if fs := res.FirstStart; fs == nil || fs.Error != "" || !slices.ContainsFunc(fs.Tools, func(t hostapi.FirstTool) bool { return t.Name == "echo" }) {
		t.Errorf("the first start: %+v", res.FirstStart)
	}
	// HOME, and the host's root: its config, state, the bundles' store
	// beside the state (install.PackagesRoot) and its log.
	for _, dir := range []string{home, filepath.Dir(th.opts.StateDir)} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
					t.Errorf("the secret is in %s", p)
				}
			}
			return nil
		})
	}

	// The name taken.
	err = th.call(t, hostapi.MethodBundlesInstall.Name, hostapi.BundleInstallParams{Path: file,
		Values: map[string][]string{"token": {"other"}, "root": {files}}}, nil)
	if apiCode(err) != hostapi.CodeAlreadyExists {
		t.Errorf("the name taken: %v", err)
	}

	// A manifest the format refuses: every problem named, by its key.
	bad := strings.Replace(helperManifest, `"type":"directory"`, `"type":"folder"`, 1)
	bad = strings.Replace(bad, `"version":"1.0.0"`, `"version":7`, 1)
	err = th.call(t, hostapi.MethodBundlesInstall.Name, hostapi.BundleInstallParams{Path: helperBundle(t, t.TempDir(), bad), Name: "bad",
		Values: map[string][]string{"token": {secret}, "root": {files}}}, nil)
	if !errors.As(err, &ae) || ae.Code != api.CodeBadRequest {
		t.Fatalf("an invalid manifest: %v", err)
	}
	var probs []hostapi.Problem
	json.Unmarshal(ae.Data, &probs)
	var pkeys []string
	for _, p := range probs {
		pkeys = append(pkeys, p.Key)
	}
	if !slices.Contains(pkeys, "user_config.root.type") || !slices.Contains(pkeys, "version") || strings.Contains(ae.Message, secret) {
		t.Errorf("an invalid manifest's problems: %q %s", pkeys, ae.Message)
	}
}
