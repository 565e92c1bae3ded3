//go:build linux

package host

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
)

// TestGatewayLargeAnswers: large answers on the lean path, from several
// callers at once on two connections, each come back whole and as the
// server wrote them. A large response line is built in a pooled buffer
// that goes back to the pool once written: one given back while part of
// it still waited in a connection's queue would show here as another
// call's bytes in an answer.
func TestGatewayLargeAnswers(t *testing.T) {
	th := runHost(t, nil, map[string]any{"m": gwEntry("gwmodern")})
	th.waitRunning(t, "m")
	conns := []*mcp.ClientSession{gwClient(t, th, gateway.Filter{}, "", nil), gwClient(t, th, gateway.Filter{}, "", nil)}
	var wg sync.WaitGroup
	for ci, c := range conns {
		for g := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 3 {
					// 600 KiB, more than a socket or a pipe takes at once,
					// a different letter for every call.
					text := strings.Repeat(string(rune('a'+(ci*12+g*4+i)%26)), 600<<10)
					want := fmt.Sprintf(`modern {"text":%q}`, text)
					ctx, cancel := context.WithTimeout(context.Background(), wait)
					res, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "m__echo", Arguments: map[string]any{"text": text}})
					cancel()
					if err != nil {
						t.Errorf("connection %d, caller %d, call %d: %v", ci, g, i, err)
						return
					}
					if got := gwText(res); got != want {
						t.Errorf("connection %d, caller %d, call %d: %d bytes back, not the %d sent (starting %.40q)", ci, g, i, len(got), len(want), got)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
}
