//go:build linux

package sandbox

import (
	"slices"
	"testing"
)

// TestPolicyWire: the shim reads back what the host writes, paths with %
// and line feeds included.
func TestPolicyWire(t *testing.T) {
	p := Policy{Enabled: true, Read: []string{"/usr", "/odd\npath%41"}, Write: []string{"/tmp/x y"}, Net: NetAllow, NetAllow: []string{"h:443", "g:80"}}
	got, s, err := decodePolicy(EncodePolicy(p, Support{Mechanism: "landlock", ABI: 6, NetNone: "seccomp"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.ABI != 6 || s.NetNone != "" || got.Net != NetAllow || !slices.Equal(got.Read, p.Read) || !slices.Equal(got.Write, p.Write) ||
		!slices.Equal(AllowPorts(got.NetAllow), []uint16{443, 80}) {
		t.Errorf("round trip: %+v %+v", got, s)
	}
	_, s, _ = decodePolicy(EncodePolicy(Policy{Enabled: true, Net: NetNone}, Support{ABI: 7, NetNone: "seccomp"}))
	if s.NetNone != "seccomp" {
		t.Errorf("net none lost its seccomp filter: %+v", s)
	}
	if _, _, err := decodePolicy(`{"Policy":{}}`); err == nil {
		t.Errorf("a foreign policy was accepted")
	}
}
