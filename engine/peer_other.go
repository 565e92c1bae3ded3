//go:build !linux

package engine

// SandboxedPeer is Linux's: elsewhere no server is confined in a way the
// host can tell from a peer's pid (macOS's Seatbelt denies the sockets
// themselves), so no peer is refused by it.
func SandboxedPeer(pid int, servers map[int]string) (name string, refused bool) { return "", false }
