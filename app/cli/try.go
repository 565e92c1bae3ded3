package cli

import (
	"context"
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

// try is 'switchboard try [FLAGS] -- CMD [ARGS...]'.
func (e *env) try(a *argv) error {
	rest := a.rest
	if len(rest) == 0 {
		return usagef("try: give the server's command after --, e.g. switchboard try -- npx -y @modelcontextprotocol/server-everything")
	}
	spec := engine.Spec{Name: "try", Command: rest[0], Args: rest[1:], Cwd: a.str("cwd"), InheritEnv: a.list("inherit-env"),
		Stderr: engine.Stderr{Kind: engine.StderrCapture}, Env: map[string]engine.EnvValue{}}
	for _, kv := range a.list("env") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return usagef("try: --env %q: write it as NAME=VALUE", kv)
		}
		if err := config.CheckEnvName(k); err != nil {
			return usagef("try: --env %q: %v", kv, err)
		}
		spec.Env[k] = engine.Literal(v)
	}
	if err := spec.Check(); err != nil {
		return usagef("try: %v", err)
	}
	if code := runTry(spec, a.flag("keep"), e.stdout, e.stderr); code != 0 {
		return exitError{code}
	}
	return nil
}

func runTry(spec engine.Spec, keep bool, stdout, stderr io.Writer) int {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	changes := make(chan supervisor.Status, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "switchboard", Version: Version}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	sup := supervisor.New(supervisor.Options{Spec: spec, Client: client,
		OnChange: func(st supervisor.Status, _ *mcp.ClientSession) {
			select {
			case changes <- st:
			default:
			}
		}})
	sup.Start()
	defer func() {
		fmt.Fprintln(stderr, "stopping…")
		start := time.Now()
		<-sup.Stop()
		fmt.Fprintf(stderr, "stopped in %v; no process of the server is left\n", time.Since(start).Round(time.Millisecond))
	}()
	for {
		select {
		case <-ctx.Done():
			return 130
		case st := <-changes:
			switch st.State {
			case supervisor.Running:
				return tryRunning(ctx, sup, st, keep, stdout, stderr)
			case supervisor.Failed:
				fmt.Fprintln(stderr, "switchboard try: the server failed:", st.LastError)
				for _, l := range st.Stderr {
					fmt.Fprintln(stderr, "  stderr:", l)
				}
				return 1
			case supervisor.WaitingSecret:
				fmt.Fprintln(stderr, "switchboard try:", st.LastError)
				return 1
			case supervisor.Backoff:
				fmt.Fprintf(stderr, "attempt %d failed (%s); retrying\n", st.Failures, st.LastError)
			}
		}
	}
}

func tryRunning(ctx context.Context, sup *supervisor.Supervisor, st supervisor.Status, keep bool, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "running: pid %d, era %s, protocol %s, command %s\n", st.PID, st.Era, st.ProtocolVersion, sup.Process().Launch().Resolved)
	cs := sup.Session()
	if cs == nil {
		fmt.Fprintln(stderr, "switchboard try: the server stopped right after it started")
		return 1
	}
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := cs.ListTools(lctx, nil)
	if err != nil {
		fmt.Fprintln(stderr, "switchboard try: listing tools:", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s:\n", english.Plural(len(res.Tools), "tool"))
	for _, t := range res.Tools {
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(stdout, "  %-28s %s\n", t.Name, desc)
	}
	if !keep {
		return 0
	}
	lines, f := sup.Process().Stderr().Follow(256)
	defer f.Close()
	for _, l := range lines {
		fmt.Fprintln(stderr, "stderr:", l.Text)
	}
	for {
		select {
		case <-ctx.Done():
			return 0
		case l := <-f.C():
			fmt.Fprintln(stderr, "stderr:", l.Text)
		}
	}
}
