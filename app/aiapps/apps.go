package aiapps

import (
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// EntryName is the name of the one entry Switchboard adds to an app's
// servers.
const EntryName = "switchboard"

// App is an AI app whose MCP config file Switchboard can edit.
type App struct {
	ID       string // what the user types: "claude-desktop"
	Name     string // "Claude Desktop"
	Key      string // the top-level key of the servers object: "mcpServers"
	Comments bool   // the file is JSON with comments and trailing commas (VS Code, Zed)
	// OwnFile says that the file holds MCP servers only (mcp.json): a
	// servers object that a disconnect empties stays, as {}. In a general
	// settings file the emptied key is removed, as it most likely was
	// before connect added it.
	OwnFile bool
	// Restart says what the user must do for the app to see a change.
	Restart string
	// ToolSearch says how the app searches MCP tools itself ("": it does
	// not): such an app keeps every tool by default ('clients connect'
	// says so), since its own search finds them and Switchboard's
	// find_tools would hide them from it (docs/toolsearch.md).
	ToolSearch string

	aliases []string
	paths   func(Env) Paths
	// choose picks the config file from the candidates when the app can use
	// more than one; nil: the first that exists, else the first.
	choose func(p Paths, exists func(string) bool) string
	// entry returns the members of the bridge entry in the app's shape.
	entry func(command string, args []string) []member
	// format reads and edits a file that is not JSON (TOML, YAML); nil:
	// JSON with comments.
	format textFormat
	// seed is what a missing or empty file of a text format starts as.
	seed string
	// normalize turns one of the app's entries into Switchboard's shape
	// ({command, args, env, ...}), as the import and the list read it; nil
	// for an entry that is not an MCP server (Goose's built-in
	// extensions). nil: the entries are in that shape already.
	normalize func(map[string]any) map[string]any
	// project returns the config file of a project directory, for the apps
	// that have one (Claude Code's .mcp.json).
	project func(e Env, dir string) string
	// projectRestart is Restart for the project's file.
	projectRestart string
	// projectDir is the project's directory of an App that [App.Project]
	// returned ("": the user's config).
	projectDir string
}

// member is one key and its value (a string, a bool, []string or
// []member) of an entry Switchboard writes.
type member struct {
	key   string
	value any
}

// Paths are where an app keeps its config on one OS.
type Paths struct {
	// Candidates are the config files the app may use, in order of
	// preference; most apps have one.
	Candidates []string
	// Markers are directories (or files) whose existence shows that the app
	// is installed (it creates them when it first runs).
	Markers []string
	// Pointer is a file whose content, when it exists, names the folder
	// the app keeps its config in (LM Studio's ~/.lmstudio-home-pointer);
	// Locate reads it.
	Pointer string

	pointed string // the content of Pointer, as Locate read it
}

// Location is where an app's config is on this machine.
type Location struct {
	Path      string // the config file to read and write
	Exists    bool   // the config file exists
	Installed bool   // a marker (or the config file) exists
	Marker    string // the marker found, if any
}

// Paths returns where the app keeps its config on env's OS: a pure
// function of env. An error means the environment does not say where the
// home directory is.
func (a *App) Paths(env Env) (Paths, error) {
	p := a.paths(env)
	for _, c := range append(slices.Clone(p.Candidates), p.Markers...) {
		if c == "" {
			v := "$HOME"
			if env.GOOS == "windows" {
				v = "%USERPROFILE%"
			}
			return Paths{}, fmt.Errorf("cannot find %s's config: %s is not set to an absolute path", a.Name, v)
		}
	}
	return p, nil
}

// The file system as Locate sees it beyond exists: tests replace them.
var (
	globFS     = filepath.Glob
	readFileFS = os.ReadFile
)

// Locate finds the app's config file and whether the app is installed,
// with exists telling whether a path exists (normally an os.Stat).
//
// A path with a '*' (the MSIX package folder Claude_*) is matched against
// the file system: the match whose config file exists, else the first
// match, else the path with the '*' replaced by what it usually is. The
// Pointer file, if the app has one, is read.
//
// Installed is a heuristic: the app counts as installed when its config
// file or one of its markers exists (the config directory the app creates
// on its first run, such as ~/.cursor or Code/User). An app that was
// installed but never started, or whose directory outlived an uninstall,
// is reported wrongly; connect works either way.
func (a *App) Locate(env Env, exists func(string) bool) (Location, error) {
	p, err := a.Paths(env)
	if err != nil {
		return Location{}, err
	}
	p = expandGlobs(p, exists)
	if p.Pointer != "" {
		if b, err := readFileFS(p.Pointer); err == nil {
			if d := strings.TrimSpace(string(b)); env.isAbs(d) {
				p.pointed = env.clean(d)
			}
		}
	}
	var loc Location
	if a.choose != nil {
		loc.Path = a.choose(p, exists)
	} else {
		loc.Path = p.Candidates[0]
		for _, c := range p.Candidates {
			if exists(c) {
				loc.Path = c
				break
			}
		}
	}
	loc.Exists = exists(loc.Path)
	if loc.Exists {
		loc.Installed, loc.Marker = true, loc.Path
	}
	for _, m := range p.Markers {
		if !loc.Installed && exists(m) {
			loc.Installed, loc.Marker = true, m
		}
	}
	return loc, nil
}

// globDefaults are what a '*' in a path usually stands for.
var globDefaults = map[string]string{
	"Claude_*": claudeMSIX,
}

// expandGlobs replaces each path element with a '*' by its match.
func expandGlobs(p Paths, exists func(string) bool) Paths {
	n := len(p.Candidates) + len(p.Markers)
	for range n { // each round replaces one pattern everywhere
		all := append(slices.Clone(p.Candidates), p.Markers...)
		k := slices.IndexFunc(all, func(c string) bool { return strings.Contains(c, "*") })
		if k < 0 {
			break
		}
		c := all[k]
		i := strings.IndexByte(c, '*')
		end := strings.IndexAny(c[i:], `/\`)
		if end < 0 {
			end = len(c)
		} else {
			end += i
		}
		pattern := c[:end]
		start := strings.LastIndexAny(pattern, `/\`) + 1
		elem := pattern[start:]
		match := pattern[:start] + globDefaults[elem]
		if globDefaults[elem] == "" {
			match = pattern[:start] + strings.ReplaceAll(elem, "*", "")
		}
		matches, _ := globFS(pattern)
		slices.Sort(matches)
		if len(matches) > 0 {
			match = matches[0]
		}
		for _, m := range matches {
			found := false
			for _, cand := range p.Candidates {
				if strings.HasPrefix(cand, pattern) && exists(m+cand[len(pattern):]) {
					found = true
				}
			}
			if found {
				match = m
				break
			}
		}
		replace := func(list []string) []string {
			out := slices.Clone(list)
			for j, x := range out {
				if strings.HasPrefix(x, pattern) {
					out[j] = match + x[len(pattern):]
				}
			}
			return out
		}
		p.Candidates, p.Markers = replace(p.Candidates), replace(p.Markers)
	}
	return p
}

// claudeMSIX is the package family of Claude Desktop's MSIX install on
// Windows (the default since early 2026): the package folder is matched
// as Claude_*, and this is what the '*' is when none exists yet.
const claudeMSIX = "Claude_pzs8sxrjxfjjc"

func plainEntry(command string, args []string) []member {
	return []member{{"command", command}, {"args", args}}
}

func stdioEntry(command string, args []string) []member {
	return []member{{"type", "stdio"}, {"command", command}, {"args", args}}
}

var apps = []*App{
	{
		ID: "claude-desktop", Name: "Claude Desktop", Key: "mcpServers",
		Restart: "Quit Claude Desktop completely (File > Quit, or Quit from its tray or menu-bar icon: closing the window is not enough) and start it again. " +
			"Claude Desktop may overwrite its config file when the file changes while it runs: if the change is gone after the restart, quit Claude Desktop first, run this command again, then start it.",
		aliases: []string{"claude"},
		paths: func(e Env) Paths {
			switch e.GOOS {
			case "windows":
				// An MSIX app's new files under %APPDATA% live in its package's
				// LocalCache; a file that was there before the install is used
				// in place.
				pkg := e.join(e.localAppData(), "Packages", "Claude_*")
				return Paths{
					Candidates: []string{
						e.join(pkg, `LocalCache\Roaming\Claude\claude_desktop_config.json`),
						e.join(e.appData(), `Claude\claude_desktop_config.json`),
					},
					Markers: []string{pkg, e.join(e.appData(), "Claude"), e.join(e.localAppData(), "AnthropicClaude")},
				}
			case "darwin", "ios":
				dir := e.join(e.userConfig(), "Claude")
				return Paths{Candidates: []string{e.join(dir, "claude_desktop_config.json")}, Markers: []string{dir}}
			}
			// No official Linux build; community builds use ~/.config/Claude.
			dir := e.join(e.xdgConfig(), "Claude")
			return Paths{Candidates: []string{e.join(dir, "claude_desktop_config.json")}, Markers: []string{dir}}
		},
		choose: func(p Paths, exists func(string) bool) string {
			if len(p.Candidates) == 1 {
				return p.Candidates[0]
			}
			msix, classic := p.Candidates[0], p.Candidates[1]
			switch {
			case exists(msix):
				return msix
			case exists(classic):
				return classic
			case exists(p.Markers[0]): // the MSIX package is installed
				return msix
			}
			return classic
		},
		entry: plainEntry,
	},
	{
		ID: "claude-code", Name: "Claude Code", Key: "mcpServers",
		ToolSearch: "Claude Code searches MCP tools itself (its tool search, on when their definitions pass 10 % of the context; ENABLE_TOOL_SEARCH)",
		Restart: "Start a new Claude Code session: running sessions keep the servers they started with ('claude mcp list' shows the entry). " +
			"Claude Code rewrites this file while it runs; if the change is gone, run this command again while no session runs.",
		paths: func(e Env) Paths {
			// User scope: the top-level mcpServers of ~/.claude.json, or of
			// $CLAUDE_CONFIG_DIR/.claude.json when that is set.
			if d := e.get("CLAUDE_CONFIG_DIR"); d != "" {
				return Paths{Candidates: []string{e.join(d, ".claude.json")}, Markers: []string{d}}
			}
			return Paths{Candidates: []string{e.join(e.home(), ".claude.json")}, Markers: []string{e.join(e.home(), ".claude")}}
		},
		project: func(e Env, dir string) string { return e.join(dir, ".mcp.json") },
		projectRestart: "Start a new Claude Code session in the project: Claude Code asks once whether to use the servers of its .mcp.json ('claude mcp list' shows the entry). " +
			"The file is meant to be committed: its entry names this computer's switchboard binary.",
		entry: stdioEntry,
	},
	{
		ID: "cursor", Name: "Cursor", Key: "mcpServers", OwnFile: true,
		Restart: "Restart Cursor, or turn the server off and on in Cursor Settings > MCP.",
		paths: func(e Env) Paths {
			dir := e.join(e.home(), ".cursor")
			return Paths{Candidates: []string{e.join(dir, "mcp.json")}, Markers: []string{dir}}
		},
		entry: plainEntry,
	},
	{
		ID: "vscode", Name: "VS Code", Key: "servers", Comments: true, OwnFile: true,
		Restart: "VS Code reads mcp.json again by itself; if the server does not start, start it from the MCP Servers view ('MCP: List Servers').",
		aliases: []string{"vs-code", "code"},
		paths: func(e Env) Paths {
			dir := e.join(e.userConfig(), "Code", "User")
			return Paths{Candidates: []string{e.join(dir, "mcp.json")}, Markers: []string{dir}}
		},
		entry: stdioEntry,
	},
	{
		ID: "windsurf", Name: "Windsurf", Key: "mcpServers", OwnFile: true,
		Restart: "Press refresh in Windsurf's MCP servers panel (Cascade), or restart Windsurf.",
		paths: func(e Env) Paths {
			dir := e.join(e.home(), ".codeium", "windsurf")
			return Paths{Candidates: []string{e.join(dir, "mcp_config.json")}, Markers: []string{dir}}
		},
		entry: plainEntry,
	},
	{
		ID: "gemini-cli", Name: "Gemini CLI", Key: "mcpServers",
		Restart: "Start a new Gemini CLI session ('/mcp' lists the servers).",
		aliases: []string{"gemini"},
		paths: func(e Env) Paths {
			dir := e.join(e.home(), ".gemini")
			return Paths{Candidates: []string{e.join(dir, "settings.json")}, Markers: []string{dir}}
		},
		entry: plainEntry,
	},
	{
		ID: "lm-studio", Name: "LM Studio", Key: "mcpServers", OwnFile: true,
		Restart: "Restart LM Studio if the switchboard tools do not appear in its Program tab.",
		aliases: []string{"lmstudio"},
		// LM Studio's home is found as lmstudio-js's findLMStudioHome does:
		// $LMSTUDIO_HOME, else the folder ~/.lmstudio-home-pointer names
		// (LM Studio writes it on its first run), else ~/.cache/lm-studio
		// if it exists, else ~/.lmstudio.
		paths: func(e Env) Paths {
			if d := e.get("LMSTUDIO_HOME"); d != "" {
				return Paths{Candidates: []string{e.join(d, "mcp.json")}, Markers: []string{d}}
			}
			cache, home := e.join(e.home(), ".cache", "lm-studio"), e.join(e.home(), ".lmstudio")
			return Paths{
				Candidates: []string{e.join(home, "mcp.json"), e.join(cache, "mcp.json")},
				Markers:    []string{home, cache},
				Pointer:    e.join(e.home(), ".lmstudio-home-pointer"),
			}
		},
		choose: func(p Paths, exists func(string) bool) string {
			switch {
			case len(p.Candidates) == 1:
				return p.Candidates[0]
			case p.pointed != "":
				return strings.TrimSuffix(p.pointed, "/") + sepOf(p.Candidates[0]) + "mcp.json"
			case exists(p.Markers[1]):
				return p.Candidates[1]
			}
			return p.Candidates[0]
		},
		entry: plainEntry,
	},
	{
		ID: "zed", Name: "Zed", Key: "context_servers", Comments: true,
		Restart: "Zed reads settings.json again by itself; the server appears in the Agent panel's settings.",
		paths: func(e Env) Paths {
			var dir string
			switch e.GOOS {
			case "windows":
				dir = e.join(e.appData(), "Zed")
			case "darwin", "ios":
				dir = e.join(e.home(), ".config", "zed") // not Application Support
			default:
				dir = e.join(e.xdgConfig(), "zed")
			}
			return Paths{Candidates: []string{e.join(dir, "settings.json")}, Markers: []string{dir}}
		},
		// "source": "custom" is what Zed releases with a tagged settings enum
		// need; later ones ignore it. "args" is required even when empty.
		entry: func(command string, args []string) []member {
			return []member{{"source", "custom"}, {"command", command}, {"args", args}}
		},
	},
	{
		ID: "codex", Name: "OpenAI Codex", Key: "mcp_servers",
		Restart: "Start a new Codex session ('/mcp' lists the servers); the Codex app and IDE extension read the same file when they start.",
		aliases: []string{"openai-codex", "codex-cli"},
		paths: func(e Env) Paths {
			dir := e.get("CODEX_HOME")
			if dir == "" {
				dir = e.join(e.home(), ".codex")
			}
			return Paths{Candidates: []string{e.join(dir, "config.toml")}, Markers: []string{dir}}
		},
		format:    tomlTables{key: "mcp_servers"},
		normalize: codexServer,
		entry:     plainEntry,
	},
	{
		ID: "copilot-cli", Name: "GitHub Copilot CLI", Key: "mcpServers", OwnFile: true,
		ToolSearch: "Copilot CLI searches tools itself (its tool search, above about 30 tools; the toolSearch setting)",
		Restart:    "Run '/mcp reload' in Copilot CLI, or start a new session. VS Code reads this file too (beside its own mcp.json).",
		aliases:    []string{"copilot", "github-copilot-cli"},
		paths: func(e Env) Paths {
			dir := e.get("COPILOT_HOME")
			if dir == "" {
				dir = e.join(e.home(), ".copilot")
			}
			return Paths{Candidates: []string{e.join(dir, "mcp-config.json")}, Markers: []string{dir}}
		},
		normalize: copilotServer,
		// "tools": ["*"]: every tool of the entry, as 'copilot mcp add' writes.
		entry: func(command string, args []string) []member {
			return []member{{"type", "local"}, {"command", command}, {"args", args}, {"tools", []string{"*"}}}
		},
	},
	{
		ID: "cline", Name: "Cline", Key: "mcpServers", OwnFile: true,
		Restart: "Cline reads its MCP settings again by itself; if the server does not appear, press Restart in Cline's MCP Servers view.",
		// Two files: the one Cline's CLI and its current VS Code extension
		// share (~/.cline/data/settings, moved by $CLINE_MCP_SETTINGS_PATH,
		// $CLINE_DATA_DIR or $CLINE_DIR), and the one of its older VS Code
		// extension (VS Code's globalStorage). The shared one when it
		// exists, else the old one when it exists, else the shared one.
		paths: func(e Env) Paths {
			old := e.join(e.userConfig(), "Code", "User", "globalStorage", "saoudrizwan.claude-dev")
			oldFile := e.join(old, "settings", "cline_mcp_settings.json")
			if f := e.get("CLINE_MCP_SETTINGS_PATH"); f != "" {
				return Paths{Candidates: []string{f, oldFile}, Markers: []string{old}}
			}
			dir := e.get("CLINE_DIR")
			if dir == "" {
				dir = e.join(e.home(), ".cline")
			}
			data := e.get("CLINE_DATA_DIR")
			if data == "" {
				data = e.join(dir, "data")
			}
			return Paths{
				Candidates: []string{e.join(data, "settings", "cline_mcp_settings.json"), oldFile},
				Markers:    []string{dir, data, old},
			}
		},
		normalize: clineServer,
		entry:     plainEntry,
	},
	{
		ID: "continue", Name: "Continue", Key: "mcpServers",
		Restart: "Continue reads config.yaml again by itself; reload the window if the tools do not appear in Agent mode.",
		aliases: []string{"continue-dev"},
		paths: func(e Env) Paths {
			dir := e.get("CONTINUE_GLOBAL_DIR")
			if dir == "" {
				dir = e.join(e.home(), ".continue")
			}
			return Paths{Candidates: []string{e.join(dir, "config.yaml")}, Markers: []string{dir}}
		},
		format: yamlServers{key: "mcpServers", list: true},
		// A config.yaml needs a name and a version.
		seed:      "name: Local Config\nversion: 1.0.0\nschema: v1\n",
		normalize: continueServer,
		entry: func(command string, args []string) []member {
			return []member{{"name", EntryName}, {"command", command}, {"args", args}}
		},
	},
	{
		ID: "goose", Name: "Goose", Key: "extensions",
		Restart: "Start a new Goose session (Goose Desktop: restart it); 'goose configure' > Toggle Extensions shows the entry.",
		paths: func(e Env) Paths {
			var dir string
			switch {
			case e.get("GOOSE_PATH_ROOT") != "":
				dir = e.join(e.get("GOOSE_PATH_ROOT"), "config")
			case e.GOOS == "windows":
				dir = e.join(e.appData(), "Block", "goose", "config")
			default:
				dir = e.join(e.xdgConfig(), "goose") // macOS too
			}
			return Paths{Candidates: []string{e.join(dir, "config.yaml")}, Markers: []string{dir}}
		},
		format:    yamlServers{key: "extensions"},
		normalize: gooseServer,
		entry: func(command string, args []string) []member {
			return []member{{"enabled", true}, {"type", "stdio"}, {"name", EntryName}, {"cmd", command}, {"args", args}}
		},
	},
	{
		ID: "kiro-cli", Name: "Kiro CLI", Key: "mcpServers", OwnFile: true,
		Restart: "Start a new Kiro CLI (or Amazon Q CLI) chat ('/mcp' lists the servers).",
		aliases: []string{"kiro", "amazon-q", "q-cli", "amazonq"},
		// Kiro CLI's file, or Amazon Q Developer CLI's (Kiro CLI's
		// predecessor) when only that one exists.
		paths: func(e Env) Paths {
			kiro, q := e.join(e.home(), ".kiro"), e.join(e.home(), ".aws", "amazonq")
			return Paths{
				Candidates: []string{e.join(kiro, "settings", "mcp.json"), e.join(q, "mcp.json")},
				Markers:    []string{kiro, q},
			}
		},
		normalize: kiroServer,
		entry:     plainEntry,
	},
	{
		ID: "jetbrains-ai", Name: "JetBrains AI Assistant", Key: "mcpServers", OwnFile: true,
		Restart: "Restart the IDE, or open Settings > Tools > AI Assistant > Model Context Protocol (MCP) and apply.",
		aliases: []string{"jetbrains", "ai-assistant"},
		paths: func(e Env) Paths {
			dir := e.join(e.home(), ".ai", "mcp")
			return Paths{Candidates: []string{e.join(dir, "mcp.json")}, Markers: []string{dir, e.jetbrains()}}
		},
		entry: plainEntry,
	},
	{
		ID: "junie", Name: "JetBrains Junie", Key: "mcpServers", OwnFile: true,
		Restart: "Start a new Junie task (Junie in the IDE: Settings > Tools > Junie > MCP Settings shows the entry).",
		aliases: []string{"jetbrains-junie"},
		paths: func(e Env) Paths {
			dir := e.join(e.home(), ".junie")
			return Paths{Candidates: []string{e.join(dir, "mcp", "mcp.json")}, Markers: []string{dir}}
		},
		entry: plainEntry,
	},
}

// Project returns the app as it reads the servers of one project: an App
// whose file is the project's own (Claude Code: DIR/.mcp.json, the
// project scope that 'claude mcp add --scope project' writes and that is
// meant to be committed with the project). dir is an absolute directory
// of env's OS. An app without a project scope is an error.
func (a *App) Project(env Env, dir string) (*App, error) {
	if a.project == nil {
		var ids []string
		for _, x := range apps {
			if x.project != nil {
				ids = append(ids, x.ID)
			}
		}
		return nil, fmt.Errorf("%s has no project scope that Switchboard edits (--project works with %s)", a.Name, english.ListOr(ids))
	}
	if !env.isAbs(dir) {
		return nil, fmt.Errorf("the project directory %q is not an absolute path", dir)
	}
	p := *a
	file := a.project(env, env.clean(dir))
	p.Name = a.Name + " (project " + env.clean(dir) + ")"
	p.OwnFile = true
	p.Restart = a.projectRestart
	p.project = nil
	p.projectDir = env.clean(dir)
	p.paths = func(Env) Paths { return Paths{Candidates: []string{file}, Markers: []string{file}} }
	p.choose = nil
	return &p, nil
}

// Apps returns the known apps, in the order `switchboard clients list`
// shows them.
func Apps() []*App { return slices.Clone(apps) }

// Lookup returns the app with this ID (or alias), in any case.
func Lookup(id string) (*App, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	for _, a := range apps {
		if a.ID == id || slices.Contains(a.aliases, id) {
			return a, nil
		}
	}
	ids := make([]string, len(apps))
	for i, a := range apps {
		ids[i] = a.ID
	}
	return nil, fmt.Errorf("unknown app %q: the known apps are %s ('switchboard clients list' shows them)", id, english.List(ids))
}

// Bridge is the command an app runs to reach Switchboard: the switchboard
// binary by its absolute path, with "bridge" and the servers it exposes
// (none: every server). It never holds a token or a secret: the bridge
// finds the host by itself.
type Bridge struct {
	Command string
	Servers []string
	Profile string // --profile: a profile of Switchboard's config ("": none)
	// ToolMode is --tool-mode: "all" or "search" ("": the profile's, else
	// all).
	ToolMode string
}

// Args returns the bridge's arguments: bridge [--profile NAME] [--servers a,b]
// [--tool-mode MODE].
func (b Bridge) Args() []string {
	args := []string{"bridge"}
	if b.Profile != "" {
		args = append(args, "--profile", b.Profile)
	}
	if len(b.Servers) > 0 {
		args = append(args, "--servers", strings.Join(b.Servers, ","))
	}
	if b.ToolMode != "" {
		args = append(args, "--tool-mode", b.ToolMode)
	}
	return args
}
