package aiapps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Claude Desktop keeps each extension (an MCP bundle it installed) in
// its own folder, and its settings beside (docs/bundles.md, "Claude
// Desktop's extensions"):
//
//	<Claude's folder>/Claude Extensions/<id>/            the unpacked bundle (manifest.json at its root)
//	<Claude's folder>/Claude Extensions Settings/<id>.json  {"isEnabled": true, "userConfig": {KEY: value}}
//
// Claude's folder is the one that holds claude_desktop_config.json.
const (
	ClaudeExtensionsDir = "Claude Extensions"
	ClaudeSettingsDir   = "Claude Extensions Settings"
	// ClaudeEncrypted starts a sensitive value in the settings file:
	// Electron's safeStorage ciphertext, whose key is in Claude's entry
	// of the OS keychain. It is never a value to carry over.
	ClaudeEncrypted = "__encrypted__:"
)

// ClaudeExtension is one extension installed in Claude Desktop.
type ClaudeExtension struct {
	ID  string // the folder's name: "ant.dir.ant.anthropic.filesystem", "local.mcpb.acme.demo"
	Dir string // the unpacked bundle
	// Settings is its settings file; HasSettings says it exists.
	Settings    string
	HasSettings bool
	// Enabled is the settings' isEnabled. Claude Desktop starts an
	// extension only when its settings file exists and says so.
	Enabled bool
	// Values are the settings' userConfig values as text, by key (a
	// multiple option's several; numbers as written, booleans
	// true/false). A sensitive value is never among them (Encrypted).
	Values map[string][]string
	// Encrypted are the keys whose value is safeStorage ciphertext.
	Encrypted []string
	// SettingsErr is why the settings file could not be read (the
	// extension is then taken as disabled, with no values).
	SettingsErr error
}

// ClaudeFolder is Claude Desktop's folder on env's OS: the folder of the
// claude_desktop_config.json [App.Locate] picks (on Windows, the MSIX
// package's LocalCache or %APPDATA%).
func ClaudeFolder(env Env, exists func(string) bool) (string, error) {
	app, err := Lookup("claude-desktop")
	if err != nil {
		return "", err
	}
	loc, err := app.Locate(env, exists)
	if err != nil {
		return "", err
	}
	p := loc.Path
	return p[:strings.LastIndex(p, sepOf(p))], nil
}

// ClaudeExtensions lists the extensions under Claude's folder, by id: every
// folder of Claude Extensions (a file, a link or a name with a path
// separator is no extension), with its settings. No folder: none.
func ClaudeExtensions(folder string) ([]ClaudeExtension, error) {
	root := filepath.Join(folder, ClaudeExtensionsDir)
	ents, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading Claude Desktop's extensions: %w", err)
	}
	var out []ClaudeExtension
	for _, d := range ents {
		id := d.Name()
		if !d.IsDir() || id == "" || strings.HasPrefix(id, ".") || strings.ContainsAny(id, `/\`) {
			continue
		}
		x := ClaudeExtension{ID: id, Dir: filepath.Join(root, id), Settings: filepath.Join(folder, ClaudeSettingsDir, id+".json")}
		x.readSettings()
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b ClaudeExtension) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// readSettings reads x's settings file into Enabled, Values and Encrypted.
func (x *ClaudeExtension) readSettings() {
	b, err := os.ReadFile(x.Settings)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	x.HasSettings = true
	if err != nil {
		x.SettingsErr = err
		return
	}
	var s struct {
		IsEnabled  *bool                      `json:"isEnabled"`
		UserConfig map[string]json.RawMessage `json:"userConfig"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		x.SettingsErr = fmt.Errorf("%s is not Claude Desktop's settings JSON: %w", x.Settings, err)
		return
	}
	x.Enabled = s.IsEnabled != nil && *s.IsEnabled
	for k, raw := range s.UserConfig {
		vs, encrypted, err := claudeValue(raw)
		switch {
		case encrypted:
			x.Encrypted = append(x.Encrypted, k)
		case err != nil:
			x.SettingsErr = errors.Join(x.SettingsErr, fmt.Errorf("%s: userConfig.%s: %w", x.Settings, k, err))
		case len(vs) > 0:
			if x.Values == nil {
				x.Values = map[string][]string{}
			}
			x.Values[k] = vs
		}
	}
	slices.Sort(x.Encrypted)
}

// claudeValue is a userConfig value as text: a string, a number as
// written, a boolean, or an array of those (a multiple option); null is
// no value. encrypted is true for safeStorage ciphertext (in an array,
// any element of it).
func claudeValue(raw json.RawMessage) (vs []string, encrypted bool, err error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, false, err
	}
	one := func(v any) (string, error) {
		switch v := v.(type) {
		case string:
			if strings.HasPrefix(v, ClaudeEncrypted) {
				encrypted = true
			}
			return v, nil
		case json.Number:
			return v.String(), nil
		case bool:
			return strconv.FormatBool(v), nil
		}
		return "", fmt.Errorf("a %T is not a value of an option", v)
	}
	switch v := v.(type) {
	case nil:
		return nil, false, nil
	case []any:
		for _, e := range v {
			s, err := one(e)
			if err != nil {
				return nil, false, err
			}
			vs = append(vs, s)
		}
	default:
		s, err := one(v)
		if err != nil {
			return nil, false, err
		}
		vs = []string{s}
	}
	if encrypted {
		return nil, true, nil
	}
	return vs, false, nil
}
