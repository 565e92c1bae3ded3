package api

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Identity is who the user is, read from the OS's user database rather
// than from the environment: an AI app starts `switchboard bridge` with
// whatever environment it likes (the MCP SDKs pass only HOME LOGNAME PATH
// SHELL TERM USER; some apps pass nothing), and every process of one user
// must still meet at one host. The rendezvous ([RuntimeDir],
// [SocketPath]) is computed from an Identity and from nothing else but the
// explicit $SWITCHBOARD_RUNTIME_DIR.
type Identity struct {
	UID   int    // the real user id (Unix)
	Name  string // the login name
	Home  string // the home directory in the user database (not $HOME)
	Shell string // the login shell in the user database (Unix)
	// TempDir is macOS's per-user temporary directory,
	// confstr(_CS_DARWIN_USER_TEMP_DIR): the one $TMPDIR normally names,
	// whatever $TMPDIR says.
	TempDir string
	// SID is the user's security identifier (Windows).
	SID string
	// LocalAppData is the known folder FOLDERID_LocalAppData (Windows),
	// whatever %LOCALAPPDATA% says.
	LocalAppData string
}

var (
	identityOnce sync.Once
	identity     Identity
	identityErr  error
)

// CurrentIdentity returns this process's user's [Identity], read once.
// Fields the user database cannot give are empty; the error says why the
// most important one (the home directory, or the SID on Windows) is
// missing, and the Identity is still usable for what it holds.
func CurrentIdentity() (Identity, error) {
	identityOnce.Do(func() { identity, identityErr = lookupIdentity() })
	return identity, identityErr
}

// UserEnvVars are the variables every process of ours, and every server
// it starts, is given from the user database when its environment lacks
// them: programs (and os.UserConfigDir, os.UserCacheDir) need them, and
// an AI app may start the bridge, and so an on-demand host, without them.
var UserEnvVars = []string{"HOME", "USER", "LOGNAME", "SHELL"}

// filledUserEnv is what FillUserEnv set in this process or its parent.
var filledUserEnv []string

// FilledUserEnvVar carries the names [FillUserEnv] set to the processes
// started from this one (a bridge's on-demand host), comma-separated, so
// that the host can say what the environment it was started with lacked.
const FilledUserEnvVar = "SWITCHBOARD_USER_ENV_FILLED"

// FilledUserEnv returns the names [FillUserEnv] set in this process, or
// in the process of ours that started it.
func FilledUserEnv() []string { return append([]string(nil), filledUserEnv...) }

// FillUserEnv sets HOME, USER, LOGNAME and SHELL (Unix; USERPROFILE,
// USERNAME and LOCALAPPDATA on Windows) in this process's environment from
// id where they are unset or empty (HOME also where it is not an absolute
// path), and returns the names it set. Values that are set are kept:
// the user may have reasons. Call it first thing in a process.
func FillUserEnv(id Identity, goos string) []string {
	var set []string
	if v := os.Getenv(FilledUserEnvVar); v != "" && filledUserEnv == nil {
		filledUserEnv = strings.Split(v, ",")
	}
	put := func(k, v string) {
		if v == "" {
			return
		}
		cur := os.Getenv(k)
		if cur != "" && (k != "HOME" || IsAbsFor(goos, cur)) {
			return
		}
		if os.Setenv(k, v) == nil {
			set = append(set, k)
			if !slices.Contains(filledUserEnv, k) {
				filledUserEnv = append(filledUserEnv, k)
			}
		}
	}
	defer func() {
		if len(filledUserEnv) > 0 {
			os.Setenv(FilledUserEnvVar, strings.Join(filledUserEnv, ","))
		}
	}()
	if goos == "windows" {
		put("USERPROFILE", id.Home)
		put("USERNAME", id.Name)
		put("LOCALAPPDATA", id.LocalAppData)
		return set
	}
	put("HOME", id.Home)
	put("USER", id.Name)
	put("LOGNAME", id.Name)
	put("SHELL", id.Shell)
	return set
}

// parsePasswd finds uid's line in an /etc/passwd-format text (also what
// `getent passwd UID` prints) and returns its name, home and shell.
func parsePasswd(text string, uid int) (name, home, shell string, ok bool) {
	want := strconv.Itoa(uid)
	for _, line := range strings.Split(text, "\n") {
		f := strings.SplitN(strings.TrimSuffix(line, "\r"), ":", 7)
		if len(f) == 7 && f[2] == want {
			return f[0], f[5], f[6], true
		}
	}
	return "", "", "", false
}
