//go:build linux

package cli

import (
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
)

// watchHost listens where the host's socket is and counts the commands
// that connect to it (each is closed at once); the tray hook counts its
// runs. Both must stay at zero while help is asked for.
func watchHost(t *testing.T) (contacts *atomic.Int32, trays *atomic.Int32) {
	t.Helper()
	sock, err := api.DefaultSocketPath()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	contacts, trays = new(atomic.Int32), new(atomic.Int32)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			contacts.Add(1)
			c.Close()
		}
	}()
	old := Tray
	Tray = func(bool) error { trays.Add(1); return nil }
	t.Cleanup(func() { Tray = old })
	return contacts, trays
}

// tree lists the files under dir with their sizes and times.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprint(fi.Mode(), fi.ModTime(), fi.Size())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestEveryCommandAnswersHelp walks the command table: every row, asked
// with --help, -h, or through 'switchboard help', prints its usage on
// stdout and exits 0, and does not run: no host is contacted, the tray
// is not started, nothing is written.
func TestEveryCommandAnswersHelp(t *testing.T) {
	u := newUnit(t)
	contacts, trays := watchHost(t)
	if err := os.MkdirAll(filepath.Dir(u.configPath()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(u.configPath(), []byte(`{"mcpServers": {"cat": {"command": "/bin/cat"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	before := tree(t, u.dir)
	for _, c := range commands {
		words := strings.Fields(c.name)
		var want string
		for i, args := range [][]string{
			append(append([]string(nil), words...), "--help"),
			append(append([]string(nil), words...), "-h"),
			append([]string{"help"}, words...),
			append([]string{"--json", "--help"}, words...),
		} {
			r := u.main("", args...)
			if r.code != 0 || r.stderr != "" {
				t.Errorf("switchboard %q: %s", args, r)
				continue
			}
			if !strings.HasPrefix(oneLine(r.stdout), "Usage: switchboard "+c.usage()) {
				t.Errorf("switchboard %q: does not begin with the usage %q:\n%s", args, c.usage(), r.stdout)
			}
			if !strings.Contains(oneLine(r.stdout), oneLine(upperFirst(c.summary))) {
				t.Errorf("switchboard %q: does not say %q:\n%s", args, c.summary, r.stdout)
			}
			for _, d := range c.flags {
				if !strings.Contains(r.stdout, "--"+d.name) {
					t.Errorf("switchboard %q: does not list its flag --%s:\n%s", args, d.name, r.stdout)
				}
			}
			if i == 0 {
				want = r.stdout
			} else if r.stdout != want {
				t.Errorf("switchboard %q printed another help than --help did:\n%s", args, r.stdout)
			}
		}
	}
	if n := contacts.Load(); n != 0 {
		t.Errorf("asking for help contacted the host %d times", n)
	}
	if n := trays.Load(); n != 0 {
		t.Errorf("asking for help started the tray %d times", n)
	}
	after := tree(t, u.dir)
	for p, v := range after {
		if before[p] != v {
			t.Errorf("asking for help wrote %s", p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			t.Errorf("asking for help removed %s", p)
		}
	}
}

// TestHelpListsEveryCommand: 'switchboard help' lists every row of the
// table (a group by its commands), the tray with no arguments and
// --background, and tools without a NAME.
func TestHelpListsEveryCommand(t *testing.T) {
	u := newUnit(t)
	out := u.ok(t, "", "help")
	for _, c := range commands {
		if c.isGroup() {
			continue
		}
		if !strings.Contains(oneLine(out), c.short()) {
			t.Errorf("help does not list %q", c.short())
		}
		if !strings.Contains(oneLine(out), oneLine(c.summary)) {
			t.Errorf("help does not say what %s does (%q)", c.name, c.summary)
		}
		if c.group == "" && !strings.Contains(c.name, " ") {
			t.Errorf("%s is in no group of the overview", c.name)
		}
	}
	for _, want := range []string{"switchboard the tray app", "switchboard --background", "tools [NAME]", "--config PATH"} {
		if !strings.Contains(oneLine(out), want) {
			t.Errorf("help does not show %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{{}, {"--json"}} {
		if r := u.main("", args...); r.code != 0 || r.stdout != out {
			t.Errorf("switchboard %q (no tray linked in) did not print the overview: %s", args, r)
		}
	}
	for _, g := range groups {
		if !strings.Contains(out, "\n"+g+"\n") {
			t.Errorf("help has no heading %q", g)
		}
	}
}

// TestUnknownFlagOfEveryCommand: every command refuses a flag it does not
// have: exit 2, the flag named, the command's usage on stderr, nothing
// on stdout, and it does not run.
func TestUnknownFlagOfEveryCommand(t *testing.T) {
	u := newUnit(t)
	contacts, trays := watchHost(t)
	for _, c := range commands {
		if c.isGroup() {
			continue
		}
		args := append(strings.Fields(c.name), "--no-such-flag")
		r := u.main("", args...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "unknown flag --no-such-flag") ||
			!strings.Contains(oneLine(r.stderr), "usage: switchboard "+c.usage()) {
			t.Errorf("switchboard %q: want exit 2 naming the flag, with the usage, got %s", args, r)
		}
	}
	// A misspelled flag: a guess (the global ones too), still exit 2.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"servers", "add", "x", "--secrt-env", "A=b", "--", "/bin/cat"}, "unknown flag --secrt-env (did you mean --secret-env?)"},
		{[]string{"status", "--jsn"}, "unknown flag --jsn (did you mean --json?)"},
		{[]string{"logs", "x", "--folow"}, "unknown flag --folow (did you mean --follow?)"},
	} {
		if r := u.main("", tc.args...); r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("switchboard %q: want exit 2 and %q, got %s", tc.args, tc.want, r)
		}
	}
	if contacts.Load() != 0 || trays.Load() != 0 {
		t.Errorf("an unknown flag ran a command: %d contacts with the host, %d trays", contacts.Load(), trays.Load())
	}
	if _, err := os.Stat(u.configPath()); err == nil {
		t.Error("a refused command wrote the config")
	}
}

// TestTableRouting: aliases and group defaults reach their rows; flags
// may stand before the subcommand, with their values; the tray runs for
// no arguments and for --background alone.
func TestTableRouting(t *testing.T) {
	u := newUnit(t)
	for _, tc := range []struct {
		args []string
		row  string
	}{
		{[]string{"servers"}, "servers list"},
		{[]string{"servers", "rm", "x"}, "servers remove"},
		{[]string{"servers", "--cwd", "/tmp", "add", "x"}, "servers add"},
		{[]string{"secrets", "ls"}, "secret list"},
		{[]string{"secret"}, "secret list"},
		{[]string{"autostart", "enable"}, "autostart on"},
		{[]string{"clients"}, "clients list"},
		{[]string{"service"}, "service"},
		{[]string{"--version"}, "version"},
		{[]string{"--background"}, "tray"},
		{[]string{"servers", "help"}, "help"},
	} {
		e := &env{}
		c, _, err := e.resolve(tc.args)
		if err != nil || c == nil || c.name != tc.row {
			t.Errorf("%q: %v %v, want the row %q", tc.args, c, err, tc.row)
		}
	}
	_, trays := watchHost(t)
	u.ok(t, "")
	u.ok(t, "", "--background")
	if n := trays.Load(); n != 2 {
		t.Errorf("the tray ran %d times for no arguments and --background, want 2", n)
	}
	if r := u.main("", "servers", "frob"); r.code != 2 || !strings.Contains(r.stderr, "usage: switchboard servers COMMAND") || strings.Contains(r.stderr, "did you mean") {
		t.Errorf("an unknown subcommand: %s", r)
	}
	// A misspelled command or subcommand (or alias): a guess, still exit 2.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"stauts"}, `unknown command "stauts" (did you mean "status"?); run 'switchboard help'`},
		{[]string{"sevrers", "list"}, `unknown command "sevrers" (did you mean "servers"?)`},
		{[]string{"servers", "rmeove", "x"}, `servers: unknown command "rmeove": did you mean "remove"? (list, add,`},
		{[]string{"secret", "dleete", "x"}, `secret: unknown command "dleete": did you mean "delete"?`},
	} {
		if r := u.main("", tc.args...); r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("switchboard %q: want exit 2 and %q, got %s", tc.args, tc.want, r)
		}
	}
}
