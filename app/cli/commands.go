package cli

import (
	"fmt"
	"slices"
	"strings"
)

// Tray runs the tray app (with its window unless background); the
// switchboard binary sets it (the UI is not this package's to import).
// Nil, as in this package's tests: no arguments print the help, and
// 'switchboard tray' says there is no tray.
var Tray func(background bool) error

var entryFlagDefs = []flagDef{
	{name: "env", kind: multiFlag, arg: "K=V", help: "set a variable in the server's environment"},
	{name: "secret-env", kind: multiFlag, arg: "K=SECRET", help: "set a variable to a secret of the keyring ('switchboard secret set SECRET' stores it)"},
	{name: "inherit-env", kind: multiFlag, arg: "K", help: "pass a variable of the host's environment through to the server"},
	{name: "cwd", kind: stringFlag, arg: "DIR", help: "the server's working directory"},
	{name: "stderr", kind: stringFlag, arg: "WHERE", help: "where its stderr goes: capture (the default: 'switchboard logs' shows it), inherit (the host's stderr), discard, or file:/abs/path"},
	{name: "disabled", kind: boolFlag, help: "keep the entry, but do not run it"},
	{name: "allow-batch-files", kind: boolFlag, help: "allow a .bat or .cmd command on Windows"},
	{name: "allow-tool", kind: multiFlag, arg: "GLOB", help: "expose only the tools whose name matches (tools.allow; a path.Match glob such as read_*); repeat for more"},
	{name: "deny-tool", kind: multiFlag, arg: "GLOB", help: "hide the tools whose name matches (tools.deny), even if allowed; repeat for more"},
	{name: "trust", kind: stringFlag, arg: "MODE", help: "pin (the default: a new or changed tool is hidden until 'switchboard tools review') or auto (accept changes)"},
}

var execFlag = flagDef{name: "exec", kind: stringFlag, arg: "PATH", help: "run that switchboard binary instead of this one"}

func commandTable() []*command {
	setFlags := append(append([]flagDef(nil), entryFlagDefs...),
		flagDef{name: "unset-env", kind: multiFlag, arg: "K", help: "remove a variable from the server's environment"},
		flagDef{name: "unset-header", kind: multiFlag, arg: "NAME", help: "stop sending a header to the remote server"},
		flagDef{name: "enabled", kind: boolFlag, help: "run the entry again (clears disabled)"},
		flagDef{name: "clear-tool-filter", kind: boolFlag, help: "expose every tool again: remove tools.allow and tools.deny (before any --allow-tool or --deny-tool of the same command)"})
	runtime := func(verb string) *command {
		return &command{name: "servers " + verb, args: "NAME [FLAGS]",
			summary: verb + " a server now, or with --all every server (runtime only: needs a host; not saved)",
			flags:   []flagDef{{name: "all", kind: boolFlag, help: "every server"}},
			run:     func(e *env, a *argv) error { return e.serversRuntime(verb, a) }}
	}
	fileOp := func(verb, done, summary string, aliases ...string) *command {
		return &command{name: "servers " + verb, aliases: aliases, args: "NAME", summary: summary,
			run: func(e *env, a *argv) error { return e.serversFileOp(a, done) }}
	}
	rows := []*command{
		{name: "tray", group: "The tray app", summary: "the tray app: the servers' states in the menu bar, and a window to manage them",
			help: `'switchboard' with no arguments runs it with its window open;
'switchboard --background' (how the login item starts it: 'switchboard
autostart on') runs it without the window.
`,
			flags:  []flagDef{{name: "background", kind: boolFlag, help: "no window at start, the tray only (what the login item runs); on a desktop with no tray host, the window opens minimised"}},
			noArgs: true,
			run:    func(e *env, a *argv) error { return e.tray(a) }},

		{name: "servers", group: "Servers", summary: "the servers in the config file, and the running ones", dflt: "list"},
		{name: "servers list", summary: "every server: the same as 'switchboard status'", noArgs: true, run: (*env).status},
		{name: "servers add", args: "NAME [FLAGS] -- CMD [ARGS...] | NAME --url URL [FLAGS]", flags: entryFlagDefs,
			summary: "add a server to the config file (the host starts it): a command, or a remote server's address", run: func(e *env, a *argv) error { return e.serversPut(a, true) }},
		{name: "servers set", args: "NAME [FLAGS] [-- CMD [ARGS...]]", flags: setFlags,
			summary: "change an entry's fields (without remove and add)", run: func(e *env, a *argv) error { return e.serversPut(a, false) }},
		{name: "servers rename", aliases: []string{"mv"}, args: "NAME NEWNAME",
			summary: "rename a server: its entry keeps every field; a running server restarts under the new name",
			help: `The env's secret references stay as they are (a secret is named on its
own). The AI apps see the server's tools under the new name
(NEWNAME__TOOL): a prompt or setting that names the old tool names needs
the new ones, and an app connected with --servers NAME needs connecting
again with the new name.
`,
			run: (*env).serversRename},
		fileOp("remove", "removed", "remove a server from the config file", "rm"),
		fileOp("enable", "enabled", "run a disabled server again (saved in the config file)"),
		fileOp("disable", "disabled", "keep a server in the config file, but do not run it"),
		runtime("start"), runtime("stop"), runtime("restart"),
		{name: "servers login", args: "NAME", summary: "sign in to a remote server that uses OAuth (needs a host): prints the page to open",
			help: `The host runs the sign-in (the MCP authorization spec: the server's
metadata, PKCE, a loopback redirect) and keeps the tokens in the keyring,
renewing them before they expire. The page opens in your browser where
one can be opened; otherwise open the printed URL on this machine. A
server whose entry has no "oauth" but that asked for a sign-in (an
imported mcp-remote entry) gets "oauth": {} first.
`,
			flags: []flagDef{{name: "no-browser", kind: boolFlag, help: "only print the page's URL"}},
			run:   (*env).serversLogin},
		{name: "servers logout", args: "NAME", summary: "delete a remote server's OAuth tokens from the keyring (revoked first where the server can)",
			run: (*env).serversLogout},
		{name: "servers import", args: "FILE|-", summary: "add the servers of a Claude-style mcpServers block (a file, or - for stdin)",
			flags: []flagDef{
				{name: "move-secrets", kind: boolFlag, help: "offer to move the values that look like secrets (env or headers) into the keyring; an entry with one not moved is not imported"},
				{name: "yes", short: "y", kind: boolFlag, help: "answer yes to every question"},
				dryRunFlag,
			}, run: (*env).serversImport},
		serversVerifyRow,

		{name: "secret", aliases: []string{"secrets"}, group: "Secrets", summary: "the secrets of the keyring that servers' environments refer to", dflt: "list"},
		{name: "secret set", args: "NAME", summary: "store a secret: its value from stdin (one trailing newline stripped) or a hidden prompt, never an argument",
			run: (*env).secretSet},
		{name: "secret rm", aliases: []string{"delete", "remove"}, args: "NAME", summary: "remove a secret from the keyring", run: (*env).secretRm},
		{name: "secret list", aliases: []string{"ls"}, summary: "the secrets, and the servers that use each", noArgs: true, run: (*env).secretList},

		{name: "serve", group: "The host", summary: "run the host in the foreground (what the service runs)", noArgs: true,
			flags: []flagDef{
				{name: "on-demand", kind: boolFlag, help: "started for a client (the tray, a bridge): stop when none is left for a while"},
				{name: "service", kind: boolFlag, help: "run as the background service (logs where the OS keeps a service's logs)"},
			}, run: (*env).serve},
		{name: "stop", group: "The host", summary: "ask the running host to stop its servers and exit", noArgs: true, run: (*env).stopHost},
		{name: "status", group: "The host", summary: "every server: state, pid, era, tools, restarts, resolved command, last error", noArgs: true, run: (*env).status},
		{name: "logs", group: "The host", args: "NAME", summary: "a server's captured stderr",
			flags: []flagDef{{name: "follow", short: "f", kind: boolFlag, help: "keep printing new lines until Ctrl-C"}}, run: (*env).logs},
		{name: "activity", group: "The host", summary: "what the AI apps did with the servers: one line per call, read or prompt (the activity log)", noArgs: true,
			flags: activityFlags, run: (*env).activity},

		{name: "tools", group: "Tools", args: "[NAME]", summary: "a server's tools with their input schemas; with no NAME, every name the gateway serves", run: (*env).tools,
			help: toolsTrustHelp, flags: toolsCostFlags},
		{name: "call", group: "Tools", args: "NAME TOOL [JSON]", summary: "call a tool (its arguments as one JSON object) and print the result", run: (*env).call},
		{name: "try", group: "Tools", args: "[FLAGS] -- CMD [ARGS...]", flagsFirst: true,
			summary: "start one server in the foreground, list its tools, stop it (a diagnostic: nothing is saved)",
			help: `The server's command line follows "--" (or the first argument that is not
a flag): its flags are its own.
`,
			flags: []flagDef{
				{name: "env", kind: multiFlag, arg: "K=V", help: "set a variable in the server's environment"},
				{name: "inherit-env", kind: multiFlag, arg: "K", help: "pass a variable of this environment through to the server"},
				{name: "cwd", kind: stringFlag, arg: "DIR", help: "the server's working directory"},
				{name: "keep", kind: boolFlag, help: "keep it running, printing its stderr, until Ctrl-C"},
			}, run: (*env).try},

		{name: "approvals", group: "Approvals", summary: "the tool calls waiting for your approval", help: approvalsHelp,
			flags:  []flagDef{{name: "follow", short: "f", kind: boolFlag, help: "keep printing them as they come and go, until Ctrl-C (this terminal is then an approver)"}},
			noArgs: true, run: (*env).approvals},
		{name: "approve", group: "Approvals", args: "ID", summary: "let a waiting call go to its server",
			flags: []flagDef{
				{name: "for-app", kind: boolFlag, help: "also allow this tool for the same app until it disconnects"},
				{name: "always", kind: boolFlag, help: "always allow this tool (saved in the server's policy)"},
			}, run: func(e *env, a *argv) error { return e.decide(a, true) }},
		{name: "deny", group: "Approvals", args: "ID", summary: "refuse a waiting call (the app is told that you denied it)",
			run: func(e *env, a *argv) error { return e.decide(a, false) }},
		{name: "requests", group: "Approvals", summary: "the servers' questions waiting for your answer (forms, pages to open)", help: requestsHelp,
			flags:  []flagDef{{name: "follow", short: "f", kind: boolFlag, help: "keep printing them as they come and go, until Ctrl-C (this terminal can then be asked)"}},
			noArgs: true, run: (*env).requests},
		{name: "answer", group: "Approvals", args: "ID [JSON]", summary: "answer a server's waiting question: a form's values, or open its page", help: answerHelp,
			flags: []flagDef{{name: "yes", kind: boolFlag, help: "open a question's page without asking to confirm its host"}},
			run:   (*env).answer},
		{name: "decline", group: "Approvals", args: "ID", summary: "decline a server's waiting question (the server is told you said no)",
			run: (*env).decline},
		{name: "profiles", group: "AI apps", summary: "named selections of servers and tools that an app's bridge asks for (--profile)", dflt: "list", help: profilesHelp},
		{name: "profiles list", summary: "every profile: its servers, tool rules, tool mode and problems", noArgs: true, run: (*env).profilesList},
		{name: "profiles set", args: "NAME", summary: "add a profile, or change the fields the flags name",
			flags: []flagDef{
				{name: "servers", kind: multiFlag, arg: "a,b", help: "only these servers (a server not configured yet is noted, and shows once added)"},
				{name: "all-servers", kind: boolFlag, help: "every server (before any --servers)"},
				{name: "allow", kind: multiFlag, arg: "GLOB", help: "only the tools whose SERVER__TOOL name matches (path.Match, e.g. git__*); repeat for more"},
				{name: "deny", kind: multiFlag, arg: "GLOB", help: "hide the tools whose SERVER__TOOL name matches (e.g. files__write_*), even if allowed; repeat for more"},
				{name: "clear-tools", kind: boolFlag, help: "every tool again: drop the allow and deny patterns (before any --allow or --deny)"},
				{name: "tool-mode", kind: stringFlag, arg: "MODE", help: "all (every tool) or search (find_tools and call_tool)"},
			}, run: (*env).profilesSet},
		{name: "profiles rm", aliases: []string{"remove"}, args: "NAME", summary: "remove a profile (apps that name it see no tools until connected again)", run: (*env).profilesRemove},
		{name: "profiles rename", aliases: []string{"mv"}, args: "NAME NEWNAME", summary: "rename a profile (the apps whose entries name it are noted)", run: (*env).profilesRename},
		{name: "clients", group: "AI apps", summary: "connect AI apps to Switchboard", dflt: "list", help: clientsHelp},
		{name: "clients list", summary: "the known AI apps: installed, connected, their config file", noArgs: true,
			flags: []flagDef{projectFlag}, run: (*env).clientsList},
		{name: "clients connect", args: "APP", summary: `add the "switchboard" entry to the app's config: it runs the bridge (every server, or only those named)`,
			help: `claude-desktop: Switchboard is also a Claude Desktop extension,
switchboard.mcpb (installed with Switchboard: /usr/share/switchboard/ on
Linux, the install folder on Windows), which Claude keeps in its own store:
Claude Desktop has been seen to rewrite claude_desktop_config.json and drop
its mcpServers. Connecting prints where the file is and how to add it (a
double click, or Settings > Extensions > Advanced settings > Install
Extension); use one or the other, not both.
`,
			flags: []flagDef{
				{name: "servers", kind: multiFlag, arg: "a,b", help: "only these servers"},
				projectFlag, dryRunFlag,
				{name: "profile", kind: stringFlag, arg: "NAME", help: "only what the config's profile NAME lets through (written as --profile NAME)"},
				{name: "tool-mode", kind: stringFlag, arg: "all|search", help: "search: the app sees find_tools and call_tool instead of every tool (written as --tool-mode MODE; an app with its own tool search, claude-code and copilot-cli, keeps every tool unless this says search)"},
			}, run: (*env).clientsConnect},
		{name: "clients disconnect", args: "APP", summary: "remove that entry; everything else in the file stays",
			flags: []flagDef{projectFlag, dryRunFlag}, run: (*env).clientsDisconnect},
		{name: "clients trust", args: "APP NAME...", summary: "accept entries of a connected app's config that Switchboard did not write (they are reported until then)",
			help: `Switchboard records the entries of each app config it connects or imports
(in its state directory). An entry added to that file later, by hand or by
another program (a fake server planted straight into the app's config), or a
changed entry, is reported by 'clients list', 'doctor' and the tray until it
is removed, imported ('clients import APP') or trusted here. Trusting
"switchboard" accepts a changed bridge entry; 'clients connect APP' writes it
again instead.
`,
			flags: []flagDef{projectFlag}, run: (*env).clientsTrust},
		{name: "clients import", args: "APP", summary: "take the servers configured in the app into Switchboard, then offer to replace them in the app with the entry",
			help: `What Switchboard cannot run as the app does (a remote form it does not know,
${workspaceFolder}, ${input:...}, unset variables) stays in the app, and is
listed with why. claude-code: --project DIR imports only that project's
servers (~/.claude.json's projects, DIR/.mcp.json), --all-projects the
user's and every project's; without either they are listed, not moved.
A server whose command the host will not find (not on the PATH the host
gives servers, which 'switchboard doctor' shows) stays in the app, where
it runs, with the remedy; --replace-unrunnable imports it anyway. A value
that looks like a secret (env or headers) is moved into the keyring
(--move-secrets), or its server stays in the app: a secret is never
written to Switchboard's config as plain text.
`,
			flags: []flagDef{
				{name: "move-secrets", kind: boolFlag, help: "offer to move the values that look like secrets (env or headers) into the keyring; a server with one not moved is not imported"},
				{name: "replace-unrunnable", kind: boolFlag, help: "import (and replace in the app) the servers whose command the host will not find, too"},
				{name: "yes", short: "y", kind: boolFlag, help: "answer yes to every question"},
				dryRunFlag,
				{name: "all-projects", kind: boolFlag, help: "claude-code: the user's servers and every project's"},
				{name: "project", kind: multiFlag, arg: "DIR", help: "claude-code: that project's servers"},
			}, run: (*env).clientsImport},
		{name: "bridge", group: "AI apps", summary: "the MCP stdio server that AI apps run: it relays to the host's gateway (starting a host if none runs)",
			help: bridgeHelp, noArgs: true,
			flags: []flagDef{
				{name: "profile", kind: stringFlag, arg: "NAME", help: "only what the config's profile NAME lets through ('switchboard profiles'); combines with --servers and --tools"},
				{name: "servers", kind: stringFlag, arg: "a,b", help: "only these servers' tools"},
				{name: "tools", kind: multiFlag, arg: "GLOB", help: "only the tools whose SERVER__TOOL name matches (path.Match)"},
				{name: "tool-mode", kind: stringFlag, arg: "all|search", help: "search: list find_tools and call_tool instead of every tool"},
			}, run: (*env).bridge},
		{name: "gateway", group: "AI apps", summary: "the gateway's HTTP endpoint",
			help: "The gateway serves every server's tools as SERVER__TOOL to the apps'\nbridges ('switchboard bridge --help'), and to an optional HTTP endpoint.\n"},
		{name: "gateway token", summary: "print the bearer token of the gateway's HTTP endpoint (made on first use, kept in the keyring)", noArgs: true,
			flags: []flagDef{{name: "new", kind: boolFlag, help: "replace it (a running host is told)"}}, run: (*env).gatewayToken},

		{name: "service", group: "At login", summary: "the host as your background service, started at login",
			help: "A systemd user unit on Linux, a launchd LaunchAgent on macOS, a Windows logon\ntask. A --config given to 'install' is what the service uses.\n"},
		{name: "service install", summary: "install the service (started at every login) and start it now", noArgs: true,
			flags: []flagDef{{name: "no-start", kind: boolFlag, help: "do not start it now"}, execFlag}, run: (*env).serviceInstall},
		{name: "service uninstall", summary: "stop it (and every server) and remove it", noArgs: true, run: (*env).serviceUninstall},
		{name: "service start", summary: "start it now", noArgs: true, run: (*env).serviceStart},
		{name: "service stop", summary: "stop it and every server (until the next login)", noArgs: true, run: (*env).serviceStop},
		{name: "service status", summary: "installed? running? where its definition and its logs are", noArgs: true, run: (*env).serviceStatus},
		{name: "service print", summary: "print the definition 'install' would write (needs no running service manager: for packagers)", noArgs: true,
			flags: []flagDef{execFlag}, run: (*env).servicePrint},
		{name: "autostart", group: "At login", summary: "start the tray app at login",
			help: "An entry in ~/.config/autostart on Linux, a LaunchAgent on macOS, the Run\nkey on Windows; it runs 'switchboard --background'.\n"},
		{name: "autostart on", aliases: []string{"enable"}, summary: "start the tray at login", noArgs: true, flags: []flagDef{execFlag}, run: (*env).autostartOn},
		{name: "autostart off", aliases: []string{"disable"}, summary: "no longer start the tray at login", noArgs: true, flags: []flagDef{execFlag}, run: (*env).autostartOff},
		{name: "autostart status", summary: "whether the tray starts at login", noArgs: true, flags: []flagDef{execFlag}, run: (*env).autostartStatus},

		{name: "doctor", group: "Diagnostics", summary: "PATH resolution of every command, the keyring, the config, the host, the log file; says what to fix", noArgs: true, run: (*env).doctor},
		{name: "version", group: "Diagnostics", summary: "print the version (also: --version, -v)", noArgs: true, run: (*env).version},
		{name: "help", group: "Diagnostics", args: "[COMMAND...]", summary: "this overview, or a command's help", run: (*env).helpCmd},
	}
	// The words of tools (cmd_trust.go), after it.
	i := slices.IndexFunc(rows, func(c *command) bool { return c.name == "tools" })
	rows = slices.Insert(rows, i+1, toolsWordRows...)
	// The registries (cmd_registry.go), after the servers' import.
	i = slices.IndexFunc(rows, func(c *command) bool { return c.name == "servers import" })
	rows = slices.Insert(rows, i+1, registryRows...)
	// The bundles (cmd_bundles.go), before the secrets.
	i = slices.IndexFunc(rows, func(c *command) bool { return c.name == "secret" })
	return slices.Insert(rows, i, slices.Concat(bundlesRows, bundlesInstallRows, []*command{bundlesOpenRow, bundlesImportRow})...)
}

var (
	projectFlag = flagDef{name: "project", kind: stringFlag, arg: "DIR", help: "the project's own file instead of the user's (claude-code: DIR/.mcp.json)"}
	dryRunFlag  = flagDef{name: "dry-run", short: "n", kind: boolFlag, help: "print the change and write nothing"}
)

const clientsHelp = `APP: claude-desktop, claude-code, cursor, vscode, windsurf, gemini-cli, lm-studio, zed,
codex, copilot-cli, cline, continue, goose, kiro-cli, jetbrains-ai, junie.
The app's file is backed up (FILE.switchboard-backup-TIME) and written atomically;
--dry-run prints the change and writes nothing. No token or secret is written into it.
`

const bridgeHelp = `The gateway serves every server's tools as SERVER__TOOL; --profile,
--servers and --tools narrow what the app sees (together: what all of them
let through). An unknown profile shows no tools until it is added.
--tool-mode search lists two tools instead, find_tools and call_tool,
through which the app finds and calls the others (far fewer tokens in the
model's context; a profile's "toolMode" sets it too). switchboard-bridge
(installed next to switchboard) is the same bridge as a small program that
starts in a millisecond: 'switchboard clients connect' names it in the
apps' configs when it is there.
`

func (e *env) version(*argv) error {
	fmt.Fprintln(e.stdout, "switchboard", Version)
	return nil
}

func (e *env) tray(a *argv) error {
	if Tray == nil {
		return fmt.Errorf("this switchboard has no tray app (a build without the UI): use the commands ('switchboard help')")
	}
	return Tray(a.flag("background"))
}

// helpCmd is 'switchboard help [COMMAND...]'.
func (e *env) helpCmd(a *argv) error {
	if len(a.pos) == 0 {
		writeOverview(e.stdout)
		return nil
	}
	c := lookup(a.pos...)
	if c == nil {
		return usagef("help: no command %q; 'switchboard help' lists them", strings.Join(a.pos, " "))
	}
	c.writeHelp(e.stdout)
	return nil
}
