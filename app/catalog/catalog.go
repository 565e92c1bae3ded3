// Package catalog is the built-in list of well-known MCP servers that the
// window offers as templates. Each is pinned to a package and a version
// (CI checks that every npm one still exists with `npm view`), and asks for
// exactly the settings it needs: a token becomes a keyring secret, the
// directories of the filesystem server become its arguments.
//
// The package knows nothing of a screen or of the host: [Server.Build]
// turns a template and the values a person gave into a command line, an
// environment and the secrets to store.
package catalog

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Registry is where a template's package comes from.
type Registry string

// The registries.
const (
	NPM  Registry = "npm"  // run with npx -y PACKAGE@VERSION (Node.js)
	PyPI Registry = "pypi" // run with uvx PACKAGE==VERSION (uv, Python)
)

// Category is a group of templates in the window, by what they are for.
type Category string

// The categories, in the order the window shows them.
const (
	Files           Category = "Files"
	Web             Category = "Web and search"
	DeveloperTools  Category = "Developer tools"
	Productivity    Category = "Productivity"
	MemoryReasoning Category = "Memory and reasoning"
	Utilities       Category = "Utilities"
)

// Categories returns the categories in the order the window shows them.
func Categories() []Category {
	return []Category{Files, Web, DeveloperTools, Productivity, MemoryReasoning, Utilities}
}

// Kind is what a [Field] holds.
type Kind int

// The kinds of fields.
const (
	Text   Kind = iota // a line of text
	Secret             // a secret: it goes to the keyring, the entry refers to it
	Dir                // an absolute path to an existing directory
	Dirs               // one or more absolute paths to existing directories
	File               // an absolute path to a file (it may not exist yet)
)

// Field is one setting a template asks for. Where its value goes: Env
// names an environment variable; else Flag names a command-line flag that
// takes the value as its next argument; else the value (each value, for
// Dirs) is appended to the arguments.
type Field struct {
	ID          string // the key of its value in [Values]
	Label       string // what the form shows
	Help        string // one sentence: what it is for, where to get it
	Kind        Kind
	Env         string
	Flag        string
	Optional    bool
	Placeholder string
}

// Server is a template: a well-known server pinned to a package version.
type Server struct {
	Name        string // the suggested server name (a valid one)
	Title       string
	Category    Category
	Description string
	Homepage    string
	Registry    Registry
	Package     string
	Version     string   // pinned: the exact version to run
	Args        []string // fixed arguments after the package
	Fields      []Field
	// Note is shown with the template: for example that upstream archived
	// it and what replaces it.
	Note string
}

// Runner returns the program that runs packages of the registry.
func (r Registry) Runner() string {
	if r == PyPI {
		return "uvx"
	}
	return "npx"
}

// Spec returns the pinned package as its registry's tools write it:
// "@scope/pkg@1.2.3" (npm) or "pkg==1.2.3" (PyPI).
func (s Server) Spec() string {
	if s.Registry == PyPI {
		return s.Package + "==" + s.Version
	}
	return s.Package + "@" + s.Version
}

// Command returns the command line that runs the pinned package, before
// any field: npx -y PKG@VERSION ARGS..., or uvx PKG==VERSION ARGS....
func (s Server) Command() (string, []string) {
	args := []string{s.Spec()}
	if s.Registry == NPM {
		args = []string{"-y", s.Spec()}
	}
	return s.Registry.Runner(), append(args, s.Args...)
}

// Values are the settings a person gave, by [Field.ID]. Only a Dirs field
// takes more than one value; empty values are ignored.
type Values map[string][]string

// Built is an entry made from a template.
type Built struct {
	Command string
	Args    []string
	Env     map[string]string // plain values
	// Secrets are the values of Secret fields by environment variable:
	// store each in the keyring and refer to it from the entry.
	Secrets map[string]string
	// ArgField names the field each argument came from (by index into
	// Args), so that a problem with an argument can be shown next to it.
	ArgField map[int]string
	// Sandbox is the entry's "sandbox" (the template's preset, with the
	// paths the server works on), nil for none: see sandbox.go.
	Sandbox json.RawMessage
	// SandboxOptional: write "sandboxRequired": false (this OS does not
	// enforce a sandbox yet: the server starts unconfined, saying so).
	SandboxOptional bool
}

// FieldError is a value of a field that cannot be used.
type FieldError struct {
	Field string // the Field.ID
	Msg   string // for a person: what is wrong and the remedy
}

func (e FieldError) Error() string { return e.Field + ": " + e.Msg }

// Build makes an entry from the template and the values. Each field's
// problems (a required value missing, a relative path, a directory that
// does not exist) are returned, one per field, in the template's order.
func (s Server) Build(v Values) (Built, []FieldError) {
	cmd, args := s.Command()
	b := Built{Command: cmd, Args: args, Env: map[string]string{}, Secrets: map[string]string{}, ArgField: map[int]string{}}
	var errs []FieldError
	for _, f := range s.Fields {
		var vals []string
		for _, x := range v[f.ID] {
			if x = strings.TrimSpace(x); x != "" {
				vals = append(vals, x)
			}
		}
		if f.Kind != Dirs && len(vals) > 1 {
			vals = vals[:1]
		}
		if len(vals) == 0 {
			if !f.Optional {
				errs = append(errs, FieldError{f.ID, "is required: " + f.Help})
			}
			continue
		}
		if msg := checkPaths(f.Kind, vals); msg != "" {
			errs = append(errs, FieldError{f.ID, msg})
			continue
		}
		switch {
		case f.Env != "" && f.Kind == Secret:
			b.Secrets[f.Env] = vals[0]
		case f.Env != "":
			b.Env[f.Env] = vals[0]
		case f.Flag != "":
			b.ArgField[len(b.Args)] = f.ID
			b.ArgField[len(b.Args)+1] = f.ID
			b.Args = append(b.Args, f.Flag, vals[0])
		default:
			for _, x := range vals {
				b.ArgField[len(b.Args)] = f.ID
				b.Args = append(b.Args, x)
			}
		}
	}
	b.Sandbox = s.sandboxOf(v)
	b.SandboxOptional = b.Sandbox != nil && !enforced()
	return b, errs
}

// checkPaths checks the values of a path field, in the engine's words for
// a working directory.
func checkPaths(k Kind, vals []string) string {
	if k != Dir && k != Dirs && k != File {
		return ""
	}
	for _, p := range vals {
		if !filepath.IsAbs(p) {
			return fmt.Sprintf("%q is not absolute: give an absolute path", p)
		}
		if k == File {
			continue
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return fmt.Sprintf("%q does not exist: create it or choose another directory", p)
		case !fi.IsDir():
			return fmt.Sprintf("%q is not a directory", p)
		}
	}
	return ""
}

// All returns the templates, in the order the window lists them: the
// reference servers first, then third-party ones by name.
func All() []Server { return slices.Clone(servers) }

// Matches reports whether the template matches a search: every word of
// the query (case-insensitive) is in its title, name, description,
// package or category.
func (s Server) Matches(query string) bool {
	hay := strings.ToLower(strings.Join([]string{s.Title, s.Name, s.Description, s.Package, string(s.Category)}, "\n"))
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// Lookup returns the template with the suggested name.
func Lookup(name string) (Server, bool) {
	for _, s := range servers {
		if s.Name == name {
			return s, true
		}
	}
	return Server{}, false
}
