package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostrun"
	"github.com/switchboard-mcp/switchboard/app/service"
)

// Seams for tests: the service's environment and service manager, and
// the Windows Run key (nil: the registry).
var (
	osServiceEnv  = service.OSEnv
	serviceSystem = service.OSSystem
	runKeyStore   service.RunKeyStore
)

// serviceEnv is the service's environment for this command line: the
// executable (--exec or this one) and, when the user chose a config file,
// that file.
func (e *env) serviceEnv(exe string) (service.Env, error) {
	se, err := osServiceEnv()
	if err != nil {
		return se, err
	}
	se.Getenv = e.getenv
	if exe != "" {
		if se.Executable, err = filepath.Abs(exe); err != nil {
			return se, err
		}
		if _, err := os.Stat(se.Executable); err != nil {
			return se, fmt.Errorf("--exec %s: %w", exe, err)
		}
	}
	path, explicit, err := e.configPath()
	if err != nil {
		return se, err
	}
	if explicit {
		se.Args = []string{"--config", path}
	}
	return se, nil
}

func (e *env) serviceManager(exe string) (*service.Manager, error) {
	se, err := e.serviceEnv(exe)
	if err != nil {
		return nil, err
	}
	sys, err := serviceSystem()
	if err != nil {
		return nil, err
	}
	return service.NewManager(se, sys), nil
}

func (e *env) serviceInstall(a *argv) error {
	m, err := e.serviceManager(a.str("exec"))
	if err != nil {
		return err
	}
	if err := m.Install(); err != nil {
		return err
	}
	d, _ := m.Definition()
	fmt.Fprintf(e.stdout, "installed the background service (%s): %s\n", m.Platform(), serviceWhere(d))
	if a.flag("no-start") {
		fmt.Fprintln(e.stdout, "it starts at your next login, or now with 'switchboard service start'")
		return nil
	}
	return e.startService(context.Background(), m)
}

func (e *env) serviceUninstall(*argv) error {
	m, err := e.serviceManager("")
	if err != nil {
		return err
	}
	if err := m.Uninstall(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "stopped and removed the background service")
	return nil
}

func (e *env) serviceStart(*argv) error {
	m, err := e.serviceManager("")
	if err != nil {
		return err
	}
	return e.startService(context.Background(), m)
}

func (e *env) serviceStop(*argv) error {
	m, err := e.serviceManager("")
	if err != nil {
		return err
	}
	if err := m.Stop(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "stopped the background service and its servers (it starts again at your next login)")
	return nil
}

func (e *env) serviceStatus(*argv) error {
	m, err := e.serviceManager("")
	if err != nil {
		return err
	}
	return e.serviceState(context.Background(), m)
}

// servicePrint prints the definition for this OS. It needs no service
// manager: packagers run it where none runs (a build container).
func (e *env) servicePrint(a *argv) error {
	se, err := e.serviceEnv(a.str("exec"))
	if err != nil {
		return err
	}
	d, err := service.DefinitionFor(se)
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, d.Text)
	return nil
}

func serviceWhere(d service.Definition) string {
	if d.Path != "" {
		return d.Path
	}
	return "the logon task " + d.TaskName
}

// serviceWait bounds how long 'service start' waits for the service's
// host to answer.
var serviceWait = 30 * time.Second

func (e *env) startService(ctx context.Context, m *service.Manager) error {
	other, err := service.RunningHost(ctx)
	if err != nil {
		return err
	}
	if other != nil && other.Service {
		fmt.Fprintf(e.stdout, "the background service runs already (host pid %d)\n", other.PID)
		return m.Start() // makes the service manager agree, should it not
	}
	if err := m.Start(); err != nil {
		return err
	}
	if other != nil && !other.OnDemand {
		fmt.Fprintf(e.stdout, "started the background service; its host waits for the host that runs now (pid %d, not the service's) to exit: 'switchboard stop' stops that one\n", other.PID)
		return nil
	}
	deadline := time.Now().Add(serviceWait)
	for {
		info, _ := service.RunningHost(ctx)
		if info != nil && info.Service {
			fmt.Fprintf(e.stdout, "the background service runs (host pid %d)\n", info.PID)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the service was started, but its host did not answer within %v: see its logs (%s)", serviceWait, m.Env().LogLocation())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (e *env) serviceState(ctx context.Context, m *service.Manager) error {
	st, err := m.Status()
	if err != nil {
		return err
	}
	h, _ := service.RunningHost(ctx)
	if e.json {
		return e.printJSON(map[string]any{"service": st, "host": h})
	}
	fmt.Fprintf(e.stdout, "background service: %s (%s)\n", st.State, st.Platform)
	if st.Error != "" {
		fmt.Fprintf(e.stdout, "  %s\n", st.Error)
	}
	fmt.Fprintf(e.stdout, "definition: %s\n", st.Definition)
	fmt.Fprintf(e.stdout, "logs: %s\n", st.Logs)
	switch {
	case h == nil:
		fmt.Fprintln(e.stdout, "host: none runs")
	case h.Service:
		fmt.Fprintf(e.stdout, "host: pid %d, the service's\n", h.PID)
	case h.OnDemand:
		fmt.Fprintf(e.stdout, "host: pid %d, started on demand (not the service's; the service replaces it when it starts)\n", h.PID)
	default:
		fmt.Fprintf(e.stdout, "host: pid %d, a 'switchboard serve' outside the service\n", h.PID)
	}
	return nil
}

// serveService runs `serve --service`: the host that the service manager
// runs. It runs until it is told to stop, logs where the OS keeps a
// service's logs, and reports Service in host.info. When another host holds
// the lock, one started on demand is asked to stop and replaced; any other
// is waited for.
func (e *env) serveService(o hostrun.Options) error {
	if o.OnDemand {
		return usagef("serve: --service and --on-demand exclude each other")
	}
	o.Service = true
	se := service.Env{GOOS: runtime.GOOS, Getenv: e.getenv}
	lp, err := se.HostLogPath()
	if err != nil {
		return err
	}
	o.LogPath, o.Stderr = lp, nil
	if lp == "" {
		o.Stderr = e.stderr // systemd: the journal
	} else {
		service.DetachConsole()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	for {
		err := hostrun.Run(ctx, o)
		var already *api.AlreadyRunningError
		if !errors.As(err, &already) {
			return err
		}
		if err := e.awaitOtherHost(ctx, o.SocketPath); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// awaitOtherHost stops the host that holds the lock if it was started on
// demand, or else waits until it exits.
func (e *env) awaitOtherHost(ctx context.Context, sock string) error {
	c, err := client.Dial(ctx, sock)
	if err != nil {
		// The holder is starting (no socket yet) or going.
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
		return nil
	}
	defer c.Close()
	info, err := c.Info(ctx)
	if err != nil {
		return nil // it is going away
	}
	if info.OnDemand {
		fmt.Fprintf(e.stderr, "switchboard: replacing the host started on demand (pid %d)\n", info.PID)
		if err := c.StopHost(ctx); err != nil {
			var ae *api.Error
			if !errors.As(err, &ae) || ae.Code != api.CodeShuttingDown {
				return fmt.Errorf("asking the host started on demand (pid %d) to stop: %w", info.PID, err)
			}
		}
	} else {
		fmt.Fprintf(e.stderr, "switchboard: another host runs (pid %d, not started on demand); the service's host starts when it exits\n", info.PID)
	}
	select {
	case <-c.Done():
	case <-ctx.Done():
	}
	return nil
}

func (e *env) autostarter(a *argv) (*service.Autostart, error) {
	se, err := e.serviceEnv(a.str("exec"))
	if err != nil {
		return nil, err
	}
	return service.NewAutostart(se, runKeyStore), nil
}

func (e *env) autostartOn(a *argv) error {
	as, err := e.autostarter(a)
	if err != nil {
		return err
	}
	if err := as.Enable(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "the tray starts at login: %s\n", as.Where())
	return nil
}

func (e *env) autostartOff(a *argv) error {
	as, err := e.autostarter(a)
	if err != nil {
		return err
	}
	if err := as.Disable(); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, "the tray no longer starts at login")
	return nil
}

func (e *env) autostartStatus(a *argv) error {
	as, err := e.autostarter(a)
	if err != nil {
		return err
	}
	on, err := as.Enabled()
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(map[string]any{"enabled": on, "where": as.Where()})
	}
	if on {
		fmt.Fprintf(e.stdout, "on: the tray starts at login (%s)\n", as.Where())
	} else {
		fmt.Fprintf(e.stdout, "off: 'switchboard autostart on' starts the tray at login (%s)\n", as.Where())
	}
	return nil
}

// doctorService is doctor's part on the background service and the tray's
// start at login.
func (e *env) doctorService(ok, bad, info func(string, ...any)) {
	m, err := e.serviceManager("")
	if err != nil {
		info("background service: not available here: %v", err)
	} else if st, err := m.Status(); err != nil {
		bad("background service: %v", err)
	} else {
		switch st.State {
		case service.StateNotInstalled:
			info("background service: not installed ('switchboard service install' runs the host at every login)")
		case service.StateRunning:
			ok("background service: installed and running (%s, %s)", st.Platform, st.Definition)
		case service.StateFailed:
			bad("background service: failed (%s): see its logs, then 'switchboard service start'", st.Platform)
		default:
			ok("background service: installed, %s (%s, %s)", st.State, st.Platform, st.Definition)
		}
		info("background service's logs: %s", st.Logs)
	}
	se, err := e.serviceEnv("")
	if err != nil {
		return
	}
	a := service.NewAutostart(se, runKeyStore)
	if on, err := a.Enabled(); err == nil {
		state := "off ('switchboard autostart on' turns it on)"
		if on {
			state = "on"
		}
		info("tray at login: %s (%s)", state, a.Where())
	}
}
