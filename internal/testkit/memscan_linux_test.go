package testkit

import (
	"crypto/rand"
	"encoding/hex"
	"testing"
)

// TestCountInMemory: copies of a value put in memory (two of them side by
// side, one split by a byte) are counted, and no longer once zeroed.
func TestCountInMemory(t *testing.T) {
	raw := make([]byte, 16)
	_, _ = rand.Read(raw)
	mask := make([]byte, 16)
	_, _ = rand.Read(mask)
	val := make([]byte, hex.EncodedLen(len(raw)))
	hex.Encode(val, raw)
	m := NewMasked(val, mask)
	n := m.Len()

	base, err := CountInMemory(m)
	if err != nil {
		t.Fatal(err)
	}
	one := m.Reveal()
	two := make([]byte, 2*n) // side by side
	copy(two, one)
	copy(two[n:], one)
	split := make([]byte, n+1) // not a copy: a byte in the middle
	copy(split, one[:n/2])
	copy(split[n/2+1:], one[n/2:])
	got, err := CountInMemory(m)
	if err != nil {
		t.Fatal(err)
	}
	if got != base+3 {
		t.Errorf("%d copies counted with 3 put in memory, %d before", got, base)
	}
	clear(one)
	clear(two)
	clear(split)
	if got, err = CountInMemory(m); err != nil || got != base {
		t.Errorf("%d copies counted after zeroing them, %d before (%v)", got, base, err)
	}
}
