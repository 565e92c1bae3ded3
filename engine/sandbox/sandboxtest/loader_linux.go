//go:build linux

package sandboxtest

import (
	"bytes"
	"context"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// preloadSource is the hostile library: its constructor (LD_PRELOAD) or
// its la_version (LD_AUDIT) appends a line to OUTSIDE, a file no sandbox
// grants, and to INSIDE, a file in the entry's write list; once per
// program image it is loaded into.
const preloadSource = `#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int done;

static void mark(const char *path) {
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) return;
	const char *line = "loaded\n";
	ssize_t n = write(fd, line, strlen(line));
	(void)n;
	close(fd);
}

static void run(void) {
	if (done) return;
	done = 1;
	mark(OUTSIDE);
	mark(INSIDE);
}

__attribute__((constructor)) static void preload(void) { run(); }

unsigned int la_version(unsigned int v) { run(); return v; }
`

// LoaderVariables is the loader's variables' part of the suite, through
// shim (a dynamically linked program implementing __sandbox-exec, as the
// switchboard binary is): a sandboxed entry whose env sets LD_PRELOAD (or
// LD_AUDIT) to a library that writes outside the sandbox, started by
// engine.Start. The library must never run before the shim confines
// itself: the file outside is not created. The server, confined, still
// gets the variable and its library (docs/sandbox.md "The loader's
// variables"): it sees the value, and the library ran exactly once, in it.
// Unconfined first, the library must write outside (the probe works).
func LoaderVariables(t *testing.T, shim string) {
	s := sandbox.Probe()
	if s.ABI < 6 || s.NetNone == "" {
		testkit.SkipOrFail(t, "the sandbox suite needs Landlock ABI 6 and seccomp; this kernel: %s", s)
		return
	}
	if !dynamic(t, shim) {
		testkit.SkipOrFail(t, "the shim %s is statically linked: no loader runs in it, so this test would prove nothing (build the tests with cgo)", shim)
		return
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		testkit.SkipOrFail(t, "no C compiler to build the preload library: %v (scripts/deps.sh installs gcc)", err)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"LD_PRELOAD", "LD_AUDIT"} {
		t.Run(v, func(t *testing.T) {
			outside := filepath.Join(t.TempDir(), "planted")
			libDir, work, home := t.TempDir(), t.TempDir(), t.TempDir()
			inside := filepath.Join(work, "loaded")
			src := filepath.Join(libDir, "preload.c")
			lib := filepath.Join(libDir, "preload.so")
			if err := os.WriteFile(src, []byte(preloadSource), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, src,
				"-DOUTSIDE="+strconv.Quote(outside), "-DINSIDE="+strconv.Quote(inside)).CombinedOutput(); err != nil {
				t.Fatalf("building the preload library: %v\n%s", err, out)
			}
			pol := sandbox.Policy{Enabled: true, Preset: "files", Read: []string{libDir}, Write: []string{work}, Net: sandbox.NetNone, Required: true}
			run := func(t *testing.T, pol sandbox.Policy) string {
				t.Helper()
				errLog := filepath.Join(t.TempDir(), "stderr")
				spec := engine.Spec{Name: "loader", Command: exe, Args: []string{"env-is", v + "=" + lib},
					Env:    map[string]engine.EnvValue{RoleEnv: engine.Literal("probe"), "HOME": engine.Literal(home), v: engine.Literal(lib)},
					Stderr: engine.Stderr{Kind: engine.StderrFile, Path: errLog}, StdinGrace: time.Second, TermGrace: time.Second, Sandbox: pol}
				p, err := engine.Start(context.Background(), spec, engine.StartOptions{Shim: shim, SandboxTemp: t.TempDir()})
				if err != nil {
					t.Fatalf("start: %v", err)
				}
				out, _ := io.ReadAll(p.Stdout())
				<-p.Stop()
				if st := p.ExitStatus(); !st.Exited || st.Code != 0 {
					e, _ := os.ReadFile(errLog)
					t.Errorf("the server ended with %s; stderr:\n%s", st, e)
				}
				return strings.TrimSpace(string(out))
			}
			// Unconfined, the library writes outside: the probe works.
			if got := run(t, sandbox.Policy{}); got != "ok" {
				t.Errorf("unconfined: the server = %q, want ok (it sees %s)", got, v)
			}
			if _, err := os.Stat(outside); err != nil {
				t.Fatalf("unconfined, the library did not write outside (%v): the probe is broken, its absence below would prove nothing", err)
			}
			os.Remove(outside)
			os.Remove(inside)

			got := run(t, pol)
			if _, err := os.Stat(outside); err == nil {
				t.Errorf("%s ran the entry's library outside the sandbox: it wrote %s (the shim honoured it before confining itself)", v, outside)
			}
			if got != "ok" {
				t.Errorf("confined: the server = %q, want ok: it must still get %s", got, v)
			}
			b, err := os.ReadFile(inside)
			if n := bytes.Count(b, []byte("\n")); err != nil || n != 1 {
				t.Errorf("confined: the library ran %d times in the granted folder (%v), want once: in the server, after confinement", n, err)
			}
		})
	}
}

// dynamic reports whether the program at path has a dynamic loader
// (PT_INTERP).
func dynamic(t *testing.T, path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		t.Fatalf("reading %s: %v", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return true
		}
	}
	return false
}
