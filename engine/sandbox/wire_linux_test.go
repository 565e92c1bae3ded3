//go:build linux

package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// TestPolicyWire: the shim reads back what the host writes, paths with %
// and line feeds included, and the seccomp program of every network mode.
func TestPolicyWire(t *testing.T) {
	p := Policy{Enabled: true, Read: []string{"/usr", "/odd\npath%41"}, Write: []string{"/tmp/x y"}, Net: NetAllow, NetAllow: []string{"h:443", "g:80"}}
	got, s, bpf, err := decodePolicy(EncodePolicy(p, Support{Mechanism: "landlock", ABI: 6, NetNone: "seccomp"}))
	if err != nil {
		t.Fatal(err)
	}
	if s.ABI != 6 || got.Net != NetAllow || !slices.Equal(got.Read, p.Read) || !slices.Equal(got.Write, p.Write) ||
		!slices.Equal(serverspec.AllowPorts(got.NetAllow), []uint16{443, 80}) {
		t.Errorf("round trip: %+v %+v", got, s)
	}
	// Every mode carries the program (Unix sockets are closed in every
	// mode); net none's differs (every family closed).
	if !slices.Equal(bpf, seccompFilter(seccompArch(), false)) {
		t.Errorf("an allow-list policy lost its seccomp program: %v", bpf)
	}
	_, _, bpf, _ = decodePolicy(EncodePolicy(Policy{Enabled: true, Net: NetNone}, Support{ABI: 7, NetNone: "seccomp"}))
	if !slices.Equal(bpf, seccompFilter(seccompArch(), true)) || slices.Equal(bpf, seccompFilter(seccompArch(), false)) {
		t.Errorf("net none's seccomp program is not its own: %v", bpf)
	}
	_, _, bpf, _ = decodePolicy(EncodePolicy(Policy{Enabled: true, Net: NetNone}, Support{ABI: 7}))
	if bpf != nil {
		t.Errorf("a machine without seccomp got a program: %v", bpf)
	}
	for _, bad := range []string{`{"Policy":{}}`, "switchboard-sandbox 1\nabi 7\n", "switchboard-sandbox 2\nabi 7\n", "switchboard-sandbox 3\nnet none\n", "switchboard-sandbox 3\nabi 7\nbpf 0102\n"} {
		if _, _, _, err := decodePolicy(bad); err == nil {
			t.Errorf("policy %q was accepted", bad)
		}
	}
}

// TestCarriedRoundTrip: what the engine carries (EncodeCarried) is what
// the Go shim reads back, values with %, line feeds and = included; a
// line that is not NAME=VALUE is refused.
func TestCarriedRoundTrip(t *testing.T) {
	in := []string{"LD_PRELOAD=/a b/x.so", "TMPDIR=/t%0A", "NLSPATH=x\ny%25z", "GLIBC_TUNABLES=glibc.malloc.check=3", "EMPTY="}
	b := EncodeCarried(in)
	v, ok := strings.CutPrefix(string(b), CarryEnv+"=")
	if !ok || len(b) != cap(b) {
		t.Fatalf("EncodeCarried = %q (len %d, cap %d): want %s=... in a slice of its exact size", b, len(b), cap(b), CarryEnv)
	}
	out, err := decodeCarried(v)
	if err != nil || !slices.Equal(in, out) {
		t.Errorf("decodeCarried = %q, %v; want %q", out, err, in)
	}
	if EncodeCarried(nil) != nil {
		t.Errorf("nothing to carry made an entry")
	}
	for _, bad := range []string{"LD_PRELOAD", "=x", "A=1\n\n"} {
		if _, err := decodeCarried(bad); err == nil {
			t.Errorf("decodeCarried(%q) accepted it", bad)
		}
	}
}
