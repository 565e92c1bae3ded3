package activity

import (
	"context"
	"testing"
	"time"
)

// BenchmarkWrite is the writer's cost per record: b.N records added, then
// flushed, timed together (the writer's commits dominate).
func BenchmarkWrite(b *testing.B) {
	l := open(b, Options{RetainDays: -1, // the host's queue (4096) and linger
		Redactor: NewRedactor(map[string]string{"API_KEY": canary})})
	r := rec("files", "claude-ai", "read_file", time.Now(), OK)
	args := []byte(`{"path":"/home/user/projects/switchboard/README.md","head":40}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for !l.Add(r, args) {
			if err := l.Flush(context.Background()); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := l.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
}
