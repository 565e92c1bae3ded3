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
// file and (on Linux and macOS) socket, computed only from its arguments so
// that every OS's answer can be tested anywhere: getenv reads the
// environment and goos is a runtime.GOOS value.
//
// In order: $SWITCHBOARD_RUNTIME_DIR; $XDG_RUNTIME_DIR/switchboard (not on
// Windows); then the OS's per-user directory: $XDG_CACHE_HOME/switchboard or
// ~/.cache/switchboard on Linux and the other Unixes, $TMPDIR/switchboard or
// ~/Library/Caches/switchboard on macOS, %LOCALAPPDATA%\switchboard on
// Windows. Relative paths in the environment are ignored, as the XDG
// specification asks; a relative $SWITCHBOARD_RUNTIME_DIR is an error.
func RuntimeDir(getenv func(string) string, goos string) (string, error) {
	if d := getenv(RuntimeDirEnv); d != "" {
		if !IsAbsFor(goos, d) {
			return "", fmt.Errorf("%s is %q, not an absolute path: set it to an absolute directory or unset it", RuntimeDirEnv, d)
		}
		return CleanFor(goos, d), nil
	}
	if goos == "windows" {
		if d := getenv("LOCALAPPDATA"); IsAbsFor(goos, d) {
			return JoinFor(goos, d, "switchboard"), nil
		}
		if d := getenv("USERPROFILE"); IsAbsFor(goos, d) {
			return JoinFor(goos, d, `AppData\Local\switchboard`), nil
		}
		return "", fmt.Errorf("neither LOCALAPPDATA nor USERPROFILE is set to an absolute path: set LOCALAPPDATA, or %s to a private directory", RuntimeDirEnv)
	}
	if d := getenv("XDG_RUNTIME_DIR"); IsAbsFor(goos, d) {
		return JoinFor(goos, d, "switchboard"), nil
	}
	home := getenv("HOME")
	if goos == "darwin" || goos == "ios" {
		// macOS gives every user a private $TMPDIR (/var/folders/…/T/).
		if d := getenv("TMPDIR"); IsAbsFor(goos, d) {
			return JoinFor(goos, d, "switchboard"), nil
		}
		if IsAbsFor(goos, home) {
			return JoinFor(goos, home, "Library/Caches/switchboard"), nil
		}
	} else {
		if d := getenv("XDG_CACHE_HOME"); IsAbsFor(goos, d) {
			return JoinFor(goos, d, "switchboard"), nil
		}
		if IsAbsFor(goos, home) {
			return JoinFor(goos, home, ".cache/switchboard"), nil
		}
	}
	return "", fmt.Errorf("neither XDG_RUNTIME_DIR nor HOME is set to an absolute path: set XDG_RUNTIME_DIR, or %s to a private directory", RuntimeDirEnv)
}

// SocketPath returns the address of the host's endpoint, computed only from
// its arguments like [RuntimeDir]; uid is the user's id (unused on Windows)
// and user the user's SID on Windows (unused elsewhere).
//
// On Windows it is the named pipe \\.\pipe\switchboard-<user>. Elsewhere it
// is host.sock in the [RuntimeDir], unless that path is too long for the
// OS's socket addresses (103 bytes on macOS, 107 on Linux); then it is
// /tmp/switchboard-<uid>/host.sock, whose directory [Listen] checks like any
// other (it must be the user's own and private).
func SocketPath(getenv func(string) string, goos string, uid int, user string) (string, error) {
	if goos == "windows" {
		if user == "" {
			return "", fmt.Errorf("the current user's SID is unknown, so the host's pipe has no name: run Switchboard as a normal user")
		}
		// A pipe name may hold any character but a backslash.
		return `\\.\pipe\switchboard-` + strings.ReplaceAll(user, `\`, "-"), nil
	}
	dir, err := RuntimeDir(getenv, goos)
	if err != nil {
		return "", err
	}
	p := JoinFor(goos, dir, SocketName)
	if len(p) <= maxSocketPath(goos) {
		return p, nil
	}
	short := path.Join("/tmp", "switchboard-"+strconv.Itoa(uid), SocketName)
	if len(short) > maxSocketPath(goos) { // cannot happen for a real uid
		return "", fmt.Errorf("socket path %s is longer than %d bytes: set %s to a shorter directory", p, maxSocketPath(goos), RuntimeDirEnv)
	}
	return short, nil
}

// DefaultRuntimeDir is [RuntimeDir] for this process.
func DefaultRuntimeDir() (string, error) {
	return RuntimeDir(os.Getenv, runtime.GOOS)
}

// DefaultSocketPath is [SocketPath] for this process.
func DefaultSocketPath() (string, error) {
	user := ""
	if runtime.GOOS == "windows" {
		sid, err := currentUserSID()
		if err != nil {
			return "", fmt.Errorf("cannot read the current user's SID: %w", err)
		}
		user = sid
	}
	return SocketPath(os.Getenv, runtime.GOOS, os.Getuid(), user)
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
