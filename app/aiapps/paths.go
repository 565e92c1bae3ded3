package aiapps

import (
	"os"
	"path"
	"runtime"
	"strings"
)

// Env is what an app's paths are computed from: an OS (a runtime.GOOS
// value) and its environment. The path functions read nothing else, so
// every OS's paths can be computed, and tested, on any machine.
type Env struct {
	GOOS   string
	Getenv func(string) string
}

// OSEnv is the Env of this process: runtime.GOOS with getenv (normally
// [os.Getenv]; nil means os.Getenv).
func OSEnv(getenv func(string) string) Env {
	if getenv == nil {
		getenv = os.Getenv
	}
	return Env{GOOS: runtime.GOOS, Getenv: getenv}
}

// get returns an environment variable if it holds an absolute path of the
// Env's OS, else "".
func (e Env) get(name string) string {
	if e.Getenv == nil {
		return ""
	}
	v := e.Getenv(name)
	if !e.isAbs(v) {
		return ""
	}
	return e.clean(v)
}

// home is the user's home directory: %USERPROFILE% (or %HOMEDRIVE%%HOMEPATH%)
// on Windows, $HOME elsewhere.
func (e Env) home() string {
	if e.GOOS == "windows" {
		if h := e.get("USERPROFILE"); h != "" {
			return h
		}
		if e.Getenv != nil {
			if h := e.Getenv("HOMEDRIVE") + e.Getenv("HOMEPATH"); e.isAbs(h) {
				return e.clean(h)
			}
		}
		return ""
	}
	return e.get("HOME")
}

// appData is %APPDATA% (the roaming profile), or its default under the
// profile. Windows only.
func (e Env) appData() string {
	if d := e.get("APPDATA"); d != "" {
		return d
	}
	return e.join(e.home(), `AppData\Roaming`)
}

// localAppData is %LOCALAPPDATA%, or its default under the profile.
// Windows only.
func (e Env) localAppData() string {
	if d := e.get("LOCALAPPDATA"); d != "" {
		return d
	}
	return e.join(e.home(), `AppData\Local`)
}

// userConfig is where Electron apps (VS Code, Claude Desktop) keep their
// data: %APPDATA% on Windows, ~/Library/Application Support on macOS,
// $XDG_CONFIG_HOME (default ~/.config) elsewhere.
func (e Env) userConfig() string {
	switch e.GOOS {
	case "windows":
		return e.appData()
	case "darwin", "ios":
		return e.join(e.home(), "Library/Application Support")
	}
	return e.xdgConfig()
}

// xdgConfig is $XDG_CONFIG_HOME, default ~/.config.
func (e Env) xdgConfig() string {
	if d := e.get("XDG_CONFIG_HOME"); d != "" {
		return d
	}
	return e.join(e.home(), ".config")
}

// isAbs, clean and join treat paths as paths of the Env's OS.
func (e Env) isAbs(p string) bool {
	if e.GOOS != "windows" {
		return strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//") {
		return len(p) > 2 // UNC
	}
	return len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func (e Env) clean(p string) string {
	if e.GOOS != "windows" {
		return path.Clean(p)
	}
	p = strings.ReplaceAll(p, "/", `\`)
	for strings.Contains(p[1:], `\\`) {
		p = p[:1] + strings.ReplaceAll(p[1:], `\\`, `\`)
	}
	if len(p) > 3 {
		p = strings.TrimRight(p, `\`)
	}
	return p
}

// join joins dir and the slash-separated elements; "" if dir is "" (the
// environment did not say where the home is).
func (e Env) join(dir string, elem ...string) string {
	if dir == "" {
		return ""
	}
	if e.GOOS != "windows" {
		return path.Join(append([]string{dir}, elem...)...)
	}
	out := strings.TrimRight(e.clean(dir), `\`)
	for _, el := range elem {
		el = strings.Trim(strings.ReplaceAll(el, "/", `\`), `\`)
		if el != "" {
			out += `\` + el
		}
	}
	return out
}

// jetbrains is where JetBrains IDEs keep their settings: a marker of
// their AI plugins.
func (e Env) jetbrains() string {
	switch e.GOOS {
	case "windows":
		return e.join(e.appData(), "JetBrains")
	case "darwin", "ios":
		return e.join(e.userConfig(), "JetBrains")
	}
	return e.join(e.xdgConfig(), "JetBrains")
}

// sepOf is the path separator a path of some OS uses.
func sepOf(p string) string {
	if strings.Contains(p, `\`) {
		return `\`
	}
	return "/"
}
