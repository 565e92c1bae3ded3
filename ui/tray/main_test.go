package tray

// The helper processes of these tests are this test binary re-executed,
// its role chosen by helperEnv in TestMain: an MCP server for a real host
// to run, one that fails at once, and (in the cgo build) the real tray app.

import (
	"context"
	"errors"
	"fmt"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"io"
	"net"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const helperEnv = "SWITCHBOARD_TRAY_TEST_HELPER"

// helpers are the roles; a build may add its own in an init func.
var helpers = map[string]func() int{
	"mcp":   runMCP,
	"crash": runCrash,
}

var testExe string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ShimArg { // an in-process host's sandbox shim is this binary
		os.Exit(sandbox.ShimMain(os.Args[2:]))
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot find the test binary:", err)
		os.Exit(2)
	}
	testExe = exe
	role := os.Getenv(helperEnv)
	if role == "" {
		os.Setenv("LANG", "en_US.UTF-8") // Fyne cannot parse "C" and says so
		os.Exit(m.Run())
	}
	run, ok := helpers[role]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown helper %q\n", role)
		os.Exit(99)
	}
	os.Exit(run())
}

// runMCP is a go-sdk MCP server with two tools, echo and add.
func runMCP() int {
	fmt.Fprintln(os.Stderr, "tray test server: serving")
	s := mcp.NewServer(&mcp.Implementation{Name: "tray-test", Version: "1"}, nil)
	type echoArgs struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Message}}}, nil, nil
	})
	type addArgs struct {
		A, B int
	}
	mcp.AddTool(s, &mcp.Tool{Name: "add"}, func(ctx context.Context, req *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(a.A + a.B)}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "tray test server:", err)
	}
	return 0
}

// gateEnv, if set, is a loopback address where runCrash waits before it
// fails: until the test closes the connection (see crashGate).
const gateEnv = "SWITCHBOARD_TRAY_TEST_GATE"

// runCrash fails before any handshake, saying why on stderr.
func runCrash() int {
	if addr := os.Getenv(gateEnv); addr != "" {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tray test server: cannot reach the test's gate:", err)
			return 4
		}
		_, _ = io.Copy(io.Discard, c) // until the test opens the gate
		c.Close()
	}
	fmt.Fprintln(os.Stderr, "tray test server: cannot open the database /nonexistent/db")
	return 3
}
