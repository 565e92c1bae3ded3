package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/host"
)

const bridgeUsage = `Usage:
  switchboard bridge [--servers NAME,NAME...] [--tools GLOB]...
      an MCP stdio server for an AI app: it relays the app's stdin and stdout
      to the host's MCP gateway (starting a host if none runs), which serves
      every server's tools as SERVER__TOOL. --servers and --tools (path.Match
      patterns on SERVER__TOOL, repeatable) narrow what the app sees.
  switchboard gateway token [--new]
      print the bearer token of the gateway's HTTP endpoint (made on first
      use, kept in the keyring); --new replaces it
`

// gatewayCmd runs `bridge` and `gateway ...`.
func (e *env) gatewayCmd(cmd string, args []string) error {
	if cmd == "bridge" {
		return e.bridge(args)
	}
	sub, rest := splitCommand(args)
	var renew bool
	f := e.flags()
	f.Bool("new", &renew)
	pos, _, err := f.parse(rest)
	if err != nil {
		return usagef("gateway %s: %v", sub, err)
	}
	switch {
	case e.help || sub == "" || sub == "help":
		fmt.Fprint(e.stdout, bridgeUsage)
		return nil
	case sub == "token" && len(pos) == 0:
		var t string
		if renew {
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
	return usagef("gateway: unknown command %q; run 'switchboard gateway help'", strings.Join(append([]string{sub}, pos...), " "))
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
	if err := c.Call(ctx, host.MethodGatewayReloadToken, nil, nil); err != nil {
		return fmt.Errorf("the new token is stored, but the running host still accepts the old one (%w): stop it ('switchboard stop') so that the next one starts with the new token", err)
	}
	return nil
}

// bridge relays stdin and stdout to the gateway's socket, byte for byte,
// after the preamble that carries the filter. It writes nothing of its own
// to stdout: what goes wrong goes to stderr.
func (e *env) bridge(args []string) error {
	var serverList string
	var tools []string
	f := e.flags()
	f.String("servers", &serverList)
	f.Multi("tools", &tools)
	pos, _, err := f.parse(args)
	if err != nil {
		return usagef("bridge: %v", err)
	}
	if e.help {
		fmt.Fprint(e.stdout, bridgeUsage)
		return nil
	}
	if len(pos) > 0 {
		return usagef("bridge: unexpected %q; the bridge takes only --servers and --tools", strings.Join(pos, " "))
	}
	if e.configFlag != "" {
		return usagef("bridge: --config does not apply: the bridge uses the running host (set SWITCHBOARD_CONFIG in the app's entry to start a host with another file)")
	}
	filter := gateway.Filter{Tools: tools}
	for _, s := range strings.Split(serverList, ",") {
		if s = strings.TrimSpace(s); s != "" {
			filter.Servers = append(filter.Servers, s)
		}
	}
	if err := filter.Check(); err != nil {
		return usagef("bridge: %v", err)
	}
	// Two goroutines copy bytes: one thread is plenty, and it spares the
	// runtime's hand-offs between threads (measured: bench/gateway). Only
	// for the real process, not a test that calls Main.
	if e.stdin == os.Stdin {
		runtime.GOMAXPROCS(1)
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
	defer nc.Close()
	// Where it can, the bridge hands its stdin and stdout to the host and
	// relays nothing (two process hops less per message); else it relays
	// the bytes. SWITCHBOARD_BRIDGE_RELAY=1 makes it relay (a diagnostic).
	in, out := asFile(e.stdin), asFile(e.stdout)
	handOff := in != nil && out != nil && gateway.CanHandOff(in, out) && e.getenv(bridgeRelayEnv) != "1"
	br, w, err := gateway.Handshake(nc, gateway.Hello{Filter: filter, Client: fmt.Sprintf("bridge pid %d", os.Getpid()), FDs: handOff})
	if err != nil {
		return fmt.Errorf("the gateway refused the bridge: %w", err)
	}
	for _, warn := range w.Warnings {
		fmt.Fprintln(e.stderr, "switchboard bridge:", warn)
	}
	if w.FDs {
		if err := gateway.SendFDs(nc, in, out); err != nil {
			return fmt.Errorf("handing stdin and stdout to the host: %w", err)
		}
		// The host serves the app now; the bridge waits for the end of the
		// session: the app closing stdin, or the host stopping.
		return gateway.WaitEndNotices(br, func(n string) { fmt.Fprintln(e.stderr, "switchboard bridge:", n) })
	}
	return relay(nc, br, e.stdin, e.stdout, e.stderr)
}

// bridgeRelayEnv set to 1 makes the bridge relay bytes instead of handing
// its stdin and stdout to the host.
const bridgeRelayEnv = "SWITCHBOARD_BRIDGE_RELAY"

func asFile(v any) *os.File {
	f, _ := v.(*os.File)
	return f
}

// relay copies in to nc and nc (through br) to out until one side ends.
// The app closing stdin (or going away) ends the bridge at once, with no
// error: the servers keep running. The host going away is an error.
func relay(nc net.Conn, br *bufio.Reader, in io.Reader, out io.Writer, stderr io.Writer) error {
	done := make(chan error, 2)
	go func() {
		_, err := io.Copy(&lineWatch{w: nc, max: gateway.DefaultMaxMessageSize, stderr: stderr}, in)
		if err != nil {
			err = errHostGone // a write to the socket failed
		}
		done <- err // nil: the app closed stdin
	}()
	go func() {
		_, err := br.WriteTo(stdoutWriter{out})
		var we *writeError
		if errors.As(err, &we) {
			done <- nil // the app went away
			return
		}
		done <- errHostGone
	}()
	return <-done
}

// lineWatch passes what the app writes on to the gateway and says on
// stderr when a line (a message) grows past the gateway's limit: the
// gateway answers it with a JSON-RPC error, and the person reading the
// app's log learns why.
type lineWatch struct {
	w      io.Writer
	max    int
	stderr io.Writer
	n      int // bytes of the current line so far
}

func (l *lineWatch) Write(b []byte) (int, error) {
	for rest := b; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		seg := rest
		if i >= 0 {
			seg = rest[:i+1]
		}
		before := l.n
		l.n += len(seg)
		if before <= l.max && l.n > l.max {
			fmt.Fprintf(l.stderr, "switchboard bridge: the app sent a message larger than the gateway's limit of %d MiB (%d bytes); the gateway answers it with an error instead of delivering it\n", l.max>>20, l.max)
		}
		if i >= 0 {
			l.n = 0
		}
		rest = rest[len(seg):]
	}
	return l.w.Write(b)
}

// errHostGone is the bridge's error when the host ends the connection.
var errHostGone = gateway.ErrHostGone

// stdoutWriter marks its write errors, to tell them from the socket's.
type stdoutWriter struct{ w io.Writer }

func (s stdoutWriter) Write(b []byte) (int, error) {
	n, err := s.w.Write(b)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

// connectGateway dials the gateway, starting a host on demand when none
// runs, and says on stderr what it does when it has to wait.
func connectGateway(ctx context.Context, sock, gw string, stderr io.Writer) (net.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	nc, err := api.DialGateway(dctx, gw)
	cancel()
	if err == nil {
		return nc, nil
	}
	if !errors.Is(err, api.ErrNoHost) {
		return nil, err
	}
	if c, aerr := api.Dial(ctx, sock); aerr == nil {
		var info host.Info
		_ = c.Call(ctx, host.MethodInfo, nil, &info)
		c.Close()
		return nil, fmt.Errorf("the running Switchboard host (pid %d) has no MCP gateway at %s: it is an older version; stop it with 'switchboard stop' and start the app again", info.PID, gw)
	}
	fmt.Fprintln(stderr, "switchboard bridge: no Switchboard host runs; starting one")
	sctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := client.StartHost(sctx, "", sock); err != nil {
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
	var info host.GatewayInfo
	if err := c.Call(ctx, host.MethodGatewayTools, nil, &info); err != nil {
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
	names := func(title string, ns []gateway.MappedName) {
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
		fmt.Fprintf(e.stdout, "conflict: %s is listed by %s, so neither serves it\n", cf.URI, strings.Join(cf.Servers, " and "))
	}
	if len(m.Pending) > 0 {
		sort.Strings(m.Pending)
		fmt.Fprintf(e.stdout, "still starting: %s\n", strings.Join(m.Pending, ", "))
	}
	return nil
}

// exposedNames returns the gateway's names of a server's tools, by the
// server's own names; nil if the host cannot say.
func exposedNames(ctx context.Context, c *api.Client, server string) map[string]gateway.MappedName {
	var info host.GatewayInfo
	if err := c.Call(ctx, host.MethodGatewayTools, nil, &info); err != nil {
		return nil
	}
	out := map[string]gateway.MappedName{}
	for _, n := range info.Mapping.Tools {
		if n.Server == server {
			out[n.Name] = n
		}
	}
	return out
}
