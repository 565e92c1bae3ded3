package host

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

// shimPath is the sandbox's exec shim: switchboard-sandbox installed in
// ../libexec/switchboard (the packages) or beside this program (a static
// PIE whose C constructor confines and execve's before anything loads:
// one small exec, about 3 ms here), else this program itself (its C
// constructor runs the same shim, but after the dynamic loader has
// loaded Fyne's libraries: about 10 ms; bench/sandbox). "" if
// neither can be found: a sandboxed server then fails to start with that
// said.
func shimPath() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return shimPathFor(exe, runtime.GOOS)
}

// shimPathFor is shimPath for the executable exe on goos.
func shimPathFor(exe, goos string) string {
	name := "switchboard-sandbox"
	if goos == "windows" {
		name += ".exe"
	}
	dir := filepath.Dir(exe)
	// Installed: /usr/libexec/switchboard beside /usr/bin (the packages);
	// built: beside the executable.
	for _, small := range []string{filepath.Join(dir, "..", "libexec", "switchboard", name), filepath.Join(dir, name)} {
		if fi, err := os.Stat(small); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return small
		}
	}
	return exe
}

// sandboxStatus is what the host API says of a server's sandbox.
func sandboxStatus(name string, ss supervisor.Status) *hostapi.SandboxStatus {
	if ss.SandboxUnavailable {
		return &hostapi.SandboxStatus{Unavailable: true, NotEnforced: []string{ss.LastError}}
	}
	sb := ss.Sandbox
	if sb == nil {
		return nil
	}
	return &hostapi.SandboxStatus{Preset: sb.Preset, Mechanism: sb.Mechanism, ABI: sb.ABI, Net: sb.Net,
		Enforced: sb.Enforced, NotEnforced: sb.NotEnforced, Unconfined: sb.Unconfined}
}

// sandboxIssue is the issue of a server whose required sandbox this
// machine cannot enforce: edit the entry (or the kernel).
func sandboxIssue(name, lastError string) hostapi.Problem {
	return hostapi.Problem{Server: name, Key: "sandboxRequired", Message: lastError,
		Fact:   fmt.Sprintf("server %q: sandbox requested but not available on this kernel", name),
		Remedy: &hostapi.Remedy{Kind: hostapi.RemedyEdit, Server: name}}
}
