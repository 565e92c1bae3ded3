//go:build !windows

package service

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/kardianos/service"
)

// OSSystem is this OS's service manager for user services, through
// kardianos/service: systemd on Linux (only where systemd is the init:
// /run/systemd/system exists), launchd on macOS.
func OSSystem() (System, error) {
	want := map[string]string{"linux": "linux-systemd", "darwin": "darwin-launchd"}[runtime.GOOS]
	if want == "" {
		//lint:ignore ST1005 the sentence begins with the product's name, a proper noun
		return nil, fmt.Errorf("Switchboard runs as a background service on Linux (systemd), macOS and Windows, not on %s: run 'switchboard serve' from your session's startup instead", runtime.GOOS)
	}
	for _, s := range service.AvailableSystems() {
		if s.String() != want {
			continue
		}
		if !s.Detect() {
			return nil, errors.New("no systemd here (this system did not boot with systemd, as in most containers): user services need systemd; run 'switchboard serve' from your session's startup instead")
		}
		return kardianosSystem{s}, nil
	}
	return nil, fmt.Errorf("kardianos/service offers no %s system", want)
}

type kardianosSystem struct{ sys service.System }

func (k kardianosSystem) String() string { return k.sys.String() }

func (k kardianosSystem) New(d Definition) (Controller, error) {
	s, err := k.sys.New(noProgram{}, d.Config)
	if err != nil {
		return nil, err
	}
	return &kardianosController{Service: s, def: d}, nil
}

// noProgram is the kardianos/service program of a controller: the host
// runs as `serve --service` with its own signal handling, never through
// service.Run.
type noProgram struct{}

func (noProgram) Start(service.Service) error { return nil }
func (noProgram) Stop(service.Service) error  { return nil }

// kardianosController adds Installed to kardianos/service's service, and
// what its systemd and launchd code lack for a user service.
type kardianosController struct {
	service.Service
	def Definition
}

func (k *kardianosController) own() bool {
	_, err := os.Stat(k.def.Path)
	return err == nil
}

// Installed: our file exists or, with systemd, the unit is enabled from
// elsewhere (a package's /usr/lib/systemd/user/switchboard.service enabled
// with systemctl --user enable).
func (k *kardianosController) Installed() (bool, error) {
	if k.own() {
		return true, nil
	}
	if k.def.Env.GOOS == "linux" {
		out, _ := exec.Command("systemctl", "--user", "is-enabled", Name+".service").Output()
		return strings.TrimSpace(string(out)) == "enabled", nil
	}
	return false, nil
}

func (k *kardianosController) Uninstall() error {
	if !k.own() && k.def.Env.GOOS == "linux" {
		return systemctl("disable", Name+".service")
	}
	return k.Service.Uninstall()
}

// Start: kardianos/service's launchd Start is `launchctl load`, which
// fails for an agent that is loaded but not running (it exited when asked
// to stop): that one is started by its label.
func (k *kardianosController) Start() error {
	err := k.Service.Start()
	if err != nil && k.def.Env.GOOS == "darwin" && strings.Contains(err.Error(), "already loaded") {
		return run("launchctl", "start", LaunchdLabel)
	}
	return err
}

func systemctl(args ...string) error {
	return run("systemctl", append([]string{"--user"}, args...)...)
}

func run(name string, args ...string) error {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

// currentUser is the task principal, on Windows only.
func currentUser() (string, error) { return "", nil }
