//go:build linux

package window

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// lockedBuffer is a daemon's output, written by its process and read by
// the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// daemon starts a program for the test, stopped (SIGTERM, then SIGKILL)
// when the test ends; done is closed when it has exited.
func daemon(t *testing.T, env []string, stdin string, name string, args ...string) (cmd *exec.Cmd, out *lockedBuffer, done <-chan struct{}) {
	t.Helper()
	cmd = exec.Command(name, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	out = &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan struct{})
	go func() { _ = cmd.Wait(); close(ch) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-ch
		}
	})
	return cmd, out, ch
}

// realKeyring starts a private session bus (no service directories:
// nothing starts by D-Bus activation) and gnome-keyring-daemon on it, its
// login keyring created and unlocked with a password on stdin under a
// fresh HOME, as app/cli's real-keyring tests do; points this process at
// that bus for the test (DBUS_SESSION_BUS_ADDRESS: go-keyring's godbus
// connects to it, and connects again to the next test's bus once this one
// is gone); and returns a store of that keyring, as the host has it
// (service "switchboard"), and the environment for secret-tool.
func realKeyring(t *testing.T) (*secrets.Store, []string) {
	t.Helper()
	var missing []string
	for _, tool := range []string{"dbus-daemon", "gnome-keyring-daemon", "secret-tool"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		testkit.SkipOrFail(t, "the real-keyring test needs %s (Debian: apt-get install gnome-keyring dbus-x11 libsecret-tools)", strings.Join(missing, ", "))
	}
	root := t.TempDir()
	home, run := filepath.Join(root, "home"), filepath.Join(root, "run")
	for _, d := range []string{filepath.Join(home, ".local", "share", "keyrings"), run, filepath.Join(root, "bus")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	var env []string
	for _, e := range os.Environ() {
		switch k, _, _ := strings.Cut(e, "="); k {
		case "HOME", "XDG_RUNTIME_DIR", "XDG_DATA_HOME", "DBUS_SESSION_BUS_ADDRESS", "GNOME_KEYRING_CONTROL", "SSH_AUTH_SOCK", "DISPLAY", "WAYLAND_DISPLAY":
			continue
		}
		env = append(env, e)
	}
	env = append(env, "HOME="+home, "XDG_RUNTIME_DIR="+run)
	cfg := filepath.Join(root, "bus.conf")
	if err := os.WriteFile(cfg, testkit.BusConfig(filepath.Join(root, "bus")), 0o600); err != nil {
		t.Fatal(err)
	}

	bus := exec.Command("dbus-daemon", "--config-file="+cfg, "--nofork", "--print-address=1")
	bus.Env = env
	stdout, err := bus.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Start(); err != nil {
		t.Fatal(err)
	}
	busDone := make(chan struct{})
	t.Cleanup(func() {
		_ = bus.Process.Signal(syscall.SIGTERM)
		select {
		case <-busDone:
		case <-time.After(5 * time.Second):
			_ = bus.Process.Kill()
			<-busDone
		}
	})
	addrc := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		addrc <- strings.TrimSpace(line)
		_ = bus.Wait()
		close(busDone)
	}()
	var addr string
	select {
	case addr = <-addrc:
	case <-time.After(10 * time.Second):
		t.Fatal("dbus-daemon printed no address")
	}
	if addr == "" {
		t.Fatal("dbus-daemon printed an empty address")
	}
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+addr)
	_, out, krDone := daemon(t, env, "switchboard-test-password", "gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")

	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	testkit.Eventually(t, "gnome-keyring-daemon owns org.freedesktop.secrets", func() (bool, string) {
		select {
		case <-krDone:
			t.Fatalf("gnome-keyring-daemon exited: %s", out.String())
		default:
		}
		var has bool
		err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.secrets").Store(&has)
		return err == nil && has, fmt.Sprint(err, out.String())
	})
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
