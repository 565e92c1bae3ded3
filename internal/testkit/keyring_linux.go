//go:build linux

package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// KeyringPassword unlocks the login keyring [GnomeKeyring] creates.
const KeyringPassword = "switchboard-test-password"

// GnomeKeyring starts a private session bus ([SessionBus]) and
// gnome-keyring-daemon on it, with env (whose HOME is where the login
// keyring is created, and unlocked with [KeyringPassword] on stdin); it
// waits until the daemon owns org.freedesktop.secrets and returns the
// bus's address. Both are stopped when the test ends. Without the tools
// the test skips (fails under CI=true).
func GnomeKeyring(t testing.TB, env []string) string {
	t.Helper()
	var missing []string
	for _, tool := range []string{"dbus-daemon", "gnome-keyring-daemon"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		SkipOrFail(t, "the real-keyring test needs %s (Debian: apt-get install gnome-keyring dbus-x11 libsecret-tools)", strings.Join(missing, ", "))
	}
	home := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "HOME="); ok {
			home = v
		}
	}
	if !filepath.IsAbs(home) {
		t.Fatalf("GnomeKeyring: env sets no absolute HOME (%q)", home)
	}
	if err := os.MkdirAll(filepath.Join(home, ".local", "share", "keyrings"), 0o700); err != nil {
		t.Fatal(err)
	}
	addr := SessionBus(t)

	cmd := exec.Command("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	cmd.Env = append(append([]string{}, env...), "DBUS_SESSION_BUS_ADDRESS="+addr)
	cmd.Stdin = strings.NewReader(KeyringPassword)
	var out SyncBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})

	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	Eventually(t, "gnome-keyring-daemon owns org.freedesktop.secrets", func() (bool, string) {
		select {
		case <-done:
			t.Fatalf("gnome-keyring-daemon exited: %s", out.String())
		default:
		}
		var has bool
		err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.secrets").Store(&has)
		return err == nil && has, fmt.Sprint(err, out.String())
	})
	t.Logf("private bus %s, gnome-keyring-daemon pid %d", addr, cmd.Process.Pid)
	return addr
}
