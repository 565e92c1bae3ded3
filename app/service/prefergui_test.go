package service

import "testing"

func TestPreferGUI(t *testing.T) {
	has := map[string]bool{`C:\Program Files\Switchboard\switchboard-tray.exe`: true}
	exists := func(p string) bool { return has[p] }
	cases := []struct{ goos, exe, want string }{
		{"windows", `C:\Program Files\Switchboard\switchboard.exe`, `C:\Program Files\Switchboard\switchboard-tray.exe`},
		{"windows", `C:\Program Files\Switchboard\SWITCHBOARD.EXE`, `C:\Program Files\Switchboard\switchboard-tray.exe`},
		{"windows", `C:\tools\switchboard.exe`, `C:\tools\switchboard.exe`}, // no GUI binary beside it
		{"windows", `C:\Program Files\Switchboard\switchboard-tray.exe`, `C:\Program Files\Switchboard\switchboard-tray.exe`},
		{"linux", "/usr/bin/switchboard", "/usr/bin/switchboard"},
	}
	for _, c := range cases {
		if got := PreferGUI(c.goos, c.exe, exists); got != c.want {
			t.Errorf("PreferGUI(%s, %q) = %q, want %q", c.goos, c.exe, got, c.want)
		}
	}
}
