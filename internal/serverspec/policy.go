package serverspec

// NetMode is what a sandboxed server may do on the network.
type NetMode string

// The network modes.
const (
	// NetNone: no network at all: no TCP, no UDP, no other socket family
	// but Unix sockets within what the server may read and write.
	NetNone NetMode = "none"
	// NetOutbound: outbound connections anywhere; no listening.
	NetOutbound NetMode = "outbound"
	// NetAllow: outbound TCP connections only to the listed endpoints
	// (Policy.NetAllow).
	NetAllow NetMode = "allow"
)

// Policy is what one server process may do. The zero Policy (Enabled
// false) confines nothing: today's behaviour.
type Policy struct {
	// Enabled says the server is confined.
	Enabled bool
	// Preset names the preset the policy came from ("strict", "files",
	// "network"), "" for an object written by hand; for display only.
	Preset string
	// Read are absolute paths (files or directories, recursively) the
	// server may read and execute.
	Read []string
	// Write are absolute paths the server may read, write, create and
	// delete in (recursively).
	Write []string
	// Net is the network mode; NetAllow uses NetAllow's endpoints.
	Net NetMode
	// NetAllow are "host:port" endpoints for NetAllow.
	NetAllow []string
	// Unix are the named Unix sockets (absolute paths) the server may
	// connect to. Under every preset no other Unix socket, named or
	// abstract, is reachable; no preset grants one.
	Unix []string `json:",omitempty"`
	// Required: a server whose policy cannot be enforced on this machine
	// (no Landlock, an ABI that lacks a needed part) does not start.
	// True unless the entry says "sandboxRequired": false.
	Required bool
}
