package host

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/oauth2"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// countingSource is a renewal that counts its calls and gives tokens
// valid for an hour from the (bubble's) time of the call.
type countingSource struct{ n int }

func (c *countingSource) Token() (*oauth2.Token, error) {
	c.n++
	return &oauth2.Token{AccessToken: fmt.Sprintf("renewed-%d", c.n), TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}, nil
}

// TestTokenRenewedEarly: the stored token of a signed-in server is used
// until refreshEarly before its expiry, then renewed once, and the renewed
// one is used until refreshEarly before its own expiry. On the fake clock
// of a synctest bubble, with the host's refreshEarly (a minute) and a
// token that expires in two hours.
func TestTokenRenewedEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		rec := &tokenRecord{AccessToken: "stored", TokenType: "Bearer", RefreshToken: "r", Expiry: start.Add(2 * time.Hour)}
		renew := &countingSource{}
		src := renewing(rec, renew)
		want := func(at time.Duration, access string, renewals int) {
			t.Helper()
			testkit.Advance(time.Until(start.Add(at)))
			tok, err := src.Token()
			if err != nil || tok.AccessToken != access || renew.n != renewals {
				t.Fatalf("at %v: token %q (%v) after %d renewals; want %q after %d", at, tok.AccessToken, err, renew.n, access, renewals)
			}
		}
		const ms = time.Millisecond
		want(0, "stored", 0)
		want(2*time.Hour-refreshEarly, "stored", 0)
		want(2*time.Hour-refreshEarly+ms, "renewed-1", 1) // it expires at 3h - refreshEarly + 1ms
		want(3*time.Hour-2*refreshEarly+ms, "renewed-1", 1)
		want(3*time.Hour-2*refreshEarly+2*ms, "renewed-2", 2)
	})
}
