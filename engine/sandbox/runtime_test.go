//go:build unix

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// TestRuntimeNeeds: the executable's install, a script's interpreter and
// node_modules, the caches (read-only), the temp directory; never HOME,
// its ancestors, /, a shared prefix such as ~/.local or ~/.cargo, nor a
// credential file, whatever the layout.
func TestRuntimeNeeds(t *testing.T) {
	home := t.TempDir()
	// ~/bin/tool: its "prefix" would be HOME itself.
	bin := filepath.Join(home, "bin")
	nodeBin := filepath.Join(home, ".nvm", "versions", "node", "v22", "bin")
	pkg := filepath.Join(home, "proj", "node_modules", "@x", "server", "dist")
	localBin := filepath.Join(home, ".local", "bin")
	cargoBin := filepath.Join(home, ".cargo", "bin")
	uvTool := filepath.Join(home, ".local", "share", "uv", "tools", "mcp-x", "bin")
	for _, d := range []string{bin, nodeBin, pkg, localBin, cargoBin, uvTool, filepath.Join(home, ".npm"), filepath.Join(home, ".local", "share", "keyrings")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	tool := filepath.Join(bin, "tool")
	node := filepath.Join(nodeBin, "node")
	script := filepath.Join(pkg, "index.js")
	for f, body := range map[string]string{tool: "#!/usr/bin/env node\n", node: "ELF", script: "x", filepath.Join(uvTool, "mcp-x"): "ELF",
		filepath.Join(cargoBin, "mcp-rs"): "ELF", filepath.Join(home, ".npmrc"): "//registry/:_authToken=x", filepath.Join(home, ".cargo", "credentials.toml"): "x"} {
		if err := os.WriteFile(f, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(uvTool, "mcp-x"), filepath.Join(localBin, "mcp-x")); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	prot := serverspec.Protected(home)
	read, write := Runtime{Exe: tool, Args: []string{script, "relative", home}, Home: home, Path: nodeBin + ":/usr/bin", Temp: tmp, Net: NetNone, Protected: prot}.Needs()
	for _, want := range []string{tool, filepath.Join(home, ".nvm", "versions", "node", "v22"), filepath.Join(home, "proj", "node_modules"), "/usr", procRead(), filepath.Join(home, ".npm")} {
		if !slices.Contains(read, want) {
			t.Errorf("read lacks %s: %v", want, read)
		}
	}
	for _, want := range []string{tmp, "/dev/null"} {
		if !slices.Contains(write, want) {
			t.Errorf("write lacks %s: %v", want, write)
		}
	}
	if len(write) != 3 {
		t.Errorf("write is more than the temp and the null devices (a cache must be read-only): %v", write)
	}
	// An executable in ~/.local/bin (a link into uv's tool folder) and one
	// in ~/.cargo/bin: their own file and package folder, not the prefix.
	r2, _ := Runtime{Exe: filepath.Join(localBin, "mcp-x"), Home: home, Net: NetNone, Protected: prot}.Needs()
	r3, _ := Runtime{Exe: filepath.Join(cargoBin, "mcp-rs"), Home: home, Net: NetNone, Protected: prot}.Needs()
	if !slices.Contains(r2, filepath.Join(home, ".local", "share", "uv", "tools", "mcp-x")) || !slices.Contains(r3, filepath.Join(cargoBin, "mcp-rs")) {
		t.Errorf("an executable's own package is missing: %v / %v", r2, r3)
	}
	for _, p := range slices.Concat(read, write, r2, r3) {
		if p == "/" || p == home || strings.HasPrefix(home, p+"/") {
			t.Errorf("%s is in the needs: never /, HOME or its ancestors", p)
		}
		for _, wide := range []string{".local", ".cargo", ".cargo/bin", ".local/bin", ".npmrc", ".local/share/uv", ".local/share"} {
			if p == filepath.Join(home, wide) {
				t.Errorf("%s is in the needs: a shared prefix, or a credential file", p)
			}
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

// TestPlanByABI: what the status says is enforced follows the ABI.
func TestPlanByABI(t *testing.T) {
	p := Policy{Enabled: true, Preset: "strict", Net: NetNone}
	st := Plan(p, Support{Mechanism: "landlock", ABI: 3, NetNone: "seccomp"})
	all := strings.Join(st.NotEnforced, "; ")
	if !strings.Contains(all, "TCP (Landlock ABI 4)") || !strings.Contains(all, "scoping (Landlock ABI 6)") || st.Net != "seccomp" {
		t.Errorf("ABI 3: %+v", st)
	}
	st = Plan(p, Support{Mechanism: "landlock", ABI: 7})
	if st.Net != "landlock" || !strings.Contains(strings.Join(st.NotEnforced, ";"), "UDP") || !strings.Contains(strings.Join(st.NotEnforced, ";"), "Unix sockets") {
		t.Errorf("ABI 7 without seccomp: %+v", st)
	}
	st = Plan(p, Support{Detail: "no Landlock"})
	if !st.Unconfined || st.Mechanism != "" {
		t.Errorf("no support: %+v", st)
	}
}
