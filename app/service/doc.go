// Package service runs the host (`switchboard serve --service`) as the
// current user's background service, and starts the tray app at login.
//
// # The background service
//
// One definition per OS, generated here as text (so that golden files pin
// it) and handed to the OS's service manager:
//
//   - Linux: a systemd USER unit, ~/.config/systemd/user/switchboard.service,
//     WantedBy=default.target so that the user's manager starts it at login
//     (kardianos/service's own template says multi-user.target, which a
//     user manager never reaches). Installed through kardianos/service with
//     our text as its SystemdScript and UserService set.
//   - macOS: a launchd LaunchAgent, ~/Library/LaunchAgents/<[LaunchdLabel]>.plist,
//     through kardianos/service with our text as its LaunchdConfig.
//   - Windows: a per-user logon task in Task Scheduler, from our own task
//     XML (schtasks /Create /XML). A Windows service would run outside the
//     user's session, where the user's Credential Manager (the secrets'
//     keyring) is out of reach unless the service runs as that user with a
//     stored password; the logon task runs in the user's session, with the
//     user's token, and stores no password. docs/service.md says more.
//
// A [Manager] drives one of these through a [Controller] that its [System]
// makes: the real ones wrap kardianos/service (Linux, macOS) or schtasks
// (Windows); tests pass a fake, since no test may install a real service.
//
// The service runs `switchboard serve --service`: a host that runs until it
// is told to stop (it never exits when idle), reports Service in host.Info,
// and logs where the OS keeps a service's logs ([LogLocation]).
//
// # Start at login
//
// [Autostart] starts the tray app (`switchboard` with no arguments) at
// login: an XDG autostart entry on Linux, a LaunchAgent on macOS, a value
// under HKCU\Software\Microsoft\Windows\CurrentVersion\Run on Windows.
//
// Every path and file content is a pure function of an [Env], so that
// every OS's answer is tested on one machine.
package service
