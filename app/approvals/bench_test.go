package approvals

import (
	"bufio"
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/engine/stdio"
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

// BenchmarkRelayCall: relayed calls over real pipes to a server goroutine
// that answers at once, without a hook ("bare") and with the stage as the
// relay's hook, letting every call go ("stage"): the stage's added cost
// per call, beside the same run without it.
func BenchmarkRelayCall(b *testing.B) {
	stage := New(Options{Destructive: func(server, tool string) bool { return false }})
	stage.SetRules(map[string]Rules{"s": {Policy: &config.Policy{Tools: map[string]string{"delete_*": config.PolicyAsk}}}}, true)
	b.Run("bare", func(b *testing.B) { benchRelay(b, nil) })
	b.Run("stage", func(b *testing.B) { benchRelay(b, stage) })
}

func benchRelay(b *testing.B, hook relay.Hook) {
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	fromServerR, fromServerW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	conn := stdio.NewConn(fromServerR, toServerW, stdio.ConnOptions{Server: "s"})
	defer conn.Close()
	go func() {
		in := bufio.NewReader(toServerR)
		var out []byte
		for {
			line, err := in.ReadSlice('\n')
			if err != nil {
				return
			}
			i := bytes.Index(line, []byte(`"id":`))
			j := bytes.IndexByte(line[i+6:], '"')
			out = append(out[:0], `{"jsonrpc":"2.0","id":`...)
			out = append(out, line[i+5:i+6+j+1]...)
			out = append(out, `,"result":{"content":[{"type":"text","text":"hello"}]}}`+"\n"...)
			if _, err := fromServerW.Write(out); err != nil {
				return
			}
		}
	}()
	r := relay.New("s", conn, relay.Options{Hook: hook})
	done := make(chan error, 1)
	c := &relay.Call{Tool: "read_file", Arguments: []byte(`{"path":"/tmp/x"}`)}
	c.Done = func(res *relay.Result, err error) { done <- err }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Start(c, time.Minute); err != nil {
			b.Fatal(err)
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
}
