//go:build !windows

package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kardianos/service"
)

// fakeSystem is a service manager that keeps its state in memory and, like
// kardianos/service's, writes the definition file on Install and removes it
// on Uninstall. It never touches a real service manager.
type fakeSystem struct {
	name      string
	defs      []Definition
	installed bool
	running   bool
	failed    bool
	calls     []string
	errOn     map[string]error // a call's error
}

func (f *fakeSystem) String() string { return f.name }

func (f *fakeSystem) New(d Definition) (Controller, error) {
	f.defs = append(f.defs, d)
	return &fakeController{f: f, d: d}, nil
}

type fakeController struct {
	f *fakeSystem
	d Definition
}

func (c *fakeController) call(name string) error {
	c.f.calls = append(c.f.calls, name)
	return c.f.errOn[name]
}

func (c *fakeController) Installed() (bool, error) { return c.f.installed, nil }

func (c *fakeController) Install() error {
	if err := c.call("install"); err != nil {
		return err
	}
	if c.d.Path != "" {
		if err := os.MkdirAll(filepath.Dir(c.d.Path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(c.d.Path, []byte(c.d.Text), 0o644); err != nil {
			return err
		}
	}
	c.f.installed = true
	return nil
}

func (c *fakeController) Uninstall() error {
	if err := c.call("uninstall"); err != nil {
		return err
	}
	if c.d.Path != "" {
		os.Remove(c.d.Path)
	}
	c.f.installed = false
	return nil
}

func (c *fakeController) Start() error {
	if err := c.call("start"); err != nil {
		return err
	}
	c.f.running, c.f.failed = true, false
	return nil
}

func (c *fakeController) Stop() error {
	if err := c.call("stop"); err != nil {
		return err
	}
	c.f.running = false
	return nil
}

func (c *fakeController) Status() (service.Status, error) {
	switch {
	case !c.f.installed:
		return service.StatusUnknown, service.ErrNotInstalled
	case c.f.failed:
		return service.StatusUnknown, errors.New("service in failed state")
	case c.f.running:
		return service.StatusRunning, nil
	}
	return service.StatusStopped, nil
}

func tempLinuxEnv(t *testing.T) Env {
	home := t.TempDir()
	return envOf("linux", map[string]string{"HOME": home}, "/usr/bin/switchboard")
}

func TestControlFlow(t *testing.T) {
	env := tempLinuxEnv(t)
	sys := &fakeSystem{name: "fake-systemd"}
	m := NewManager(env, sys)
	unit, _ := env.DefinitionPath()

	st := status(t, m)
	if st.Installed || st.State != StateNotInstalled || st.Definition != unit || st.Platform != "fake-systemd" ||
		!strings.Contains(st.Logs, "journalctl --user -u switchboard.service") {
		t.Fatalf("before install: %+v", st)
	}
	for name, op := range map[string]func() error{"start": m.Start, "stop": m.Stop, "uninstall": m.Uninstall} {
		if err := op(); !errors.Is(err, ErrNotInstalled) {
			t.Errorf("%s before install: %v, want ErrNotInstalled", name, err)
		}
	}
	if len(sys.calls) > 0 {
		t.Fatalf("calls reached the service manager before install: %v", sys.calls)
	}

	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(unit); err != nil || !strings.Contains(string(b), "WantedBy=default.target") {
		t.Fatalf("unit %s after install: %v\n%s", unit, err, b)
	}
	if st := status(t, m); !st.Installed || st.State != StateStopped {
		t.Fatalf("after install: %+v", st)
	}
	if err := m.Install(); !errors.Is(err, ErrAlreadyInstalled) {
		t.Fatalf("second install: %v, want ErrAlreadyInstalled", err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	if st := status(t, m); st.State != StateRunning {
		t.Fatalf("after start: %+v", st)
	}
	if err := m.Start(); err != nil { // running already: nothing to do
		t.Fatal(err)
	}
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if st := status(t, m); st.State != StateStopped {
		t.Fatalf("after stop: %+v", st)
	}
	if err := m.Stop(); err != nil { // stopped already: nothing to do
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	// Uninstall stops a running service first.
	if err := m.Uninstall(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(unit); !os.IsNotExist(err) {
		t.Fatalf("unit still there after uninstall: %v", err)
	}
	if st := status(t, m); st.Installed || st.State != StateNotInstalled {
		t.Fatalf("after uninstall: %+v", st)
	}
	want := []string{"install", "start", "stop", "start", "stop", "uninstall"}
	if !reflect.DeepEqual(sys.calls, want) {
		t.Fatalf("calls: %v, want %v", sys.calls, want)
	}

	// What kardianos/service gets: a user service, our unit as its template.
	cfg := sys.defs[len(sys.defs)-1].Config
	text, _ := env.SystemdUnit()
	if cfg.Name != "switchboard" || cfg.Executable != "/usr/bin/switchboard" ||
		!reflect.DeepEqual(cfg.Arguments, []string{"serve", "--service"}) ||
		cfg.Option["UserService"] != true || cfg.Option["SystemdScript"] != text {
		t.Fatalf("kardianos config: %+v", cfg)
	}
}

func TestControlFlowErrors(t *testing.T) {
	env := tempLinuxEnv(t)
	boom := errors.New("boom")
	sys := &fakeSystem{name: "fake", errOn: map[string]error{"install": boom}}
	m := NewManager(env, sys)
	if err := m.Install(); !errors.Is(err, boom) || !strings.Contains(err.Error(), "installing the service (fake, ") {
		t.Fatalf("install failure: %v", err)
	}
	sys.errOn = map[string]error{"start": boom}
	if err := m.Install(); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); !errors.Is(err, boom) {
		t.Fatalf("start failure: %v", err)
	}
	// A unit that systemd gave up on is "failed", and can be started again.
	sys.errOn, sys.failed = nil, true
	if st := status(t, m); st.State != StateFailed {
		t.Fatalf("failed unit: %+v", st)
	}
	if err := m.Start(); err != nil || !sys.running {
		t.Fatalf("start of a failed unit: %v", err)
	}
	sys.errOn = map[string]error{"stop": boom}
	if err := m.Uninstall(); !errors.Is(err, boom) || !sys.installed {
		t.Fatalf("uninstall whose stop fails: %v (installed %v)", err, sys.installed)
	}
}

func TestDefinitionPerOS(t *testing.T) {
	for _, tc := range []struct {
		env      Env
		path     string
		task     string
		option   string
		name     string
		contains string
	}{
		{linuxEnv, "/home/ada/.config/systemd/user/switchboard.service", "", "SystemdScript", "switchboard", "ExecStart=/usr/bin/switchboard serve --service"},
		{darwinEnv, "/Users/ada/Library/LaunchAgents/io.github.switchboard-mcp.switchboard.host.plist", "", "LaunchdConfig", LaunchdLabel, "<string>--service</string>"},
		{windowsEnv, "", "Switchboard host (ada)", "", "switchboard", "<LogonType>InteractiveToken</LogonType>"},
	} {
		d, err := NewManager(tc.env, &fakeSystem{}).Definition()
		if err != nil {
			t.Fatal(err)
		}
		if d.Path != tc.path || d.TaskName != tc.task || d.Config.Name != tc.name || !strings.Contains(d.Text, tc.contains) {
			t.Errorf("%s: path %q task %q name %q\n%s", tc.env.GOOS, d.Path, d.TaskName, d.Config.Name, d.Text)
		}
		if tc.option != "" && d.Config.Option[tc.option] != d.Text {
			t.Errorf("%s: option %s is not the definition", tc.env.GOOS, tc.option)
		}
	}
	// What kardianos/service would take for a template action is refused.
	e := linuxEnv
	e.Executable = "/opt/{{x}}/switchboard"
	if _, err := NewManager(e, &fakeSystem{}).Definition(); err == nil {
		t.Error("a definition with {{ was accepted")
	}
	e = linuxEnv
	e.Executable = "switchboard"
	if _, err := NewManager(e, &fakeSystem{}).Definition(); err == nil {
		t.Error("a relative executable was accepted")
	}
}

func TestPaths(t *testing.T) {
	for _, tc := range []struct {
		env                  Env
		logDir, hostLog, loc string
	}{
		{linuxEnv, "", "", "the user journal: journalctl --user -u switchboard.service"},
		{darwinEnv, "/Users/ada/Library/Logs/Switchboard", "/Users/ada/Library/Logs/Switchboard/host.log", "/Users/ada/Library/Logs/Switchboard (host.log; service.log"},
		{windowsEnv, `C:\Users\ada\AppData\Local\Switchboard\Logs`, `C:\Users\ada\AppData\Local\Switchboard\Logs\host.log`, `C:\Users\ada\AppData\Local\Switchboard\Logs\host.log`},
	} {
		d, _ := tc.env.LogDir()
		h, _ := tc.env.HostLogPath()
		if d != tc.logDir || h != tc.hostLog || !strings.HasPrefix(tc.env.LogLocation(), tc.loc) {
			t.Errorf("%s: log dir %q, host log %q, location %q", tc.env.GOOS, d, h, tc.env.LogLocation())
		}
	}
	// Windows without LOCALAPPDATA falls back on the profile.
	w := envOf("windows", map[string]string{"USERPROFILE": `C:\Users\bob`}, `C:\sb.exe`)
	if d, _ := w.LogDir(); d != `C:\Users\bob\AppData\Local\Switchboard\Logs` {
		t.Errorf("windows log dir without LOCALAPPDATA: %q", d)
	}
	if n := envOf("windows", map[string]string{"USERNAME": `a:b\c`}, "").TaskName(); n != "Switchboard host (a_b_c)" {
		t.Errorf("task name: %q", n)
	}
	// No home: an error, not a relative path.
	if _, err := envOf("linux", map[string]string{"HOME": "relative"}, "/x").DefinitionPath(); err == nil {
		t.Error("a relative HOME was accepted")
	}
}

func TestQuoting(t *testing.T) {
	for in, want := range map[string]string{
		"plain": "plain", "": `""`, "a b": `"a b"`, `a"b`: `"a\"b"`, `C:\dir\`: `C:\dir\`,
		`C:\my dir\`: `"C:\my dir\\"`, `a\"b c`: `"a\\\"b c"`,
	} {
		if got := windowsEscapeArg(in); got != want {
			t.Errorf("windowsEscapeArg(%q) = %s, want %s", in, got, want)
		}
	}
	got, err := systemdExecLine([]string{"/usr/bin/sb", "a b", "50%", "$HOME", `x\y`, ""})
	if want := `/usr/bin/sb "a b" 50%% $$HOME "x\\y" ""`; err != nil || got != want {
		t.Errorf("systemdExecLine = %s, %v; want %s", got, err, want)
	}
	if _, err := systemdExecLine([]string{"/usr/bin/sb", "a\nb"}); err == nil {
		t.Error("a line break was accepted in ExecStart")
	}
}

func TestStartInstalled(t *testing.T) {
	ctx := context.Background()
	sock := filepath.Join(t.TempDir(), "host.sock")
	sys := &fakeSystem{name: "fake"}
	m := NewManager(tempLinuxEnv(t), sys)
	if used, err := m.startInstalled(ctx, sock, time.Second); used || err != nil {
		t.Fatalf("not installed: used %v, %v", used, err)
	}
	sys.installed = true
	sys.errOn = map[string]error{"start": errors.New("boom")}
	if used, err := m.startInstalled(ctx, sock, time.Second); used || err != nil {
		t.Fatalf("start fails: used %v, %v (the caller starts its own host)", used, err)
	}
	sys.errOn = nil
	used, err := m.startInstalled(ctx, sock, 300*time.Millisecond)
	if !used || err == nil || !strings.Contains(err.Error(), "no host answered") || !sys.running {
		t.Fatalf("started, no host answers: used %v, %v", used, err)
	}
}

func status(t *testing.T, m *Manager) Status {
	t.Helper()
	st, err := m.Status()
	if err != nil {
		t.Fatal(err)
	}
	return st
}
