package service

import (
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/switchboard-mcp/switchboard/app/api"
)

// StopTimeout bounds how long the service manager waits for the host to
// stop every server (their stop ladders run at once) before it kills what
// is left. `switchboard stop` waits as long.
const StopTimeout = 120

// SystemdUnit is the systemd user unit that runs the host.
//
// KillMode=mixed sends SIGTERM to the host alone, which stops its servers
// in order (stdin closed, then SIGTERM, then SIGKILL), instead of to every
// process of the unit at once; what is left after TimeoutStopSec gets
// SIGKILL. Restart=on-failure brings a crashed host back but leaves a host
// that was asked to stop (`switchboard stop`, the tray) stopped.
func (e Env) SystemdUnit() (string, error) {
	exec, err := systemdExecLine(append([]string{e.Executable}, e.ServeArgs()...))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`# Switchboard's background service: the host of your local MCP servers,
# as a systemd user service. 'switchboard service install' wrote this file
# and 'switchboard service uninstall' removes it.
[Unit]
Description=` + Description + `
Documentation=https://github.com/switchboard-mcp/switchboard/blob/main/docs/service.md
StartLimitIntervalSec=60
StartLimitBurst=5

[Service]
Type=simple
ExecStart=` + exec + `
Restart=on-failure
RestartSec=5
# SIGTERM to the host alone: it stops its servers in order.
KillMode=mixed
TimeoutStopSec=` + fmt.Sprint(StopTimeout) + `

[Install]
WantedBy=default.target
`)
	return b.String(), nil
}

// systemdExecLine quotes a command line for ExecStart: systemd splits on
// whitespace and honours double quotes with C-style escapes; "%" starts a
// specifier and "$" a variable, so both are doubled.
func systemdExecLine(args []string) (string, error) {
	if !isAbs("linux", args[0]) {
		return "", fmt.Errorf("the executable %q is not an absolute path", args[0])
	}
	var out []string
	for _, a := range args {
		if strings.ContainsAny(a, "\n\r\x00") {
			return "", fmt.Errorf("argument %q holds a line break or NUL, which a unit file cannot carry", a)
		}
		a = strings.NewReplacer("%", "%%", "$", "$$").Replace(a)
		if a == "" || strings.ContainsAny(a, " \t\"'\\;") {
			a = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(a) + `"`
		}
		out = append(out, a)
	}
	return strings.Join(out, " "), nil
}

// LaunchdPlist is the LaunchAgent that runs the host on macOS: loaded at
// login (RunAtLoad), restarted when it fails but not when it was asked to
// stop (KeepAlive/SuccessfulExit false), with its stdout and stderr in the
// log directory.
//
// The agent needs no environment to find the tray, or the tray it: the
// runtime directory is computed from the user (api.RuntimeDir), whatever
// launchd passes on. Only an explicit $SWITCHBOARD_RUNTIME_DIR of the
// installing process is carried over, since every process must then see
// the same override.
func (e Env) LaunchdPlist() (string, error) {
	if !isAbs("darwin", e.Executable) {
		return "", fmt.Errorf("the executable %q is not an absolute path", e.Executable)
	}
	logPath, err := e.launchdLogPath()
	if err != nil {
		return "", err
	}
	var env [][2]string
	if e.getenv(api.RuntimeDirEnv) != "" {
		if d, err := api.RuntimeDir(e.getenv, "darwin", api.Identity{}); err == nil {
			env = append(env, [2]string{api.RuntimeDirEnv, d})
		}
	}
	var b strings.Builder
	b.WriteString(plistHead)
	b.WriteString("\t<key>Label</key>\n\t<string>" + xmlEscape(LaunchdLabel) + "</string>\n")
	b.WriteString("\t<key>ProgramArguments</key>\n\t<array>\n")
	for _, a := range append([]string{e.Executable}, e.ServeArgs()...) {
		b.WriteString("\t\t<string>" + xmlEscape(a) + "</string>\n")
	}
	b.WriteString("\t</array>\n")
	if len(env) > 0 {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		for _, kv := range env {
			b.WriteString("\t\t<key>" + xmlEscape(kv[0]) + "</key>\n\t\t<string>" + xmlEscape(kv[1]) + "</string>\n")
		}
		b.WriteString("\t</dict>\n")
	}
	b.WriteString(`	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ThrottleInterval</key>
	<integer>10</integer>
	<key>ExitTimeOut</key>
	<integer>` + fmt.Sprint(StopTimeout) + `</integer>
	<key>ProcessType</key>
	<string>Interactive</string>
	<key>StandardOutPath</key>
	<string>` + xmlEscape(logPath) + `</string>
	<key>StandardErrorPath</key>
	<string>` + xmlEscape(logPath) + `</string>
</dict>
</plist>
`)
	return checkXML(b.String())
}

const plistHead = `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
`

// TaskXML is the Windows logon task that runs the host: triggered by the
// user's logon, run in the user's session with the user's token
// (InteractiveToken: no password is stored, and the user's Credential
// Manager is in reach), with no time limit (the default is 72 hours), one
// instance at a time, restarted when it fails.
//
// The text is what a golden file pins; [TaskXMLFile] encodes it as the
// UTF-16 file that schtasks /Create /XML reads.
func (e Env) TaskXML() (string, error) {
	if !isAbs("windows", e.Executable) {
		return "", fmt.Errorf("the executable %q is not an absolute path", e.Executable)
	}
	if e.User == "" {
		return "", fmt.Errorf("the current Windows user is unknown, so the logon task has no principal")
	}
	var args []string
	for _, a := range e.ServeArgs() {
		args = append(args, windowsEscapeArg(a))
	}
	user := xmlEscape(e.User)
	s := `<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Author>` + xmlEscape(DisplayName) + `</Author>
    <Description>` + xmlEscape(Description) + `. 'switchboard service uninstall' removes this task.</Description>
    <URI>\` + xmlEscape(e.TaskName()) + `</URI>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
      <UserId>` + user + `</UserId>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <UserId>` + user + `</UserId>
      <LogonType>InteractiveToken</LogonType>
      <RunLevel>LeastPrivilege</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <AllowHardTerminate>true</AllowHardTerminate>
    <StartWhenAvailable>false</StartWhenAvailable>
    <RunOnlyIfNetworkAvailable>false</RunOnlyIfNetworkAvailable>
    <IdleSettings>
      <StopOnIdleEnd>false</StopOnIdleEnd>
      <RestartOnIdle>false</RestartOnIdle>
    </IdleSettings>
    <AllowStartOnDemand>true</AllowStartOnDemand>
    <Enabled>true</Enabled>
    <Hidden>false</Hidden>
    <RunOnlyIfIdle>false</RunOnlyIfIdle>
    <WakeToRun>false</WakeToRun>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <Priority>5</Priority>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>3</Count>
    </RestartOnFailure>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>` + xmlEscape(e.Executable) + `</Command>
      <Arguments>` + xmlEscape(strings.Join(args, " ")) + `</Arguments>
    </Exec>
  </Actions>
</Task>
`
	return checkXML(s)
}

// TaskXMLFile encodes the task's XML as schtasks wants its file: UTF-16LE
// with a byte order mark, CRLF line ends.
func TaskXMLFile(xmlText string) []byte {
	s := strings.ReplaceAll(xmlText, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\n", "\r\n")
	u := utf16.Encode([]rune(s))
	out := make([]byte, 2, 2+2*len(u))
	out[0], out[1] = 0xFF, 0xFE
	for _, c := range u {
		out = append(out, byte(c), byte(c>>8))
	}
	return out
}

// windowsEscapeArg quotes an argument the way CommandLineToArgvW undoes
// (syscall.EscapeArg's rules, which exist only on Windows).
func windowsEscapeArg(s string) string {
	if s == "" {
		return `""`
	}
	if !strings.ContainsAny(s, " \t\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			slashes++
		case '"':
			for ; slashes > 0; slashes-- {
				b.WriteByte('\\')
			}
			b.WriteByte('\\')
		default:
			slashes = 0
		}
		b.WriteByte(c)
	}
	for ; slashes > 0; slashes-- {
		b.WriteByte('\\')
	}
	b.WriteByte('"')
	return b.String()
}

// TrayLoginArg is the argument the tray app gets when it starts at login:
// the tray alone, no window.
const TrayLoginArg = "--background"

// DesktopEntry is the XDG autostart entry that starts the tray at login
// (the Desktop Entry Specification; autostart per the XDG Autostart
// Specification).
func (e Env) DesktopEntry() (string, error) {
	if !isAbs("linux", e.Executable) {
		return "", fmt.Errorf("the executable %q is not an absolute path", e.Executable)
	}
	if strings.ContainsAny(e.Executable, "\n\r\x00") {
		return "", fmt.Errorf("the executable path %q holds a line break", e.Executable)
	}
	return `[Desktop Entry]
Type=Application
Name=` + DisplayName + `
Comment=Starts the Switchboard tray at login ('switchboard autostart off' removes this file)
Exec=` + desktopExecArg(e.Executable) + " " + TrayLoginArg + `
Terminal=false
X-GNOME-Autostart-enabled=true
`, nil
}

// desktopExecArg quotes one argument of an Exec key: an argument with a
// reserved character is double-quoted, with '"', '`', '$' and '\' escaped
// by a backslash inside the quotes; '%' (a field code) is doubled; and the
// value as a whole escapes each backslash once more (a string value's
// escape rules).
func desktopExecArg(a string) string {
	a = strings.ReplaceAll(a, "%", "%%")
	if strings.ContainsAny(a, " \t\"'\\><~|&;$*?#()`") {
		a = `"` + strings.NewReplacer(`"`, `\"`, "`", "\\`", `$`, `\$`, `\`, `\\`).Replace(a) + `"`
	}
	return strings.ReplaceAll(a, `\`, `\\`)
}

// AutostartPlist is the LaunchAgent that starts the tray at login on macOS.
func (e Env) AutostartPlist() (string, error) {
	if !isAbs("darwin", e.Executable) {
		return "", fmt.Errorf("the executable %q is not an absolute path", e.Executable)
	}
	return checkXML(plistHead + `	<key>Label</key>
	<string>` + xmlEscape(AutostartLabel) + `</string>
	<key>ProgramArguments</key>
	<array>
		<string>` + xmlEscape(e.Executable) + `</string>
		<string>` + TrayLoginArg + `</string>
	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Interactive</string>
	<key>LimitLoadToSessionType</key>
	<string>Aqua</string>
</dict>
</plist>
`)
}

// RunCommand is the tray's command line under the Windows Run key.
func (e Env) RunCommand() (string, error) {
	if !isAbs("windows", e.Executable) {
		return "", fmt.Errorf("the executable %q is not an absolute path", e.Executable)
	}
	return `"` + e.Executable + `" ` + TrayLoginArg, nil
}

var xmlEscaper = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;", `"`, "&quot;", `'`, "&apos;")

func xmlEscape(s string) string { return xmlEscaper.Replace(s) }

// checkXML refuses what no XML file may hold (control characters), and
// what kardianos/service's template engine would take for an action.
func checkXML(s string) (string, error) {
	for _, r := range s {
		if r < 32 && r != '\n' && r != '\t' && r != '\r' {
			return "", fmt.Errorf("a path or argument holds the control character %U, which XML cannot carry", r)
		}
	}
	return s, nil
}
