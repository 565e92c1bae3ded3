package cli

import (
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/app/configedit"
)

// sandboxFlagDefs are the sandbox flags of servers add and set (issue 16,
// docs/sandbox.md); they write the entry's "sandbox" key.
var sandboxFlagDefs = []flagDef{
	{name: "sandbox", kind: stringFlag, arg: "PRESET", help: "confine the server: off (no confinement), strict (reads only its own program and runtime, writes only a private temp folder, no network), files (strict plus the folders of --sandbox-read and --sandbox-write) or network (strict plus outbound connections)"},
	{name: "sandbox-read", kind: multiFlag, arg: "PATH", help: "a folder or file the sandboxed server may read (added to sandbox.read)"},
	{name: "sandbox-write", kind: multiFlag, arg: "PATH", help: "a folder the sandboxed server may read and write (added to sandbox.write)"},
	{name: "sandbox-unix", kind: multiFlag, arg: "PATH", help: "a Unix socket the sandboxed server may connect to (added to sandbox.unix; no preset grants one)"},
	{name: "sandbox-net", kind: stringFlag, arg: "NET", help: "the sandboxed server's network: none, outbound, or HOST:PORT,HOST:PORT... (only those endpoints)"},
}

// The sandbox flags belong to both servers add and servers set.
func init() { entryFlagDefs = append(entryFlagDefs, sandboxFlagDefs...) }

// setSandbox applies the sandbox flags to the entry's "sandbox", keeping
// what they do not name.
func setSandbox(entry map[string]json.RawMessage, a *argv) error {
	c := configedit.SandboxChange{Preset: a.str("sandbox"), Read: a.list("sandbox-read"),
		Write: a.list("sandbox-write"), Unix: a.list("sandbox-unix"), Net: a.str("sandbox-net")}
	if c.Empty() {
		return nil
	}
	cur, err := configedit.ReadSandbox(entry["sandbox"])
	if err != nil {
		return err
	}
	next, err := c.Apply(cur)
	if err != nil {
		return usagef("%v", err)
	}
	configedit.SetSandbox(entry, next)
	return nil
}
