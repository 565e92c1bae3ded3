package aiapps

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func envOf(goos string, vars ...string) Env {
	m := map[string]string{}
	for _, kv := range vars {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return Env{GOOS: goos, Getenv: func(k string) string { return m[k] }}
}

// pathEnvs are the environments of testdata/paths.golden: each OS with the
// variables set as usual, and with the ones that change an answer.
var pathEnvs = []struct {
	goos string
	vars []string
}{
	{"linux", []string{"HOME=/home/ann"}},
	{"linux", []string{"HOME=/home/ann", "XDG_CONFIG_HOME=/home/ann/xdg", "CLAUDE_CONFIG_DIR=/home/ann/claude-work"}},
	{"linux", []string{"HOME=/home/ann/", "XDG_CONFIG_HOME=relative/ignored"}},
	{"freebsd", []string{"HOME=/usr/home/ann"}},
	{"darwin", []string{"HOME=/Users/ann", "XDG_CONFIG_HOME=/Users/ann/xdg-is-not-used-on-macos"}},
	{"windows", []string{`USERPROFILE=C:\Users\ann`, `APPDATA=C:\Users\ann\AppData\Roaming`, `LOCALAPPDATA=C:\Users\ann\AppData\Local`}},
	{"windows", []string{`USERPROFILE=C:\Users\ann`}},
	{"windows", []string{`HOMEDRIVE=D:`, `HOMEPATH=\Users\bob`, `APPDATA=D:/Roaming/`, `CLAUDE_CONFIG_DIR=D:\claude`}},
	{"linux", []string{"HOME=/home/ann", "CODEX_HOME=/srv/codex", "COPILOT_HOME=/srv/copilot", "CLINE_DIR=/srv/cline",
		"CONTINUE_GLOBAL_DIR=/srv/continue", "GOOSE_PATH_ROOT=/srv/goose", "LMSTUDIO_HOME=/srv/lmstudio"}},
	{"linux", []string{"HOME=/home/ann", "CLINE_DIR=/srv/cline", "CLINE_DATA_DIR=/srv/cline-data", "CODEX_HOME=relative/ignored"}},
	{"darwin", []string{"HOME=/Users/ann", "CLINE_MCP_SETTINGS_PATH=/Users/ann/cline.json"}},
	{"windows", []string{`USERPROFILE=C:\Users\ann`, `APPDATA=C:\Users\ann\AppData\Roaming`, `CODEX_HOME=C:\codex`,
		`CLINE_MCP_SETTINGS_PATH=C:\cline\mcp.json`, `GOOSE_PATH_ROOT=D:\goose`}},
}

// TestPathsGolden: every app's config file and markers on every OS, as
// pure functions of the environment, against testdata/paths.golden.
func TestPathsGolden(t *testing.T) {
	var b strings.Builder
	for _, pe := range pathEnvs {
		fmt.Fprintf(&b, "## GOOS=%s %s\n", pe.goos, strings.Join(pe.vars, " "))
		env := envOf(pe.goos, pe.vars...)
		for _, app := range Apps() {
			p, err := app.Paths(env)
			if err != nil {
				t.Fatalf("%s %v: %v", app.ID, pe, err)
			}
			for _, c := range p.Candidates {
				fmt.Fprintf(&b, "%-15s config  %s\n", app.ID, c)
			}
			for _, m := range p.Markers {
				fmt.Fprintf(&b, "%-15s marker  %s\n", app.ID, m)
			}
			if p.Pointer != "" {
				fmt.Fprintf(&b, "%-15s pointer %s\n", app.ID, p.Pointer)
			}
			for _, x := range append(slices.Clone(p.Candidates), p.Markers...) {
				if !env.isAbs(x) {
					t.Errorf("%s: %q is not absolute on %s", app.ID, x, pe.goos)
				}
				if pe.goos == "windows" && strings.Contains(x, "/") || pe.goos != "windows" && strings.Contains(x, `\`) {
					t.Errorf("%s: %q has the other OS's separator", app.ID, x)
				}
			}
		}
		b.WriteString("\n")
	}
	golden(t, filepath.Join("testdata", "paths.golden"), []byte(b.String()))
}

// TestPathsNoHome: without a home directory there is no answer, and the
// error says which variable to set.
func TestPathsNoHome(t *testing.T) {
	for _, tc := range []struct {
		goos string
		vars []string
		want string
	}{
		{"linux", nil, "$HOME"},
		{"linux", []string{"HOME=relative"}, "$HOME"},
		{"darwin", nil, "$HOME"},
		{"windows", []string{`APPDATA=C:\x`, `LOCALAPPDATA=C:\y`}, "%USERPROFILE%"},
	} {
		env := envOf(tc.goos, tc.vars...)
		n := 0
		for _, app := range Apps() {
			_, err := app.Paths(env)
			if err == nil {
				continue
			}
			n++
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), app.Name) {
				t.Errorf("%s %v: %v", app.ID, tc, err)
			}
			if _, err := app.Locate(env, func(string) bool { return true }); err == nil {
				t.Errorf("%s: Locate without a home did not fail", app.ID)
			}
		}
		// On Windows with APPDATA set, Zed and VS Code still have an answer.
		if tc.goos != "windows" && n != len(apps) || tc.goos == "windows" && n == 0 {
			t.Errorf("%v: %d apps failed", tc, n)
		}
	}
}

// TestLocateClaudeDesktopWindows: the MSIX install's file when it exists,
// else the classic one when that exists (an MSIX app uses a file that was
// there before it was installed), else the MSIX one if the MSIX package is
// installed, else the classic one.
func TestLocateClaudeDesktopWindows(t *testing.T) {
	env := envOf("windows", `USERPROFILE=C:\Users\ann`, `APPDATA=C:\Users\ann\AppData\Roaming`, `LOCALAPPDATA=C:\Users\ann\AppData\Local`)
	const (
		pkg      = `C:\Users\ann\AppData\Local\Packages\Claude_pzs8sxrjxfjjc`
		msix     = pkg + `\LocalCache\Roaming\Claude\claude_desktop_config.json`
		classic  = `C:\Users\ann\AppData\Roaming\Claude\claude_desktop_config.json`
		squirrel = `C:\Users\ann\AppData\Local\AnthropicClaude`
	)
	app, _ := Lookup("claude-desktop")
	for _, tc := range []struct {
		exist     []string
		want      string
		exists    bool
		installed bool
		marker    string
	}{
		{nil, classic, false, false, ""},
		{[]string{squirrel}, classic, false, true, squirrel},
		{[]string{pkg}, msix, false, true, pkg},
		{[]string{pkg, classic}, classic, true, true, classic},
		{[]string{pkg, classic, msix}, msix, true, true, msix},
		{[]string{msix}, msix, true, true, msix},
	} {
		loc, err := app.Locate(env, func(p string) bool { return slices.Contains(tc.exist, p) })
		if err != nil {
			t.Fatal(err)
		}
		if loc.Path != tc.want || loc.Exists != tc.exists || loc.Installed != tc.installed || loc.Marker != tc.marker {
			t.Errorf("existing %q: %+v, want %s exists=%v installed=%v marker=%q", tc.exist, loc, tc.want, tc.exists, tc.installed, tc.marker)
		}
	}
}

// TestLocateInstalled: an app is installed when its config file or a
// marker exists.
func TestLocateInstalled(t *testing.T) {
	env := envOf("linux", "HOME=/home/ann")
	cursor, _ := Lookup("Cursor")
	for _, tc := range []struct {
		exist     []string
		installed bool
	}{
		{nil, false},
		{[]string{"/home/ann/.cursor"}, true},
		{[]string{"/home/ann/.cursor/mcp.json"}, true},
		{[]string{"/home/ann/.cursor-server"}, false},
	} {
		loc, _ := cursor.Locate(env, func(p string) bool { return slices.Contains(tc.exist, p) })
		if loc.Installed != tc.installed || loc.Path != "/home/ann/.cursor/mcp.json" {
			t.Errorf("%q: %+v", tc.exist, loc)
		}
	}
}

func TestLookup(t *testing.T) {
	for in, want := range map[string]string{
		"claude-desktop": "claude-desktop", "Claude": "claude-desktop", "VSCODE": "vscode", "code": "vscode",
		"gemini": "gemini-cli", "lmstudio": "lm-studio", " zed ": "zed",
		"Codex": "codex", "copilot": "copilot-cli", "kiro": "kiro-cli", "amazon-q": "kiro-cli", "jetbrains": "jetbrains-ai",
		"junie": "junie", "goose": "goose", "continue": "continue", "cline": "cline",
	} {
		a, err := Lookup(in)
		if err != nil || a.ID != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", in, a, err, want)
		}
	}
	if _, err := Lookup("notepad"); err == nil || !strings.Contains(err.Error(), "claude-desktop, claude-code, cursor, vscode, windsurf, gemini-cli, lm-studio, zed, codex, copilot-cli, cline, continue, goose, kiro-cli, jetbrains-ai and junie") {
		t.Errorf("Lookup(notepad): %v", err)
	}
}

// fakeFS replaces the file system Locate globs and reads for a test.
func fakeFS(t *testing.T, files map[string]string) func(string) bool {
	t.Helper()
	oldGlob, oldRead := globFS, readFileFS
	t.Cleanup(func() { globFS, readFileFS = oldGlob, oldRead })
	globFS = func(pattern string) ([]string, error) {
		var out []string
		for p := range files {
			// The patterns here have one '*', in their last element.
			pre, post, _ := strings.Cut(pattern, "*")
			if strings.HasPrefix(p, pre) && strings.HasSuffix(p, post) && !strings.ContainsAny(p[len(pre):len(p)-len(post)], `/\`) {
				out = append(out, p)
			}
		}
		return out, nil
	}
	readFileFS = func(p string) ([]byte, error) {
		if c, ok := files[p]; ok {
			return []byte(c), nil
		}
		return nil, fmt.Errorf("%s: no such file", p)
	}
	return func(p string) bool { _, ok := files[p]; return ok }
}

// TestLocateClaudeDesktopMSIXGlob: the MSIX package folder is whatever
// Claude_* exists (its publisher hash is not hard-coded), the one whose
// config exists first; without one, the usual name.
func TestLocateClaudeDesktopMSIXGlob(t *testing.T) {
	env := envOf("windows", `USERPROFILE=C:\Users\ann`, `LOCALAPPDATA=C:\Users\ann\AppData\Local`)
	app, _ := Lookup("claude-desktop")
	const (
		pkgs = `C:\Users\ann\AppData\Local\Packages\`
		file = `\LocalCache\Roaming\Claude\claude_desktop_config.json`
	)
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{nil, `C:\Users\ann\AppData\Roaming\Claude\claude_desktop_config.json`},
		{[]string{pkgs + "Claude_abc123"}, pkgs + "Claude_abc123" + file},
		{[]string{pkgs + "Claude_aaa", pkgs + "Claude_bbb", pkgs + "Claude_bbb" + file}, pkgs + "Claude_bbb" + file},
		{[]string{pkgs + "Claude_aaa", pkgs + "Claude_bbb"}, pkgs + "Claude_aaa" + file},
		{[]string{pkgs + "NotClaude_x", pkgs + "Claude_pzs8sxrjxfjjc" + file}, pkgs + "Claude_pzs8sxrjxfjjc" + file},
	} {
		files := map[string]string{}
		for _, f := range tc.files {
			files[f] = ""
		}
		loc, err := app.Locate(env, fakeFS(t, files))
		if err != nil {
			t.Fatal(err)
		}
		if loc.Path != tc.want {
			t.Errorf("%q: %s, want %s", tc.files, loc.Path, tc.want)
		}
	}
}

// TestLocateLMStudioHome: LM Studio's home as LM Studio finds it: the
// folder ~/.lmstudio-home-pointer names, else ~/.cache/lm-studio if it
// exists, else ~/.lmstudio; $LMSTUDIO_HOME first.
func TestLocateLMStudioHome(t *testing.T) {
	app, _ := Lookup("lm-studio")
	for _, tc := range []struct {
		goos  string
		vars  []string
		files map[string]string
		want  string
	}{
		{"linux", []string{"HOME=/home/ann"}, nil, "/home/ann/.lmstudio/mcp.json"},
		{"linux", []string{"HOME=/home/ann"}, map[string]string{"/home/ann/.cache/lm-studio": ""}, "/home/ann/.cache/lm-studio/mcp.json"},
		{"linux", []string{"HOME=/home/ann"}, map[string]string{"/home/ann/.lmstudio-home-pointer": "/data/lms\n", "/home/ann/.cache/lm-studio": ""}, "/data/lms/mcp.json"},
		{"linux", []string{"HOME=/home/ann"}, map[string]string{"/home/ann/.lmstudio-home-pointer": "relative"}, "/home/ann/.lmstudio/mcp.json"},
		{"linux", []string{"HOME=/home/ann", "LMSTUDIO_HOME=/opt/lms"}, map[string]string{"/home/ann/.lmstudio-home-pointer": "/data/lms"}, "/opt/lms/mcp.json"},
		{"windows", []string{`USERPROFILE=C:\Users\ann`}, map[string]string{`C:\Users\ann\.lmstudio-home-pointer`: `D:\LM Studio`}, `D:\LM Studio\mcp.json`},
		{"darwin", []string{"HOME=/Users/ann"}, map[string]string{"/Users/ann/.lmstudio-home-pointer": "/Users/ann/.lmstudio"}, "/Users/ann/.lmstudio/mcp.json"},
	} {
		loc, err := app.Locate(envOf(tc.goos, tc.vars...), fakeFS(t, tc.files))
		if err != nil {
			t.Fatal(err)
		}
		if loc.Path != tc.want {
			t.Errorf("%v %v: %s, want %s", tc.vars, tc.files, loc.Path, tc.want)
		}
	}
}

// TestLocateTwoFiles: Cline and Kiro CLI each have a current file and an
// older one: the current one when it exists, else the older one when it
// exists, else the current one.
func TestLocateTwoFiles(t *testing.T) {
	env := envOf("linux", "HOME=/home/ann")
	for _, tc := range []struct {
		app, current, old string
	}{
		{"cline", "/home/ann/.cline/data/settings/cline_mcp_settings.json", "/home/ann/.config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json"},
		{"kiro-cli", "/home/ann/.kiro/settings/mcp.json", "/home/ann/.aws/amazonq/mcp.json"},
	} {
		app, _ := Lookup(tc.app)
		for _, c := range []struct {
			exist []string
			want  string
		}{
			{nil, tc.current},
			{[]string{tc.old}, tc.old},
			{[]string{tc.old, tc.current}, tc.current},
			{[]string{tc.current}, tc.current},
		} {
			loc, _ := app.Locate(env, func(p string) bool { return slices.Contains(c.exist, p) })
			if loc.Path != c.want {
				t.Errorf("%s with %q: %s, want %s", tc.app, c.exist, loc.Path, c.want)
			}
		}
	}
}

// TestProject: Claude Code's project scope is DIR/.mcp.json, an own file
// (an emptied mcpServers stays); other apps have none.
func TestProject(t *testing.T) {
	cc, _ := Lookup("claude-code")
	for _, tc := range []struct {
		goos, dir, want string
	}{
		{"linux", "/home/ann/src/app", "/home/ann/src/app/.mcp.json"},
		{"linux", "/home/ann/src/app/", "/home/ann/src/app/.mcp.json"},
		{"darwin", "/Users/ann/My Project", "/Users/ann/My Project/.mcp.json"},
		{"windows", `C:\src\app`, `C:\src\app\.mcp.json`},
	} {
		p, err := cc.Project(envOf(tc.goos), tc.dir)
		if err != nil {
			t.Fatal(err)
		}
		loc, err := p.Locate(envOf(tc.goos), func(string) bool { return false })
		if err != nil || loc.Path != tc.want || !p.OwnFile || p.ID != "claude-code" || !strings.Contains(p.Name, "project") {
			t.Errorf("%s %s: %+v %v %+v", tc.goos, tc.dir, loc, err, p)
		}
		doc, err := p.Parse(nil)
		if err != nil {
			t.Fatal(err)
		}
		doc.SetBridge(Bridge{Command: "/x/switchboard"})
		doc.Disconnect()
		if got := string(doc.Bytes()); got != "{\n  \"mcpServers\": {}\n}\n" {
			t.Errorf("after connect and disconnect: %q", got)
		}
	}
	if _, err := cc.Project(envOf("linux"), "relative"); err == nil {
		t.Error("a relative project directory was taken")
	}
	cursor, _ := Lookup("cursor")
	if _, err := cursor.Project(envOf("linux"), "/x"); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("cursor --project: %v", err)
	}
}
