//go:build linux

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

func init() { helpers["secret-echo"] = runSecretEcho }

// runSecretEcho is a server that gives its TOKEN away: the tool reveal
// returns it (as a careless server would), echo echoes its message; a
// prompt and a resource for the other recorded requests.
func runSecretEcho() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "secret-echo", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "reveal"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: os.Getenv("TOKEN")}}}, nil, nil
	})
	type echoArgs struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Message}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "failed"}}}, nil, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who"}}}, func(ctx context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + r.Params.Arguments["who"]}}}}, nil
	})
	s.AddResource(&mcp.Resource{Name: "note", URI: "note://one"}, func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "a note"}}}, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "secret-echo:", err)
	}
	return 0
}

// activityRecords runs 'switchboard activity --json ARGS' in the sandbox.
func (s *sandbox) activityRecords(t *testing.T, args ...string) []hostapi.ActivityRecord {
	t.Helper()
	out := s.cli(t, append([]string{"--json", "activity"}, args...)...)
	var rs []hostapi.ActivityRecord
	if err := json.Unmarshal([]byte(out), &rs); err != nil {
		t.Fatalf("activity --json printed %q: %v", out, err)
	}
	return rs
}

// TestActivityThroughBridge: with a real gnome-keyring, a real host and a
// real bridge, every tools/call, prompts/get and resources/read is
// recorded with the app's clientInfo name and "bridge pid N"; a call
// through the API as switchboard, "api pid N"; the keyring secret that the
// server gave away and the app sent back is "[secret canary]" in the
// preview and nowhere in the database's files; the CLI's filters select.
func TestActivityThroughBridge(t *testing.T) {
	sb := newSandbox(t)
	addr := privateKeyring(t, sb)
	sb.env = sb.with("DBUS_SESSION_BUS_ADDRESS=" + addr)
	h := sb.serve(t)
	const canary = "canary-4f1c9e2b7d-secret"
	sb.cli(t, sb.helperArgs("srv", "secret-echo", "--secret-env", "TOKEN=canary")...)
	if r := sb.run(t, canary, "secret", "set", "canary"); r.code != 0 {
		t.Fatalf("secret set: %s", r)
	}
	sb.waitServer(t, "srv", "tools listed", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools == 3 })

	b := sb.bridge(t, "")
	bpid := b.cmd.Process.Pid
	got := b.call(t, "srv__reveal", map[string]any{})
	if got != canary {
		t.Fatalf("reveal returned %q", got)
	}
	// The app sends the secret back in its next call's arguments.
	if out := b.call(t, "srv__echo", map[string]any{"message": "the token is " + got}); out != "echo: the token is "+canary {
		t.Fatalf("echo returned %q", out)
	}
	if out := b.call(t, "srv__fail", map[string]any{}); !strings.HasPrefix(out, "ERROR: ") {
		t.Fatalf("fail returned %q", out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := b.cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "srv__greet", Arguments: map[string]string{"who": canary}}); err != nil {
		t.Fatalf("prompts/get: %v", err)
	}
	if _, err := b.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "note://one"}); err != nil {
		t.Fatalf("resources/read: %v", err)
	}
	// And one through the API.
	sb.cli(t, "call", "srv", "echo", `{"message":"from the api"}`)

	var rs []hostapi.ActivityRecord
	testkit.Eventually(t, "six records", func() (bool, string) {
		rs = sb.activityRecords(t)
		return len(rs) == 6, fmt.Sprint(rs)
	})
	conn := "bridge pid " + strconv.Itoa(bpid)
	want := []struct{ kind, target, outcome, app, conn, preview string }{
		{"tools/call", "reveal", "ok", "bridge-test", conn, "{}"},
		{"tools/call", "echo", "ok", "bridge-test", conn, `{"message":"the token is [secret canary]"}`},
		{"tools/call", "fail", "tool_error", "bridge-test", conn, "{}"},
		{"prompts/get", "greet", "ok", "bridge-test", conn, `{"who":"[secret canary]"}`},
		{"resources/read", "note://one", "ok", "bridge-test", conn, ""},
		{"tools/call", "echo", "ok", "switchboard", "api pid ", `{"message":"from the api"}`},
	}
	for i, w := range want {
		r := rs[i]
		if r.Kind != w.kind || r.Target != w.target || r.Outcome != w.outcome || r.App != w.app || !strings.HasPrefix(r.Conn, w.conn) ||
			r.Preview != w.preview || r.Server != "srv" || r.Time.IsZero() {
			t.Errorf("record %d: %+v\nwant %+v", i, r, w)
		}
	}
	if rs[0].ResultBytes < len(canary) || rs[1].ArgBytes < len(canary) {
		t.Errorf("sizes: reveal's result %d bytes, echo's arguments %d", rs[0].ResultBytes, rs[1].ArgBytes)
	}
	if !regexp.MustCompile(`^api pid [1-9][0-9]*$`).MatchString(rs[5].Conn) {
		t.Errorf("the API's call came on %q", rs[5].Conn)
	}

	// The filters.
	if got := sb.activityRecords(t, "--errors"); len(got) != 1 || got[0].Target != "fail" {
		t.Errorf("--errors: %+v", got)
	}
	if got := sb.activityRecords(t, "--app", "switchboard"); len(got) != 1 || got[0].App != "switchboard" {
		t.Errorf("--app switchboard: %+v", got)
	}
	if got := sb.activityRecords(t, "--tool", "e*", "--since", "1h"); len(got) != 2 {
		t.Errorf("--tool 'e*': %+v", got)
	}
	if got := sb.activityRecords(t, "--server", "other"); len(got) != 0 {
		t.Errorf("--server other: %+v", got)
	}
	human := sb.cli(t, "activity")
	if lines := strings.Split(strings.TrimSpace(human), "\n"); len(lines) != 7 || !strings.HasPrefix(lines[0], "TIME ") ||
		!regexp.MustCompile(`srv +echo +ok `).MatchString(lines[2]) || !strings.Contains(lines[2], "bridge-test ("+conn+")") ||
		!strings.Contains(lines[2], `[secret canary]`) || !strings.Contains(lines[3], "tool_error") {
		t.Errorf("activity printed:\n%s", human)
	}
	if strings.Contains(human, canary) {
		t.Errorf("activity printed the secret:\n%s", human)
	}

	// Nowhere in the files: while the host runs (the -wal), then after it
	// stopped (checkpointed into the .db).
	dbPath := filepath.Join(sb.home, ".local", "state", "switchboard", "activity.db")
	scan := func(when string) {
		t.Helper()
		n := 0
		for _, p := range []string{dbPath, dbPath + "-wal", dbPath + "-shm"} {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			n += len(data)
			if bytes.Contains(data, []byte(canary)) {
				t.Errorf("%s: %s holds the secret", when, p)
			}
		}
		if n == 0 {
			t.Fatalf("%s: no database at %s", when, dbPath)
		}
	}
	scan("host running")
	sb.cli(t, "stop")
	h.wait(t, wait)
	scan("host stopped")
	data, _ := os.ReadFile(dbPath)
	if !bytes.Contains(data, []byte("[secret canary]")) {
		t.Errorf("the stopped host's database lacks the redacted previews (%d bytes)", len(data))
	}
}

// TestActivityOff: "activity": false opens no database; status and the
// command say the log is off; the key survives an edit through the CLI,
// and turning the log on in the file while the host runs opens it.
func TestActivityOff(t *testing.T) {
	sb := newSandbox(t)
	sb.run(t, "", sb.helperArgs("srv", "modern")...) // no host: written to the file
	cfg := readConfig(t, sb.configPath())
	cfg["activity"] = false
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(sb.configPath(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	sb.serve(t)
	sb.waitRunning(t, "srv")
	br := sb.bridge(t, "")
	if got := br.call(t, "srv__echo", map[string]any{"message": "hi"}); got != "echo: hi" {
		t.Fatalf("call: %q", got)
	}
	r := sb.run(t, "", "activity")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, `the activity log is off ("activity": false`) {
		t.Errorf("activity with the log off: %s", r)
	}
	if out := sb.cli(t, "status"); !strings.Contains(out, "the activity log is off") {
		t.Errorf("status:\n%s", out)
	}
	// The state directory may exist (the tool pins live there too); the
	// database may not.
	for _, f := range []string{"activity.db", "activity.db-wal", "activity.db-shm"} {
		if _, err := os.Stat(filepath.Join(sb.home, ".local", "state", "switchboard", f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was made with the log off: %v", f, err)
		}
	}
	// The key survives a change through the CLI.
	sb.cli(t, "servers", "disable", "srv")
	if cfg := readConfig(t, sb.configPath()); cfg["activity"] != false {
		t.Errorf("activity after servers disable: %v", cfg["activity"])
	}

	// Turned on in the file while the host runs: the reload opens it.
	cfg = readConfig(t, sb.configPath())
	cfg["activity"] = map[string]any{"retainDays": 7}
	delete(servers(cfg)["srv"].(map[string]any), "disabled")
	b, _ = json.Marshal(cfg)
	writeRename(t, sb.configPath(), b)
	sb.waitStatus(t, "the log on", func(s statusOut) bool { return s.Host != nil && s.Host.Activity.On })
	sb.waitRunning(t, "srv")
	br = sb.bridge(t, "")
	br.call(t, "srv__echo", map[string]any{"message": "now recorded"})
	testkit.Eventually(t, "the call recorded", func() (bool, string) {
		rs := sb.activityRecords(t)
		return len(rs) == 1 && rs[0].Preview == `{"message":"now recorded"}`, fmt.Sprint(rs)
	})
}

// TestActivitySIGKILLedHost: a host killed with SIGKILL in the middle of
// a burst of calls leaves a database that the next host opens, with every
// record a query saw before the kill (a query sees committed batches
// only).
func TestActivitySIGKILLedHost(t *testing.T) {
	sb := newSandbox(t)
	h := sb.serve(t)
	sb.cli(t, sb.helperArgs("srv", "modern")...)
	sb.waitRunning(t, "srv")
	// The burst comes through the API (servers.call: the same relay and
	// hook as a bridge's calls), from this process: a bridge would start
	// a host of its own on demand once this one is gone.
	ctx, cancel := context.WithTimeout(context.Background(), 2*wait)
	defer cancel()
	c, err := client.Dial(ctx, sb.socket())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; ctx.Err() == nil; n++ {
				if _, err := c.Call(ctx, "srv", "echo", json.RawMessage(fmt.Sprintf(`{"message":"burst %d.%d"}`, i, n))); err != nil {
					return // the host is gone
				}
			}
		}()
	}
	var seen []hostapi.ActivityRecord
	testkit.Eventually(t, "200 records committed", func() (bool, string) {
		seen = sb.activityRecords(t, "--limit", "10000")
		return len(seen) >= 200, fmt.Sprint(len(seen))
	})
	if err := syscall.Kill(h.pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	h.wait(t, wait)
	wg.Wait()
	c.Close()

	sb.serve(t)
	after := sb.activityRecords(t, "--limit", "10000")
	ids := map[int64]bool{}
	for _, r := range after {
		ids[r.ID] = true
	}
	for _, r := range seen {
		if !ids[r.ID] {
			t.Fatalf("record %d (%s) was committed before the kill and is gone after it", r.ID, r.Preview)
		}
	}
	t.Logf("%d records seen before the kill, %d in the database after it", len(seen), len(after))
}
