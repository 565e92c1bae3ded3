//go:build linux

package host

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestInfoAIClients: host.info counts the AI apps' connections to the
// gateway (a bridge that hands its stdin and stdout over, one that relays,
// one that has not begun its session) and names the apps that gave their
// names; the API's clients (a logs follower) are not AI apps. Each
// leaving app is uncounted.
func TestInfoAIClients(t *testing.T) {
	th := runHost(t, nil, map[string]any{"m": gwEntry("gwmodern")})
	info := func() hostapi.Info {
		t.Helper()
		var inf hostapi.Info
		th.must(t, hostapi.MethodHostInfo.Name, nil, &inf)
		return inf
	}
	waitInfo := func(what string, cond func(hostapi.Info) bool) hostapi.Info {
		t.Helper()
		var inf hostapi.Info
		testkit.Eventually(t, what, func() (bool, string) {
			inf = info()
			return cond(inf), fmt.Sprintf("host.info: clients %d, aiClients %d, aiApps %q", inf.Clients, inf.AIClients, inf.AIApps)
		})
		return inf
	}

	// A `switchboard logs --follow`: a second API client with a
	// subscription. It counts as a client, not as an AI app.
	follower := th.dial(t)
	if _, err := follower.Subscribe(context.Background(), hostapi.TopicLog); err != nil {
		t.Fatal(err)
	}
	if inf := info(); inf.Clients != 2 || inf.AIClients != 0 || inf.AIApps != nil {
		t.Fatalf("with a logs follower: clients %d, aiClients %d, aiApps %q; want 2, 0, none", inf.Clients, inf.AIClients, inf.AIApps)
	}

	// Claude Desktop through a bridge that hands its stdin and stdout over
	// (Linux), in the initialize era: counted and named once the session
	// began.
	claude := handOffClient(t, th, "claude-ai", "2025-11-25")
	if inf := info(); inf.AIClients != 1 || !slices.Equal(inf.AIApps, []string{"claude-ai"}) || inf.Clients != 2 {
		t.Fatalf("with Claude Desktop: clients %d, aiClients %d, aiApps %q", inf.Clients, inf.AIClients, inf.AIApps)
	}

	// A client that relays on the socket in the 2026-07-28 era: named from
	// its first request's _meta.
	cursor := gwNamedClient(t, th, "cursor-vscode", "")
	if _, err := cursor.ListTools(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	// A bridge whose app has not sent anything yet: counted, unnamed.
	nc, err := api.DialGateway(context.Background(), th.gwSocket())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, _, err := gateway.Handshake(nc, gateway.Hello{Client: "test"}); err != nil {
		t.Fatal(err)
	}
	waitInfo("three AI apps, two named", func(inf hostapi.Info) bool {
		return inf.AIClients == 3 && slices.Equal(inf.AIApps, []string{"claude-ai", "cursor-vscode"})
	})

	// They leave one by one; the follower stays.
	nc.Close()
	waitInfo("the silent bridge gone", func(inf hostapi.Info) bool {
		return inf.AIClients == 2 && slices.Equal(inf.AIApps, []string{"claude-ai", "cursor-vscode"})
	})
	cursor.Close()
	waitInfo("Cursor gone", func(inf hostapi.Info) bool {
		return inf.AIClients == 1 && slices.Equal(inf.AIApps, []string{"claude-ai"})
	})
	claude()
	inf := waitInfo("Claude Desktop gone", func(inf hostapi.Info) bool { return inf.AIClients == 0 })
	if inf.AIApps != nil || inf.Clients != 2 {
		t.Fatalf("with the follower alone: clients %d, aiApps %q", inf.Clients, inf.AIApps)
	}
}

// gwNamedClient is gwClient with the app's name of the test's choosing.
func gwNamedClient(t *testing.T, th *testHost, name, version string) *mcp.ClientSession {
	t.Helper()
	nc, err := api.DialGateway(context.Background(), th.gwSocket())
	if err != nil {
		t.Fatal(err)
	}
	br, _, err := gateway.Handshake(nc, gateway.Hello{Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: struct {
		io.Reader
		io.Closer
	}{br, nc}, Writer: nc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// handOffClient connects an app named name the way `switchboard bridge`
// does on Linux: the bridge hands the app's end of two pipes (its stdin
// and stdout) to the host and waits. It returns a func that ends the app
// (closes its pipes) and waits for the bridge's end of the session.
func handOffClient(t *testing.T, th *testHost, name, version string) (quit func()) {
	t.Helper()
	appIn, bridgeIn, err := os.Pipe() // the bridge's stdin: the app writes bridgeIn
	if err != nil {
		t.Fatal(err)
	}
	bridgeOut, appOut, err := os.Pipe() // the bridge's stdout: the app reads bridgeOut
	if err != nil {
		t.Fatal(err)
	}
	nc, err := api.DialGateway(context.Background(), th.gwSocket())
	if err != nil {
		t.Fatal(err)
	}
	br, w, err := gateway.Handshake(nc, gateway.Hello{Client: "test bridge", FDs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !w.FDs {
		t.Fatal("the gateway did not take the bridge's stdin and stdout")
	}
	if err := bridge.SendFDs(nc, appIn, appOut); err != nil {
		t.Fatal(err)
	}
	appIn.Close() // the host has its own copies now
	appOut.Close()
	ended := make(chan error, 1)
	go func() { ended <- gateway.WaitEnd(br); nc.Close() }()

	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil).Connect(ctx,
		&mcp.IOTransport{Reader: bridgeOut, Writer: bridgeIn}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	done := false
	quit = func() {
		if done {
			return
		}
		done = true
		_ = cs.Close() // closes the app's end of its stdin
		bridgeIn.Close()
		bridgeOut.Close()
		select {
		case err := <-ended:
			if err != nil {
				t.Errorf("the bridge's session ended with %v, want the app closing stdin", err)
			}
		case <-time.After(wait):
			t.Error("the bridge's session did not end after the app closed its stdin")
		}
	}
	t.Cleanup(quit)
	return quit
}
