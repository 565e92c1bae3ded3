//go:build linux

package host

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestHostStatusProblemsAreData: through a real host and app/client, the
// problems of an entry (in its status and in the config's) carry their
// keys and remedies, and a command not found in the PATH the host gives
// servers is an issue with the install remedy: the command, and for a
// common launcher the program that provides it and its install page. A
// disabled server is not asked to install anything.
func TestHostStatusProblemsAreData(t *testing.T) {
	empty := t.TempDir() // a PATH with nothing in it, as the entry's own
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	th := runHost(t, store, map[string]any{
		"a":      helperEntry("modern", "a"),
		"bad":    map[string]any{"command": "/bin/cat", "cwd": "relative/dir", "arsg": []string{"x"}},
		"ghost":  map[string]any{"command": "sb-no-such-command"},
		"nonpx":  map[string]any{"command": "npx", "args": []string{"-y", "x"}, "env": map[string]string{"PATH": empty}},
		"nodeno": map[string]any{"command": "deno", "args": []string{"run", "x"}},
		"off":    map[string]any{"command": "sb-no-such-command", "disabled": true},
	})
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := client.Dial(ctx, th.opts.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	status := func(name string) hostapi.ServerStatus {
		t.Helper()
		list, err := c.Servers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range list {
			if st.Name == name {
				return st
			}
		}
		t.Fatalf("no %s in %+v", name, list)
		return hostapi.ServerStatus{}
	}

	t.Run("an entry's problems", func(t *testing.T) {
		st := status("bad")
		keys := map[string]hostapi.Problem{}
		for _, p := range st.Problems {
			if p.Server != "bad" {
				t.Errorf("problem of another server: %+v", p)
			}
			keys[p.Key] = p
		}
		if p, ok := keys["cwd"]; !ok || p.Message == "" || p.Remedy != nil {
			t.Errorf("cwd: %+v (of %+v)", p, st.Problems)
		}
		if r := keys["arsg"].Remedy; r == nil || r.Kind != hostapi.RemedyRenameKey || r.From != "arsg" || r.To != "args" {
			t.Errorf("arsg's remedy: %+v", r)
		}
		if st.State != hostapi.StateInvalid {
			t.Errorf("state %s", st.State)
		}
		info, err := c.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, p := range info.Config.Problems {
			found = found || p.Server == "bad" && p.Key == "arsg" && p.Remedy != nil && p.Remedy.Kind == hostapi.RemedyRenameKey
		}
		if !found {
			t.Errorf("the config's problems lack bad's arsg as data: %+v", info.Config.Problems)
		}
		// Starting it is refused with the same problems.
		he := hostErr(t, c.Start(ctx, "bad"), hostapi.CodeInvalidConfig)
		if len(he.Problems) != len(st.Problems) || he.Problems[0].Key == "" || !strings.Contains(he.Error(), "mcpServers.bad.") {
			t.Errorf("start: %v %+v", he, he.Problems)
		}
	})

	install := func(t *testing.T, name, key string) hostapi.Remedy {
		t.Helper()
		st := th.waitServer(t, name, "failed on its command", func(s hostapi.ServerStatus) bool { return s.LastError != "" })
		if st.Resolved != "" {
			t.Skipf("%s's command resolves to %s on this machine", name, st.Resolved)
		}
		var rs []hostapi.Remedy
		for _, p := range st.Issues {
			if p.Remedy != nil && p.Remedy.Kind == hostapi.RemedyInstall {
				if p.Server != name || p.Key != key || p.Fact == "" || p.Message != st.ResolveError {
					t.Errorf("%s's install issue: %+v (resolve error %q)", name, p, st.ResolveError)
				}
				rs = append(rs, *p.Remedy)
			}
		}
		if len(rs) != 1 || !st.ResolveInLastError {
			t.Fatalf("%s: issues %+v, resolve error in the last %v; want one install issue", name, st.Issues, st.ResolveInLastError)
		}
		return rs[0]
	}
	t.Run("a launcher not found in the entry's PATH", func(t *testing.T) {
		r := install(t, "nonpx", "env.PATH")
		if r.Command != "npx" || r.Server != "nonpx" || r.Program != "Node.js" || !strings.HasPrefix(r.URL, "https://nodejs.org/") || !r.EntryPATH || !strings.Contains(r.Text, "env.PATH") {
			t.Errorf("remedy %+v", r)
		}
	})
	t.Run("a launcher not found in the host's PATH", func(t *testing.T) {
		r := install(t, "nodeno", "command")
		if r.Command != "deno" || r.Program != "Deno" || r.URL == "" || r.EntryPATH || !strings.Contains(r.Text, "the PATH the host gives servers") {
			t.Errorf("remedy %+v", r)
		}
	})
	t.Run("a command not found", func(t *testing.T) {
		r := install(t, "ghost", "command")
		if r.Command != "sb-no-such-command" || r.Program != "" || r.URL != "" || r.EntryPATH || !strings.Contains(r.Text, "sb-no-such-command") {
			t.Errorf("remedy %+v", r)
		}
	})
	t.Run("none where nothing is missing", func(t *testing.T) {
		th.waitRunning(t, "a")
		for _, name := range []string{"a", "off", "bad"} {
			if st := status(name); len(st.Issues) != 0 {
				t.Errorf("%s (%s): issues %+v", name, st.State, st.Issues)
			}
		}
		if st := status("off"); st.ResolveError == "" {
			t.Error("off's command resolves: the test proves nothing")
		}
	})
}
