package activity

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// BenchmarkAdd is what recording costs a call: Add with typical arguments
// (the writer runs concurrently, as in the host). Run it with
// -benchtime=200000x: the queue then holds every record, and only when
// b.N exceeds it does the loop wait (untimed) for the writer.
func BenchmarkAdd(b *testing.B) { addRecords(b, 1<<18, false, 0) }

// BenchmarkWrite is the writer's cost per record, which the host pays on
// its writer goroutine: b.N records added with the host's queue (4096)
// and linger, and flushed, all timed (the writer's commits dominate).
// Its baseline, rows=1, writes one record per INSERT statement, as the
// writer did before it wrote insertRows.
func BenchmarkWrite(b *testing.B) {
	for _, rows := range []int{1, insertRows} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) { addRecords(b, 0, true, rows) })
	}
}

// addRecords adds b.N typical records to a log whose queue holds queue
// (0: the default) and whose writer puts rows records in a statement (0:
// insertRows). A full queue is flushed, untimed unless writes: then the
// last flush is timed too.
func addRecords(b *testing.B, queue int, writes bool, rows int) {
	l := open(b, Options{RetainDays: -1, QueueSize: queue,
		Redactor: NewRedactor(map[string]string{"API_KEY": canary})})
	l.rowsPerInsert = rows
	r := rec("files", "claude-ai", "read_file", time.Now(), OK)
	args := []byte(`{"path":"/home/user/projects/switchboard/README.md","head":40}`)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := testkit.ProcessCPU()
	for i := 0; i < b.N; i++ {
		for !l.Add(r, args) {
			if !writes {
				b.StopTimer()
			}
			if err := l.Flush(context.Background()); err != nil {
				b.Fatal(err)
			}
			if !writes {
				b.StartTimer()
			}
		}
	}
	if writes {
		if err := l.Flush(context.Background()); err != nil {
			b.Fatal(err)
		}
		if used := testkit.ProcessCPU() - cpu0; used > 0 {
			b.ReportMetric(float64(used.Nanoseconds())/1e3/float64(b.N), "cpu-us/op")
		}
	}
}

// BenchmarkPreview is the writer's cost of a preview of large arguments
// (off the call's path).
func BenchmarkPreview(b *testing.B) {
	red := NewRedactor(map[string]string{"API_KEY": canary, "OTHER": "another-secret-value"})
	args := []byte(`{"path":"/tmp/x","content":"` + strings.Repeat("lorem ipsum ", 1000) + `"}`)
	b.ReportAllocs()
	for b.Loop() {
		Preview(args, true, red)
	}
}

const benchRecords = 1_000_000

var (
	benchDir  string
	benchOnce sync.Once
	benchErr  error
)

// benchDB builds, once per test binary, a database of 1,000,000 records
// over 20 servers and 30 days.
func benchDB(b *testing.B) string {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "activity-bench")
		if benchErr != nil {
			return
		}
		path := filepath.Join(benchDir, "activity.db")
		var l *Log
		l, benchErr = Open(Options{Path: path, RetainDays: -1, MaxBytes: -1, QueueSize: 1 << 16, BatchSize: 4096})
		if benchErr != nil {
			return
		}
		start := time.Now().Add(-30 * 24 * time.Hour)
		step := 30 * 24 * time.Hour / benchRecords
		args := []byte(`{"path":"/home/user/projects/switchboard/README.md","head":40}`)
		for i := range benchRecords {
			o := OK
			if i%17 == 0 {
				o = ToolError
			}
			r := rec(fmt.Sprintf("server-%02d", i%20), "claude-ai", fmt.Sprintf("tool_%d", i%7),
				start.Add(time.Duration(i)*step), o)
			r.Duration = time.Duration(i%1000) * time.Microsecond
			for !l.Add(r, args) { // the queue is full: wait for the writer
				if benchErr = l.Flush(context.Background()); benchErr != nil {
					return
				}
			}
		}
		if benchErr = l.Flush(context.Background()); benchErr == nil {
			benchErr = l.Close()
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return filepath.Join(benchDir, "activity.db")
}

// BenchmarkQuery1M is the activity page's query on a million records: one
// server over the last day, newest first, the first 1000.
func BenchmarkQuery1M(b *testing.B) {
	path := benchDB(b)
	l := open(b, Options{Path: path, RetainDays: -1, MaxBytes: -1})
	now := time.Now()
	f := Filter{Server: "server-07", Since: now.Add(-24 * time.Hour), Until: now, Limit: 1000}
	b.ResetTimer()
	for b.Loop() {
		rs, err := l.Query(context.Background(), f)
		if err != nil || len(rs) != 1000 {
			b.Fatalf("%d records, %v", len(rs), err)
		}
	}
}

// BenchmarkQuery1MAll returns every record of one server over a day (about
// 1,700 of the million), no limit.
func BenchmarkQuery1MAll(b *testing.B) {
	path := benchDB(b)
	l := open(b, Options{Path: path, RetainDays: -1, MaxBytes: -1})
	now := time.Now()
	f := Filter{Server: "server-07", Since: now.Add(-24 * time.Hour), Until: now, Limit: -1}
	b.ResetTimer()
	for b.Loop() {
		rs, err := l.Query(context.Background(), f)
		if err != nil || len(rs) == 0 {
			b.Fatalf("%d records, %v", len(rs), err)
		}
	}
}

// BenchmarkCounts1M is the per-server counts over the last day on a
// million records.
func BenchmarkCounts1M(b *testing.B) {
	path := benchDB(b)
	l := open(b, Options{Path: path, RetainDays: -1, MaxBytes: -1})
	now := time.Now()
	b.ResetTimer()
	for b.Loop() {
		cs, err := l.Counts(context.Background(), now.Add(-24*time.Hour), now)
		if err != nil || len(cs) != 20 {
			b.Fatalf("%d servers, %v", len(cs), err)
		}
	}
}
