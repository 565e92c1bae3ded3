package api

import (
	"fmt"
	"net"

	"golang.org/x/sys/windows"
)

// pipeHandle returns the pipe's handle (go-winio's connections expose it).
func pipeHandle(nc net.Conn) (windows.Handle, error) {
	f, ok := nc.(interface{ Fd() uintptr })
	if !ok {
		return 0, fmt.Errorf("a %T has no handle", nc)
	}
	return windows.Handle(f.Fd()), nil
}

// checkPeer admits every peer: the pipe's security descriptor already let in
// only the current user. It reads the peer's pid; the uid is unknown (-1).
func checkPeer(nc net.Conn) (pid, uid int, err error) {
	h, err := pipeHandle(nc)
	if err != nil {
		return 0, -1, nil
	}
	var p uint32
	if windows.GetNamedPipeClientProcessId(h, &p) == nil {
		pid = int(p)
	}
	return pid, -1, nil
}

// checkHost is the client's check that the process that serves the pipe
// runs as the current user: a pipe's name is global, and another user could
// have created it first (pipe squatting).
func checkHost(nc net.Conn, socket string) error {
	h, err := pipeHandle(nc)
	if err != nil {
		return err
	}
	var pid uint32
	if err := windows.GetNamedPipeServerProcessId(h, &pid); err != nil {
		return fmt.Errorf("cannot find the process that serves pipe %s: %w", socket, err)
	}
	own, err := currentUserSID()
	if err != nil {
		return fmt.Errorf("cannot read the current user's SID: %w", err)
	}
	sid, err := processSID(pid)
	if err != nil {
		return fmt.Errorf("cannot verify the owner of the process (pid %d) that serves pipe %s, so it is not trusted: %w", pid, socket, err)
	}
	if sid != own {
		return fmt.Errorf("the process (pid %d) that serves pipe %s runs as %s, not as you (%s): it is not your Switchboard host; stop it, then start one with 'switchboard serve'", pid, socket, sid, own)
	}
	return nil
}

// processSID returns the user SID of a process's token.
func processSID(pid uint32) (string, error) {
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(p)
	var tok windows.Token
	if err := windows.OpenProcessToken(p, windows.TOKEN_QUERY, &tok); err != nil {
		return "", err
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return "", err
	}
	return u.User.Sid.String(), nil
}

// currentUserSID returns the SID of this process's user.
func currentUserSID() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", err
	}
	return u.User.Sid.String(), nil
}
