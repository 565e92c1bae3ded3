//go:build linux

package cli

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestBridgeProfileStrippedEnv: the real 'switchboard bridge --profile'
// and switchboard-bridge, started with the environment the TypeScript and
// Python SDKs pass (HOME LOGNAME PATH SHELL TERM USER), against a real
// host: the app sees only the profile's tools, the flags narrow it
// further, an unknown profile shows nothing (and says so on stderr), and
// editing the profile through the host changes the connected app's list
// with list_changed, without restarting a server.
func TestBridgeProfileStrippedEnv(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSessionSandbox(t)
	sb.serve(t)
	sb.cli(t, sb.helperArgs("srv", "modern")...)
	sb.cli(t, sb.helperArgs("other", "modern")...)
	srv, other := sb.waitRunning(t, "srv"), sb.waitRunning(t, "other")
	sb.cli(t, "profiles", "set", "coding", "--servers", "srv,missing")
	env := only(sb.env, sdkDefaultEnvNames...)

	for _, prog := range []bridgeProgram{bigBridge(), smallBridge()} {
		t.Run(prog.name, func(t *testing.T) {
			b := sb.bridgeProg(t, prog, env, "", "--profile", "coding")
			if got := b.tools(t); !slices.Equal(got, []string{"srv__echo"}) {
				t.Errorf("--profile coding: tools %v, want [srv__echo]", got)
			}
			if got := b.call(t, "srv__echo", map[string]any{"message": "hi"}); got != "echo: hi" {
				t.Errorf("call: %q", got)
			}
			narrow := sb.bridgeProg(t, prog, env, "", "--profile", "coding", "--servers", "other")
			if got := narrow.tools(t); len(got) != 0 {
				t.Errorf("--profile coding --servers other: tools %v, want none (the intersection)", got)
			}
			unknown := sb.bridgeProg(t, prog, env, "", "--profile", "nosuch")
			if got := unknown.tools(t); len(got) != 0 {
				t.Errorf("--profile nosuch: tools %v, want none", got)
			}
			testkit.Eventually(t, "the bridge's stderr names the unknown profile", func() bool {
				return strings.Contains(unknown.stderr.String(), `no profile is named "nosuch"`)
			})
		})
	}

	// A hot edit: the connected app gets list_changed and the new list.
	changed := make(chan struct{}, 16)
	cmd := exec.Command(sbBin, "bridge", "--profile", "coding")
	cmd.Env = env
	c := mcp.NewClient(&mcp.Implementation{Name: "profile-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list := func() []string {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		return names
	}
	if got := list(); !slices.Equal(got, []string{"srv__echo"}) {
		t.Fatalf("before the edit: %v", got)
	}
	sb.cli(t, "profiles", "set", "coding", "--servers", "other")
	select {
	case <-changed:
	case <-time.After(wait):
		t.Fatal("no list_changed after the profile's edit")
	}
	testkit.Eventually(t, "the new list", func() bool { return slices.Equal(list(), []string{"other__echo"}) })
	if a, b := sb.waitRunning(t, "srv"), sb.waitRunning(t, "other"); a.PID != srv.PID || b.PID != other.PID {
		t.Errorf("editing a profile restarted a server: srv %d -> %d, other %d -> %d", srv.PID, a.PID, other.PID, b.PID)
	}
	out := sb.cli(t, "profiles")
	if !strings.Contains(out, "coding") || !strings.Contains(out, "other") {
		t.Errorf("profiles through the host:\n%s", out)
	}
}
