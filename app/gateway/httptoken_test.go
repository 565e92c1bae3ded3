package gateway

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestHTTPWrongTokenNeverRereads: the endpoint refuses wrong tokens from
// the one in memory for as long as it runs: a request a minute for a day
// of a synctest bubble's clock reads the keyring no time (an endpoint
// used to read it again 5 s after a refusal); the right token is still
// taken. TestHTTPWrongTokenNeverReadsKeyring checks the same over a real
// socket, without the clock.
func TestHTTPWrongTokenNeverRereads(t *testing.T) {
	reads := countKeyringReads(t)
	synctest.Test(t, func(t *testing.T) {
		right := strings.Repeat("r", 64)
		e := &httpEndpoint{token: []byte(right)}
		for i := range 24 * 60 {
			w := httptest.NewRecorder()
			r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1"+HTTPPath, nil)
			r.Header.Set("Authorization", "Bearer "+strings.Repeat("f", 64))
			e.ServeHTTP(w, r)
			if w.Code != http.StatusUnauthorized {
				t.Fatalf("wrong token %d: %d %s", i, w.Code, w.Body)
			}
			testkit.Advance(time.Minute)
		}
		if !e.authorized("Bearer " + right) {
			t.Error("the right token is refused after a day of wrong ones")
		}
	})
	if n := reads.Load(); n != 0 {
		t.Errorf("a day of requests with a wrong token read the keyring %d times, want 0", n)
	}
}
