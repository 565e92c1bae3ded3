package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// command is one row of the command table: every command of the command
// line is declared here once, and its --help, its place in 'switchboard
// help', its flags and their parsing all come from the row.
//
// A row with children (rows whose name starts with its name and a space)
// is a group: "servers" is the group of "servers add", "servers set"...
type command struct {
	name    string   // the words that name it: "servers add"
	aliases []string // other words for its last word: "rm" for "servers remove"
	group   string   // the heading it is listed under in 'switchboard help' (top-level rows)
	// args is what follows the name in its usage line. "[FLAGS]" in it
	// stands where the flags' synopsis goes; without it, the synopsis
	// follows args.
	args    string
	summary string // one line
	help    string // more, for --help (optional)
	flags   []flagDef
	// flagsFirst: flags end at the first argument, which and everything
	// after it are the rest (try: what follows is the server's command
	// line, whose flags are its own).
	flagsFirst bool
	noArgs     bool   // positional arguments are a usage error
	dflt       string // a group: the child run when none is named ("" prints the group's help)
	// word: a row named by a word that follows a command that is not a
	// group ("tools review"): listed in help under its parent, and routed
	// to when the parent's first argument is its word (resolve).
	word bool
	run  func(e *env, a *argv) error
}

// flagDef is a flag of a command.
type flagDef struct {
	name  string // "env": --env
	short string // "f": -f
	kind  flagKind
	arg   string // the value's placeholder in the usage: "K=V"
	help  string
}

type flagKind int

const (
	boolFlag   flagKind = iota
	stringFlag          // the last given wins
	multiFlag           // repeatable: every value, in order
)

// globalFlags are every command's.
var globalFlags = []flagDef{
	{name: "config", kind: stringFlag, arg: "PATH", help: "the config file (default: $SWITCHBOARD_CONFIG, or config.json in the user's config directory)"},
	{name: "json", kind: boolFlag, help: "print JSON (status, logs, activity, tools, call, secret list, clients list, service status, autostart status, registry search, registry show)"},
	{name: "help", short: "h", kind: boolFlag, help: "print this help"},
}

// argv is a command's parsed command line.
type argv struct {
	cmd  *command
	pos  []string // the positional arguments
	rest []string // after "--" (or, with flagsFirst, from the first argument)
	vals map[string]any
}

func (a *argv) value(name string) any {
	v, ok := a.vals[name]
	if !ok {
		panic(fmt.Sprintf("cli: command %q reads the flag --%s, which its row does not declare", a.cmd.name, name))
	}
	return v
}

// flag is a bool flag's value.
func (a *argv) flag(name string) bool { return *a.value(name).(*bool) }

// str is a string flag's value ("" when not given).
func (a *argv) str(name string) string { return *a.value(name).(*string) }

// list is a repeatable flag's values.
func (a *argv) list(name string) []string { return *a.value(name).(*[]string) }

// given reports whether the command line sets the flag name; false for a
// flag the command does not have.
func (a *argv) given(name string) bool {
	switch v := a.vals[name].(type) {
	case *bool:
		return *v
	case *string:
		return *v != ""
	case *[]string:
		return len(*v) > 0
	}
	return false
}

// flagSet returns the parser of the row's flags and the global ones.
func (c *command) flagSet(e *env, a *argv) *flagSet {
	f := newFlags()
	f.String("config", &e.configFlag)
	f.Bool("json", &e.json)
	f.Bool("help", &e.help, "h")
	f.stopAtArg = c.flagsFirst
	a.vals = map[string]any{}
	for _, d := range c.flags {
		var aliases []string
		if d.short != "" {
			aliases = []string{d.short}
		}
		switch d.kind {
		case boolFlag:
			p := new(bool)
			f.Bool(d.name, p, aliases...)
			a.vals[d.name] = p
		case stringFlag:
			p := new(string)
			f.String(d.name, p, aliases...)
			a.vals[d.name] = p
		case multiFlag:
			p := new([]string)
			f.Multi(d.name, p, aliases...)
			a.vals[d.name] = p
		}
	}
	return f
}

// parse parses a row's command line.
func (c *command) parse(e *env, args []string) (*argv, error) {
	a := &argv{cmd: c}
	pos, rest, err := c.flagSet(e, a).parse(args)
	if err != nil {
		return nil, usagef("%s: %v", c.name, err)
	}
	a.pos, a.rest = pos, rest
	return a, nil
}

// commands is the table, in the order 'switchboard help' lists it.
var commands []*command

func init() { commands = commandTable() }

// lookup finds the row named by words (names or aliases).
func lookup(words ...string) *command {
	name := ""
	for _, w := range words {
		var found *command
		for _, c := range children(name) {
			if c.last() == w || slices.Contains(c.aliases, w) {
				found = c
				break
			}
		}
		if found == nil {
			return nil
		}
		name = found.name
	}
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// words are the last words of rows and their aliases: what may name them.
func words(rows []*command) []string {
	var out []string
	for _, c := range rows {
		out = append(out, c.last())
		out = append(out, c.aliases...)
	}
	return out
}

// children are the rows one word below the group name ("" for the top).
func children(name string) []*command {
	var out []*command
	for _, c := range commands {
		parent, _, ok := strings.Cut(c.name, " ")
		if name == "" && !ok {
			out = append(out, c)
		} else if ok && parent == name && !strings.Contains(c.name[len(name)+1:], " ") {
			out = append(out, c)
		}
	}
	return out
}

func (c *command) last() string {
	if i := strings.LastIndexByte(c.name, ' '); i >= 0 {
		return c.name[i+1:]
	}
	return c.name
}

func (c *command) isGroup() bool {
	for _, k := range children(c.name) {
		if !k.word {
			return true
		}
	}
	return false
}

// wordRow is the word row (see command.word) that args name after the
// command c, and the arguments left for it; nil when they name none.
func (c *command) wordRow(args []string) (*command, []string) {
	i := firstWord(args, flagValues([]*command{c}))
	if i < 0 {
		return nil, args
	}
	for _, k := range children(c.name) {
		if k.word && k.last() == args[i] {
			return k, without(args, i)
		}
	}
	return nil, args
}

// synopsis is the flags in the usage line: "[--cwd DIR] [--env K=V]...".
func (c *command) synopsis() string {
	var parts []string
	for _, d := range c.flags {
		s := "--" + d.name
		if d.kind != boolFlag {
			s += " " + d.arg
		}
		s = "[" + s + "]"
		if d.kind == multiFlag {
			s += "..."
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// usage is the row's usage line, after "switchboard ".
func (c *command) usage() string {
	syn := c.synopsis()
	if c.isGroup() {
		return c.name + " COMMAND"
	}
	s := c.args
	if strings.Contains(s, "[FLAGS]") {
		s = strings.Replace(s, "[FLAGS]", syn, 1)
	} else if syn != "" {
		s = strings.TrimSpace(s + " " + syn)
	}
	return strings.Join(strings.Fields(c.name+" "+s), " ")
}

// short is the row's usage in the overview: its flags shown as [FLAGS]
// when the line would be long.
func (c *command) short() string {
	u := c.usage()
	if len(u) <= 44 || len(c.flags) == 0 {
		return u
	}
	s := c.args
	if !strings.Contains(s, "[FLAGS]") {
		s += " [FLAGS]"
	}
	return strings.Join(strings.Fields(c.name+" "+s), " ")
}

// wrap breaks text into lines of at most width columns, each after the
// first indented by indent; the first starts at column start. Leading
// spaces of text are kept.
func wrap(text string, width int, indent string, start ...int) string {
	var b strings.Builder
	lead := text[:len(text)-len(strings.TrimLeft(text, " "))]
	b.WriteString(lead)
	col := len(lead)
	if len(start) > 0 {
		col += start[0]
	}
	for i, w := range strings.Fields(text) {
		if i > 0 && col+1+len(w) > width {
			b.WriteString("\n" + indent)
			col = len(indent)
		} else if i > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// writeHelp prints a row's help: a command's usage, summary, text and
// flags; a group's commands.
func (c *command) writeHelp(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n\n", wrap("switchboard "+c.usage(), 78, "         "))
	fmt.Fprintln(w, wrap(upperFirst(c.summary)+".", 78, ""))
	if c.help != "" {
		fmt.Fprintf(w, "\n%s", strings.TrimLeft(c.help, "\n"))
		if !strings.HasSuffix(c.help, "\n") {
			fmt.Fprintln(w)
		}
	}
	if c.isGroup() {
		fmt.Fprintln(w, "\nCommands:")
		for _, k := range children(c.name) {
			writeEntry(w, k.usage(), k)
		}
		fmt.Fprintf(w, "\n'switchboard %s COMMAND --help' says more of each.\n", c.name)
		return
	}
	if len(c.flags) > 0 {
		fmt.Fprintln(w, "\nFlags:")
		for _, d := range c.flags {
			writeFlag(w, d)
		}
	}
	fmt.Fprintln(w, "\nGlobal flags: --config PATH, --json, -h|--help ('switchboard help' says more).")
}

func writeFlag(w io.Writer, d flagDef) {
	s := "--" + d.name
	if d.short != "" {
		s = "-" + d.short + ", " + s
	}
	if d.kind != boolFlag {
		s += " " + d.arg
	}
	help := d.help
	if d.kind == multiFlag {
		help += " (repeatable)"
	}
	writeCol(w, "  "+s, help)
}

// writeEntry writes one command of a list: its usage, then its summary
// and aliases.
func writeEntry(w io.Writer, usage string, c *command) {
	sum := c.summary
	if len(c.aliases) > 0 {
		sum += " (also: " + strings.Join(c.aliases, ", ") + ")"
	}
	writeCol(w, "  "+usage, sum)
}

// writeCol writes left, then right in a column at 32, on the next line
// when left is too wide.
func writeCol(w io.Writer, left, right string) {
	const col = 32
	pad := strings.Repeat(" ", col)
	left = wrap(left, 78, "        ")
	last := left
	if i := strings.LastIndexByte(left, '\n'); i >= 0 {
		last = left[i+1:]
	}
	if len(last) >= col-1 {
		fmt.Fprintf(w, "%s\n%s%s\n", left, pad, wrap(right, 78, pad, col))
		return
	}
	fmt.Fprintf(w, "%s%s%s\n", left, strings.Repeat(" ", col-len(last)), wrap(right, 78, pad, col))
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// groups are the headings of the overview, in order.
var groups = []string{"The tray app", "Servers", "Registries", "Bundles", "Secrets", "The host", "Tools", "Approvals", "AI apps", "At login", "Diagnostics"}

// writeOverview prints 'switchboard help': every row, by group.
func writeOverview(w io.Writer) {
	fmt.Fprint(w, `Switchboard manages the local MCP servers of your desktop AI apps.

Usage: switchboard [--config PATH] [--json] COMMAND ...
       switchboard                 the tray app, with its window
       switchboard --background    the tray app without its window (how the
                                   login item starts it)
`)
	for _, g := range groups {
		fmt.Fprintf(w, "\n%s\n", g)
		for _, c := range children("") {
			if c.group != g {
				continue
			}
			if !c.isGroup() {
				writeEntry(w, c.short(), c)
				for _, k := range children(c.name) { // its words (tools review)
					writeEntry(w, k.short(), k)
				}
				continue
			}
			for _, k := range children(c.name) {
				writeEntry(w, k.short(), k)
			}
		}
	}
	fmt.Fprint(w, `
Global flags, before or after the command:
`)
	for _, d := range globalFlags {
		writeFlag(w, d)
	}
	fmt.Fprint(w, `
'switchboard help COMMAND' or 'switchboard COMMAND --help' says more of a
command: its flags and what it does.
`)
}
