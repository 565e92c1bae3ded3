//go:build !windows

package api

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"time"
)

// errNotDarwin is darwinUserTempDir's answer outside macOS.
var errNotDarwin = errors.New("not macOS")

// lookupIdentity reads the user database: os/user (the C library's
// getpwuid_r, so NSS sources such as LDAP, when built with cgo; the
// files otherwise), /etc/passwd for the login shell, and `getent passwd`
// when neither knows the uid (a directory-service user in a build
// without cgo).
func lookupIdentity() (Identity, error) {
	id := Identity{UID: os.Getuid()}
	if u, err := user.LookupId(strconv.Itoa(id.UID)); err == nil {
		id.Name, id.Home = u.Username, u.HomeDir
	}
	if b, err := os.ReadFile("/etc/passwd"); err == nil {
		if name, home, shell, ok := parsePasswd(string(b), id.UID); ok {
			id.Shell = shell
			if id.Home == "" {
				id.Name, id.Home = name, home
			}
		}
	}
	// getent starts a process (and may wait on a directory service): only
	// for what is missing and needed, never on every start of a command
	// that has its SHELL.
	if id.Home == "" || id.Shell == "" && os.Getenv("SHELL") == "" {
		if name, home, shell, ok := getent(id.UID); ok {
			if id.Home == "" {
				id.Name, id.Home = name, home
			}
			if id.Shell == "" {
				id.Shell = shell
			}
		}
	}
	tmp, terr := darwinUserTempDir()
	id.TempDir = tmp
	if id.Home == "" || !IsAbsFor("linux", id.Home) {
		id.Home = ""
		return id, fmt.Errorf("the user database has no home directory for uid %d: set %s to a private directory", id.UID, RuntimeDirEnv)
	}
	if terr != nil && !errors.Is(terr, errNotDarwin) {
		return id, terr
	}
	return id, nil
}

// getent asks the system's name service for uid's passwd entry.
func getent(uid int) (name, home, shell string, ok bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "getent", "passwd", strconv.Itoa(uid)).Output()
	if err != nil {
		return "", "", "", false
	}
	return parsePasswd(string(out), uid)
}
