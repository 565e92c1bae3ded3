package approvals

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// BenchmarkBeforeAllow: the stage's cost on a call that goes (the usual
// case): the rules' lookup, the policy's patterns and the destructive
// check. It must not allocate.
func BenchmarkBeforeAllow(b *testing.B) {
	s := New(Options{Destructive: func(server, tool string) bool { return false }})
	s.SetRules(map[string]Rules{"fs": {Policy: &config.Policy{Tools: map[string]string{"delete_*": config.PolicyAsk}}}}, true)
	i := &relay.Info{Server: "fs", Tool: "read_file"}
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Before(i); err != nil || i.Hold != nil {
			b.Fatal(err)
		}
	}
}
