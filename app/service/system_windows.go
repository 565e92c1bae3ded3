//go:build windows

package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/kardianos/service"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"golang.org/x/sys/windows"
)

// OSSystem is the per-user logon task of Task Scheduler, driven with
// schtasks.exe (see the package comment for why not a Windows service).
func OSSystem() (System, error) { return taskSystem{}, nil }

type taskSystem struct{}

func (taskSystem) String() string { return "windows-task" }

func (taskSystem) New(d Definition) (Controller, error) { return &taskController{def: d}, nil }

type taskController struct{ def Definition }

func schtasks(args ...string) (string, error) {
	cmd := exec.Command("schtasks.exe", args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("schtasks %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

func (t *taskController) Installed() (bool, error) {
	_, err := schtasks("/Query", "/TN", t.def.TaskName)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return false, nil // no such task (schtasks says so in the user's language)
	}
	return err == nil, err
}

func (t *taskController) Install() error {
	f, err := os.CreateTemp("", "switchboard-task-*.xml")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(TaskXMLFile(t.def.Text)); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	_, err = schtasks("/Create", "/TN", t.def.TaskName, "/XML", f.Name())
	return err
}

func (t *taskController) Uninstall() error {
	_, err := schtasks("/Delete", "/TN", t.def.TaskName, "/F")
	return err
}

func (t *taskController) Start() error {
	_, err := schtasks("/Run", "/TN", t.def.TaskName)
	return err
}

// Stop asks the host to stop through its API first, so that it stops its
// servers in order: schtasks /End terminates the process outright (the
// servers' job object then kills them, with no stop ladder).
func (t *taskController) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), StopTimeout*time.Second)
	defer cancel()
	sock, err := api.DefaultSocketPath()
	if err != nil {
		return err
	}
	if info, _ := runningHost(ctx, sock); info != nil && info.Service {
		if err := stopHost(ctx, sock, StopTimeout*time.Second); err == nil {
			return nil
		}
	}
	_, err = schtasks("/End", "/TN", t.def.TaskName)
	return err
}

// Status: schtasks' own status column is in the user's language, so
// "running" is asked of the host: a host answers and says it is the
// service's.
func (t *taskController) Status() (service.Status, error) {
	ok, err := t.Installed()
	if err != nil {
		return service.StatusUnknown, err
	}
	if !ok {
		return service.StatusUnknown, service.ErrNotInstalled
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if info, _ := RunningHost(ctx); info != nil && info.Service {
		return service.StatusRunning, nil
	}
	return service.StatusStopped, nil
}

// currentUser is the current user's SID, the task's principal.
func currentUser() (string, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", fmt.Errorf("cannot read the current user's SID: %w", err)
	}
	return u.User.Sid.String(), nil
}

// stopHost asks the host on sock to stop (it stops every server first) and
// waits until it is gone or timeout passes. No host is no error.
func stopHost(ctx context.Context, sock string, timeout time.Duration) error {
	c, err := client.Dial(ctx, sock)
	if errors.Is(err, api.ErrNoHost) {
		return nil
	}
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.StopHost(ctx); err != nil {
		var ae *api.Error
		if !errors.As(err, &ae) || ae.Code != api.CodeShuttingDown {
			return err
		}
	}
	select {
	case <-c.Done():
		return nil
	case <-time.After(timeout):
		return errors.New("the host did not stop in time")
	case <-ctx.Done():
		return ctx.Err()
	}
}
