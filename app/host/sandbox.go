package host

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

// shimPath is the sandbox's exec shim: switchboard-sandbox installed
// beside this program (small: it starts in about a millisecond), else
// this program itself (main dispatches sandbox.ShimArg before anything
// else, but its package initialisation runs first: tens of ms). "" if
// neither can be found: a sandboxed server then fails to start with that
// said.
func shimPath() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	name := "switchboard-sandbox"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	small := filepath.Join(filepath.Dir(exe), name)
	if fi, err := os.Stat(small); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return small
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
