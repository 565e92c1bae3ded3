//go:build unix

package engine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeExe writes a file with the given mode (0o755 for a program).
func writeExe(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // past the umask
		t.Fatal(err)
	}
}

func TestResolvePOSIX(t *testing.T) {
	root := t.TempDir()
	d1, d2, d3 := filepath.Join(root, "d1"), filepath.Join(root, "d2"), filepath.Join(root, "d3")
	writeExe(t, filepath.Join(d2, "tool"), 0o755)
	writeExe(t, filepath.Join(d3, "tool"), 0o755)
	writeExe(t, filepath.Join(d1, "plain"), 0o644)
	writeExe(t, filepath.Join(d3, "plain"), 0o700)
	if err := os.MkdirAll(filepath.Join(d1, "tool"), 0o755); err != nil { // a directory is not a program
		t.Fatal(err)
	}
	path := strings.Join([]string{d1, d2, d3}, ":")

	t.Run("bare name, first match in PATH order", func(t *testing.T) {
		la, err := Resolve(&Spec{Command: "tool", Args: []string{"-y", "x"}}, path)
		if err != nil {
			t.Fatal(err)
		}
		want := &Launch{Path: filepath.Join(d2, "tool"), Args: []string{"tool", "-y", "x"}, Resolved: filepath.Join(d2, "tool")}
		if !reflect.DeepEqual(la, want) {
			t.Errorf("Resolve = %+v, want %+v", la, want)
		}
	})
	t.Run("non-executable file skipped", func(t *testing.T) {
		la, err := Resolve(&Spec{Command: "plain"}, path)
		if err != nil || la.Path != filepath.Join(d3, "plain") {
			t.Errorf("Resolve = %+v, %v; want %s", la, err, filepath.Join(d3, "plain"))
		}
	})
	t.Run("absolute path", func(t *testing.T) {
		exe := filepath.Join(d3, "tool")
		la, err := Resolve(&Spec{Command: exe, Args: []string{"a"}}, "/nonexistent")
		if err != nil || la.Path != exe || !reflect.DeepEqual(la.Args, []string{exe, "a"}) {
			t.Errorf("Resolve = %+v, %v", la, err)
		}
	})
	t.Run("not found", func(t *testing.T) {
		_, err := Resolve(&Spec{Name: "files", Command: "nosuch"}, path)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("err = %v (%T), want *NotFoundError", err, err)
		}
		if nf.Command != "nosuch" || nf.Path != path || nf.Server != "files" {
			t.Errorf("NotFoundError = %+v", nf)
		}
		for _, w := range []string{`"nosuch"`, path, "PATH", `"files"`} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("message %q does not contain %q", err, w)
			}
		}
	})
	t.Run("absolute path not executable or missing", func(t *testing.T) {
		for _, c := range []struct{ path, why string }{
			{filepath.Join(d1, "plain"), "not executable"},
			{filepath.Join(d1, "tool"), "directory"},
			{filepath.Join(d1, "missing"), "no such file"},
		} {
			_, err := Resolve(&Spec{Command: c.path}, path)
			var nf *NotFoundError
			if !errors.As(err, &nf) || nf.Err == nil || !strings.Contains(err.Error(), c.why) {
				t.Errorf("Resolve(%s) = %v, want a *NotFoundError saying %q", c.path, err, c.why)
			}
		}
	})
	t.Run("empty and relative PATH entries skipped", func(t *testing.T) {
		cwd := t.TempDir()
		writeExe(t, filepath.Join(cwd, "here"), 0o755)
		writeExe(t, filepath.Join(cwd, "rel", "here"), 0o755)
		t.Chdir(cwd)
		for _, p := range []string{"", ":", "rel", ".:rel", "::" + d1, "./rel:" + d1 + ":"} {
			if la, err := Resolve(&Spec{Command: "here"}, p); err == nil {
				t.Errorf("PATH %q resolved %q from the current directory: %+v", p, "here", la)
			}
		}
		// And an absolute entry after them still works.
		if la, err := Resolve(&Spec{Command: "tool"}, ":rel:"+d2); err != nil || la.Path != filepath.Join(d2, "tool") {
			t.Errorf("Resolve = %+v, %v", la, err)
		}
	})
}

// memFS is an in-memory Windows file system: case-insensitive names, and
// every file executable (Windows has no x bit).
type memFS map[string]bool // lower-cased path -> is a directory

type memInfo struct {
	name string
	dir  bool
}

func (m memInfo) Name() string { return m.name }
func (m memInfo) Size() int64  { return 0 }
func (m memInfo) Mode() fs.FileMode {
	if m.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (m memInfo) ModTime() time.Time { return time.Time{} }
func (m memInfo) IsDir() bool        { return m.dir }
func (m memInfo) Sys() any           { return nil }

func (m memFS) stat(p string) (fs.FileInfo, error) {
	// Windows ignores trailing dots and spaces of a name.
	key := strings.ToLower(strings.TrimRight(p, ". "))
	if dir, ok := m[key]; ok {
		return memInfo{name: baseName(p), dir: dir}, nil
	}
	return nil, &fs.PathError{Op: "stat", Path: p, Err: fs.ErrNotExist}
}

func winJoin(elem ...string) string {
	var parts []string
	for _, e := range elem {
		if e != "" {
			parts = append(parts, strings.TrimRight(e, `\`))
		}
	}
	return strings.Join(parts, `\`)
}

func winLookup(fsys memFS, path, pathExt string) lookup {
	return lookup{goos: "windows", path: path, pathExt: pathExt, systemRoot: `C:\Windows`,
		stat: fsys.stat, sep: ";", join: winJoin}
}

func newMemFS(files ...string) memFS {
	m := memFS{}
	for _, f := range files {
		m[strings.ToLower(f)] = false
		for d := dirName(f); strings.Contains(d, `\`); d = dirName(d) {
			m[strings.ToLower(d)] = true
		}
	}
	return m
}

func TestResolveWindows(t *testing.T) {
	fsys := newMemFS(
		`C:\bin\tool.cmd`, `C:\bin\tool.exe`, `C:\bin\only.bat`, `C:\bin\script.CMD`,
		`C:\nodejs\node.exe`, `C:\nodejs\npx.cmd`, `C:\nodejs\npm.cmd`,
		`C:\nodejs\node_modules\npm\bin\npx-cli.js`, `C:\nodejs\node_modules\npm\bin\npm-cli.js`,
		`C:\other\npx.cmd`, `C:\Program Files\x\server.exe`, `C:\x\y.bat`,
	)
	const pathList = `C:\bin;;relative\dir;C:\nodejs`

	t.Run("PATHEXT order", func(t *testing.T) {
		la, err := winLookup(fsys, pathList, ".COM;.EXE;.BAT;.CMD").resolve(&Spec{Command: "tool"})
		if err != nil || la.Path != `C:\bin\tool.exe` {
			t.Errorf("default PATHEXT: %+v, %v; want tool.exe", la, err)
		}
		_, err = winLookup(fsys, pathList, ".CMD;.EXE").resolve(&Spec{Command: "tool"})
		var be *BatchFileError
		if !errors.As(err, &be) || be.Path != `C:\bin\tool.cmd` || be.Arg != -1 {
			t.Errorf(".CMD first: err = %v, want tool.cmd refused as a batch file", err)
		}
		// An empty PATHEXT means the default.
		la, err = winLookup(fsys, pathList, "").resolve(&Spec{Command: "tool"})
		if err != nil || la.Path != `C:\bin\tool.exe` {
			t.Errorf("empty PATHEXT: %+v, %v", la, err)
		}
		// A name with its extension is taken as it is.
		la, err = winLookup(fsys, pathList, "").resolve(&Spec{Command: "tool.exe", Args: []string{"a b"}})
		if err != nil || la.Path != `C:\bin\tool.exe` || !reflect.DeepEqual(la.Args, []string{"tool.exe", "a b"}) || la.CmdLine != "" {
			t.Errorf("tool.exe: %+v, %v", la, err)
		}
	})
	t.Run("absolute", func(t *testing.T) {
		la, err := winLookup(fsys, "", "").resolve(&Spec{Command: `C:\Program Files\x\server`})
		if err != nil || la.Path != `C:\Program Files\x\server.exe` {
			t.Errorf("%+v, %v", la, err)
		}
	})
	t.Run("not found", func(t *testing.T) {
		_, err := winLookup(fsys, pathList, "").resolve(&Spec{Command: "uvx"})
		var nf *NotFoundError
		if !errors.As(err, &nf) || nf.Path != pathList {
			t.Errorf("err = %v, want *NotFoundError with the PATH", err)
		}
		// Not from the relative entry either.
		rel := newMemFS(`relative\dir\uvx.exe`)
		if _, err := winLookup(rel, pathList, "").resolve(&Spec{Command: "uvx"}); !errors.As(err, &nf) {
			t.Errorf("resolved from a relative PATH entry: %v", err)
		}
	})
	t.Run("npx runs as node.exe", func(t *testing.T) {
		for _, c := range []struct{ cmd, script string }{{"npx", "npx-cli.js"}, {"npm", "npm-cli.js"}, {"NPX.CMD", "npx-cli.js"}} {
			la, err := winLookup(fsys, pathList, "").resolve(&Spec{Command: c.cmd, Args: []string{"-y", "@scope/server", "a&b"}})
			if err != nil {
				t.Fatalf("%s: %v", c.cmd, err)
			}
			want := &Launch{Path: `C:\nodejs\node.exe`,
				Args:     []string{`C:\nodejs\node.exe`, `C:\nodejs\node_modules\npm\bin\` + c.script, "-y", "@scope/server", "a&b"},
				Resolved: `C:\nodejs\` + strings.ToLower(c.cmd[:3]) + ".cmd"}
			if c.cmd == "NPX.CMD" {
				want.Resolved = `C:\nodejs\NPX.CMD`
			}
			if !reflect.DeepEqual(la, want) {
				t.Errorf("%s:\n got %+v\nwant %+v", c.cmd, la, want)
			}
		}
		// npx.cmd with no node.exe beside it is a batch file like any other.
		_, err := winLookup(fsys, `C:\other`, "").resolve(&Spec{Command: "npx"})
		var be *BatchFileError
		if !errors.As(err, &be) || be.Path != `C:\other\npx.cmd` {
			t.Errorf("npx without node.exe: %v, want a BatchFileError", err)
		}
	})
	t.Run("batch refused by default", func(t *testing.T) {
		for _, cmd := range []string{"only", "only.bat", "script", `C:\x\y.bat`, `C:\x\y.bat.`, `C:\x\y.bat  `, `C:\x\Y.BAT`} {
			_, err := winLookup(fsys, pathList, "").resolve(&Spec{Name: "s", Command: cmd})
			var be *BatchFileError
			if !errors.As(err, &be) || be.Arg != -1 || !strings.Contains(err.Error(), "allowBatchFiles") ||
				!strings.Contains(err.Error(), "BatBadBut") {
				t.Errorf("%q: err = %v, want a BatchFileError naming allowBatchFiles", cmd, err)
			}
		}
	})
	t.Run("batch allowed: the cmd.exe command line", func(t *testing.T) {
		la, err := winLookup(fsys, "", "").resolve(&Spec{Command: `C:\x\y.bat`, Args: []string{"a", "b c"}, AllowBatchFiles: true})
		if err != nil {
			t.Fatal(err)
		}
		const want = `"C:\Windows\System32\cmd.exe" /d /v:off /s /c ""C:\x\y.bat" "a" "b c""`
		if la.CmdLine != want {
			t.Errorf("CmdLine =\n%s\nwant\n%s", la.CmdLine, want)
		}
		if la.Path != `C:\Windows\System32\cmd.exe` || la.Resolved != `C:\x\y.bat` {
			t.Errorf("Launch = %+v", la)
		}
		// A batch file found in PATH.
		la, err = winLookup(fsys, pathList, "").resolve(&Spec{Command: "only", AllowBatchFiles: true})
		if err != nil || la.CmdLine != `"C:\Windows\System32\cmd.exe" /d /v:off /s /c ""C:\bin\only.bat""` {
			t.Errorf("only: %+v, %v", la, err)
		}
	})
	t.Run("batch allowed: unsafe arguments refused", func(t *testing.T) {
		for _, ch := range []string{`"`, "%", "^", "&", "|", "<", ">", "\r", "\n", "\x00"} {
			args := []string{"fine", "x" + ch + "y"}
			_, err := winLookup(fsys, "", "").resolve(&Spec{Command: `C:\x\y.bat`, Args: args, AllowBatchFiles: true})
			var be *BatchFileError
			if !errors.As(err, &be) || be.Arg != 1 {
				t.Errorf("argument %q: err = %v, want a BatchFileError for args[1]", args[1], err)
			}
		}
		// The PoC seen under Wine.
		_, err := winLookup(fsys, "", "").resolve(&Spec{Command: `C:\x\y.bat`, Args: []string{`"&echo PWNED2`}, AllowBatchFiles: true})
		if err == nil {
			t.Error(`"&echo PWNED2 was allowed`)
		}
		// Characters that are safe inside the quotes pass.
		if _, err := winLookup(fsys, "", "").resolve(&Spec{Command: `C:\x\y.bat`, Args: []string{"a (b) !c", `C:\p q\`}, AllowBatchFiles: true}); err != nil {
			t.Errorf("safe arguments refused: %v", err)
		}
	})
}

func TestIsBatchFile(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"x.bat", true}, {"X.CMD", true}, {"x.Bat", true}, {"x.bat.", true}, {"x.bat  ", true},
		{"x.bat. . .", true}, {`C:\dir.exe\x.cmd`, true},
		{"x.exe", false}, {"x.batch", false}, {"bat", false}, {"x.bat.exe", false}, {"x.cmdx", false},
		{`C:\x.bat\y.exe`, false}, {"", false},
	} {
		if got := IsBatchFile(c.name); got != c.want {
			t.Errorf("IsBatchFile(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
