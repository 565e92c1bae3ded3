//go:build windows

package api_test

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
)

// On Windows the rendezvous comes from the token's SID and the
// LocalAppData known folder: an app that changes or drops %LOCALAPPDATA%
// moves nothing. Runs under Wine (scripts/wine-test.sh).
func TestIdentityWindows(t *testing.T) {
	id, err := api.CurrentIdentity()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(id.SID, "S-1-5-") || !api.IsAbsFor("windows", id.LocalAppData) || !api.IsAbsFor("windows", id.Home) {
		t.Fatalf("identity %+v", id)
	}
	t.Setenv(api.RuntimeDirEnv, "")
	want, err := api.DefaultRuntimeDir()
	if err != nil {
		t.Fatal(err)
	}
	wantSock, _ := api.DefaultSocketPath()
	t.Setenv("LOCALAPPDATA", `C:\elsewhere`)
	t.Setenv("USERPROFILE", `C:\elsewhere`)
	if got, _ := api.DefaultRuntimeDir(); got != want {
		t.Errorf("with another LOCALAPPDATA the runtime directory moved: %s -> %s", want, got)
	}
	if got, _ := api.DefaultSocketPath(); got != wantSock || !strings.HasSuffix(got, id.SID) {
		t.Errorf("socket %s, want %s (named by the SID)", got, wantSock)
	}
	if !strings.HasSuffix(want, `\switchboard`) || !strings.HasPrefix(want, id.LocalAppData) {
		t.Errorf("runtime directory %s is not in the known folder %s", want, id.LocalAppData)
	}
}
