//go:build windows

package api

import (
	"fmt"
	"os/user"

	"golang.org/x/sys/windows"
)

// lookupIdentity reads the process token's user (SID), and the known
// folders through SHGetKnownFolderPath rather than %LOCALAPPDATA% and
// %USERPROFILE%, which an AI app may not pass on.
func lookupIdentity() (Identity, error) {
	var id Identity
	sid, err := currentUserSID()
	if err != nil {
		return id, fmt.Errorf("cannot read the current user's SID: %w", err)
	}
	id.SID = sid
	if u, err := user.Current(); err == nil {
		id.Name = u.Username
		id.Home = u.HomeDir
	}
	if p, err := windows.KnownFolderPath(windows.FOLDERID_Profile, 0); err == nil && p != "" {
		id.Home = p
	}
	if p, err := windows.KnownFolderPath(windows.FOLDERID_LocalAppData, 0); err == nil && p != "" {
		id.LocalAppData = p
	} else if id.Home != "" {
		id.LocalAppData = JoinFor("windows", id.Home, `AppData\Local`)
	}
	if id.LocalAppData == "" {
		//lint:ignore ST1005 the sentence begins with the OS's name, a proper noun
		return id, fmt.Errorf("Windows knows no local application data folder for this user: set %s to a private directory", RuntimeDirEnv)
	}
	return id, nil
}
