// Package cli is Switchboard's command line. It parses arguments and calls
// the host's API (or, with no host running, the config file and the
// keyring directly); it holds no logic of its own beyond presentation.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// Version is set at build time with -ldflags "-X ...cli.Version=...".
var Version = "0.1.0-dev"

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
	c, rest, err := e.resolve(args)
	if err == nil {
		err = e.runCommand(c, rest)
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
		if c != nil {
			fmt.Fprintf(stderr, "usage: %s\n'switchboard help %s' says more\n", wrap("switchboard "+c.usage(), 78, "         "), c.name)
		}
		return 2
	}
	return 1
}

// resolve finds the row the command line names, and the arguments left
// for it. No arguments name the tray (or, with none linked in, help);
// --background alone the tray without its window.
func (e *env) resolve(args []string) (*command, []string, error) {
	switch {
	case len(args) == 0 && Tray != nil:
		return lookup("tray"), nil, nil
	case len(args) == 1 && args[0] == "--background":
		return lookup("tray"), args, nil
	}
	word, rest := splitCommand(args)
	if word == "" {
		for _, a := range args {
			if a == "--version" || a == "-v" {
				return lookup("version"), nil, nil
			}
		}
		return lookup("help"), rest, nil
	}
	c := lookup(word)
	if c == nil {
		return nil, nil, usagef("unknown command %q%s; run 'switchboard help'", word, english.DidYouMean(word, words(children(""))))
	}
	for c.isGroup() {
		sub, subRest := c.splitSub(rest)
		switch {
		case sub == "help":
			return lookup("help"), append(strings.Fields(c.name), subRest...), nil
		case sub == "" && c.dflt == "" || sub == "" && helpAsked(rest):
			return c, rest, nil // the group's help
		case sub == "":
			sub = c.dflt
		}
		k := lookup(append(strings.Fields(c.name), sub)...)
		if k == nil {
			var names []string
			for _, k := range children(c.name) {
				names = append(names, k.last())
			}
			if near := english.Nearest(sub, words(children(c.name))); near != "" {
				return c, nil, usagef("%s: unknown command %q: did you mean %q? (%s)", c.name, sub, near, strings.Join(names, ", "))
			}
			return c, nil, usagef("%s: unknown command %q (%s)", c.name, sub, strings.Join(names, ", "))
		}
		c, rest = k, subRest
	}
	if k, kRest := c.wordRow(rest); k != nil {
		c, rest = k, kRest // tools review: a word of a command that is not a group
	}
	return c, rest, nil
}

// splitSub is splitCommand for the subcommand word of a group: it skips
// the values of its commands' flags (servers --cwd /tmp add ...).
func (c *command) splitSub(args []string) (string, []string) {
	i := firstWord(args, flagValues(children(c.name)))
	if i < 0 {
		return "", args
	}
	return args[i], without(args, i)
}

// flagValues is the flags of cmds that take a value (and "config"), by
// name and short name: their values are not words.
func flagValues(cmds []*command) map[string]bool {
	values := map[string]bool{"config": true}
	for _, k := range cmds {
		for _, d := range k.flags {
			if d.kind != boolFlag {
				values[d.name] = true
				if d.short != "" {
					values[d.short] = true
				}
			}
		}
	}
	return values
}

// firstWord is the index of the first argument that is neither a flag
// nor a flag's value (values names the flags that take one), or -1 when
// there is none before a "--".
func firstWord(args []string, values map[string]bool) int {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return -1
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			name, _, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !hasVal && values[name] {
				i++
			}
			continue
		}
		return i
	}
	return -1
}

// without is args less the one at i, in a new slice.
func without(args []string, i int) []string {
	return append(append([]string(nil), args[:i]...), args[i+1:]...)
}

// helpAsked says whether the arguments ask for help (before any "--").
func helpAsked(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--help" || a == "-h" || a == "-help" || a == "--help=true" {
			return true
		}
	}
	return false
}

// runCommand parses a row's flags and runs it, or prints its help.
func (e *env) runCommand(c *command, args []string) error {
	if c.isGroup() {
		if _, err := (&command{name: c.name}).parse(e, args); err != nil {
			return err
		}
		c.writeHelp(e.stdout)
		return nil
	}
	a, err := c.parse(e, args)
	if err != nil {
		return err
	}
	if e.help {
		c.writeHelp(e.stdout)
		return nil
	}
	if c.noArgs && len(a.pos) > 0 {
		return usagef("%s: unexpected %q: it takes no arguments", c.name, strings.Join(a.pos, " "))
	}
	return c.run(e, a)
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
