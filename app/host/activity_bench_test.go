package host

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// BenchmarkActivityHook is the activity log's whole cost per call: the
// hook's Before and After on the call's path, and the writer's share
// (the preview, the redaction, SQLite), by flushing every 1024 calls (so
// that the queue never overflows) and at the end: ns/op is the wall time
// of both on a machine where the writer may run beside the loop.
//
//	go test -run XXX -bench ActivityHook -benchtime 20000x ./app/host/
func BenchmarkActivityHook(b *testing.B) {
	a := newActivityLog(nil)
	a.open(b.TempDir(), config.ActivitySettings{})
	defer a.close()
	a.secretResolved("TOKEN", []byte("a-secret-value-of-some-length"))
	args := json.RawMessage(`{"message":"hello from the benchmark","times":3,"path":"/home/user/project/file.go"}`)
	res := &relay.Result{Raw: json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if i%1024 == 1023 { // the writer keeps up: nothing is dropped
			if err := a.log.Load().Flush(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
		info := &relay.Info{Kind: relay.KindToolCall, Server: "bench", Tool: "echo", Caller: relay.Caller{App: "bench", Conn: "bridge pid 1"},
			Started: time.Now(), Arguments: args}
		_ = a.Before(info)
		a.After(info, res, nil)
	}
	if err := a.log.Load().Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if d := a.log.Load().Dropped(); d > 0 {
		b.ReportMetric(float64(d), "dropped")
	}
}
