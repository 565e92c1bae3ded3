// Package cli is Switchboard's command line. It parses arguments and calls
// the host's API (or, with no host running, the config file and the
// keyring directly); it holds no logic of its own beyond presentation.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// Version is set at build time with -ldflags "-X ...cli.Version=...".
var Version = "0.1.0-dev"

const usage = `Switchboard manages the local MCP servers of your desktop AI apps.

Usage: switchboard [--config PATH] [--json] COMMAND ...

  serve                         run the host in the foreground (what the service runs)
  stop                          ask the running host to stop its servers and exit
  status [--json]               every server: state, pid, era, tools, restarts,
                                resolved command, last error
  servers add NAME [--env K=V]... [--secret-env K=SECRET]... [--cwd DIR]
              [--stderr inherit|discard|capture|file:/abs/path] [--inherit-env K]...
              [--disabled] -- CMD [ARGS...]
  servers set NAME [same flags] [--unset-env K]... [-- CMD [ARGS...]]
                                change an entry's fields without remove and add
  servers remove|enable|disable NAME          (persisted in the config file)
  servers start|stop|restart NAME|--all       (runtime only; needs a host)
  servers import FILE|- [--move-secrets] [--yes]
                                a Claude-style mcpServers block
  secret set NAME               the value from stdin (one trailing newline
                                stripped) or a hidden prompt; never an argument
  secret rm NAME | secret list
  logs NAME [-f]                the captured stderr
  tools NAME [--json]           the server's tools with their input schemas
  call NAME TOOL [JSON]         call a tool and print the result
  clients list|connect|disconnect|import APP
                                connect AI apps to Switchboard ('switchboard clients help')
  bridge [--servers a,b] [--tools GLOB]...
                                the MCP stdio server that AI apps run: it relays to
                                the host's gateway (starting a host if none runs);
                                switchboard-bridge is the same as a small program
  gateway token [--new]         the bearer token of the optional HTTP endpoint
  doctor                        PATH resolution of every command, the keyring,
                                the config, the host, the log file; says what to fix
  service install|uninstall|start|stop|status
                                the host as your background service, started
                                at login ('switchboard service help')
  autostart on|off|status       start the tray app at login
  try [--env K=V]... -- CMD [ARGS...]
                                start one server in the foreground, list its tools,
                                stop it (a diagnostic: nothing is saved)
  version

The config file is $SWITCHBOARD_CONFIG, or config.json in the user's config
directory; --config PATH overrides both.
`

// env is what every command gets: its streams and the global flags.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	configFlag     string
	json           bool
	help           bool
}

// exitError carries an exit code; its message (if any) was printed.
type exitError struct{ code int }

func (e exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

// Main runs the command line and returns the exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
	cmd, rest := splitCommand(args)
	if cmd == "" {
		for _, a := range args {
			if a == "--version" || a == "-v" {
				cmd = "version"
			}
		}
	}
	var err error
	switch cmd {
	case "", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "version":
		fmt.Fprintln(stdout, "switchboard", Version)
		return 0
	case "serve":
		err = e.serve(rest)
	case "stop":
		err = e.stopHost(rest)
	case "status":
		err = e.status(rest)
	case "servers":
		err = e.servers(rest)
	case "clients":
		err = e.clients(rest)
	case "secret", "secrets":
		err = e.secret(rest)
	case "logs":
		err = e.logs(rest)
	case "tools":
		err = e.tools(rest)
	case "call":
		err = e.call(rest)
	case "doctor":
		err = e.doctor(rest)
	case "bridge", "gateway":
		err = e.gatewayCmd(cmd, rest)
	case "service":
		err = e.service(rest)
	case "autostart":
		err = e.autostart(rest)
	case "try":
		return try(rest, stdout, stderr)
	default:
		fmt.Fprintf(stderr, "switchboard: unknown command %q; run 'switchboard help'\n", cmd)
		return 2
	}
	if err == nil {
		return 0
	}
	var ee exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	printError(stderr, "switchboard:", err)
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// usageError is a mistake in the command line.
type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// splitCommand finds the command word: the first argument that is neither
// a flag nor the value of a global flag.
func splitCommand(args []string) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return "", args
		}
		if a == "--config" {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		rest := append(append([]string(nil), args[:i]...), args[i+1:]...)
		return a, rest
	}
	return "", args
}

// flags returns a flag set with the global flags registered.
func (e *env) flags() *flagSet {
	f := newFlags()
	f.String("config", &e.configFlag)
	f.Bool("json", &e.json)
	f.Bool("help", &e.help, "h")
	return f
}

// configPath is the config file: --config, else $SWITCHBOARD_CONFIG, else
// the default. explicit says whether the user chose it.
func (e *env) configPath() (path string, explicit bool, err error) {
	if e.configFlag != "" {
		p, err := filepath.Abs(e.configFlag)
		return p, true, err
	}
	if v := e.getenv(config.EnvConfig); v != "" {
		p, err := filepath.Abs(v)
		return p, true, err
	}
	p, err := config.DefaultPath(e.getenv, os.UserConfigDir)
	return p, false, err
}

func (e *env) store() *secrets.Store { return newStore() }

// newStore returns the keyring store the commands use; tests replace it
// with an in-memory one (secrets.NewMemoryStore).
var newStore = func() *secrets.Store { return secrets.NewStore("", "") }

// dial connects to the running host; it returns (nil, nil) when none runs.
// A --config other than the running host's is refused.
func (e *env) dial(ctx context.Context) (*client.Conn, error) {
	sock, err := api.DefaultSocketPath()
	if err != nil {
		return nil, err
	}
	c, err := client.Dial(ctx, sock)
	if errors.Is(err, api.ErrNoHost) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	path, explicit, err := e.configPath()
	if err != nil {
		c.Close()
		return nil, err
	}
	info, err := c.Info(ctx)
	if err != nil {
		c.Close()
		return nil, err
	}
	if explicit && filepath.Clean(info.ConfigPath) != filepath.Clean(path) {
		c.Close()
		return nil, fmt.Errorf("the running host (pid %d) uses the config %s, not %s: use that file, or stop the host ('switchboard stop') first",
			info.PID, info.ConfigPath, path)
	}
	return c, nil
}

// needHost is dial for the commands that cannot work without a host.
func (e *env) needHost(ctx context.Context, what string) (*client.Conn, error) {
	c, err := e.dial(ctx)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, fmt.Errorf("%s needs a running host, and none runs: start one with 'switchboard serve' (or the tray app)", what)
	}
	return c, nil
}

func (e *env) printJSON(v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	// Control characters stay JSON escapes: encoding/json escapes C0, and
	// termtext.JSON the DEL, C1 and bidirectional controls it leaves.
	_, err = e.stdout.Write(append(termtext.JSON(b), '\n'))
	return err
}
