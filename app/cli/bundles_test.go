//go:build linux

package cli

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/bundle"
)

// writeBundle writes a zip of name → content (a name ending in "/" is a
// folder) for 'bundles check'.
func writeBundle(t *testing.T, files map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "b.mcpb")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

const checkManifest = `{"manifest_version":"0.3","name":"demo","version":"1.2.0","description":"d","author":{"name":"Acme"},
 "server":{"type":"binary","entry_point":"bin/demo","mcp_config":{"command":"${__dirname}/bin/demo","args":["--root","${user_config.root}","--n=${user_config.n}"],"env":{"TOKEN":"${user_config.token}"}}},
 "user_config":{"root":{"type":"directory","title":"Root","description":"r","required":true},
  "n":{"type":"number","title":"N","description":"n","min":1,"max":9,"default":3},
  "token":{"type":"string","title":"Token","description":"t","sensitive":true,"required":true}}}`

// TestBundlesCheck: a good bundle's card shows the command it would run
// with --set's values and the sensitive option as a keyring reference,
// unsigned, exit 0; a sensitive value on the command line is a usage
// error; a bundle with a zip-slip entry and a bad manifest value names
// both problems and exits 1; nothing is left in the temporary folder.
func TestBundlesCheck(t *testing.T) {
	u := newUnit(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	good := writeBundle(t, map[string]string{"manifest.json": checkManifest, "bin/demo": "x"})
	out := u.ok(t, "", "bundles", "check", good, "--set", "root=/data", "--set", "n=7")
	for _, want := range []string{
		"demo 1.2.0 by Acme (manifest 0.3, binary)",
		"signature: unsigned",
		"runs:      ${__dirname}/bin/demo --root /data --n=7",
		"env:       TOKEN=${keyring:demo-token}", // the reference an install writes (config.SuggestSecretName)
		"ok: nothing wrong found",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	sum, _ := bundle.FileSHA256(good)
	if !strings.Contains(out, "sha256:    "+sum) {
		t.Errorf("output lacks the SHA-256 %s:\n%s", sum, out)
	}

	r := u.main("", "bundles", "check", good, "--set", "root=/data", "--set", "token=sk-123")
	if r.code != 2 || !strings.Contains(r.stderr, "token is sensitive") || strings.Contains(r.stdout+r.stderr, "sk-123") {
		t.Errorf("a sensitive --set: %s", r)
	}

	r = u.main("", "bundles", "check", good, "--set", "n=12")
	if r.code != 1 || !strings.Contains(r.stdout, "problem: user_config.root: is required (Root): give a value with --set root=VALUE") ||
		!strings.Contains(r.stdout, "problem: user_config.n: 12 is above max 9") {
		t.Errorf("missing and out-of-range values: %s", r)
	}

	bad := writeBundle(t, map[string]string{"manifest.json": checkManifest, "../evil": "x"})
	r = u.main("", "bundles", "check", bad)
	if r.code != 1 || !strings.Contains(r.stdout, `entry "../evil": the path climbs out of the folder with "..": refused (zip-slip)`) {
		t.Errorf("zip-slip bundle: %s", r)
	}

	other := "darwin" // the file is linux only
	wrong := strings.Replace(checkManifest, `"user_config"`, `"compatibility":{"platforms":["`+other+`"]},"user_config"`, 1)
	wrong = strings.Replace(wrong, `"type":"directory"`, `"type":"folder"`, 1)
	r = u.main("", "--json", "bundles", "check", writeBundle(t, map[string]string{"manifest.json": wrong}))
	var card bundleCard
	if err := json.Unmarshal([]byte(r.stdout), &card); err != nil {
		t.Fatalf("--json: %v\n%s", err, r)
	}
	if r.code != 1 || len(card.Problems) != 1 || card.Problems[0] != `user_config.root.type: "folder" is not a type: use string, number, boolean, directory or file` || !card.Unpackable {
		t.Errorf("bad manifest: %+v %s", card, r)
	}
	r = u.main("", "--json", "bundles", "check", writeBundle(t, map[string]string{"manifest.json": strings.Replace(wrong, `"folder"`, `"directory"`, 1)}), "--set", "root=/d")
	card = bundleCard{}
	json.Unmarshal([]byte(r.stdout), &card)
	if r.code != 1 || len(card.Problems) != 1 || !strings.HasPrefix(card.Problems[0], "compatibility.platforms: the bundle runs on "+other+", not on this "+"linux") {
		t.Errorf("other platform: %+v %s", card, r)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("check left %v in the temporary folder", left)
	}
}

// TestBundlesOpen: with no display, 'bundles open' prints the card and
// the exact install command (a --set for each required plain option, the
// sensitive one asked for), exit 0 though values are missing; a bundle
// refused whatever the values (another platform) exits 1 with no
// command. With a display it hands the file's absolute path to the
// window (OpenBundle) and prints nothing.
func TestBundlesOpen(t *testing.T) {
	u := newUnit(t)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	opened := ""
	old := OpenBundle
	OpenBundle = func(file string) error { opened = file; return nil }
	t.Cleanup(func() { OpenBundle = old })

	good := writeBundle(t, map[string]string{"manifest.json": checkManifest, "bin/demo": "x"})
	out := u.ok(t, "", "bundles", "open", good)
	for _, want := range []string{
		"demo 1.2.0 by Acme (manifest 0.3, binary)",
		"runs:      ${__dirname}/bin/demo --root <root> --n=3",
		"To install it:\n  switchboard bundles install " + good + " --set root=VALUE\n",
		"token is sensitive: 'bundles install' asks for it on a terminal",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "problem:") || opened != "" {
		t.Errorf("the values' problems shown, or the window opened (%q):\n%s", opened, out)
	}

	wrong := strings.Replace(checkManifest, `"user_config"`, `"compatibility":{"platforms":["darwin"]},"user_config"`, 1)
	r := u.main("", "bundles", "open", writeBundle(t, map[string]string{"manifest.json": wrong}))
	if r.code != 1 || !strings.Contains(r.stdout, "problem: compatibility.platforms") || strings.Contains(r.stdout, "To install it") {
		t.Errorf("a bundle for another platform: %s", r)
	}

	t.Setenv("DISPLAY", ":0")
	dir, rel := filepath.Split(good)
	t.Chdir(dir)
	if out := u.ok(t, "", "bundles", "open", rel); out != "" || opened != good {
		t.Errorf("with a display: opened %q, printed %q", opened, out)
	}
}
