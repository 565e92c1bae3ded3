package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/kardianos/service"
	"github.com/switchboard-mcp/switchboard/app/api"
)

// Errors of the control flow. The messages say what to do.
var (
	ErrNotInstalled     = errors.New("the background service is not installed: 'switchboard service install' installs it")
	ErrAlreadyInstalled = errors.New("the background service is already installed: 'switchboard service status' shows it, 'switchboard service uninstall' removes it")
)

// States of the service.
const (
	StateNotInstalled = "not installed"
	StateRunning      = "running"
	StateStopped      = "stopped"
	StateFailed       = "failed" // the service manager gave up on it
	StateUnknown      = "unknown"
)

// Controller is one installed (or installable) service as a service manager
// sees it: a subset of kardianos/service's [service.Service] with
// Installed, which it lacks. The real ones wrap kardianos/service (systemd,
// launchd) or schtasks (the Windows logon task); tests use a fake.
type Controller interface {
	// Installed says whether the service is defined (and, for systemd,
	// enabled).
	Installed() (bool, error)
	// Install defines the service; it does not start it.
	Install() error
	// Uninstall removes the definition.
	Uninstall() error
	// Start asks the service manager to start the host.
	Start() error
	// Stop asks the service manager to stop the host, which stops every
	// server; it returns once the host is gone.
	Stop() error
	// Status is kardianos/service's: an error wrapping
	// [service.ErrNotInstalled] when there is no such service.
	Status() (service.Status, error)
}

// System makes the [Controller] of a service definition: the OS's service
// manager, or a fake.
type System interface {
	// String names the service manager: "linux-systemd", "darwin-launchd",
	// "windows-task".
	String() string
	// New returns the controller of the service that d defines.
	New(d Definition) (Controller, error)
}

// Definition is the service as this user's machine would get it.
type Definition struct {
	Env Env
	// Path is the file that defines it (the unit, the plist); "" for the
	// Windows task, whose name is TaskName.
	Path     string
	TaskName string
	// Text is the file's content (the task's XML on Windows).
	Text string
	// Config is what kardianos/service gets: our text as its template
	// (SystemdScript or LaunchdConfig) and UserService set.
	Config *service.Config
}

// Definition renders the service's definition for m's environment.
func (m *Manager) Definition() (Definition, error) { return DefinitionFor(m.env) }

// DefinitionFor is the definition Install writes for env. It needs no
// service manager (none need run: 'switchboard service print' is for
// packagers, who build in containers without systemd).
func DefinitionFor(e Env) (Definition, error) {
	d := Definition{Env: e}
	var err error
	if d.Path, err = e.DefinitionPath(); err != nil {
		return d, err
	}
	cfg := &service.Config{
		Name: Name, DisplayName: DisplayName, Description: Description,
		Executable: e.Executable, Arguments: e.ServeArgs(),
		Option: service.KeyValue{"UserService": true},
	}
	switch e.GOOS {
	case "windows":
		d.TaskName = e.TaskName()
		d.Text, err = e.TaskXML()
	case "darwin":
		cfg.Name = LaunchdLabel
		d.Text, err = e.LaunchdPlist()
		cfg.Option["LaunchdConfig"] = d.Text
		cfg.Option["RunAtLoad"] = true
	default:
		d.Text, err = e.SystemdUnit()
		cfg.Option["SystemdScript"] = d.Text
	}
	if err != nil {
		return d, err
	}
	if strings.Contains(d.Text, "{{") {
		// kardianos/service renders its template option: ours has no
		// actions, and a path that looked like one would be mangled.
		return d, fmt.Errorf("a path or argument holds %q, which the service definition cannot carry", "{{")
	}
	d.Config = cfg
	return d, nil
}

// Manager installs, starts, stops and removes the service, and says how it
// is.
type Manager struct {
	env Env
	sys System
}

// NewManager returns the manager of the service of env, through sys.
func NewManager(env Env, sys System) *Manager { return &Manager{env: env, sys: sys} }

// Default is the manager of this user's service through this OS's service
// manager. It fails where there is none that runs user services (a Linux
// without systemd as its init, as in a container).
func Default() (*Manager, error) {
	env, err := OSEnv()
	if err != nil {
		return nil, err
	}
	sys, err := OSSystem()
	if err != nil {
		return nil, err
	}
	return NewManager(env, sys), nil
}

// Env is the manager's environment.
func (m *Manager) Env() Env { return m.env }

// Platform names the service manager.
func (m *Manager) Platform() string { return m.sys.String() }

func (m *Manager) controller() (Controller, Definition, error) {
	d, err := m.Definition()
	if err != nil {
		return nil, d, err
	}
	c, err := m.sys.New(d)
	return c, d, err
}

// Install defines the service (and, with systemd, enables it), so that it
// starts at every login; it does not start it now ([Manager.Start] does).
// It fails with [ErrAlreadyInstalled] when the service is defined already.
func (m *Manager) Install() error {
	c, d, err := m.controller()
	if err != nil {
		return err
	}
	ok, err := c.Installed()
	if err != nil {
		return err
	}
	if ok {
		return ErrAlreadyInstalled
	}
	if dir, err := m.env.LogDir(); err != nil {
		return err
	} else if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("creating the service's log directory: %w", err)
		}
	}
	if err := c.Install(); err != nil {
		return fmt.Errorf("installing the service (%s, %s): %w", m.sys, where(d), err)
	}
	return nil
}

// Uninstall stops the service if it runs (which stops every server) and
// removes its definition. It fails with [ErrNotInstalled] when there is
// none.
func (m *Manager) Uninstall() error {
	c, d, err := m.controller()
	if err != nil {
		return err
	}
	if err := m.needInstalled(c); err != nil {
		return err
	}
	if st, _ := m.state(c); st == StateRunning {
		if err := c.Stop(); err != nil {
			return fmt.Errorf("stopping the service before removing it: %w", err)
		}
	}
	if err := c.Uninstall(); err != nil {
		return fmt.Errorf("removing the service (%s, %s): %w", m.sys, where(d), err)
	}
	return nil
}

// Start starts the installed service's host; it does nothing when it runs
// already. It fails with [ErrNotInstalled] when there is no service.
func (m *Manager) Start() error {
	c, _, err := m.controller()
	if err != nil {
		return err
	}
	if err := m.needInstalled(c); err != nil {
		return err
	}
	if st, _ := m.state(c); st == StateRunning {
		return nil
	}
	if err := c.Start(); err != nil {
		return fmt.Errorf("starting the service through %s: %w", m.sys, err)
	}
	return nil
}

// Stop stops the service's host, which stops every server, and returns
// once it is gone; it does nothing when the service does not run. It
// fails with [ErrNotInstalled] when there is no service. The service
// starts again at the next login.
func (m *Manager) Stop() error {
	c, _, err := m.controller()
	if err != nil {
		return err
	}
	if err := m.needInstalled(c); err != nil {
		return err
	}
	if st, _ := m.state(c); st == StateStopped {
		return nil
	}
	if err := c.Stop(); err != nil {
		return fmt.Errorf("stopping the service through %s: %w", m.sys, err)
	}
	return nil
}

// Status is how the service is.
type Status struct {
	Platform   string `json:"platform"`
	Installed  bool   `json:"installed"`
	State      string `json:"state"`
	Definition string `json:"definition"` // the file, or the Windows task's name
	Logs       string `json:"logs"`       // where the service's logs go
	Error      string `json:"error,omitempty"`
}

// Status says whether the service is installed and runs.
func (m *Manager) Status() (Status, error) {
	st := Status{Platform: m.sys.String(), State: StateUnknown, Logs: m.env.LogLocation()}
	c, d, err := m.controller()
	if err != nil {
		return st, err
	}
	st.Definition = where(d)
	st.Installed, err = c.Installed()
	if err != nil {
		return st, err
	}
	if !st.Installed {
		st.State = StateNotInstalled
		return st, nil
	}
	st.State, err = m.state(c)
	if err != nil {
		st.Error = err.Error()
	}
	return st, nil
}

// state maps kardianos/service's status to ours.
func (m *Manager) state(c Controller) (string, error) {
	s, err := c.Status()
	switch {
	case errors.Is(err, service.ErrNotInstalled):
		return StateNotInstalled, nil
	case err != nil && strings.Contains(err.Error(), "failed state"):
		return StateFailed, nil // systemd: the unit is "failed"
	case err != nil:
		return StateUnknown, err
	case s == service.StatusRunning:
		return StateRunning, nil
	case s == service.StatusStopped:
		return StateStopped, nil
	}
	return StateUnknown, nil
}

func (m *Manager) needInstalled(c Controller) error {
	ok, err := c.Installed()
	if err != nil {
		return err
	}
	if !ok {
		return ErrNotInstalled
	}
	return nil
}

func where(d Definition) string {
	if d.Path != "" {
		return d.Path
	}
	return "task " + d.TaskName
}

// StartInstalled serves the tray and the bridges when no host answers
// (StartHost calls it): when this user's service is installed, it
// starts it through the OS's service manager and waits (up to 30 s) until
// a host answers on socket. used says whether it did: false when there is
// no service manager for user services, no installed service, or the
// service manager would not start it; the caller then starts a host of its
// own. With used true, err is the wait's outcome.
func StartInstalled(ctx context.Context, socket string) (used bool, err error) {
	m, err := Default()
	if err != nil {
		return false, nil
	}
	return m.startInstalled(ctx, socket, 30*time.Second)
}

func (m *Manager) startInstalled(ctx context.Context, socket string, timeout time.Duration) (bool, error) {
	c, _, err := m.controller()
	if err != nil {
		return false, nil
	}
	if ok, err := c.Installed(); err != nil || !ok {
		return false, nil
	}
	if err := m.Start(); err != nil {
		return false, nil
	}
	deadline := time.Now().Add(timeout)
	for {
		cl, err := api.Dial(ctx, socket)
		if err == nil {
			cl.Close()
			return true, nil
		}
		if !errors.Is(err, api.ErrNoHost) {
			return true, err
		}
		if time.Now().After(deadline) {
			return true, fmt.Errorf("the Switchboard background service was started, but no host answered on %s within %v: see its logs (%s)", socket, timeout, m.env.LogLocation())
		}
		select {
		case <-ctx.Done():
			return true, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
