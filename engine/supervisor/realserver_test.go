//go:build unix

package supervisor_test

// Real MCP servers that no one here wrote, from npm (installed in
// engine/stdio/testdata/npm by `npm ci`), driven by the go-sdk client over
// the supervisor and our transport.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// realSpec is the spec of a real server: the ladder steps short, but long
// enough for node to exit by itself on EOF.
func realSpec(t *testing.T, command string, args ...string) engine.Spec {
	return engine.Spec{
		Name:       t.Name(),
		Command:    command,
		Args:       args,
		Stderr:     engine.Stderr{Kind: engine.StderrCapture},
		StdinGrace: time.Second,
		TermGrace:  time.Second,
	}
}

// startReal starts a supervisor of spec and waits until it runs. client
// nil means testClient().
func startReal(t *testing.T, spec engine.Spec, client *mcp.Client) (*supervisor.Supervisor, *recorder, change, int) {
	t.Helper()
	if client == nil {
		client = testClient()
	}
	rec := newRecorder()
	sup := supervisor.New(supervisor.Options{
		Spec:     spec,
		Client:   client,
		Policy:   supervisor.Policy{Initial: 20 * time.Millisecond, Max: 100 * time.Millisecond, StableAfter: time.Minute},
		OnChange: rec.onChange,
	})
	t.Cleanup(func() {
		select {
		case <-sup.Stop():
		case <-time.After(15 * time.Second):
			t.Errorf("Stop's channel did not close within 15 s")
		}
	})
	t0 := time.Now()
	sup.Start()
	run, ri := rec.waitState(t, 0, supervisor.Running)
	t.Logf("start to running (spawn and handshake): %v", time.Since(t0))
	if run.St.Era != supervisor.EraLegacy {
		t.Errorf("era %q (protocol %q), want legacy", run.St.Era, run.St.ProtocolVersion)
	}
	return sup, rec, run, ri
}

// stopReal stops a running real server and checks that nothing of its
// process group is left.
func stopReal(t *testing.T, sup *supervisor.Supervisor, pid int) {
	t.Helper()
	members := groupMembers(pid)
	t0 := time.Now()
	select {
	case <-sup.Stop():
	case <-time.After(15 * time.Second):
		t.Fatal("Stop's channel did not close within 15 s")
	}
	spec := sup.Spec()
	took := time.Since(t0)
	step := "stdin close"
	switch {
	case took >= spec.StdinGrace+spec.TermGrace:
		step = "SIGKILL"
	case took >= spec.StdinGrace:
		step = "SIGTERM"
	}
	t.Logf("stop took %v (ended by %s); the group had %v", took, step, members)
	requireGone(t, pid)
	for _, m := range members {
		if _, _, _, ok := procStat(m); ok {
			t.Errorf("process %d of the server's group is still there", m)
		}
	}
	if st := sup.Status(); st.State != supervisor.Stopped {
		t.Errorf("state %q after Stop", st.State)
	}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

func TestRealEverything(t *testing.T) {
	t.Parallel()
	bin := testkit.NpmServer(t, "mcp-server-everything")
	// server-everything asks for the client's roots (roots/list) 350 ms
	// after the handshake and logs when it has them.
	rootsSynced := make(chan struct{}, 4)
	// The long-running operation's progress says that a call reached it.
	progressed := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "switchboard-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		},
		//lint:ignore SA1019 server-everything says it has the roots only in a log message: the (deprecated, still functional) logging handler is how to hear it
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			if msg, _ := req.Params.Data.(string); strings.HasPrefix(msg, "Roots updated") {
				select {
				case rootsSynced <- struct{}{}:
				default:
				}
			}
		},
	})
	sup, rec, run, ri := startReal(t, realSpec(t, bin, "stdio"), client)
	cs := run.Sess

	names := toolNames(t, cs)
	long := ""
	for _, n := range names {
		if strings.Contains(strings.ToLower(n), "long") {
			long = n
		}
	}
	if !slices.Contains(names, "echo") || long == "" {
		t.Fatalf("tools %v lack echo or a long-running operation", names)
	}
	if got := echo(t, cs, "hello everything"); got != "Echo: hello everything" {
		t.Errorf("echo answered %q", got)
	}

	// Cancel a long-running call: it returns promptly, and the session
	// stays usable.
	ctx, cancel := context.WithCancel(context.Background())
	callErr := make(chan error, 1)
	go func() {
		p := &mcp.CallToolParams{Name: long, Arguments: map[string]any{"duration": 30, "steps": 30}}
		p.SetProgressToken("long")
		_, err := cs.CallTool(ctx, p)
		callErr <- err
	}()
	select { // the call reached the server: its first step's progress
	case <-progressed:
	case <-time.After(testkit.Deadline):
		t.Fatal("no progress from the long-running operation")
	}
	t0 := time.Now()
	cancel()
	select {
	case err := <-callErr:
		t.Logf("the cancelled call returned after %v", time.Since(t0))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the cancelled call failed with %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the cancelled call did not return within 5 s")
	}
	echo(t, cs, "still there")
	if st := sup.Status(); st.State != supervisor.Running || st.PID != run.St.PID {
		t.Errorf("after the cancel: state %q, pid %d (was %d)", st.State, st.PID, run.St.PID)
	}

	// SIGKILL: a new server and session come up.
	t0 = time.Now()
	if err := syscall.Kill(run.St.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	again, _ := rec.waitFor(t, ri+1, "running with a new pid", func(st supervisor.Status) bool {
		return st.State == supervisor.Running && st.PID != run.St.PID
	})
	t.Logf("kill to running again: %v", time.Since(t0))
	if again.Sess == nil || again.Sess == cs {
		t.Fatal("no new session after the kill")
	}
	if got := echo(t, again.Sess, "after the kill"); got != "Echo: after the kill" {
		t.Errorf("echo answered %q", got)
	}
	if _, _, _, ok := procStat(run.St.PID); ok {
		t.Errorf("the killed server %d is still there", run.St.PID)
	}

	// Stopped at once, while its roots/list request is due or pending,
	// node may outlive its closed stdin (platform-facts): the ladder's
	// SIGTERM ends it.
	stopReal(t, sup, again.St.PID)

	// Stopped after the roots/list was answered, it exits on EOF.
	for len(rootsSynced) > 0 {
		<-rootsSynced
	}
	from := len(rec.changes())
	sup.Start()
	third, _ := rec.waitState(t, from, supervisor.Running)
	select {
	case <-rootsSynced:
	case <-time.After(10 * time.Second):
		t.Fatal("server-everything did not log that it got the client's roots")
	}
	echo(t, third.Sess, "roots synced")
	stopReal(t, sup, third.St.PID)
}

func TestRealFilesystem(t *testing.T) {
	t.Parallel()
	bin := testkit.NpmServer(t, "mcp-server-filesystem")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "note.txt")
	const content = "switchboard was here\nsecond line\n"
	if err := os.WriteFile(file, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	sup, _, run, _ := startReal(t, realSpec(t, bin, dir), nil)
	cs := run.Sess

	names := toolNames(t, cs)
	tool := "read_text_file"
	if !slices.Contains(names, tool) {
		tool = "read_file"
		if !slices.Contains(names, tool) {
			t.Fatalf("tools %v have no read tool", names)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"path": file}})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	if res.IsError {
		t.Fatalf("%s failed: %q", tool, textOf(t, res))
	}
	if got := textOf(t, res); got != content {
		t.Errorf("%s read %q, want %q", tool, got, content)
	}
	// Outside the allowed directory: refused by the server.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"path": "/etc/hostname"}})
	if err == nil && !res.IsError {
		t.Errorf("%s outside the allowed directory answered %q", tool, textOf(t, res))
	}

	stopReal(t, sup, run.St.PID)
}
