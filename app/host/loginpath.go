package host

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/engine"
)

// GUI apps and services do not see the login shell's PATH (npx from nvm or
// Homebrew then fails with ENOENT, the most reported MCP failure). The
// host asks the user's login shell once and uses the answer both to
// resolve commands and as the servers' PATH; an entry's own env.PATH wins.

const (
	pathStart = "__SWITCHBOARD_PATH_START__"
	pathEnd   = "__SWITCHBOARD_PATH_END__"
)

// LoginPath returns the PATH of the user's login shell, or the host's own
// PATH with the reason it could not ask (no shell, a timeout, no markers).
func LoginPath(ctx context.Context, timeout time.Duration) (string, error) {
	own := os.Getenv("PATH")
	if runtime.GOOS == "windows" {
		return own, nil
	}
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = accountShell(os.Getuid(), "/etc/passwd")
	}
	if sh == "" {
		return own, errors.New("no login shell: $SHELL is unset and the account database names none: set SHELL, or give servers' commands as absolute paths")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The markers keep whatever the shell's startup files print out of the
	// answer. -i is not used: an interactive shell may wait for a tty.
	script := fmt.Sprintf(`printf '\n%s\n%%s\n%s\n' "$PATH"`, pathStart, pathEnd)
	cmd := exec.CommandContext(ctx, sh, "-l", "-c", script)
	cmd.Stdin = nil
	cmd.Stderr = nil
	var buf bytes.Buffer
	cmd.Stdout = &buf
	// The shell runs in a process group of its own: on a timeout the
	// whole group is killed, with whatever its profile started (a forked
	// sleeper would otherwise outlive it, holding the pipe).
	ownGroup(cmd)
	cmd.WaitDelay = time.Second
	release, err := engine.StartChild(cmd)
	if err == nil {
		err = cmd.Wait()
		release()
		if ctx.Err() != nil {
			waitGroupGone(cmd.Process.Pid, time.Second)
		}
	}
	out := buf.Bytes()
	if p, ok := parseMarked(out); ok {
		return p, nil
	}
	if ctx.Err() != nil {
		return own, fmt.Errorf("the login shell %s did not answer within %v: something its login profile runs (~/.profile, ~/.bash_profile, ~/.zprofile or /etc/profile) is slow or waits for input; make it finish quickly, or give servers' commands as absolute paths", sh, timeout)
	}
	if err != nil {
		return own, fmt.Errorf("running the login shell %s: %w: check that $SHELL names a working shell, and what its login profile (~/.profile, ~/.bash_profile, ~/.zprofile) runs", sh, err)
	}
	return own, fmt.Errorf("the login shell %s printed no PATH: check that its login profile (~/.profile, ~/.bash_profile, ~/.zprofile) sets one", sh)
}

// parseMarked finds the PATH between the markers.
func parseMarked(out []byte) (string, bool) {
	i := bytes.Index(out, []byte(pathStart+"\n"))
	if i < 0 {
		return "", false
	}
	rest := out[i+len(pathStart)+1:]
	j := bytes.Index(rest, []byte("\n"+pathEnd))
	if j < 0 {
		return "", false
	}
	p := strings.TrimSpace(string(rest[:j]))
	return p, p != ""
}

// accountShell reads a user's shell from a passwd-format file.
func accountShell(uid int, passwd string) string {
	f, err := os.Open(passwd)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	want := strconv.Itoa(uid)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ":")
		if len(fields) >= 7 && fields[2] == want {
			return fields[6]
		}
	}
	return ""
}
