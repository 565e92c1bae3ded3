package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"io"
	"net"
	"os"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/service"
)

// gatewayToken is 'gateway token [--new]'.
func (e *env) gatewayToken(a *argv) error {
	var t string
	var err error
	if a.flag("new") {
		t, err = gateway.NewToken(e.store())
		if err == nil {
			err = e.reloadToken()
		}
	} else {
		t, err = gateway.Token(e.store())
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, t)
	return nil
}

// reloadToken tells a running host that the HTTP endpoint's token changed
// (the endpoint keeps it in memory).
func (e *env) reloadToken() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := e.dial(ctx)
	if err != nil || c == nil {
		return err
	}
	defer c.Close()
	if err := c.ReloadGatewayToken(ctx); err != nil {
		return fmt.Errorf("the new token is stored, but the running host still accepts the old one (%w): stop it ('switchboard stop') so that the next one starts with the new token", err)
	}
	return nil
}

// bridge relays stdin and stdout to the gateway's socket, byte for byte,
// after the preamble that carries the filter. It writes nothing of its own
// to stdout: what goes wrong goes to stderr.
func (e *env) bridge(a *argv) error {
	serverList, tools := a.str("servers"), a.list("tools")
	if e.configFlag != "" {
		return usagef("bridge: %v", bridge.ErrConfigFlag)
	}
	filter := bridge.Filter{Servers: bridge.SplitServers(serverList), Tools: tools, ToolMode: a.str("tool-mode"), Profile: a.str("profile")}
	if err := filter.Check(); err != nil {
		return usagef("bridge: %v", err)
	}
	sock, err := api.DefaultSocketPath()
	if err != nil {
		return err
	}
	gw, err := api.DefaultGatewayPath()
	if err != nil {
		return err
	}
	nc, err := connectGateway(context.Background(), sock, gw, e.stderr)
	if err != nil {
		return err
	}
	return bridge.Serve(nc, bridge.Session{Filter: filter, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr,
		Relay: e.getenv(bridgeRelayEnv) == "1"})
}

// bridgeRelayEnv set to 1 makes the bridge relay bytes instead of handing
// its stdin and stdout to the host.
const bridgeRelayEnv = bridge.RelayEnv

// connectGateway dials the gateway, starting a host on demand when none
// runs, and says on stderr what it does when it has to wait.
func connectGateway(ctx context.Context, sock, gw string, stderr io.Writer) (net.Conn, error) {
	nc, err := bridge.Dial(ctx, gw)
	if err == nil {
		return nc, nil
	}
	if !errors.Is(err, api.ErrNoHost) {
		return nil, err
	}
	if c, aerr := client.Dial(ctx, sock); aerr == nil {
		info, _ := c.Info(ctx)
		c.Close()
		return nil, fmt.Errorf("the running Switchboard host (pid %d) has no MCP gateway at %s: it is an older version; stop it with 'switchboard stop' and start the app again", info.PID, gw)
	}
	fmt.Fprintln(stderr, "switchboard bridge: no Switchboard host runs; starting one")
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	// The host serves every app until it stops: it takes none of this
	// app's switches and settings, only who the user is and where
	// (bridge.HostEnv).
	if err := service.StartHostEnv(sctx, "", sock, bridge.HostEnv(os.Environ(), runtime.GOOS)); err != nil {
		return nil, fmt.Errorf("no Switchboard host runs and none could be started: %w", err)
	}
	// The host listens on the gateway before its API answers; a host
	// that another bridge started at the same moment may still be on
	// its way.
	for {
		nc, err := api.DialGateway(sctx, gw)
		if err == nil {
			return nc, nil
		}
		if !errors.Is(err, api.ErrNoHost) || sctx.Err() != nil {
			return nil, fmt.Errorf("a Switchboard host was started but its MCP gateway does not answer: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// gatewayTools prints the gateway's names of every tool, prompt and
// resource: 'switchboard tools' without a server name.
func (e *env) gatewayTools(ctx context.Context) error {
	c, err := e.needHost(ctx, "tools")
	if err != nil {
		return err
	}
	defer c.Close()
	info, err := c.Gateway(ctx)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(info)
	}
	m := info.Mapping
	fmt.Fprintf(e.stdout, "The gateway (switchboard bridge; socket %s", info.Socket)
	if info.HTTP != "" {
		fmt.Fprintf(e.stdout, "; %s", info.HTTP)
	}
	fmt.Fprintln(e.stdout, ") serves:")
	tw := tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', 0)
	names := func(title string, ns []hostapi.MappedName) {
		if len(ns) == 0 {
			return
		}
		fmt.Fprintf(tw, "%s\tSERVER\tNAME\t\n", title)
		for _, n := range ns {
			note := ""
			if n.Hidden != "" {
				note = "not exposed: " + n.Hidden
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", n.Exposed, n.Server, n.Name, note)
		}
	}
	names("TOOL", m.Tools)
	names("PROMPT", m.Prompts)
	if len(m.Resources) > 0 {
		fmt.Fprintf(tw, "RESOURCE\tSERVER\t\t\n")
		for _, r := range m.Resources {
			note := ""
			if r.Hidden != "" {
				note = "not exposed: " + r.Hidden
			}
			fmt.Fprintf(tw, "  %s\t%s\t\t%s\n", r.URI, r.Server, note)
		}
	}
	if len(m.Templates) > 0 {
		fmt.Fprintf(tw, "RESOURCE TEMPLATE\tSERVER\t\t\n")
		for _, r := range m.Templates {
			note := ""
			if r.Hidden != "" {
				note = "not exposed: " + r.Hidden
			}
			fmt.Fprintf(tw, "  %s\t%s\t\t%s\n", r.URITemplate, r.Server, note)
		}
	}
	_ = tw.Flush()
	if len(m.Tools)+len(m.Prompts)+len(m.Resources)+len(m.Templates) == 0 {
		fmt.Fprintln(e.stdout, "  nothing yet: no server has listed tools ('switchboard status' shows the servers)")
	}
	for _, cf := range m.Conflicts {
		fmt.Fprintf(e.stdout, "conflict: %s is listed by %s, so neither serves it\n", cf.URI, english.List(cf.Servers))
	}
	if len(m.Pending) > 0 {
		sort.Strings(m.Pending)
		fmt.Fprintf(e.stdout, "still starting: %s\n", strings.Join(m.Pending, ", "))
	}
	return nil
}

// exposedNames returns the gateway's names of a server's tools, by the
// server's own names; nil if the host cannot say.
func exposedNames(ctx context.Context, c *client.Conn, server string) map[string]hostapi.MappedName {
	info, err := c.Gateway(ctx)
	if err != nil {
		return nil
	}
	out := map[string]hostapi.MappedName{}
	for _, n := range info.Mapping.Tools {
		if n.Server == server {
			out[n.Name] = n
		}
	}
	return out
}
