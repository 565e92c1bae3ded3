//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestBridgeToolModeSearch: a real bridge (switchboard-bridge and
// switchboard bridge) started with --tool-mode search in the environment
// the MCP SDKs give a stdio server (HOME LOGNAME PATH SHELL TERM USER
// only), against a real host serving server-everything: the app lists
// find_tools and call_tool; find_tools finds everything__get-sum for a
// request in plain words; call_tool runs it; the activity log records
// everything's get-sum, from the bridge. An unknown mode is refused with
// the allowed ones named.
func TestBridgeToolModeSearch(t *testing.T) {
	everything := testkit.NpmServer(t, "mcp-server-everything")
	sb := newSessionSandbox(t)
	sb.serve(t)
	sb.cli(t, "servers", "add", "everything", "--env", markEnv+"="+sb.mark, "--", everything)
	sb.waitServer(t, "everything", "tools listed", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools > 0 })
	env := only(sb.env, sdkDefaultEnvNames...)

	for i, prog := range []bridgeProgram{smallBridge(), bigBridge()} {
		t.Run(prog.name, func(t *testing.T) {
			b := sb.bridgeProg(t, prog, env, "", "--tool-mode", "search")
			if got := b.tools(t); !slices.Equal(got, []string{"call_tool", "find_tools"}) {
				t.Fatalf("tools %v, want [call_tool find_tools]", got)
			}
			text := b.call(t, "find_tools", map[string]any{"query": "what is the sum of two numbers"})
			var found struct {
				Tools []*mcp.Tool `json:"tools"`
			}
			if err := json.Unmarshal([]byte(text), &found); err != nil {
				t.Fatalf("find_tools answered %q: %v", text, err)
			}
			if !slices.ContainsFunc(found.Tools, func(tl *mcp.Tool) bool { return tl.Name == "everything__get-sum" && tl.InputSchema != nil }) {
				t.Fatalf("find_tools did not find everything__get-sum: %s", text)
			}
			if got := b.call(t, "call_tool", map[string]any{"name": "everything__get-sum", "arguments": map[string]any{"a": 20, "b": 22 + i}}); !strings.Contains(got, "4") || strings.HasPrefix(got, "ERROR") {
				t.Errorf("call_tool everything__get-sum: %q", got)
			}
			testkit.Eventually(t, "the activity log has the call", func() (bool, string) {
				rs := sb.activityRecords(t, "--server", "everything")
				for _, r := range rs {
					if r.Target == "get-sum" && r.Outcome == "ok" && strings.HasPrefix(r.Conn, "bridge pid ") && strings.Contains(r.Preview, `"b":`+[]string{"22", "23"}[i]) {
						return true, ""
					}
				}
				b, _ := json.Marshal(rs)
				return false, string(b)
			})
		})
	}

	// An unknown mode: exit 2, the value and the allowed ones named.
	for _, prog := range []bridgeProgram{smallBridge(), bigBridge()} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, prog.argv[0], append(prog.argv[1:len(prog.argv):len(prog.argv)], "--tool-mode", "serach")...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		cancel()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), `"serach"`) || !strings.Contains(string(out), `"search"`) {
			t.Errorf("%s --tool-mode serach: %v\n%s", prog.name, err, out)
		}
	}
}
