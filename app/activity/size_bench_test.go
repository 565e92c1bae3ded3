package activity

// The size benchmarks use only the API (Open, Add, Flush, prune, Close),
// so that the same file measures an earlier version too (docs/activity.md,
// "Size").

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// diskBytes is the size of the database's files on disk: the database,
// its -wal and its -shm (a missing one counts 0).
func diskBytes(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// floodArgs is size bytes of JSON arguments of many members, so that
// each record's preview is full (1 KiB).
func floodArgs(size int) []byte {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; b.Len() < size-200; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%06d":"%s"`, i, strings.Repeat("v", 90))
	}
	b.WriteString("}")
	return []byte(b.String())
}

// sampler stats the database's files every 200 µs until stop is called,
// and returns the largest total it saw.
func sampler(path string) (stop func() int64) {
	var peak atomic.Int64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if n := diskBytes(path); n > peak.Load() {
				peak.Store(n)
			}
			select {
			case <-done:
				return
			case <-time.After(200 * time.Microsecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// flood adds batches batches of per records with 1 MiB arguments (full
// 1 KiB previews) to l, flushing after each, and calls after(b, records)
// after each batch. It returns the number of records added.
func flood(t testing.TB, l *Log, batches, per int, after func(b, records int)) int {
	args := floodArgs(1 << 20)
	i := 0
	for b := range batches {
		for range per {
			r := rec(fmt.Sprintf("server-%d", i%5), "flood", fmt.Sprintf("t%06d", i), t0.Add(time.Duration(i)*time.Millisecond), OK)
			r.ResultBytes = 1 << 20
			for !l.Add(r, args) {
				flush(t, l)
			}
			i++
		}
		flush(t, l)
		after(b, i)
	}
	return i
}

// BenchmarkFlood is the flood: records with 1 MiB arguments and
// results (full 1 KiB previews), 20,000 of them, into a log of MaxBytes
// (2 MiB, and 1 MiB: the least the config allows), as fast as the writer
// takes them. It reports the largest size of the database's files seen
// by a sampler (peak-MB, and peak-x, its ratio to MaxBytes), the files'
// size at the end (end-MB), and the records written per second; with -v
// it logs the size every 2,000 records. Run it with -benchtime 1x.
func BenchmarkFlood(b *testing.B) {
	for _, limit := range []int64{2 << 20, 1 << 20} {
		b.Run(fmt.Sprintf("MaxBytes=%d", limit), func(b *testing.B) {
			for range b.N {
				path := filepath.Join(b.TempDir(), "activity.db")
				l, err := Open(Options{Path: path, RetainDays: -1, MaxBytes: limit})
				if err != nil {
					b.Fatal(err)
				}
				peak := sampler(path)
				start := time.Now()
				var series []string
				n := flood(b, l, 100, 200, func(batch, records int) {
					if records%2000 == 0 {
						series = append(series, fmt.Sprintf("%d:%.2fMB", records, float64(diskBytes(path))/1e6))
					}
				})
				took := time.Since(start)
				p := peak()
				end := diskBytes(path)
				l.Close()
				b.ReportMetric(float64(p)/1e6, "peak-MB")
				b.ReportMetric(float64(p)/float64(limit), "peak-x")
				b.ReportMetric(float64(end)/1e6, "end-MB")
				b.ReportMetric(float64(n)/took.Seconds(), "records/s")
				b.Logf("MaxBytes %d: size after records: %s", limit, strings.Join(series, " "))
			}
		})
	}
}

var (
	oversizedOnce sync.Map // size in MB -> *oversizedDB
)

type oversizedDB struct {
	once sync.Once
	path string
	size int64
	err  error
}

// oversizedTemplate builds, once per benchmark binary, a log of about mb
// megabytes with no size limit.
func oversizedTemplate(b *testing.B, mb int) (string, int64) {
	v, _ := oversizedOnce.LoadOrStore(mb, &oversizedDB{})
	o := v.(*oversizedDB)
	o.once.Do(func() {
		dir, err := os.MkdirTemp("", "activity-oversized")
		if err != nil {
			o.err = err
			return
		}
		templateDirs.Store(dir, true)
		o.path = filepath.Join(dir, "activity.db")
		l, err := Open(Options{Path: o.path, RetainDays: -1, MaxBytes: -1, QueueSize: 1 << 14})
		if err != nil {
			o.err = err
			return
		}
		for diskBytes(o.path) < int64(mb)*1e6 {
			flood(b, l, 1, 2000, func(int, int) {})
		}
		if o.err = l.Close(); o.err == nil {
			o.size = diskBytes(o.path)
		}
	})
	if o.err != nil {
		b.Fatal(o.err)
	}
	return o.path, o.size
}

// templateDirs are the oversized templates' directories, removed by
// TestMain.
var templateDirs sync.Map

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// BenchmarkOpenOversized is a host's start on a log far over its
// MaxBytes (2 MiB): a copy of a 32 MB or 234 MB log (the issue's) is
// opened (open-ms: Open's wall time), then prune waits for retention to
// be done (prune-ms: the time from Open's return until the log is within
// its limit: 0 when Open did it all) and the files' size is taken
// (after-MB). Run it with -benchtime 3x.
func BenchmarkOpenOversized(b *testing.B) {
	for _, mb := range []int{32, 234} {
		b.Run(fmt.Sprintf("MB=%d", mb), func(b *testing.B) {
			src, size := oversizedTemplate(b, mb)
			var open, prune time.Duration
			var after int64
			for range b.N {
				path := filepath.Join(b.TempDir(), "activity.db")
				if err := copyFile(path, src); err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				l, err := Open(Options{Path: path, RetainDays: -1, MaxBytes: 2 << 20})
				if err != nil {
					b.Fatal(err)
				}
				opened := time.Now()
				if err := l.prune(context.Background()); err != nil {
					b.Fatal(err)
				}
				open += opened.Sub(start)
				prune += time.Since(opened)
				after = diskBytes(path)
				l.Close()
			}
			b.ReportMetric(float64(size)/1e6, "before-MB")
			b.ReportMetric(float64(open.Milliseconds())/float64(b.N), "open-ms")
			b.ReportMetric(float64(prune.Milliseconds())/float64(b.N), "prune-ms")
			b.ReportMetric(float64(after)/1e6, "after-MB")
		})
	}
}
