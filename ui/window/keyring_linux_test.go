//go:build linux

package window

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// realKeyring starts a private session bus and gnome-keyring-daemon on it
// (testkit.GnomeKeyring), its login keyring under a fresh HOME; points
// this process at that bus for the test (DBUS_SESSION_BUS_ADDRESS:
// go-keyring's godbus connects to it); and returns a store of that
// keyring, as the host has it (service "switchboard"), and the
// environment for secret-tool.
func realKeyring(t *testing.T) (*secrets.Store, []string) {
	t.Helper()
	if _, err := exec.LookPath("secret-tool"); err != nil {
		testkit.SkipOrFail(t, "the real-keyring test needs secret-tool (Debian: apt-get install libsecret-tools)")
	}
	root := t.TempDir()
	var env []string
	for _, e := range os.Environ() {
		switch k, _, _ := strings.Cut(e, "="); k {
		case "HOME", "XDG_RUNTIME_DIR", "XDG_DATA_HOME", "DBUS_SESSION_BUS_ADDRESS", "GNOME_KEYRING_CONTROL", "SSH_AUTH_SOCK", "DISPLAY", "WAYLAND_DISPLAY":
			continue
		}
		env = append(env, e)
	}
	run := filepath.Join(root, "run")
	if err := os.MkdirAll(run, 0o700); err != nil {
		t.Fatal(err)
	}
	env = append(env, "HOME="+filepath.Join(root, "home"), "XDG_RUNTIME_DIR="+run)
	addr := testkit.GnomeKeyring(t, env)
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+addr)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	return secrets.NewStore("switchboard", filepath.Join(root, "secrets-index.json")), env
}

// realKeyringEnv set runs TestRemoteSettingsAddHeadersRealKeyring's
// scenario in this process: the test re-executes the test binary with
// it, since every other test of the package switches go-keyring to its
// in-memory mock for the whole process (secrets.NewMemoryStore), after
// which no store of that process reaches the real keyring.
const realKeyringEnv = "SWITCHBOARD_WINDOW_REAL_KEYRING"

// TestRemoteSettingsAddHeadersRealKeyring: addHeadersThroughSettings with
// the host on a real gnome-keyring (a private D-Bus), in a process of its
// own: secret-tool reads the secret header's value back from it.
func TestRemoteSettingsAddHeadersRealKeyring(t *testing.T) {
	if os.Getenv(realKeyringEnv) == "" {
		for _, tool := range []string{"dbus-daemon", "gnome-keyring-daemon", "secret-tool"} {
			if _, err := exec.LookPath(tool); err != nil {
				testkit.SkipOrFail(t, "the real-keyring test needs %s (Debian: apt-get install gnome-keyring dbus-x11 libsecret-tools)", tool)
			}
		}
		cmd := exec.Command(testExe, "-test.run=^TestRemoteSettingsAddHeadersRealKeyring$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), realKeyringEnv+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestRemoteSettingsAddHeadersRealKeyring")) {
			t.Fatalf("the real-keyring scenario: %v\n%s", err, out)
		}
		if bytes.Contains(out, []byte(headerSecret)) {
			t.Errorf("the scenario's output holds the secret:\n%s", out)
		}
		return
	}
	store, env := realKeyring(t)
	addr, seen := headerServer(t, "X-Api-Key")
	h := startWith(t, map[string]any{"r": map[string]any{
		"url": addr, "headers": map[string]string{"X-Old": "gone", "X-Keep": "k"},
		"tools": map[string]any{"deny": []string{"nothing*"}}, "x-note": "kept as written",
	}}, []func(*host.Options){func(o *host.Options) { o.Secrets = store }})
	addHeadersThroughSettings(t, h, store, seen)

	name := config.SuggestSecretName("r", "X-Api-Key")
	cmd := exec.Command("secret-tool", "lookup", "service", "switchboard", "username", name)
	cmd.Env = env
	if got, err := cmd.Output(); err != nil || string(got) != headerSecret {
		t.Errorf("secret-tool lookup %s: %d bytes, %v", name, len(got), err)
	}
}
