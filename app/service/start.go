package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync/atomic"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
)

// childStarter is what a host process installs with [SetStartChild].
var childStarter atomic.Pointer[func(*exec.Cmd) (func(), error)]

// SetStartChild makes StartHost start the detached host with start: a
// process that is also a host (a child subreaper, app/host) installs the
// engine's StartChild, so that its orphan reaper leaves the child, in a
// session of its own, to StartHost's Wait. Elsewhere it is cmd.Start.
func SetStartChild(start func(cmd *exec.Cmd) (release func(), err error)) {
	childStarter.Store(&start)
}

// startChild starts cmd through what [SetStartChild] installed.
func startChild(cmd *exec.Cmd) (release func(), err error) {
	if f := childStarter.Load(); f != nil {
		return (*f)(cmd)
	}
	return func() {}, cmd.Start()
}

// StartHost starts a host and waits until its API answers (the tray's and
// the bridge's on-demand start; app/client's Live calls it through its
// Options.StartHost): this user's background service, through the OS's
// service manager, when it is installed ([StartInstalled]); otherwise `exe serve --on-demand` detached from the caller
// (its own session, stdio on the null device, so it does not die with the
// tray or the AI app that started it).
func StartHost(ctx context.Context, exe, socket string) error {
	return StartHostEnv(ctx, exe, socket, nil)
}

// StartHostEnv is [StartHost] with the detached host's environment: env
// (nil: this process's). The service manager's host has its own.
func StartHostEnv(ctx context.Context, exe, socket string, env []string) error {
	if used, err := StartInstalled(ctx, socket); used {
		return err
	}
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("cannot find the switchboard executable to start a host: %w", err)
		}
	}
	cmd := exec.Command(exe, "serve", "--on-demand")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, nil, nil // the null device
	cmd.Env = env
	cmd.SysProcAttr = detached()
	release, err := startChild(cmd)
	if err != nil {
		return fmt.Errorf("starting a Switchboard host (%s serve): %w", exe, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait(); release() }() // reaps it if it exits (say, another host won the lock)
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := api.Dial(ctx, socket)
		if err == nil {
			c.Close()
			return nil
		}
		if !errors.Is(err, api.ErrNoHost) {
			return err
		}
		select {
		case err := <-exited:
			// It may have lost the lock to a host that another client
			// started at the same moment: try that one.
			if c, derr := api.Dial(ctx, socket); derr == nil {
				c.Close()
				return nil
			}
			return fmt.Errorf("the Switchboard host exited at start (%v); run 'switchboard serve' in a terminal to see why", err)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the Switchboard host did not answer on %s within 30 s; see its log (switchboard doctor says where)", socket)
		}
	}
}
