package service

import (
	"embed"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"strings"
	"testing"
	"unicode/utf16"
)

//go:embed testdata
var testdata embed.FS

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func envOf(goos string, vars map[string]string, exe string, args ...string) Env {
	return Env{GOOS: goos, Getenv: func(k string) string { return vars[k] }, Executable: exe, Args: args}
}

var (
	linuxEnv  = envOf("linux", map[string]string{"HOME": "/home/ada"}, "/usr/bin/switchboard")
	darwinEnv = envOf("darwin", map[string]string{"HOME": "/Users/ada", "TMPDIR": "/var/folders/xy/abc123/T/"},
		"/Applications/Switchboard.app/Contents/MacOS/switchboard")
	windowsEnv = func() Env {
		e := envOf("windows", map[string]string{
			"USERPROFILE": `C:\Users\ada`, "LOCALAPPDATA": `C:\Users\ada\AppData\Local`, "USERNAME": "ada",
		}, `C:\Program Files\Switchboard\switchboard.exe`, "--config", `C:\Users\ada\My Configs\sb.json`)
		e.User = "S-1-5-21-1004336348-1177238915-682003330-1001"
		return e
	}()
)

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := "testdata/" + name
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := testdata.ReadFile(path) // embedded: the Wine run starts the test outside this directory
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it after a review):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// must(t)(s, err) is s, or the test's end.
func must(t *testing.T) func(string, error) string {
	return func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func TestGoldenSystemdUnit(t *testing.T) {
	golden(t, "switchboard.service", must(t)(linuxEnv.SystemdUnit()))
	e := linuxEnv
	e.Executable = "/opt/My Apps/switchboard"
	e.Args = []string{"--config", `/home/ada/100% "$work"\sb.json`}
	golden(t, "switchboard-quoted.service", must(t)(e.SystemdUnit()))
}

func TestGoldenLaunchdPlists(t *testing.T) {
	golden(t, LaunchdLabel+".plist", wellFormed(t, must(t)(darwinEnv.LaunchdPlist())))
	golden(t, AutostartLabel+".plist", wellFormed(t, must(t)(darwinEnv.AutostartPlist())))
	// The runtime directory comes from the user, not from TMPDIR: nothing
	// is pinned unless the installing process has an explicit override,
	// which every process must then share.
	if p := must(t)(darwinEnv.LaunchdPlist()); strings.Contains(p, "EnvironmentVariables") {
		t.Errorf("a plist pins the runtime directory from TMPDIR:\n%s", p)
	}
	e := darwinEnv
	e.Getenv = func(k string) string {
		return map[string]string{"HOME": "/Users/ada", "SWITCHBOARD_RUNTIME_DIR": "/Users/ada/sb-run/"}[k]
	}
	if p := must(t)(e.LaunchdPlist()); !strings.Contains(p, "<key>SWITCHBOARD_RUNTIME_DIR</key>\n\t\t<string>/Users/ada/sb-run</string>") {
		t.Errorf("an explicit override is not carried into the plist:\n%s", p)
	}
}

func TestGoldenTaskXML(t *testing.T) {
	x := wellFormed(t, must(t)(windowsEnv.TaskXML()))
	golden(t, "switchboard-task.xml", x)
	if !strings.Contains(x, `<Arguments>serve --service --config &quot;C:\Users\ada\My Configs\sb.json&quot;</Arguments>`) {
		t.Errorf("arguments are not quoted for CommandLineToArgvW:\n%s", x)
	}
	// The file schtasks reads: UTF-16LE with a BOM and CRLF, the same text.
	b := TaskXMLFile(x)
	if b[0] != 0xFF || b[1] != 0xFE || len(b)%2 != 0 {
		t.Fatalf("no UTF-16LE BOM: % x", b[:4])
	}
	u := make([]uint16, 0, len(b)/2)
	for i := 2; i < len(b); i += 2 {
		u = append(u, uint16(b[i])|uint16(b[i+1])<<8)
	}
	back := string(utf16.Decode(u))
	if strings.ReplaceAll(back, "\r\n", "\n") != x || strings.Count(back, "\r\n") != strings.Count(x, "\n") {
		t.Errorf("UTF-16 file does not decode to the text with CRLF line ends")
	}
	e := windowsEnv
	e.User = ""
	if _, err := e.TaskXML(); err == nil {
		t.Error("a task without a principal was rendered")
	}
}

func TestGoldenDesktopEntry(t *testing.T) {
	d := must(t)(linuxEnv.DesktopEntry())
	golden(t, DesktopFile, d)
	validateDesktop(t, d)
	e := linuxEnv
	e.Executable = `/opt/My "Apps"/50%/switch$board\x`
	d = must(t)(e.DesktopEntry())
	if !strings.Contains(d, "Exec=\"/opt/My \\\\\"Apps\\\\\"/50%%/switch\\\\$board\\\\\\\\x\" --background\n") {
		t.Errorf("Exec is not quoted per the Desktop Entry Specification:\n%s", d)
	}
	validateDesktop(t, d)
}

// wellFormed fails the test unless s parses as XML.
func wellFormed(t *testing.T, s string) string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(s))
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil } // "UTF-16" is declared; the text is UTF-8 until TaskXMLFile
	for {
		_, err := d.Token()
		if err == io.EOF {
			return s
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, s)
		}
	}
}
