//go:build linux

package cli

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/remotetest"
)

// TestRemoteLoginBridge: the real program end to end, with a private
// gnome-keyring: a remote server behind an OAuth authorization server
// (mockoidc) is "sign-in needed" in status, with its url; 'servers login'
// prints the page, a scripted browser completes the sign-in, and the
// server runs; a real bridge lists and calls its tools; the tokens are in
// the keyring, and in no file of the home, config, cache or runtime
// directories nor the host's log; 'servers logout' deletes them.
func TestRemoteLoginBridge(t *testing.T) {
	rig := remotetest.NewOAuthRig(t)
	sb := newSessionSandbox(t) // the real rendezvous: the bridge below has no SWITCHBOARD_RUNTIME_DIR
	addr := privateKeyring(t, sb)
	sb.env = sb.with("DBUS_SESSION_BUS_ADDRESS=" + addr)
	// Added as a user would, with no host yet: the CLI writes the entry.
	if out := sb.cli(t, "servers", "add", "o", "--url", rig.MCPURL, "--oauth", "--client-id", rig.AS.ClientID, "--client-secret", "o-client"); !strings.Contains(out, `secret "o-client" is not set yet`) {
		t.Errorf("servers add --url:\n%s", out)
	}
	// Without a host, status and doctor show the url (no command to resolve).
	if out := sb.cli(t, "status"); !strings.Contains(out, rig.MCPURL+" (http)") || strings.Contains(out, "not found") {
		t.Errorf("status without a host:\n%s", out)
	}
	if r := sb.run(t, "", "doctor"); !strings.Contains(r.stdout, "server o: remote, "+rig.MCPURL+" (http)") ||
		!strings.Contains(r.stdout, "FIX   server o: not signed in: run 'switchboard servers login o'") || r.code == 0 {
		t.Errorf("doctor before the sign-in:\n%s", r)
	}
	sb.serve(t)
	if r := sb.run(t, rig.AS.ClientSecret, "secret", "set", "o-client"); r.code != 0 {
		t.Fatalf("secret set: %s", r)
	}
	sb.waitServer(t, "o", "sign-in needed", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateSignInNeeded })
	if out := sb.cli(t, "status"); !strings.Contains(out, rig.MCPURL+" (http)") || !strings.Contains(out, "sign-in needed") {
		t.Errorf("status does not show the url and the state:\n%s", out)
	}

	cmd := exec.Command(sbBin, "servers", "login", "o", "--no-browser")
	cmd.Env = sb.env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var printed []string
	page := ""
	for page == "" && sc.Scan() {
		printed = append(printed, sc.Text())
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "http") {
			page = l
		}
	}
	if page == "" {
		_ = cmd.Wait()
		t.Fatalf("servers login printed no page:\n%s\n%s", strings.Join(printed, "\n"), stderr.String())
	}
	remotetest.Browse(t, page, nil)
	for sc.Scan() {
		printed = append(printed, sc.Text())
	}
	if err := cmd.Wait(); err != nil || !strings.Contains(strings.Join(printed, "\n"), "signed in to o") {
		t.Fatalf("servers login: %v\n%s\n%s", err, strings.Join(printed, "\n"), stderr.String())
	}
	sb.waitServer(t, "o", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 1 })

	if r := sb.run(t, "", "doctor"); !strings.Contains(r.stdout, "ok    server o: signed in") {
		t.Errorf("doctor after the sign-in:\n%s", r)
	} else {
		for _, tok := range rig.Issued() {
			if strings.Contains(r.stdout+r.stderr, tok) {
				t.Error("doctor printed a token")
			}
		}
	}

	// The bridge as an AI app starts it: the SDKs' six variables, no
	// keyring bus; it reaches the host, which holds the tokens.
	b := sb.bridgeEnv(t, only(sb.env, sdkDefaultEnvNames...), "")
	if got := b.tools(t); !slices.Contains(got, "o__whoami") {
		t.Fatalf("the bridge lists %v: no o__whoami", got)
	}
	if got := b.call(t, "o__whoami", map[string]any{}); got != "signed in" {
		t.Errorf("o__whoami through the bridge = %q", got)
	}

	if _, err := exec.LookPath("secret-tool"); err == nil {
		c := exec.Command("secret-tool", "lookup", "service", "switchboard", "username", "oauth.o")
		c.Env = sb.env
		if got, err := c.Output(); err != nil || !strings.Contains(string(got), `"access_token"`) {
			t.Errorf("the tokens are not in the keyring (secret-tool lookup: %v)", err)
		}
	}
	tokens := rig.Issued()
	if len(tokens) < 2 {
		t.Fatalf("the authorization server issued %d tokens", len(tokens))
	}
	_ = filepath.Walk(sb.root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		data, _ := os.ReadFile(p)
		for _, tok := range append(tokens, rig.AS.ClientSecret) {
			if strings.Contains(string(data), tok) {
				t.Errorf("%s holds a token or the client secret", p)
				break
			}
		}
		return nil
	})

	if out := sb.cli(t, "servers", "logout", "o"); !strings.Contains(out, "signed out of o") {
		t.Errorf("servers logout printed %q", out)
	}
	sb.waitServer(t, "o", "sign-in needed after the logout", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateSignInNeeded })
	if _, err := exec.LookPath("secret-tool"); err == nil {
		c := exec.Command("secret-tool", "lookup", "service", "switchboard", "username", "oauth.o")
		c.Env = sb.env
		if got, _ := c.Output(); len(got) > 0 {
			t.Error("the tokens are still in the keyring after the logout")
		}
	}
}
