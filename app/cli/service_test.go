//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	ksvc "github.com/kardianos/service"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/service"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// fakeServiceSystem stands in for systemd: Install writes the unit file
// (as kardianos/service does), Start runs `serve --service` in this
// process, as the service manager would run it, and Stop asks that host to
// stop and waits for it to end, as SIGTERM from systemd would.
type fakeServiceSystem struct {
	t         *testing.T
	mu        sync.Mutex
	installed bool
	done      chan int // the running host's exit code; nil when none runs
	calls     []string
}

func (f *fakeServiceSystem) String() string { return "fake-systemd" }

func (f *fakeServiceSystem) New(d service.Definition) (service.Controller, error) {
	return &fakeServiceCtl{f: f, d: d}, nil
}

type fakeServiceCtl struct {
	f *fakeServiceSystem
	d service.Definition
}

func (c *fakeServiceCtl) Installed() (bool, error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	return c.f.installed, nil
}

func (c *fakeServiceCtl) Install() error {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	c.f.calls = append(c.f.calls, "install")
	if err := os.MkdirAll(filepath.Dir(c.d.Path), 0o755); err != nil {
		return err
	}
	c.f.installed = true
	return os.WriteFile(c.d.Path, []byte(c.d.Text), 0o644)
}

func (c *fakeServiceCtl) Uninstall() error {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	c.f.calls = append(c.f.calls, "uninstall")
	c.f.installed = false
	return os.Remove(c.d.Path)
}

func (c *fakeServiceCtl) Start() error {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	c.f.calls = append(c.f.calls, "start")
	done := make(chan int, 1)
	c.f.done = done
	args := append([]string(nil), c.d.Config.Arguments...)
	go func() {
		done <- Main(args, strings.NewReader(""), io.Discard, io.Discard)
	}()
	return nil
}

func (c *fakeServiceCtl) Stop() error {
	c.f.mu.Lock()
	done := c.f.done
	c.f.calls = append(c.f.calls, "stop")
	c.f.mu.Unlock()
	if done == nil {
		return nil
	}
	sock, _ := api.DefaultSocketPath()
	if cl, err := api.Dial(context.Background(), sock); err == nil {
		_ = cl.Call(context.Background(), "host.stop", nil, nil)
		cl.Close()
	}
	select {
	case code := <-done:
		if code != 0 {
			c.f.t.Errorf("the service's host exited with %d", code)
		}
	case <-time.After(30 * time.Second):
		return errors.New("the service's host did not stop")
	}
	c.f.mu.Lock()
	c.f.done = nil
	c.f.mu.Unlock()
	return nil
}

func (c *fakeServiceCtl) Status() (ksvc.Status, error) {
	c.f.mu.Lock()
	defer c.f.mu.Unlock()
	if !c.f.installed {
		return ksvc.StatusUnknown, ksvc.ErrNotInstalled
	}
	if c.f.done != nil {
		return ksvc.StatusRunning, nil
	}
	return ksvc.StatusStopped, nil
}

// withFakeService points the service commands at a fake systemd and a
// temporary HOME.
func withFakeService(t *testing.T, u *unit) *fakeServiceSystem {
	t.Helper()
	home := filepath.Join(u.dir, "home")
	t.Setenv("HOME", home)
	f := &fakeServiceSystem{t: t}
	oldEnv, oldSys := osServiceEnv, serviceSystem
	osServiceEnv = func() (service.Env, error) {
		return service.Env{GOOS: "linux", Getenv: os.Getenv, Executable: "/usr/bin/switchboard"}, nil
	}
	serviceSystem = func() (service.System, error) { return f, nil }
	t.Cleanup(func() {
		osServiceEnv, serviceSystem = oldEnv, oldSys
		_ = (&fakeServiceCtl{f: f}).Stop()
	})
	return f
}

func TestServiceCommands(t *testing.T) {
	u := newUnit(t)
	f := withFakeService(t, u)
	unitPath := filepath.Join(u.dir, "home", ".config/systemd/user/switchboard.service")

	out := u.ok(t, "", "service", "status")
	for _, want := range []string{"background service: not installed (fake-systemd)", "definition: " + unitPath,
		"logs: the user journal: journalctl --user -u switchboard.service", "host: none runs"} {
		if !strings.Contains(out, want) {
			t.Errorf("status before install lacks %q:\n%s", want, out)
		}
	}
	for _, sub := range []string{"start", "stop", "uninstall"} {
		if r := u.main("", "service", sub); r.code != 1 || !strings.Contains(r.stderr, "not installed: 'switchboard service install' installs it") {
			t.Errorf("service %s before install: %s", sub, r)
		}
	}

	out = u.ok(t, "", "service", "install", "--no-start")
	if !strings.Contains(out, "installed the background service (fake-systemd): "+unitPath) || !strings.Contains(out, "next login") {
		t.Errorf("install --no-start: %s", out)
	}
	if b, err := os.ReadFile(unitPath); err != nil || !strings.Contains(string(b), "ExecStart=/usr/bin/switchboard serve --service\n") {
		t.Fatalf("unit: %v\n%s", err, b)
	}
	if r := u.main("", "service", "install"); r.code != 1 || !strings.Contains(r.stderr, "already installed") {
		t.Errorf("second install: %s", r)
	}

	out = u.ok(t, "", "service", "start")
	if want := fmt.Sprintf("the background service runs (host pid %d)\n", os.Getpid()); out != want {
		t.Errorf("start: %q, want %q", out, want)
	}
	var st struct {
		Host struct {
			Service  bool `json:"service"`
			OnDemand bool `json:"onDemand"`
		} `json:"host"`
	}
	if err := json.Unmarshal([]byte(u.ok(t, "", "status", "--json")), &st); err != nil || !st.Host.Service || st.Host.OnDemand {
		t.Fatalf("status --json of the service's host: %+v %v", st, err)
	}
	out = u.ok(t, "", "service", "status")
	if !strings.Contains(out, "background service: running (fake-systemd)") || !strings.Contains(out, fmt.Sprintf("host: pid %d, the service's", os.Getpid())) {
		t.Errorf("status while running:\n%s", out)
	}
	if out := u.ok(t, "", "service", "start"); !strings.Contains(out, "runs already") {
		t.Errorf("start while running: %s", out)
	}
	if r := u.main("", "doctor"); !strings.Contains(r.stdout, "ok    background service: installed and running (fake-systemd, "+unitPath+")") ||
		!strings.Contains(r.stdout, "background service's logs: the user journal") || !strings.Contains(r.stdout, "tray at login: off") {
		t.Errorf("doctor:\n%s", r.stdout)
	}

	if out := u.ok(t, "", "service", "stop"); !strings.Contains(out, "stopped the background service and its servers") {
		t.Errorf("stop: %s", out)
	}
	if out := u.ok(t, "", "service", "status"); !strings.Contains(out, "background service: stopped") || !strings.Contains(out, "host: none runs") {
		t.Errorf("status after stop:\n%s", out)
	}
	u.ok(t, "", "service", "start")
	if out := u.ok(t, "", "service", "uninstall"); out != "stopped and removed the background service\n" {
		t.Errorf("uninstall: %q", out)
	}
	if _, err := os.Stat(unitPath); !os.IsNotExist(err) {
		t.Errorf("unit left after uninstall: %v", err)
	}
	sock, _ := api.DefaultSocketPath()
	if c, err := api.Dial(context.Background(), sock); err == nil {
		c.Close()
		t.Error("a host still answers after uninstall")
	}
	if got, want := strings.Join(f.calls, " "), "install start stop start stop uninstall"; got != want {
		t.Errorf("calls to the service manager: %s, want %s", got, want)
	}
}

func TestServiceInstallStartsAndUsesTheConfig(t *testing.T) {
	u := newUnit(t)
	withFakeService(t, u)
	cfg := filepath.Join(u.dir, "my configs", "sb.json")
	out := u.ok(t, "", "--config", cfg, "service", "print")
	if !strings.Contains(out, `ExecStart=/usr/bin/switchboard serve --service --config "`+cfg+`"`) {
		t.Fatalf("print with --config:\n%s", out)
	}
	out = u.ok(t, "", "--config", cfg, "service", "install")
	if !strings.Contains(out, "installed the background service") || !strings.Contains(out, "the background service runs (host pid") {
		t.Fatalf("install: %s", out)
	}
	// The service's host uses the config that install was given.
	var st struct {
		Host struct {
			ConfigPath string `json:"configPath"`
		} `json:"host"`
	}
	if err := json.Unmarshal([]byte(u.ok(t, "", "--config", cfg, "status", "--json")), &st); err != nil || st.Host.ConfigPath != cfg {
		t.Fatalf("the service's host config: %+v %v", st, err)
	}
	u.ok(t, "", "service", "uninstall")
}

// TestServiceReplacesOnDemandHost: a host started on demand (by the tray
// or a bridge) holds the lock when the service starts; the service's host
// asks it to stop and takes its place.
func TestServiceReplacesOnDemandHost(t *testing.T) {
	u := newUnit(t)
	withFakeService(t, u)
	ondemand := make(chan int, 1)
	go func() {
		ondemand <- Main([]string{"serve", "--on-demand"}, strings.NewReader(""), io.Discard, io.Discard)
	}()
	sock, _ := api.DefaultSocketPath()
	testkit.Eventually(t, "the on-demand host answers", func() bool {
		c, err := api.Dial(context.Background(), sock)
		if err == nil {
			c.Close()
		}
		return err == nil
	})

	out := u.ok(t, "", "service", "install")
	if !strings.Contains(out, "the background service runs (host pid") {
		t.Fatalf("install over an on-demand host: %s", out)
	}
	select {
	case code := <-ondemand:
		if code != 0 {
			t.Fatalf("the on-demand host exited with %d", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the on-demand host was not replaced")
	}
	if out := u.ok(t, "", "service", "status"); !strings.Contains(out, "the service's") {
		t.Fatalf("status: %s", out)
	}
	u.ok(t, "", "service", "uninstall")
}

func TestServiceUsage(t *testing.T) {
	u := newUnit(t)
	withFakeService(t, u)
	for _, args := range [][]string{
		{"service", "bogus"}, {"service", "start", "extra"}, {"service", "stop", "--exec", "/bin/sh"},
		{"service", "start", "--no-start"}, {"serve", "--service", "--on-demand"}, {"autostart", "maybe"},
	} {
		if r := u.main("", args...); r.code != 2 {
			t.Errorf("%v: %s, want exit 2", args, r)
		}
	}
	if out := u.ok(t, "", "service"); !strings.Contains(out, "service install [--no-start] [--exec PATH]") {
		t.Errorf("service with no subcommand: %s", out)
	}
	if r := u.main("", "service", "print", "--exec", filepath.Join(u.dir, "missing")); r.code != 1 || !strings.Contains(r.stderr, "--exec") {
		t.Errorf("print --exec missing: %s", r)
	}
}

func TestAutostartCommands(t *testing.T) {
	u := newUnit(t)
	withFakeService(t, u)
	entry := filepath.Join(u.dir, "cfg", "autostart", "switchboard.desktop")
	if out := u.ok(t, "", "autostart", "status"); !strings.HasPrefix(out, "off: ") {
		t.Fatalf("status before on: %s", out)
	}
	if out := u.ok(t, "", "autostart", "on"); out != "the tray starts at login: "+entry+"\n" {
		t.Fatalf("on: %q", out)
	}
	b, err := os.ReadFile(entry)
	if err != nil || !strings.Contains(string(b), "Exec=/usr/bin/switchboard --background\n") {
		t.Fatalf("entry: %v\n%s", err, b)
	}
	var st struct {
		Enabled bool   `json:"enabled"`
		Where   string `json:"where"`
	}
	if err := json.Unmarshal([]byte(u.ok(t, "", "autostart", "status", "--json")), &st); err != nil || !st.Enabled || st.Where != entry {
		t.Fatalf("status --json: %+v %v", st, err)
	}
	if r := u.main("", "doctor"); !strings.Contains(r.stdout, "tray at login: on ("+entry+")") ||
		!strings.Contains(r.stdout, "background service: not installed") {
		t.Errorf("doctor:\n%s", r.stdout)
	}
	u.ok(t, "", "autostart", "off")
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Fatalf("entry left after off: %v", err)
	}
	if out := u.ok(t, "", "autostart", "off"); out != "the tray no longer starts at login\n" {
		t.Fatalf("off twice: %q", out)
	}
}
