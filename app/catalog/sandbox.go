package catalog

import (
	"encoding/json"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/internal/testhooks"
)

// fit is the sandbox a template's server gets when it is added (issue 16,
// docs/sandbox.md): the preset, the fields whose paths go to the write
// list (a File field: its directory), and why, for the catalog's words.
type fit struct {
	preset string
	write  []string // Field.IDs
	why    string   // shown when the preset is off
}

// fits is the sandbox of each template, by name; TestEveryTemplateHasASandbox
// keeps it complete. Servers that only compute are strict; those that
// call a web API are network; those that work on the user's files are
// files with the directories the user picks; those that drive a browser
// stay off (a browser needs its profile, its GPU and its own sandbox).
var fits = map[string]fit{
	"filesystem":          {preset: config.SandboxFiles, write: []string{"dirs"}},
	"memory":              {preset: config.SandboxFiles, write: []string{"file"}},
	"fetch":               {preset: config.SandboxNetwork},
	"git":                 {preset: config.SandboxFiles, write: []string{"repository"}},
	"time":                {preset: config.SandboxStrict},
	"everything":          {preset: config.SandboxStrict},
	"sequential-thinking": {preset: config.SandboxStrict},
	"brave-search":        {preset: config.SandboxNetwork},
	"chrome-devtools":     {preset: config.SandboxOff, why: "it drives a Chrome browser, which needs its own profile and sandbox"},
	"context7":            {preset: config.SandboxNetwork},
	"firecrawl":           {preset: config.SandboxNetwork},
	"notion":              {preset: config.SandboxNetwork},
	"playwright":          {preset: config.SandboxOff, why: "it downloads and drives a browser, which needs its own profile and sandbox"},
	"sentry":              {preset: config.SandboxNetwork},
	"slack":               {preset: config.SandboxNetwork},
	"tavily":              {preset: config.SandboxNetwork},
}

// enforcedHere says this OS enforces a sandbox (Linux, with Landlock).
// Elsewhere the catalog still writes the preset, as the intent, with
// "sandboxRequired": false, so the server starts unconfined and its status
// says so, instead of refusing to start (docs/sandbox.md). Tests change it.
var enforcedHere = runtime.GOOS == "linux"

// enforced is enforcedHere, unless SWITCHBOARD_LANDLOCK_ABI=0, the
// engine's override that makes Landlock unavailable (engine/sandbox), is
// set: then the machine enforces nothing either. The journeys set it: they
// run the catalog's servers through a stand-in npx that a sandbox would
// not let reach the installed packages.
// Like the engine, only a test build reads it (internal/testhooks).
func enforced() bool { return enforcedHere && testhooks.Getenv("SWITCHBOARD_LANDLOCK_ABI") != "0" }

// SandboxWords says in a sentence what the server may do once added, for
// the catalog's row and the template's page.
func (s Server) SandboxWords() string {
	f := fits[s.Name]
	switch f.preset {
	case config.SandboxStrict:
		return "Sandbox: can read only its own program files; no internet; writes only to its own temporary folder."
	case config.SandboxNetwork:
		return "Sandbox: can connect to the internet; reads only its own program files and writes only to its own temporary folder."
	case config.SandboxFiles:
		if len(f.write) > 0 && s.fieldOptional(f.write[0]) {
			return "Sandbox: if you choose a folder or file when you add it, it can read and write only that and its own program files, with no internet; without one it is not confined."
		}
		return "Sandbox: can read and write only its own program files and the folders you choose when you add it; no internet."
	}
	if f.why != "" {
		return "Sandbox: off, as " + f.why + "."
	}
	return "Sandbox: off."
}

func (s Server) fieldOptional(id string) bool {
	for _, f := range s.Fields {
		if f.ID == id {
			return f.Optional
		}
	}
	return false
}

// PresetSentence is a preset in one plain sentence, for people who do not
// know what a sandbox is.
func PresetSentence(preset string) string {
	switch preset {
	case config.SandboxStrict:
		return "Can read only its own program files; no internet; writes only to its own temporary folder."
	case config.SandboxFiles:
		return "Can use only its own program files and the folders you choose below; no internet."
	case config.SandboxNetwork:
		return "Can connect to the internet; reads only its own program files and writes only to its own temporary folder."
	default:
		return "Runs with all your rights: it can read and change any of your files and use the network."
	}
}

// sandboxOf is the "sandbox" value of an entry built from the template
// with the values vals (already checked): the preset, and the paths of
// its write fields (a file's directory).
func (s Server) sandboxOf(v Values) json.RawMessage {
	f := fits[s.Name]
	if f.preset == "" || f.preset == config.SandboxOff {
		return nil
	}
	sb := configedit.Sandbox{Preset: f.preset}
	for _, id := range f.write {
		kind := File
		for _, fd := range s.Fields {
			if fd.ID == id {
				kind = fd.Kind
			}
		}
		for _, p := range v[id] {
			if p = strings.TrimSpace(p); p == "" || !filepath.IsAbs(p) {
				continue
			}
			if kind == File {
				p = filepath.Dir(p)
			}
			sb.Write = appendOnce(sb.Write, filepath.Clean(p))
		}
	}
	if f.preset == config.SandboxFiles && len(sb.Write) == 0 {
		// Nothing chosen for an optional path (memory's file, git's
		// repository): the server works wherever it is told, so "files"
		// with no folder would break it, and the config refuses a bare
		// "files" with no directory argument. It is added unconfined.
		return nil
	}
	return sb.JSON()
}

func appendOnce(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}
