//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 12345: "12,345", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestToolsCostCLI: 'tools --cost' with no host says one must run and
// starts none; with a host, --json is tools.cost's answer (the server
// priced, the connected bridge with its --servers and its total), and
// the table shows the server's row, the total in tokens with the method
// line, and the connected app.
func TestToolsCostCLI(t *testing.T) {
	sb := newSandbox(t)
	r := sb.run(t, "", "tools", "--cost")
	if r.code == 0 || !strings.Contains(r.stderr, "needs a running host") {
		t.Fatalf("tools --cost without a host: %s", r)
	}
	if r := sb.run(t, "", "status"); !strings.Contains(r.stdout, "no host is running") {
		t.Fatalf("tools --cost started a host: %s", r)
	}

	sb.serve(t)
	sb.cli(t, sb.helperArgs("srv", "modern")...)
	sb.waitRunning(t, "srv")
	b := sb.bridge(t, "", "--servers", "srv")
	if got := b.tools(t); !slices.Equal(got, []string{"srv__echo"}) {
		t.Fatalf("the bridge lists %v", got)
	}

	var c hostapi.Cost
	testkit.Eventually(t, "tools --cost --json settled", func() (bool, string) {
		c = hostapi.Cost{}
		if err := json.Unmarshal([]byte(sb.cli(t, "tools", "--cost", "--json")), &c); err != nil {
			t.Fatal(err)
		}
		return len(c.Pending) == 0 && len(c.Apps) > 0, fmt.Sprintf("%+v", c)
	})
	if len(c.Servers) != 1 || c.Servers[0].Server != "srv" || c.Servers[0].Tools != 1 || c.Servers[0].Tokens == 0 || c.Total.Tokens <= c.Servers[0].Tokens {
		t.Errorf("tools --cost --json: %+v", c)
	}
	if len(c.Apps) != 1 || c.Apps[0].App != "bridge-test" || !slices.Equal(c.Apps[0].Servers, []string{"srv"}) || c.Apps[0].Total != c.Total || c.Apps[0].ToolCount != 1 {
		t.Errorf("the connected bridge: %+v, want --servers srv and the total %+v", c.Apps, c.Total)
	}

	out := sb.cli(t, "tools", "--cost")
	for _, re := range []string{
		`(?m)^SERVER\s+TOOLS\s+PROMPTS\s+BYTES\s+≈TOKENS`,
		`(?m)^srv\s+1\s+0\s+` + regexp.QuoteMeta(thousands(c.Servers[0].Bytes)) + `\s+` + regexp.QuoteMeta(thousands(c.Servers[0].Tokens)) + `\s*$`,
		`(?m)^Total: ≈ ` + regexp.QuoteMeta(thousands(c.Total.Tokens)) + ` tokens \(o200k\)$`,
		regexp.QuoteMeta(hostapi.CostMethod),
		`(?m)^  APP\s+CONNECTION\s+SELECTION\s+TOOLS\s+≈TOKENS$`,
		`(?m)^  bridge-test\s+bridge pid \d+\s+--servers srv\s+1\s+` + regexp.QuoteMeta(thousands(c.Apps[0].Total.Tokens)) + `$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("tools --cost does not match %s:\n%s", re, out)
		}
	}
	if r := sb.run(t, "", "tools", "srv", "--cost"); r.code == 0 {
		t.Errorf("tools srv --cost: %s", r)
	}
}
