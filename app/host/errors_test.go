//go:build linux

package host

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// hostErr returns err as a *hostapi.Error with code, or fails.
func hostErr(t *testing.T, err error, code string) *hostapi.Error {
	t.Helper()
	var he *hostapi.Error
	if !errors.As(err, &he) || he.Code != code {
		t.Fatalf("err = %v (%T); want a *hostapi.Error with code %q", err, err, code)
	}
	return he
}

// problemAt returns the problem of key, or fails.
func problemAt(t *testing.T, he *hostapi.Error, key string) hostapi.Problem {
	t.Helper()
	for _, p := range he.Problems {
		if p.Key == key {
			return p
		}
	}
	t.Fatalf("no problem with key %q in %+v", key, he.Problems)
	return hostapi.Problem{}
}

// TestHostErrorsAreData: every method that fails for a user's reason
// answers with a code and its problems as data (keys and remedies), which
// app/client decodes into a *hostapi.Error, through a real host. The
// messages stay the sentences they were.
func TestHostErrorsAreData(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	sec := helperEntry("modern", "sec")
	sec["env"].(map[string]string)["TOKEN"] = "${keyring:gh}"
	off := with(helperEntry("modern", "off"), "disabled", true)
	th := runHost(t, store, map[string]any{"a": helperEntry("modern", "a"), "sec": sec, "off": off})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := client.Dial(ctx, th.opts.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	raw, _ := json.Marshal(helperEntry("modern", "a"))

	t.Run("already exists", func(t *testing.T) {
		he := hostErr(t, c.PutServer(ctx, "a", raw, true), hostapi.CodeAlreadyExists)
		if !errors.Is(he, hostapi.ErrAlreadyExists) || errors.Is(he, hostapi.ErrNotFound) {
			t.Error("errors.Is does not match by code")
		}
		p := problemAt(t, he, hostapi.KeyName)
		if p.Remedy == nil || p.Remedy.Kind != hostapi.RemedyEdit || p.Remedy.Server != "a" {
			t.Errorf("remedy = %+v", p.Remedy)
		}
		if he.Error() != `server "a" already exists: change it with 'switchboard servers set a', or remove it first` {
			t.Errorf("message = %q", he.Error())
		}
		// The wire error is still in the chain, for a caller that reads it.
		var ae *api.Error
		if !errors.As(he, &ae) || ae.Code != hostapi.CodeAlreadyExists {
			t.Errorf("the *api.Error is not in the chain: %v", ae)
		}
	})
	t.Run("invalid name", func(t *testing.T) {
		he := hostErr(t, c.PutServer(ctx, "Bad_Name", raw, true), hostapi.CodeInvalidName)
		problemAt(t, he, hostapi.KeyName)
	})
	t.Run("invalid entry", func(t *testing.T) {
		bad := with(with(helperEntry("modern", "c"), "cwd", "relative/dir"), "arsg", []string{"x"})
		b, _ := json.Marshal(bad)
		he := hostErr(t, c.PutServer(ctx, "c", b, true), hostapi.CodeInvalidConfig)
		if p := problemAt(t, he, "cwd"); p.Server != "c" || p.Remedy != nil || p.Message == "" {
			t.Errorf("cwd: %+v", p)
		}
		p := problemAt(t, he, "arsg")
		if r := p.Remedy; r == nil || r.Kind != hostapi.RemedyRenameKey || r.From != "arsg" || r.To != "args" || r.Server != "c" {
			t.Errorf("arsg's remedy = %+v", r)
		}
		if p.Fact != `is not a known key: did you mean "args"?` || p.Text() != p.Fact {
			t.Errorf("arsg's fact = %q", p.Fact)
		}
	})
	t.Run("not found", func(t *testing.T) {
		for name, err := range map[string]error{
			"start":  c.Start(ctx, "nope"),
			"remove": c.RemoveServer(ctx, "nope"),
			"set":    c.PutServer(ctx, "nope", raw, false),
			"get":    func() error { _, err := c.GetServer(ctx, "nope"); return err }(),
			"logs":   func() error { _, err := c.Logs(ctx, "nope"); return err }(),
		} {
			if !errors.Is(err, hostapi.ErrNotFound) {
				t.Errorf("%s: %v, want code not_found", name, err)
			}
		}
	})
	t.Run("disabled", func(t *testing.T) {
		he := hostErr(t, c.Start(ctx, "off"), hostapi.CodeDisabled)
		if r := he.Remedies(); len(r) != 1 || r[0].Kind != hostapi.RemedyEnable || r[0].Server != "off" {
			t.Errorf("remedies = %+v", r)
		}
	})
	t.Run("not running", func(t *testing.T) {
		th.waitRunning(t, "a")
		if err := c.Stop(ctx, "a", true); err != nil {
			t.Fatal(err)
		}
		he := hostErr(t, func() error { _, err := c.Tools(ctx, "a"); return err }(), hostapi.CodeNotRunning)
		if r := he.Remedies(); len(r) != 1 || r[0].Kind != hostapi.RemedyStart || r[0].Server != "a" {
			t.Errorf("remedies = %+v", r)
		}
	})
	t.Run("secret missing", func(t *testing.T) {
		st := th.waitServer(t, "sec", "waiting for secret", func(s hostapi.ServerStatus) bool { return s.State == hostapi.State(supervisor.WaitingSecret) })
		// The status says it as data too, for a front end to offer.
		if len(st.Issues) != 1 || st.Issues[0].Remedy == nil || st.Issues[0].Remedy.Kind != hostapi.RemedySetSecret || st.Issues[0].Remedy.Secret != "gh" {
			t.Errorf("status issues = %+v", st.Issues)
		}
		for _, other := range th.list(t) {
			if other.Name != "sec" && len(other.Issues) != 0 {
				t.Errorf("%s (%s) has issues: %+v", other.Name, other.State, other.Issues)
			}
		}
		_, err := c.Call(ctx, "sec", "echo", nil)
		he := hostErr(t, err, hostapi.CodeSecretMissing)
		p := problemAt(t, he, "env.TOKEN")
		if r := p.Remedy; r == nil || r.Kind != hostapi.RemedySetSecret || r.Secret != "gh" {
			t.Errorf("remedy = %+v", r)
		}
	})
	t.Run("bad secret", func(t *testing.T) {
		_, err := c.SetSecret(ctx, "bad name!", "v")
		hostErr(t, err, hostapi.CodeBadRequest)
		hostErr(t, c.DeleteSecret(ctx, "never-set"), hostapi.CodeNotFound)
	})
}
