package secrets

// The real-keyring tests: no mocks. TestRealKeyring re-executes this test
// binary (running only TestRealKeyringChild) inside `dbus-run-session` on a
// private session bus whose configuration has no service directories, so
// that nothing is started by D-Bus activation: the child starts
// gnome-keyring-daemon itself when a scenario wants one, and kills it at the
// end. Every process of a scenario carries a marker in its environment;
// afterwards the parent looks for processes with that marker and fails (and
// kills them) if any is left behind.
//
// It needs dbus-run-session, dbus-daemon, gnome-keyring-daemon and
// secret-tool (Debian: gnome-keyring dbus-x11 libsecret-tools). Without them
// it skips, except when CI=true, where it fails.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const (
	envScenario = "SWITCHBOARD_KEYRING_TEST"
	envMark     = "SWITCHBOARD_KEYRING_TEST_MARK"
	keyringPass = "switchboard-test-password"
)

func TestRealKeyring(t *testing.T) {
	if os.Getenv(envScenario) != "" {
		t.Skip("inside a real-keyring child")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}

	// No session bus at all: needs no keyring tools, so it always runs.
	t.Run("NoBus", func(t *testing.T) {
		runChild(t, exe, "nobus", false)
	})

	var missing []string
	for _, tool := range []string{"dbus-run-session", "dbus-daemon", "gnome-keyring-daemon", "secret-tool"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		testkit.SkipOrFail(t, "the real-keyring test needs %s (Debian: apt-get install gnome-keyring dbus-x11 libsecret-tools)", strings.Join(missing, ", "))
	}
	t.Run("RoundTripAndLocked", func(t *testing.T) {
		runChild(t, exe, "unlocked", true)
	})
	t.Run("NoProvider", func(t *testing.T) {
		runChild(t, exe, "noprovider", true)
	})
	t.Run("MemoryAfterSpawn", func(t *testing.T) {
		runChild(t, exe, "memscan", true)
	})
}

// runChild runs TestRealKeyringChild for scenario in a fresh HOME, inside
// dbus-run-session on a private bus if bus is set, and checks that no
// process of it is left afterwards.
func runChild(t *testing.T, exe, scenario string, bus bool) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	run := filepath.Join(root, "run")
	for _, d := range []string{filepath.Join(home, ".local", "share", "keyrings"), run} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	markBytes := make([]byte, 8)
	_, _ = rand.Read(markBytes)
	mark := hex.EncodeToString(markBytes)

	env := []string{}
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		switch k {
		case "HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
			"DBUS_SESSION_BUS_ADDRESS", "GNOME_KEYRING_CONTROL", "SSH_AUTH_SOCK", "DISPLAY", "WAYLAND_DISPLAY",
			envScenario, envMark:
			continue
		}
		env = append(env, e)
	}
	env = append(env, "HOME="+home, "XDG_RUNTIME_DIR="+run, envScenario+"="+scenario, envMark+"="+mark)

	// The child may take as long as this test may (go test -timeout): a
	// scenario takes seconds, many more with -race on a busy machine, and
	// a clock of its own would fail a slow run that is not stuck. It times
	// out first, so that its own report (the stacks) shows.
	args := []string{"-test.run=^TestRealKeyringChild$", "-test.v", "-test.count=1", "-test.timeout=0"}
	ctx, cancel := context.WithCancel(context.Background())
	if deadline, ok := t.Deadline(); ok {
		left := time.Until(deadline)
		args[len(args)-1] = "-test.timeout=" + (left * 8 / 10).String()
		ctx, cancel = context.WithDeadline(context.Background(), deadline.Add(-left/10))
	}
	defer cancel()
	var cmd *exec.Cmd
	if bus {
		cfg := filepath.Join(root, "bus.conf")
		if err := os.WriteFile(cfg, testkit.BusConfig(root), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd = exec.CommandContext(ctx, "dbus-run-session", append([]string{"--config-file=" + cfg, "--", exe}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, exe, args...)
	}
	cmd.Env = env
	cmd.Dir = root
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	for _, line := range strings.Split(string(out), "\n") {
		if _, msg, ok := strings.Cut(line, "PROVED: "); ok {
			t.Logf("PROVED (%s): %s", scenario, msg)
		}
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestRealKeyringChild") {
		t.Errorf("child %q: %v\n%s", scenario, err, out)
	}
	if left := survivors(mark, 5*time.Second); len(left) > 0 {
		t.Errorf("processes left behind by scenario %q (now killed): %v", scenario, left)
	} else {
		t.Logf("PROVED: scenario %q left no process behind", scenario)
	}
}

// survivors waits up to d for the processes whose environment holds mark
// to end, kills those that do not, and returns their descriptions.
func survivors(mark string, d time.Duration) []string {
	find := func() map[int]string { return testkit.ProcsWithEnv(envMark + "=" + mark) }
	var found map[int]string
	if testkit.Poll(d, func() bool { found = find(); return len(found) == 0 }) {
		return nil
	}
	var out []string
	for pid, desc := range found {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		out = append(out, desc)
	}
	return out
}

// TestRealKeyringChild is the scenario named by SWITCHBOARD_KEYRING_TEST,
// run by TestRealKeyring.
func TestRealKeyringChild(t *testing.T) {
	switch os.Getenv(envScenario) {
	case "":
		t.Skip("run by TestRealKeyring")
	case "nobus":
		childNoBus(t)
	case "unlocked":
		childRoundTripAndLocked(t)
	case "noprovider":
		childNoProvider(t)
	case "memscan":
		childMemScan(t)
	default:
		t.Fatalf("unknown scenario %q", os.Getenv(envScenario))
	}
}

// childNoBus: no session bus at all, with a dbus-launch on PATH that
// records being run. The store must refuse without running it, while
// godbus on its own does run it.
func childNoBus(t *testing.T) {
	bin := t.TempDir()
	ran := filepath.Join(t.TempDir(), "dbus-launch-ran")
	script := "#!/bin/sh\necho \"$@\" >> '" + ran + "'\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "dbus-launch"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	runUserDir = func() string { return filepath.Join(bin, "no-such-run-user-dir") }

	s := NewStore("", filepath.Join(t.TempDir(), "cfg", "secrets.json"))
	err := s.Set("gh", New("ghp_nobus_value"))
	if KindOf(err) != NoProvider || !errors.Is(err, ErrNoProvider) {
		t.Fatalf("Set without a bus: want NoProvider, got %v", err)
	}
	for _, want := range []string{`secret "gh"`, "no D-Bus session bus", "Secret Service"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := s.Get("gh"); KindOf(err) != NoProvider {
		t.Fatalf("Get without a bus: want NoProvider, got %v", err)
	}
	if _, err := s.Resolve(context.Background(), "gh"); KindOf(err) != NoProvider {
		t.Fatalf("Resolve without a bus: want NoProvider, got %v", err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("the store let godbus run dbus-launch")
	}
	t.Logf("PROVED: no bus: Set/Get/Resolve give NoProvider, dbus-launch not run: %v", err)

	// The hazard is real: godbus itself runs dbus-launch here.
	if c, err := dbus.SessionBusPrivate(); err == nil {
		_ = c.Close()
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatal("control: godbus did not try dbus-launch, the check would not be needed")
	}
	t.Log("PROVED: control: godbus.SessionBusPrivate alone does run dbus-launch with no bus")
}

// childNoProvider: a private bus on which nothing owns
// org.freedesktop.secrets (and nothing can be activated).
func childNoProvider(t *testing.T) {
	s := NewStore("", filepath.Join(t.TempDir(), "cfg", "secrets.json"))
	err := s.Set("gh", New("ghp_noprovider_value"))
	if KindOf(err) != NoProvider || !errors.Is(err, ErrNoProvider) {
		t.Fatalf("Set with no Secret Service: want NoProvider, got %v", err)
	}
	for _, want := range []string{`secret "gh"`, "no Secret Service (keyring) is running on the D-Bus session bus", "gnome-keyring", "KeePassXC", "unlock"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "ghp_noprovider_value") {
		t.Fatal("the value is in the error")
	}
	if _, err := s.Get("gh"); KindOf(err) != NoProvider {
		t.Fatalf("Get with no Secret Service: want NoProvider, got %v", err)
	}
	if names, err := s.List(); err != nil || len(names) != 0 {
		t.Fatalf("List after a failed Set: %v %v", names, err)
	}
	t.Logf("PROVED: no provider: Kind %v: %v", KindOf(err), err)
}

// startKeyring starts gnome-keyring-daemon (secrets only) with the login
// keyring unlocked by a password on stdin, waits until it owns
// org.freedesktop.secrets, and kills it at the end of the test.
func startKeyring(t *testing.T, conn *dbus.Conn) {
	cmd := exec.Command("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	cmd.Stdin = strings.NewReader(keyringPass)
	var out testkit.SyncBuffer // read by the wait below while exec's copier writes it
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
		case <-time.After(3 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		t.Logf("gnome-keyring-daemon (pid %d) stopped", cmd.Process.Pid)
	})
	testkit.EventuallyWithin(t, "gnome-keyring-daemon owns org.freedesktop.secrets", 10*time.Second, func() (bool, string) {
		var has bool
		err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, "org.freedesktop.secrets").Store(&has)
		select {
		case <-done:
			t.Fatalf("gnome-keyring-daemon exited: %s", out.String())
		default:
		}
		return err == nil && has, fmt.Sprintf("%v %s", err, out.String())
	})
	t.Logf("gnome-keyring-daemon pid %d owns org.freedesktop.secrets", cmd.Process.Pid)
}

func secretTool(args ...string) (string, error) {
	out, err := exec.Command("secret-tool", args...).Output()
	return string(out), err
}

const (
	ssName        = "org.freedesktop.secrets"
	ssPath        = dbus.ObjectPath("/org/freedesktop/secrets")
	loginPath     = dbus.ObjectPath("/org/freedesktop/secrets/collection/login")
	collectionIfc = "org.freedesktop.Secret.Collection"
)

func collectionLocked(t *testing.T, conn *dbus.Conn) bool {
	v, err := conn.Object(ssName, loginPath).GetProperty(collectionIfc + ".Locked")
	if err != nil {
		t.Fatal(err)
	}
	return v.Value().(bool)
}

func childRoundTripAndLocked(t *testing.T) {
	conn, err := dbus.ConnectSessionBus() // DBUS_SESSION_BUS_ADDRESS is set by dbus-run-session
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	startKeyring(t, conn)

	dir := t.TempDir()
	index := filepath.Join(dir, "cfg", "secrets.json")
	s := NewStore("", index)
	const v1, v2, v3 = "ghp_REAL_first_value_123", "ghp_REAL_second_value_456", "sk-REAL-openai-789"

	// Round trip.
	if err := s.Set("gh", New(v1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("openai.key", New(v3)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get("gh"); err != nil || got.Reveal() != v1 {
		t.Fatalf("Get gh: %v", err)
	}
	if got, err := secretTool("lookup", "service", DefaultService, "username", "gh"); err != nil || got != v1 {
		t.Fatalf("secret-tool lookup gh: %q %v", got, err)
	}
	t.Logf("PROVED: Set then 'secret-tool lookup service %s username gh' reads the value from the Secret Service", DefaultService)

	if err := s.Set("gh", New(v2)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Resolve(context.Background(), "gh"); err != nil || string(got) != v2 {
		t.Fatalf("Resolve gh after overwrite: %v", err)
	}
	if got, _ := secretTool("lookup", "service", DefaultService, "username", "gh"); got != v2 {
		t.Fatal("secret-tool does not see the new value")
	}
	search, _ := exec.Command("secret-tool", "search", "--all", "service", DefaultService, "username", "gh").CombinedOutput()
	if n := strings.Count(string(search), "[/"); n != 1 {
		t.Fatalf("overwrite left %d items for gh:\n%s", n, search)
	}
	t.Log("PROVED: Set again replaces the item (one item, new value) and Resolve returns it")

	names, err := s.List()
	if err != nil || strings.Join(names, ",") != "gh,openai.key" {
		t.Fatalf("List: %v %v", names, err)
	}
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte("REAL")) {
		t.Fatalf("the index holds a value: %s", b)
	}
	if fi, _ := os.Stat(index); fi.Mode().Perm() != 0o600 {
		t.Fatalf("index mode %v", fi.Mode().Perm())
	}
	keyringFile := filepath.Join(os.Getenv("HOME"), ".local", "share", "keyrings", "login.keyring")
	kb, err := os.ReadFile(keyringFile)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(kb, []byte(v2)) || bytes.Contains(kb, []byte(v3)) {
		t.Fatal("gnome-keyring's file holds a value in plain text")
	}
	t.Logf("PROVED: List = %v; the index (0600) holds names only; login.keyring (%d bytes) does not hold the values in plain text", names, len(kb))

	if err := s.Delete("gh"); err != nil {
		t.Fatal(err)
	}
	if _, err := secretTool("lookup", "service", DefaultService, "username", "gh"); err == nil {
		t.Fatal("secret-tool still finds gh after Delete")
	}
	_, err = s.Get("gh")
	if !errors.Is(err, ErrNotFound) || err.Error() != `secret "gh" is not set: run 'switchboard secret set gh'` {
		t.Fatalf("Get after Delete: %v", err)
	}
	if names, _ := s.List(); strings.Join(names, ",") != "openai.key" {
		t.Fatalf("List after Delete: %v", names)
	}
	t.Logf("PROVED: Delete removes it from the Secret Service and the index; Get then says: %v", err)

	// An entry removed behind our back: Delete drops it from the index.
	if err := s.Set("stale", New("stale-REAL-value")); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("secret-tool", "clear", "service", DefaultService, "username", "stale").CombinedOutput(); err != nil {
		t.Fatalf("secret-tool clear: %v %s", err, out)
	}
	if err := s.Delete("stale"); err != nil {
		t.Fatalf("Delete of a name gone from the keyring: %v", err)
	}
	if err := s.Delete("stale"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second Delete: %v", err)
	}

	// Locked: lock the login collection over D-Bus.
	var locked []dbus.ObjectPath
	var prompt dbus.ObjectPath
	if err := conn.Object(ssName, ssPath).Call("org.freedesktop.Secret.Service.Lock", 0, []dbus.ObjectPath{loginPath}).Store(&locked, &prompt); err != nil {
		t.Fatal(err)
	}
	if !collectionLocked(t, conn) {
		t.Fatal("the login collection is not locked")
	}
	t.Logf("locked %v (prompt %s)", locked, prompt)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err = s.Resolve(ctx, "openai.key")
	if KindOf(err) != Locked || !errors.Is(err, ErrLocked) {
		t.Fatalf("Resolve while locked: want Locked, got %v", err)
	}
	if !strings.Contains(err.Error(), `secret "openai.key"`) || !strings.Contains(err.Error(), "unlock the keyring") || strings.Contains(err.Error(), v3) {
		t.Fatalf("locked error text: %v", err)
	}
	t.Logf("PROVED: locked: Kind %v: %v", KindOf(err), err)

	err = s.Set("newone", New("new-REAL-value"))
	if KindOf(err) != Locked {
		t.Fatalf("Set while locked: want Locked, got %v", err)
	}
	if names, _ := s.List(); strings.Join(names, ",") != "openai.key" {
		t.Fatalf("a failed Set changed the index: %v", names)
	}
	t.Log("PROVED: Set while locked fails with Locked and leaves the index alone; List still works")

	// The remedy works: unlock, and the same store reads the value again.
	unlockWithPassword(t, conn)
	if got, err := s.Get("openai.key"); err != nil || got.Reveal() != v3 {
		t.Fatalf("Get after unlock: %v", err)
	}
	t.Log("PROVED: after unlocking the keyring, Get works again")

	if err := s.Delete("openai.key"); err != nil {
		t.Fatal(err)
	}
	if out, _ := exec.Command("secret-tool", "search", "--all", "service", DefaultService).CombinedOutput(); strings.Contains(string(out), "[/") {
		t.Fatalf("items left in the keyring:\n%s", out)
	}
}

// unlockWithPassword unlocks the login collection without a prompt,
// through gnome-keyring's own interface.
func unlockWithPassword(t *testing.T, conn *dbus.Conn) {
	svc := conn.Object(ssName, ssPath)
	var out dbus.Variant
	var session dbus.ObjectPath
	if err := svc.Call("org.freedesktop.Secret.Service.OpenSession", 0, "plain", dbus.MakeVariant("")).Store(&out, &session); err != nil {
		t.Fatal(err)
	}
	secret := struct {
		Session     dbus.ObjectPath
		Parameters  []byte
		Value       []byte
		ContentType string
	}{session, []byte{}, []byte(keyringPass), "text/plain"}
	if err := svc.Call("org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface.UnlockWithMasterPassword", 0, loginPath, secret).Err; err != nil {
		t.Fatal(err)
	}
	if collectionLocked(t, conn) {
		t.Fatal("still locked after UnlockWithMasterPassword")
	}
}
