package sandbox

// Needs are what the server's runtime needs beside the policy, added by
// the engine, never by the user: the resolved executable, the paths the
// runtime reads (its install, the node or python tree, the npx and uv
// caches, the locale and CA files) and the paths it writes (the server's
// private temporary directory).
type Needs struct {
	// Exec is the resolved executable (absolute), allowed to be executed.
	Exec string
	// Read are absolute paths the runtime reads and executes from.
	Read []string
	// Write are absolute paths the runtime writes in (its private temp).
	Write []string
	// Temp is the server's private temporary directory (also in Write).
	// On macOS it is the one place, beside Policy.Unix, where the server
	// may bind and connect named Unix sockets (its own).
	Temp string
	// Deny are paths never given whatever the lists say (Protected: the
	// credential files and the app's own state). On macOS each is a deny
	// rule after every allow (Seatbelt: the last matching rule wins).
	Deny []string
}
