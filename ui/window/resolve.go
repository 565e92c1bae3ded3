package window

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"github.com/switchboard-mcp/switchboard/ui/phrase"
)

// commandHint says where a command resolves, for the form: for a saved
// entry whose command is unchanged, the host's own verdict
// (ServerStatus.Resolved, or its install issue in words, else its
// ResolveError); otherwise [lookPath]'s guess.
// warn is true when the command does not resolve.
func commandHint(cmd, pathList string, st *hostapi.ServerStatus) (text string, warn bool) {
	if cmd == "" {
		return "", false
	}
	if st != nil && cmd == st.Command {
		if st.Resolved != "" {
			return "Runs " + st.Resolved, false
		}
		if st.ResolveError != "" {
			// The host's problem as data, in the Overview's words; its
			// raw message (with the PATH spelled out) only from a host
			// that sends no such issue.
			for _, p := range st.Issues {
				if p.Remedy != nil && p.Remedy.Kind == hostapi.RemedyInstall {
					return phrase.Beside(p), true
				}
			}
			return termtext.Escape(st.ResolveError), true
		}
	}
	if strings.IndexFunc(cmd, unicode.IsSpace) >= 0 && !executable(cmd) {
		return "", false // Save shows the config's words for it
	}
	p, err := lookPath(cmd, pathList)
	if err != nil {
		return err.Error(), true
	}
	if p == cmd {
		return "Found", false
	}
	return "Found " + p, false
}

// lookPath finds a command the way the host will, as a hint for the form
// only (the window does not import the engine, which resolves commands):
// an absolute path must be an executable file; a bare name is looked for
// in the PATH that the host gives servers (hostapi.Info.Path, its login
// shell's), or in this process's PATH when the host did not say; on
// Windows, with PATHEXT's extensions too. The host resolves the command
// again at every start, and its verdict replaces this hint once the entry
// is saved.
func lookPath(cmd, pathList string) (string, error) {
	if filepath.IsAbs(cmd) {
		for _, c := range candidates(cmd) {
			if executable(c) {
				return c, nil
			}
		}
		return "", fmt.Errorf("%q is not an executable file: check the path", cmd)
	}
	if strings.ContainsAny(cmd, `/\`) {
		return "", fmt.Errorf("%q is a relative path: give an absolute path, or a bare name to look up in PATH", cmd)
	}
	where := "the PATH the host gives servers"
	if pathList == "" {
		pathList, where = os.Getenv("PATH"), "this app's PATH"
	}
	for _, dir := range filepath.SplitList(pathList) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		for _, c := range candidates(filepath.Join(dir, cmd)) {
			if executable(c) {
				return c, nil
			}
		}
	}
	return "", fmt.Errorf("%q was not found in %s: install it, or give its absolute path", cmd, where)
}

// candidates are the files a command path may name: itself, and on
// Windows itself with each of PATHEXT's extensions.
func candidates(p string) []string {
	if runtime.GOOS != "windows" || filepath.Ext(p) != "" {
		return []string{p}
	}
	exts := os.Getenv("PATHEXT")
	if exts == "" {
		exts = ".COM;.EXE;.BAT;.CMD"
	}
	var out []string
	for _, e := range filepath.SplitList(exts) {
		if e != "" {
			out = append(out, p+strings.ToLower(e))
		}
	}
	return out
}

func executable(p string) bool {
	fi, err := os.Stat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return runtime.GOOS == "windows" || fi.Mode()&0o111 != 0
}
