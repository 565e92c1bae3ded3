//go:build linux

package host

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestSandboxHostStatus: a server under strict runs through the host's
// shim (this binary, as the app's is) and its status says what confines
// it.
func TestSandboxHostStatus(t *testing.T) {
	if s := sandbox.Probe(); s.ABI < 4 {
		testkit.SkipOrFail(t, "Landlock ABI 4 is needed, this kernel has %d (%s)", s.ABI, s.Detail)
	}
	e := helperEntry("modern", "confined")
	e["sandbox"] = "strict"
	th := runHost(t, nil, map[string]any{"confined": e, "free": helperEntry("modern", "free")})
	st := th.waitRunning(t, "confined")
	sb := st.Sandbox
	if sb == nil || sb.Mechanism != "landlock" || sb.Preset != "strict" || sb.Unconfined || len(sb.Enforced) == 0 || !strings.HasPrefix(sb.Net, "landlock") {
		t.Fatalf("sandbox status = %+v", sb)
	}
	if st := th.waitRunning(t, "free"); st.Sandbox != nil {
		t.Errorf("an entry without a sandbox reports %+v", st.Sandbox)
	}
}

// TestSandboxHostUnavailable: on a kernel without Landlock (the ABI forced
// to 0) a server that requires its sandbox fails at once with the issue
// and its remedy; one with "sandboxRequired": false runs unconfined and
// says so.
func TestSandboxHostUnavailable(t *testing.T) {
	t.Setenv(sandbox.ABIEnv, "0")
	req := helperEntry("modern", "required")
	req["sandbox"] = "strict"
	opt := helperEntry("modern", "optional")
	opt["sandbox"] = "strict"
	opt["sandboxRequired"] = false
	th := runHost(t, nil, map[string]any{"required": req, "optional": opt})
	st := th.waitServer(t, "required", "failed", func(s hostapi.ServerStatus) bool { return s.State == "failed" })
	if !strings.Contains(st.LastError, "sandbox requested but not available on this kernel") || !strings.Contains(st.LastError, `"sandboxRequired": false`) {
		t.Errorf("lastError = %q", st.LastError)
	}
	if st.Failures != 1 || st.Sandbox == nil || !st.Sandbox.Unavailable {
		t.Errorf("failures %d (want 1: no retry), sandbox %+v", st.Failures, st.Sandbox)
	}
	found := false
	for _, p := range st.Issues {
		found = found || p.Key == "sandboxRequired" && p.Remedy != nil && p.Remedy.Kind == hostapi.RemedyEdit
	}
	if !found {
		t.Errorf("issues %+v lack the sandboxRequired remedy", st.Issues)
	}
	st = th.waitRunning(t, "optional")
	if st.Sandbox == nil || !st.Sandbox.Unconfined || len(st.Sandbox.NotEnforced) == 0 {
		t.Errorf("optional's sandbox = %+v, want unconfined", st.Sandbox)
	}
}
