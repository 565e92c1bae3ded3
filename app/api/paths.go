package api

import (
	"fmt"
	"os"
	"path"
	"runtime"
	"strconv"
	"strings"
)

// RuntimeDirEnv overrides the runtime directory (tests use it).
const RuntimeDirEnv = "SWITCHBOARD_RUNTIME_DIR"

// File names inside the runtime directory.
const (
	SocketName = "host.sock" // the host's Unix socket
	LockName   = "host.lock" // the single-instance lock
	PIDName    = "host.pid"  // the lock holder's pid and socket
)

// maxSocketPath is the longest socket path (in bytes, without the NUL) that
// the OS takes: sun_path holds 104 bytes on macOS and the BSDs, 108 on Linux,
// both counting the terminating NUL.
func maxSocketPath(goos string) int {
	if goos == "linux" || goos == "android" {
		return 107
	}
	return 103
}

// RuntimeDir returns the per-user directory that holds the host's lock, pid
// file, process registry and (on Linux and macOS) socket: the rendezvous
// of every process of one user. It is computed only from its arguments,
// so that every OS's answer can be tested anywhere: getenv is consulted
// for $SWITCHBOARD_RUNTIME_DIR alone, goos is a runtime.GOOS value, and id
// is the user as the OS's user database knows them ([CurrentIdentity]).
//
// In order: $SWITCHBOARD_RUNTIME_DIR (an explicit override; a relative
// path is an error); on Windows the known folder LocalAppData\switchboard;
// on macOS the per-user temporary directory (confstr's
// _CS_DARWIN_USER_TEMP_DIR, what $TMPDIR names in a session)/switchboard,
// else ~/Library/Caches/switchboard; on Linux and the other Unixes
// ~/.cache/switchboard, with ~ the home directory in the user database.
//
// Nothing else in the environment counts ($XDG_RUNTIME_DIR, $TMPDIR,
// $HOME, $LOCALAPPDATA): an AI app may start the bridge without them, and
// a bridge that computed another directory would not find the running
// host and would start a second one. $XDG_RUNTIME_DIR is not used even
// when set: it is removed at logout while a host may run on, and Flatpak
// gives each app one of its own, so it cannot be relied on to agree.
func RuntimeDir(getenv func(string) string, goos string, id Identity) (string, error) {
	if d := getenv(RuntimeDirEnv); d != "" {
		if !IsAbsFor(goos, d) {
			return "", fmt.Errorf("%s is %q, not an absolute path: set it to an absolute directory or unset it", RuntimeDirEnv, d)
		}
		return CleanFor(goos, d), nil
	}
	switch goos {
	case "windows":
		if IsAbsFor(goos, id.LocalAppData) {
			return JoinFor(goos, id.LocalAppData, "switchboard"), nil
		}
		return "", fmt.Errorf("the user's local application data folder is unknown: set %s to a private directory", RuntimeDirEnv)
	case "darwin", "ios":
		if IsAbsFor(goos, id.TempDir) {
			return JoinFor(goos, id.TempDir, "switchboard"), nil
		}
		if IsAbsFor(goos, id.Home) {
			return JoinFor(goos, id.Home, "Library/Caches/switchboard"), nil
		}
	default:
		if IsAbsFor(goos, id.Home) {
			return JoinFor(goos, id.Home, ".cache/switchboard"), nil
		}
	}
	return "", fmt.Errorf("the user database has no home directory for uid %d: set %s to a private directory", id.UID, RuntimeDirEnv)
}

// SocketPath returns the address of the host's endpoint, computed only
// from its arguments like [RuntimeDir].
//
// On Windows it is the named pipe \\.\pipe\switchboard-<SID>. Elsewhere it
// is host.sock in the [RuntimeDir], unless that path is too long for the
// OS's socket addresses (103 bytes on macOS, 107 on Linux); then it is
// /tmp/switchboard-<uid>/host.sock, whose directory [Listen] checks like any
// other (it must be the user's own and private).
func SocketPath(getenv func(string) string, goos string, id Identity) (string, error) {
	if goos == "windows" {
		if id.SID == "" {
			return "", fmt.Errorf("the current user's SID is unknown, so the host's pipe has no name: run Switchboard as a normal user")
		}
		// A pipe name may hold any character but a backslash.
		return `\\.\pipe\switchboard-` + strings.ReplaceAll(id.SID, `\`, "-"), nil
	}
	dir, err := RuntimeDir(getenv, goos, id)
	if err != nil {
		return "", err
	}
	p := JoinFor(goos, dir, SocketName)
	if len(p) <= maxSocketPath(goos) {
		return p, nil
	}
	short := path.Join("/tmp", "switchboard-"+strconv.Itoa(id.UID), SocketName)
	if len(short) > maxSocketPath(goos) { // cannot happen for a real uid
		return "", fmt.Errorf("socket path %s is longer than %d bytes: set %s to a shorter directory", p, maxSocketPath(goos), RuntimeDirEnv)
	}
	return short, nil
}

// DefaultRuntimeDir is [RuntimeDir] for this process.
func DefaultRuntimeDir() (string, error) {
	id, _ := CurrentIdentity() // RuntimeDir names what is missing
	return RuntimeDir(os.Getenv, runtime.GOOS, id)
}

// DefaultSocketPath is [SocketPath] for this process.
func DefaultSocketPath() (string, error) {
	id, _ := CurrentIdentity()
	return SocketPath(os.Getenv, runtime.GOOS, id)
}

// IsAbsFor, CleanFor and JoinFor treat p as a path of goos, whatever OS
// runs them (app/service computes its paths with them too).
func IsAbsFor(goos, p string) bool {
	if goos != "windows" {
		return strings.HasPrefix(p, "/")
	}
	if strings.HasPrefix(p, `\\`) || strings.HasPrefix(p, "//") {
		return len(p) > 2 // UNC
	}
	return len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func CleanFor(goos, p string) string {
	if goos != "windows" {
		return path.Clean(p)
	}
	p = strings.ReplaceAll(p, "/", `\`)
	if len(p) > 3 {
		p = strings.TrimRight(p, `\`)
	}
	return p
}

func JoinFor(goos, dir, name string) string {
	if goos != "windows" {
		return path.Join(dir, name)
	}
	return strings.TrimRight(CleanFor(goos, dir), `\`) + `\` + strings.ReplaceAll(name, "/", `\`)
}
