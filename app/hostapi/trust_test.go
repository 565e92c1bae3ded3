package hostapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHeldOnTheWire: a status's Held travels as "held", is left out when
// 0 (what an older host sends, and what an older client never reads), and
// comes back.
func TestHeldOnTheWire(t *testing.T) {
	b, err := json.Marshal(ServerStatus{Name: "web", State: StateRunning, Held: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"held":2`) {
		t.Errorf("encoded as %s", b)
	}
	var st ServerStatus
	if err := json.Unmarshal(b, &st); err != nil || st.Held != 2 {
		t.Errorf("decoded Held %d (%v)", st.Held, err)
	}
	b, _ = json.Marshal(ServerStatus{Name: "web", State: StateRunning})
	if strings.Contains(string(b), "held") {
		t.Errorf("a status with none held carries it: %s", b)
	}
	// An older host's status: no "held".
	st = ServerStatus{}
	if err := json.Unmarshal([]byte(`{"name":"web","state":"running","tools":1,"prompts":0,"resources":0,"command":"x","restarts":0,"failures":0}`), &st); err != nil || st.Held != 0 {
		t.Errorf("an older host's status: Held %d (%v)", st.Held, err)
	}
}
