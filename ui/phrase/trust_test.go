package phrase

import "testing"

func TestHeldBadge(t *testing.T) {
	for n, want := range map[int]string{0: "", -1: "", 1: "1 tool changed: review", 3: "3 tools changed: review"} {
		if got := HeldBadge(n); got != want {
			t.Errorf("HeldBadge(%d) = %q, want %q", n, got, want)
		}
	}
}
