package aiapps

import (
	"fmt"
	"regexp"
	"strings"
)

// varStyle is how an app expands variables in the strings of its server
// entries (command, args, env values, cwd) when it starts a server.
type varStyle int

const (
	// varsUnknown: Switchboard does not know whether the app expands
	// anything; an entry with "${" in it is left in the app.
	varsUnknown varStyle = iota
	// varsVSCode: VS Code's ${name} and ${name:arg} (its variables
	// reference, code.visualstudio.com/docs/reference/variables-reference).
	// Cursor uses the same forms (${env:NAME}, ${userHome},
	// ${workspaceFolder}, ${pathSeparator}, ${/}); Windsurf ${env:NAME}
	// and ${file:PATH}.
	varsVSCode
	// varsShell: Claude Code's ${VAR} and ${VAR:-default} (its docs:
	// "Environment variable expansion in .mcp.json").
	varsShell
	// varsGemini: Gemini CLI's $VAR and ${VAR} (its configuration docs:
	// string values of settings.json may reference environment variables).
	varsGemini
	// varsCopilot: GitHub Copilot CLI's $VAR, ${VAR} and ${VAR:-default}
	// in env values.
	varsCopilot
	// varsBraces: ${VAR} only (Kiro CLI).
	varsBraces
)

// appVars is each app's variable style; an app not listed is varsUnknown.
var appVars = map[string]varStyle{
	"vscode":      varsVSCode,
	"cursor":      varsVSCode,
	"windsurf":    varsVSCode,
	"claude-code": varsShell,
	"gemini-cli":  varsGemini,
	"copilot-cli": varsCopilot,
	"kiro-cli":    varsBraces,
}

// expander expands the variables of one app's entries as the app would,
// where the value does not depend on the app: the user's home, the path
// separator, and environment variables set in this process.
type expander struct {
	app   *App
	style varStyle
	env   Env
	used  []string // the variables expanded, each once, as written
	stuck []string // why a variable cannot be expanded, each once
}

func newExpander(app *App, env Env) *expander {
	style, ok := appVars[app.ID]
	if !ok {
		style = varsUnknown
	}
	return &expander{app: app, style: style, env: env}
}

func (x *expander) getenv(name string) string {
	if x.env.Getenv == nil {
		return ""
	}
	return x.env.Getenv(name)
}

func (x *expander) note(list *[]string, s string) {
	for _, v := range *list {
		if v == s {
			return
		}
	}
	*list = append(*list, s)
}

var (
	shellVarRE  = regexp.MustCompile(`\$\{([^{}]*)\}`)
	geminiVarRE = regexp.MustCompile(`\$(?:([A-Za-z0-9_]+)|\{([^{}]*)\})`)
	varNameRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// expand returns s with its variables expanded. A variable that cannot be
// expanded is left as written and recorded in x.stuck; the caller then
// leaves the entry in the app.
func (x *expander) expand(s string) string {
	switch x.style {
	case varsVSCode:
		return shellVarRE.ReplaceAllStringFunc(s, x.vscode)
	case varsShell, varsBraces:
		return shellVarRE.ReplaceAllStringFunc(s, x.shell)
	case varsGemini, varsCopilot:
		return geminiVarRE.ReplaceAllStringFunc(s, x.gemini)
	}
	if i := strings.Index(s, "${"); i >= 0 {
		ref := s[i:]
		if j := strings.IndexByte(ref, '}'); j >= 0 {
			ref = ref[:j+1]
		}
		x.note(&x.stuck, fmt.Sprintf("%s: Switchboard does not know what %s puts in its place", shorten(ref), x.app.Name))
	}
	return s
}

// vscode expands one ${...} of VS Code's forms.
func (x *expander) vscode(ref string) string {
	body := ref[2 : len(ref)-1]
	kind, arg, hasArg := strings.Cut(body, ":")
	inApp := func(what string) string {
		x.note(&x.stuck, fmt.Sprintf("%s %s: it only has a value inside %s", ref, what, x.app.Name))
		return ref
	}
	switch {
	case body == "userHome":
		if h := x.env.home(); h != "" {
			x.note(&x.used, ref)
			return h
		}
		x.note(&x.stuck, ref+": the home directory is not known (HOME is not set)")
		return ref
	case body == "pathSeparator" || body == "/":
		x.note(&x.used, ref)
		if x.env.GOOS == "windows" {
			return `\`
		}
		return "/"
	case kind == "env" && hasArg:
		if v := x.getenv(arg); v != "" {
			x.note(&x.used, ref)
			return v
		}
		x.note(&x.stuck, fmt.Sprintf("%s: %s is not set in this environment (set it and import again)", ref, arg))
		return ref
	case kind == "input" && hasArg:
		return inApp(fmt.Sprintf("is asked of you by %s when it starts the server", x.app.Name))
	case kind == "command" && hasArg:
		return inApp(fmt.Sprintf("runs a command of %s", x.app.Name))
	case kind == "config" && hasArg:
		return inApp(fmt.Sprintf("is a setting of %s", x.app.Name))
	case kind == "file" && hasArg:
		return inApp(fmt.Sprintf("is read from a file by %s when it starts the server", x.app.Name))
	case strings.HasPrefix(kind, "workspaceFolder") || kind == "cwd" || kind == "file" || strings.HasPrefix(kind, "file") ||
		strings.HasPrefix(kind, "relativeFile") || kind == "lineNumber" || kind == "columnNumber" || kind == "selectedText" ||
		kind == "execPath" || kind == "execInstallFolder" || kind == "defaultBuildTask" || kind == "workspaceRoot":
		return inApp(fmt.Sprintf("is the open folder, file or editor state of %s", x.app.Name))
	}
	x.note(&x.stuck, fmt.Sprintf("%s: Switchboard does not know this variable of %s", shorten(ref), x.app.Name))
	return ref
}

// shell expands one ${VAR} or, where the app has them, ${VAR:-default}
// (Claude Code, Copilot CLI).
func (x *expander) shell(ref string) string {
	body := ref[2 : len(ref)-1]
	name, def, hasDef := body, "", false
	if x.style == varsShell || x.style == varsCopilot {
		name, def, hasDef = strings.Cut(body, ":-")
	}
	if !varNameRE.MatchString(name) {
		x.note(&x.stuck, fmt.Sprintf("%s: Switchboard does not know this form of %s's variables", shorten(ref), x.app.Name))
		return ref
	}
	if v := x.getenv(name); v != "" {
		x.note(&x.used, ref)
		return v
	}
	if hasDef {
		x.note(&x.used, ref)
		return def
	}
	x.note(&x.stuck, fmt.Sprintf("%s: %s is not set in this environment (set it and import again)", ref, name))
	return ref
}

// gemini expands one $VAR or ${VAR} (Gemini CLI), or Copilot CLI's
// ${VAR:-default}.
func (x *expander) gemini(ref string) string {
	m := geminiVarRE.FindStringSubmatch(ref)
	if m[2] != "" && x.style == varsCopilot {
		return x.shell(ref)
	}
	name := m[1] + m[2]
	if !varNameRE.MatchString(name) {
		return ref // "$5": no variable can have this name, so Gemini CLI leaves it as written
	}
	if v := x.getenv(name); v != "" {
		x.note(&x.used, ref)
		return v
	}
	x.note(&x.stuck, fmt.Sprintf("%s: %s is not set in this environment (set it and import again)", ref, name))
	return ref
}

// shorten cuts a variable reference for a message.
func shorten(s string) string {
	if len(s) > 60 {
		return s[:57] + "..."
	}
	return s
}
