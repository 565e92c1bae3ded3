package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Launch is what a spawn runs: the resolved executable and the argv given
// to it. It is computed afresh on every connection attempt.
type Launch struct {
	// Path is the file the OS executes.
	Path string
	// Args is the full argv, Args[0] included.
	Args []string
	// CmdLine, on Windows, is the exact command line to pass (used when a
	// batch file runs through cmd.exe); empty means the usual quoting.
	CmdLine string
	// Resolved is the file the command named, as found in PATH; it differs
	// from Path when a batch file runs through cmd.exe or npx.cmd through
	// node.exe.
	Resolved string
}

// BatchFileError means a Windows batch file was refused (BatBadBut,
// CVE-2024-24576): cmd.exe re-parses the arguments of a .bat or .cmd file,
// so an argument can run commands of its own.
type BatchFileError struct {
	Server string
	Path   string
	Arg    int // the refused argument's index, or -1 when the file itself is refused
	Msg    string
}

func (e *BatchFileError) Error() string { return fmt.Sprintf("server %q: %s", e.Server, e.Msg) }

// NotFoundError means the command could not be resolved to an executable.
type NotFoundError struct {
	Server  string
	Command string
	Path    string // the PATH searched, for a bare name
	Err     error  // for an absolute path, why it cannot run
}

func (e *NotFoundError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("server %q: command %q cannot be run (%v): check the path, or install the program", e.Server, e.Command, e.Err)
	}
	return fmt.Sprintf("server %q: command %q was not found in PATH (%s): install it, or set command to its absolute path", e.Server, e.Command, e.Path)
}

// lookup is the part of the OS that resolution reads; tests replace it to
// resolve Windows paths on any OS.
type lookup struct {
	goos       string
	path       string // the PATH list
	pathExt    string // Windows: PATHEXT
	systemRoot string // Windows: SystemRoot
	systemDir  string // Windows: the system directory, if known
	stat       func(string) (fs.FileInfo, error)
	sep        string // the PATH list separator
	join       func(...string) string
}

func hostLookup(goos, path string, env []string) lookup {
	l := lookup{goos: goos, path: path, stat: os.Stat, sep: string(os.PathListSeparator), join: filepath.Join}
	if goos == "windows" {
		l.pathExt, _ = lookupEnv(env, "PATHEXT", goos)
		// cmd.exe comes from the system directory as Windows reports it,
		// not from a variable that the environment could change.
		if dir := systemDirectory(); dir != "" {
			l.systemDir = dir
		} else {
			l.systemRoot, _ = lookupEnv(env, "SYSTEMROOT", goos)
		}
	}
	return l
}

// Resolve finds the executable of spec in the PATH list path (the host's
// PATH if empty) and applies the batch-file guard, for this OS.
func Resolve(spec *Spec, path string) (*Launch, error) {
	if path == "" {
		path = os.Getenv("PATH")
	}
	if v, ok := envPath(spec.Env); ok {
		path = v
	}
	return hostLookup(goosName, path, os.Environ()).resolve(spec)
}

func (l lookup) isAbs(p string) bool {
	if l.goos == "windows" {
		return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') || strings.HasPrefix(p, `\\`)
	}
	return strings.HasPrefix(p, "/")
}

func (l lookup) resolve(spec *Spec) (*Launch, error) {
	var exe string
	if l.isAbs(spec.Command) {
		p, err := l.executable(spec.Command, true)
		if err != nil {
			return nil, &NotFoundError{Server: spec.Name, Command: spec.Command, Err: err}
		}
		exe = p
	} else {
		for _, dir := range strings.Split(l.path, l.sep) {
			if dir == "" || !l.isAbs(dir) {
				continue // never run from the current directory
			}
			if p, err := l.executable(l.join(dir, spec.Command), false); err == nil {
				exe = p
				break
			}
		}
		if exe == "" {
			return nil, &NotFoundError{Server: spec.Name, Command: spec.Command, Path: l.path}
		}
	}
	if l.goos != "windows" {
		return &Launch{Path: exe, Args: append([]string{spec.Command}, spec.Args...), Resolved: exe}, nil
	}
	if la := l.npmShim(exe, spec.Args); la != nil {
		return la, nil
	}
	if !IsBatchFile(exe) {
		return &Launch{Path: exe, Args: append([]string{spec.Command}, spec.Args...), Resolved: exe}, nil
	}
	return l.batch(spec, exe)
}

// executable checks that p (or, on Windows, p with an extension of PATHEXT)
// is a runnable file and returns its path.
func (l lookup) executable(p string, explicit bool) (string, error) {
	check := func(c string) error {
		fi, err := l.stat(c)
		if err != nil {
			return err
		}
		if fi.IsDir() {
			return errors.New("it is a directory")
		}
		if l.goos != "windows" && fi.Mode()&0o111 == 0 {
			return errors.New("it is not executable (chmod +x)")
		}
		return nil
	}
	if l.goos != "windows" {
		if err := check(p); err != nil {
			return "", err
		}
		return p, nil
	}
	exts := l.pathExts()
	ext := strings.ToLower(filepath.Ext(strings.TrimRight(p, ". ")))
	for _, e := range exts {
		if ext == e {
			if err := check(p); err == nil {
				return p, nil
			}
		}
	}
	var firstErr error
	for _, e := range exts {
		if err := check(p + e); err == nil {
			return p + e, nil
		} else if firstErr == nil {
			firstErr = err
		}
	}
	if explicit {
		if err := check(p); err == nil {
			return p, nil
		}
	}
	if firstErr == nil {
		firstErr = fs.ErrNotExist
	}
	return "", firstErr
}

func (l lookup) pathExts() []string {
	pe := l.pathExt
	if pe == "" {
		pe = ".COM;.EXE;.BAT;.CMD"
	}
	var exts []string
	for _, e := range strings.Split(strings.ToLower(pe), ";") {
		if e == "" {
			continue
		}
		if e[0] != '.' {
			e = "." + e
		}
		// CreateProcess runs only these; .js, .vbs or .msc in PATHEXT
		// belong to the shell and would fail with an unclear error.
		switch e {
		case ".com", ".exe", ".bat", ".cmd":
			exts = append(exts, e)
		}
	}
	return exts
}

// IsBatchFile reports whether Windows would run p through cmd.exe: its name
// ends in .bat or .cmd once the trailing dots and spaces that Windows ignores
// are trimmed (the bypasses CVE-2024-43402 and CVE-2024-36138).
func IsBatchFile(p string) bool {
	p = strings.ToLower(strings.TrimRight(p, ". "))
	return strings.HasSuffix(p, ".bat") || strings.HasSuffix(p, ".cmd")
}

// batchUnsafe are the characters refused in a batch file's arguments even
// when batch files are allowed: cmd.exe treats them as syntax, and CR, LF or
// NUL end the statement.
const batchUnsafe = "\"%^&|<>\r\n\x00"

func (l lookup) batch(spec *Spec, exe string) (*Launch, error) {
	if !spec.AllowBatchFiles {
		return nil, &BatchFileError{Server: spec.Name, Path: exe, Arg: -1, Msg: fmt.Sprintf(
			"command %q resolves to the batch file %q, which Windows runs through cmd.exe; cmd.exe re-parses its arguments, "+
				"so an argument can run other commands (BatBadBut, CVE-2024-24576). Point command at the program itself (an .exe), "+
				"or set allowBatchFiles to true if you trust every argument", spec.Command, exe)}
	}
	if strings.ContainsAny(exe, "\"%!\r\n\x00") {
		return nil, &BatchFileError{Server: spec.Name, Path: exe, Arg: -1, Msg: fmt.Sprintf(
			"the batch file's path %q contains a character cmd.exe would expand (\" %% !): move it to a plain path", exe)}
	}
	for i, a := range spec.Args {
		if strings.ContainsAny(a, batchUnsafe) {
			return nil, &BatchFileError{Server: spec.Name, Path: exe, Arg: i, Msg: fmt.Sprintf(
				"args[%d] %q contains one of \" %% ^ & | < > or a line break, which cmd.exe would interpret even though "+
					"allowBatchFiles is true (BatBadBut): remove the character, or run the program directly instead of the batch file", i, a)}
		}
	}
	var cmdExe string
	switch {
	case l.systemDir != "":
		cmdExe = l.join(l.systemDir, "cmd.exe")
	case l.systemRoot != "":
		cmdExe = l.join(l.systemRoot, "System32", "cmd.exe")
	default:
		cmdExe = `C:\Windows\System32\cmd.exe`
	}
	// /d: no AutoRun commands; /v:off: no delayed (!VAR!) expansion; /s /c:
	// strip exactly the outer quotes and run the rest. Every argument is
	// quoted, and none contains a quote or %.
	var b strings.Builder
	b.WriteString(`"` + cmdExe + `" /d /v:off /s /c ""` + exe + `"`)
	for _, a := range spec.Args {
		b.WriteString(` "` + a + `"`)
	}
	b.WriteString(`"`)
	args := append([]string{cmdExe, "/d", "/v:off", "/s", "/c", exe}, spec.Args...)
	return &Launch{Path: cmdExe, Args: args, CmdLine: b.String(), Resolved: exe}, nil
}

// npmShim runs npm's own npx.cmd or npm.cmd as node.exe with npm's CLI
// script, so the most common launcher needs no batch file and no cmd.exe.
func (l lookup) npmShim(exe string, args []string) *Launch {
	base := strings.ToLower(strings.TrimRight(baseName(exe), ". "))
	var script string
	switch base {
	case "npx.cmd":
		script = "npx-cli.js"
	case "npm.cmd":
		script = "npm-cli.js"
	default:
		return nil
	}
	dir := dirName(exe)
	cli := l.join(dir, "node_modules", "npm", "bin", script)
	if fi, err := l.stat(cli); err != nil || fi.IsDir() {
		return nil
	}
	node := l.join(dir, "node.exe")
	if fi, err := l.stat(node); err != nil || fi.IsDir() {
		return nil
	}
	return &Launch{Path: node, Args: append([]string{node, cli}, args...), Resolved: exe}
}

// baseName and dirName split on both separators, so Windows paths split
// the same way on every OS.
func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

func dirName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[:i]
	}
	return "."
}
