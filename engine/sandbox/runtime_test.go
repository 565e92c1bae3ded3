//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRuntimeNeeds: the executable's install, a script's interpreter and
// node_modules, the caches, the temp directory; never HOME, its
// ancestors or /, whatever the layout.
func TestRuntimeNeeds(t *testing.T) {
	home := t.TempDir()
	// ~/bin/tool: its "prefix" would be HOME itself.
	bin := filepath.Join(home, "bin")
	nodeBin := filepath.Join(home, ".nvm", "versions", "node", "v22", "bin")
	pkg := filepath.Join(home, "proj", "node_modules", "@x", "server", "dist")
	for _, d := range []string{bin, nodeBin, pkg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tool := filepath.Join(bin, "tool")
	node := filepath.Join(nodeBin, "node")
	script := filepath.Join(pkg, "index.js")
	for f, body := range map[string]string{tool: "#!/usr/bin/env node\n", node: "ELF", script: "x"} {
		if err := os.WriteFile(f, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	read, write := Runtime{Exe: tool, Args: []string{script, "relative", home}, Home: home, Path: nodeBin + ":/usr/bin", Temp: tmp, Net: NetNone}.Needs()
	for _, want := range []string{tool, filepath.Join(home, ".nvm", "versions", "node", "v22"), filepath.Join(home, "proj", "node_modules"), "/usr", "/proc/self"} {
		if !slices.Contains(read, want) {
			t.Errorf("read lacks %s: %v", want, read)
		}
	}
	for _, want := range []string{tmp, "/dev/null", filepath.Join(home, ".npm")} {
		if !slices.Contains(write, want) {
			t.Errorf("write lacks %s: %v", want, write)
		}
	}
	for _, p := range slices.Concat(read, write) {
		if p == "/" || p == home || strings.HasPrefix(home, p+"/") {
			t.Errorf("%s is in the needs: never /, HOME or its ancestors", p)
		}
		if p == "/etc/resolv.conf" {
			t.Errorf("net none reads resolv.conf")
		}
	}
	read, _ = Runtime{Exe: "/bin/true", Home: home, Net: NetOutbound}.Needs()
	if !slices.Contains(read, "/etc/hosts") {
		t.Errorf("outbound lacks the resolver's files: %v", read)
	}
}

func TestAllowPorts(t *testing.T) {
	got := AllowPorts([]string{"api.example.com:443", "[::1]:8080", "x:443", "nope", "h:0", "h:65536", "h:08"})
	if !slices.Equal(got, []uint16{443, 8080}) {
		t.Errorf("AllowPorts = %v", got)
	}
}

// TestPlanByABI: what the status says is enforced follows the ABI.
func TestPlanByABI(t *testing.T) {
	p := Policy{Enabled: true, Preset: "strict", Net: NetNone}
	st := Plan(p, Support{Mechanism: "landlock", ABI: 3, NetNone: "seccomp"})
	all := strings.Join(st.NotEnforced, "; ")
	if !strings.Contains(all, "TCP (Landlock ABI 4)") || !strings.Contains(all, "scoping (Landlock ABI 6)") || st.Net != "seccomp" {
		t.Errorf("ABI 3: %+v", st)
	}
	st = Plan(p, Support{Mechanism: "landlock", ABI: 7})
	if st.Net != "landlock" || !strings.Contains(strings.Join(st.NotEnforced, ";"), "UDP") {
		t.Errorf("ABI 7 without seccomp: %+v", st)
	}
	st = Plan(p, Support{Detail: "no Landlock"})
	if !st.Unconfined || st.Mechanism != "" {
		t.Errorf("no support: %+v", st)
	}
}
