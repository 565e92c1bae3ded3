package api_test

// Some tests need a second process: a second host that tries the instance
// lock (flock is per open file description), a host killed with SIGKILL, a
// client or an impostor host running as another user. The test binary
// re-executes itself as that process, its role chosen by helperEnv and run
// from TestMain (as in the go-sdk's mcp/cmd_test.go); a helper prints one
// JSON line on stdout for the test to read.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
)

const (
	helperEnv = "SWITCHBOARD_API_TEST_HELPER" // the helper's role
	dirEnv    = "SWITCHBOARD_API_TEST_DIR"    // the runtime directory it uses
	sockEnv   = "SWITCHBOARD_API_TEST_SOCKET" // the socket it uses
)

func TestMain(m *testing.M) {
	// A child started with an empty or stripped environment, which cannot
	// carry helperEnv: it prints where this process finds its host.
	if len(os.Args) == 2 && os.Args[1] == rendezvousChild {
		os.Exit(printRendezvous())
	}
	if role := os.Getenv(helperEnv); role != "" {
		h, ok := helpers[role]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown helper %q\n", role)
			os.Exit(99)
		}
		os.Exit(h())
	}
	os.Exit(m.Run())
}

// helperResult is what a helper prints.
type helperResult struct {
	Acquired bool   `json:"acquired,omitempty"`
	PID      int    `json:"pid,omitempty"`
	Socket   string `json:"socket,omitempty"`
	Raw      string `json:"raw,omitempty"` // a first line read from a raw connection
	Err      string `json:"err,omitempty"`
	Ready    bool   `json:"ready,omitempty"`
}

func report(r helperResult) {
	b, _ := json.Marshal(r)
	fmt.Println(string(b))
}

var helpers = map[string]func() int{
	// lock tries the instance lock once, reports, and exits (releasing it).
	"lock": func() int {
		l, err := api.AcquireInstanceLock(os.Getenv(dirEnv))
		var are *api.AlreadyRunningError
		switch {
		case err == nil:
			report(helperResult{Acquired: true, PID: os.Getpid()})
			_ = l.Release()
		case errors.As(err, &are):
			report(helperResult{PID: are.PID, Socket: are.Socket, Err: err.Error()})
		default:
			report(helperResult{Err: err.Error()})
		}
		return 0
	},
	// host runs a host (lock, socket, server) until it is killed.
	"host": func() int {
		l, err := api.AcquireInstanceLock(os.Getenv(dirEnv))
		if err != nil {
			report(helperResult{Err: err.Error()})
			return 1
		}
		ln, err := l.Listen(os.Getenv(sockEnv))
		if err != nil {
			report(helperResult{Err: err.Error()})
			return 1
		}
		srv := api.NewServer(echoMethods(), api.Options{})
		go func() { _ = srv.Serve(ln) }()
		report(helperResult{Ready: true, PID: os.Getpid()})
		select {}
	},
	// dial connects to the socket twice: raw, to read the host's first
	// line, and with Dial.
	"dial": func() int {
		sock := os.Getenv(sockEnv)
		var r helperResult
		if nc, err := rawDial(sock); err != nil {
			r.Raw = "dial: " + err.Error()
		} else {
			_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			line, err := bufio.NewReader(nc).ReadString('\n')
			r.Raw = strings.TrimSpace(line)
			if err != nil {
				r.Raw += " (read: " + err.Error() + ")"
			}
			_ = nc.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := api.Dial(ctx, sock)
		if err == nil {
			_ = c.Close()
			r.Err = "<nil>"
		} else {
			r.Err = err.Error()
		}
		report(r)
		return 0
	},
	// impostor listens on the socket and greets like a host.
	"impostor": func() int {
		ln, err := rawListen(os.Getenv(sockEnv))
		if err != nil {
			report(helperResult{Err: err.Error()})
			return 1
		}
		report(helperResult{Ready: true, PID: os.Getpid()})
		for {
			nc, err := ln.Accept()
			if err != nil {
				return 1
			}
			if g := os.Getenv(greetingEnv); g != "" {
				fmt.Fprintln(nc, g)
				continue
			}
			fmt.Fprintf(nc, "{\"hello\":{\"protocol\":%d,\"pid\":%d}}\n", api.ProtocolVersion, os.Getpid())
		}
	},
}

// greetingEnv makes the impostor greet with this line instead of a hello.
const greetingEnv = "SBAPI_IMPOSTOR_GREETING"

// echoMethods is the handler of most tests.
func echoMethods() api.Methods {
	return api.Methods{
		"echo": func(_ context.Context, _ *api.ConnInfo, params json.RawMessage) (any, error) {
			return params, nil
		},
	}
}
