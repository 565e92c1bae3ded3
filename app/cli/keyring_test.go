//go:build linux

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// privateKeyring starts a private session bus and gnome-keyring-daemon on
// it for the sandbox (its login keyring under the sandbox's HOME), and
// returns the bus address (testkit.GnomeKeyring).
func privateKeyring(t *testing.T, sb *sandbox) string {
	t.Helper()
	return testkit.GnomeKeyring(t, sb.env)
}

// TestE2ESecretRealKeyring: a server whose env refers to a keyring secret
// waits for it; `secret set` (value on stdin) stores it in a real
// gnome-keyring, the server starts with it in its environment, and the
// value is nowhere else: not in the config, the log, the status or any
// output of the CLI.
func TestE2ESecretRealKeyring(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	addr := privateKeyring(t, sb)
	sb.env = sb.with("DBUS_SESSION_BUS_ADDRESS=" + addr)
	h := sb.serve(t)
	var outputs []string // every output of the CLI
	cli := func(stdin string, args ...string) string {
		t.Helper()
		r := sb.run(t, stdin, args...)
		outputs = append(outputs, r.stdout, r.stderr)
		if r.code != 0 {
			t.Fatalf("switchboard %s: %s", strings.Join(args, " "), r)
		}
		return r.stdout
	}

	out := cli("", sb.helperArgs("tokened", "modern", "--secret-env", "TOKEN=tok")...)
	if !strings.Contains(out, "added tokened") || !strings.Contains(out, `secret "tok" is not set yet: run 'switchboard secret set tok'`) {
		t.Fatalf("servers add printed %q", out)
	}
	if b, _ := os.ReadFile(sb.configPath()); !bytes.Contains(b, []byte(`"TOKEN": "${keyring:tok}"`)) {
		t.Fatalf("the config does not refer to the secret:\n%s", b)
	}
	st := sb.waitServer(t, "tokened", "waiting for secret", func(s hostapi.ServerStatus) bool { return s.State == "waiting for secret" })
	for _, want := range []string{"env.TOKEN", `secret "tok"`, "switchboard secret set tok"} {
		if !strings.Contains(st.LastError, want) {
			t.Errorf("the waiting server's error %q lacks %q", st.LastError, want)
		}
	}
	if human := cli("", "status"); !strings.Contains(human, "waiting for secret") || !strings.Contains(human, "env.TOKEN") {
		t.Errorf("status does not show the wait:\n%s", human)
	}

	const v1, v2 = "sekrit-123", "sekrit-456"
	out = cli(v1, "secret", "set", "tok")
	if !strings.Contains(out, "secret tok stored in the keyring") || !strings.Contains(out, "restarted the servers that use it: tokened") {
		t.Fatalf("secret set printed %q", out)
	}
	p1 := sb.waitRunning(t, "tokened").PID
	if env := testkit.Environ(t, p1); !slices.Contains(env, "TOKEN="+v1) {
		t.Fatalf("the server's environment lacks TOKEN=%s: %q", v1, env)
	}
	if _, err := exec.LookPath("secret-tool"); err == nil {
		cmd := exec.Command("secret-tool", "lookup", "service", "switchboard", "username", "tok")
		cmd.Env = sb.env
		if got, err := cmd.Output(); err != nil || string(got) != v1 {
			t.Fatalf("secret-tool lookup: %q %v", got, err)
		}
		t.Log("secret-tool reads the value from gnome-keyring")
	}

	// A new value (a trailing newline is stripped) restarts the server.
	cli(v2+"\n", "secret", "set", "tok")
	p2 := sb.waitServer(t, "tokened", "restarted", func(s hostapi.ServerStatus) bool {
		return s.State == "running" && s.PID != 0 && s.PID != p1
	}).PID
	if env := testkit.Environ(t, p2); !slices.Contains(env, "TOKEN="+v2) {
		t.Fatalf("the restarted server's environment lacks TOKEN=%s: %q", v2, env)
	}
	if out := cli("", "secret", "list"); !strings.Contains(out, "tok\tused by tokened") {
		t.Fatalf("secret list printed %q", out)
	}
	outputs = append(outputs, cli("", "status", "--json"), cli("", "status"), cli("", "servers", "list"), cli("", "logs", "tokened"), cli("", "doctor"))

	// Nowhere else.
	cli("", "stop")
	h.wait(t, wait)
	files := map[string]string{"config.json": sb.configPath(), "host.log": sb.logPath(),
		"the secrets index": filepath.Join(sb.configHome, "switchboard", "secrets.json")}
	for what, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for _, v := range []string{v1, v2} {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("the value is in %s:\n%s", what, b)
			}
		}
	}
	all := strings.Join(append(outputs, h.stderr.String()), "\n")
	for _, v := range []string{v1, v2} {
		if strings.Contains(all, v) {
			t.Errorf("the value %q is in the output of the CLI or the host:\n%s", v, all)
		}
	}
	if !strings.Contains(all, `"secrets": [`) {
		t.Errorf("status --json lists no secrets of the server:\n%s", all)
	}
}
