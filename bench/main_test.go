//go:build unix

package bench

// The child processes of these benchmarks are helper processes: the test
// binary re-executed, its role chosen by helperEnv and checked in TestMain.
// The engine passes only allowlisted variables to a server, so the role
// travels in the spec's Env (and in the Env of the baselines' exec.Cmd,
// which gets the same allowlisted environment).

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const helperEnv = "SWITCHBOARD_BENCH_HELPER"

// testExe is the test binary, run as every helper.
var testExe string

func TestMain(m *testing.M) {
	testkit.HelperMain(&testExe, helperEnv, helpers)
	os.Exit(m.Run())
}

// readyLine is what the stop helpers print once they run: a JSON-RPC
// notification, so that a Conn hands it to Read.
const readyLine = `{"jsonrpc":"2.0","method":"notifications/ready"}` + "\n"

var helpers = map[string]func() int{
	// echo writes every line of stdin back to stdout, flushing whenever no
	// more input is buffered; it exits at EOF.
	"echo": func() int {
		echo(os.Stdin, os.Stdout)
		return 0
	},
	// mcp is a go-sdk server with one trivial tool, over its StdioTransport.
	"mcp": func() int {
		s := mcp.NewServer(&mcp.Implementation{Name: "bench-server", Version: "1.0.0"}, nil)
		mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "returns its text"},
			func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
			})
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			return 1
		}
		return 0
	},
	// ignore-eof never reads stdin; SIGTERM ends it (Go's default action).
	"ignore-eof": func() int {
		os.Stdout.WriteString(readyLine)
		testkit.Hang()
		return 0
	},
	// ignore-term ignores EOF and SIGTERM: only SIGKILL ends it.
	"ignore-term": func() int {
		signal.Ignore(syscall.SIGTERM)
		os.Stdout.WriteString(readyLine)
		testkit.Hang()
		return 0
	},
}

type echoIn struct {
	Text string `json:"text"`
}

// echo copies r to w line by line through large buffers, flushing when the
// input has nothing more buffered (so a ping-pong peer gets each line at
// once and a stream is written in large blocks).
func echo(r io.Reader, w io.Writer) {
	br := bufio.NewReaderSize(r, 1<<20)
	bw := bufio.NewWriterSize(w, 1<<20)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if _, werr := bw.Write(line); werr != nil {
				return
			}
		}
		if err != nil && err != bufio.ErrBufferFull {
			bw.Flush()
			return
		}
		if br.Buffered() == 0 {
			if bw.Flush() != nil {
				return
			}
		}
	}
}

// spec returns the spec of a helper server run through the engine.
func spec(role string) engine.Spec {
	return engine.Spec{
		Name:    role,
		Command: testExe,
		Env:     map[string]engine.EnvValue{helperEnv: engine.Literal(role)},
		Stderr:  engine.Stderr{Kind: engine.StderrDiscard},
	}
}

// command returns an exec.Cmd that runs a helper with the same environment
// the engine would give it (the POSIX allowlist plus the role), for the
// go-sdk's transports.
func command(role string) *exec.Cmd {
	cmd := exec.Command(testExe)
	allowed := map[string]bool{}
	for _, n := range engine.Allowlist("linux") {
		allowed[n] = true
	}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && allowed[k] && !strings.HasPrefix(v, "()") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, helperEnv+"="+role)
	return cmd // Stderr nil: the null device, as StderrDiscard
}
