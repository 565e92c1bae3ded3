package activity

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// checkNewest checks that l holds some but not all of the n records
// flood added, and that they are the newest, contiguous.
func checkNewest(t *testing.T, l *Log, n int) []Record {
	t.Helper()
	rs, err := l.Query(context.Background(), Filter{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 || len(rs) >= n {
		t.Fatalf("%d records kept of %d", len(rs), n)
	}
	for j, r := range rs {
		if want := fmt.Sprintf("t%06d", n-1-j); r.Target != want {
			t.Fatalf("record %d is %s, want %s (the newest, contiguous)", j, r.Target, want)
		}
	}
	return rs
}

// TestFloodStaysWithinMaxBytes: a flood of records with 1 MiB arguments
// (full 1 KiB previews), about four times MaxBytes in all, never takes the
// database's files (with -wal and -shm) past 1.1x MaxBytes: checked after
// every batch of records and by a sampler that stats the files throughout.
// The newest records are kept, contiguous, and the log keeps a useful
// share of its limit (it does not prune everything). MaxBytes 2 MiB, and
// 1 MiB (the least the config allows).
func TestFloodStaysWithinMaxBytes(t *testing.T) {
	for _, c := range []struct {
		limit        int64
		batches, per int
	}{{2 << 20, 30, 200}, {1 << 20, 20, 150}} {
		t.Run(fmt.Sprintf("MaxBytes=%d", c.limit), func(t *testing.T) {
			ceiling := c.limit * 11 / 10
			path := filepath.Join(tempDir(t), "activity.db")
			l := open(t, Options{Path: path, RetainDays: -1, MaxBytes: c.limit})
			peak := sampler(path)
			var worst int64
			n := flood(t, l, c.batches, c.per, func(b, records int) {
				size := diskBytes(path)
				worst = max(worst, size)
				if size > ceiling {
					t.Errorf("after batch %d (%d records): the database's files are %d bytes, over 1.1x MaxBytes (%d)", b, records, size, ceiling)
				}
			})
			if p := peak(); p > ceiling {
				t.Errorf("the sampler saw %d bytes of database files during the flood, over 1.1x MaxBytes (%d)", p, ceiling)
			} else {
				t.Logf("largest after a batch %d bytes, sampled peak %d bytes (%.2fx MaxBytes)", worst, p, float64(p)/float64(c.limit))
			}
			rs := checkNewest(t, l, n)
			used, err := l.usedBytes(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if used < c.limit/2 {
				t.Errorf("live pages %d bytes after the flood: the log keeps less than half its limit (%d)", used, c.limit)
			}
			t.Logf("kept %d of %d records, live pages %d bytes", len(rs), n, used)
		})
	}
}

// oversized writes a log of n flood records with no size limit at path.
func oversized(t testing.TB, path string, n int) {
	l, err := Open(Options{Path: path, RetainDays: -1, MaxBytes: -1, QueueSize: 1 << 14})
	if err != nil {
		t.Fatal(err)
	}
	flood(t, l, 1, n, func(int, int) {})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenLeavesAnOversizedLogToTheWriter: Open of a log four times its
// MaxBytes does no pruning itself (every record is still there when it
// returns, the writer's first pass held back until the test lets it go),
// records added meanwhile are written, and the writer then brings the
// files within 1.1x MaxBytes, keeping the newest records.
func TestOpenLeavesAnOversizedLogToTheWriter(t *testing.T) {
	const limit = 2 << 20
	path := filepath.Join(tempDir(t), "activity.db")
	const n = 6000
	oversized(t, path, n)
	before := diskBytes(path)
	if before < 4*limit {
		t.Fatalf("the oversized log is %d bytes, want at least %d", before, 4*limit)
	}
	gate := make(chan struct{})
	l, err := Open(Options{Path: path, RetainDays: -1, MaxBytes: limit, startPrune: gate})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	rs, err := l.Query(context.Background(), Filter{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != n {
		t.Fatalf("%d records right after Open, want all %d: Open pruned", len(rs), n)
	}
	close(gate)
	newest := rec("server-0", "flood", fmt.Sprintf("t%06d", n), t0.Add(n*time.Millisecond), OK)
	l.Add(newest, []byte(`{}`))
	flush(t, l)
	<-l.settled
	if size := diskBytes(path); size > limit*11/10 {
		t.Errorf("the log's files are %d bytes after its first pass (were %d), over 1.1x MaxBytes (%d)", size, before, limit*11/10)
	} else {
		t.Logf("files %d -> %d bytes", before, size)
	}
	checkNewest(t, l, n+1)
}

// TestOversizedLogWithoutIncrementalVacuum: a log whose database was made
// without auto_vacuum=INCREMENTAL (never by Switchboard, always by
// another tool) is rebuilt with it once it is pruned, and its files then
// stay within 1.1x MaxBytes.
func TestOversizedLogWithoutIncrementalVacuum(t *testing.T) {
	const limit = 2 << 20
	path := filepath.Join(tempDir(t), "activity.db")
	db, err := sql.Open("sqlite", "file:"+pathURI(path)+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(schema); err != nil {
		t.Fatal(err)
	}
	db.Close()
	const n = 4000
	oversized(t, path, n)
	before := diskBytes(path)
	gate := make(chan struct{})
	l := open(t, Options{Path: path, RetainDays: -1, MaxBytes: limit, startPrune: gate})
	if l.autoVacuum == autoVacuumIncremental {
		t.Fatal("the test's database has incremental auto-vacuum already")
	}
	close(gate)
	<-l.settled
	var mode int
	if err := l.db.QueryRow(`PRAGMA auto_vacuum`).Scan(&mode); err != nil || mode != autoVacuumIncremental {
		t.Errorf("auto_vacuum is %d (%v) after the first pass, want %d (incremental)", mode, err, autoVacuumIncremental)
	}
	if size := diskBytes(path); size > limit*11/10 {
		t.Errorf("the log's files are %d bytes after its first pass (were %d), over 1.1x MaxBytes (%d)", size, before, limit*11/10)
	}
	checkNewest(t, l, n)
	// From now on the file stays bounded.
	flood(t, l, 10, 200, func(b, records int) {
		if size := diskBytes(path); size > limit*11/10 {
			t.Errorf("after batch %d: the database's files are %d bytes, over 1.1x MaxBytes", b, size)
		}
	})
}

// TestSizePruningWhenTimeIsNotIDOrder: records are pruned oldest first by
// their time, which need not follow the order they were written in (a
// record's time is its call's start; it is written when the call ends).
// An oversized log written in four rounds that interleave in time is
// brought within 1.1x MaxBytes keeping the newest by time, and keeps at
// least half of MaxBytes of them: a step's count of records to delete
// comes from the records there are, not from their ids.
func TestSizePruningWhenTimeIsNotIDOrder(t *testing.T) {
	const limit = 2 << 20
	path := filepath.Join(tempDir(t), "activity.db")
	w, err := Open(Options{Path: path, RetainDays: -1, MaxBytes: -1, QueueSize: 1 << 14})
	if err != nil {
		t.Fatal(err)
	}
	const rounds, per = 4, 1200
	args := floodArgs(1 << 20)
	for r := range rounds {
		for i := range per {
			at := i*rounds + r // the record's place in time
			for !w.Add(rec("s", "a", fmt.Sprintf("t%06d", at), t0.Add(time.Duration(at)*time.Millisecond), OK), args) {
				flush(t, w)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// Steps of 512 KiB, so that the log is brought down in several.
	l := open(t, Options{Path: path, RetainDays: -1, MaxBytes: limit, bigStep: 512 << 10})
	<-l.settled
	if size := diskBytes(path); size > limit*11/10 {
		t.Errorf("the log's files are %d bytes after its first pass, over 1.1x MaxBytes (%d)", size, limit*11/10)
	}
	used, err := l.usedBytes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if used < limit/2 {
		t.Errorf("live pages %d bytes after the first pass: the log keeps less than half its limit (%d)", used, limit)
	}
	checkNewest(t, l, rounds*per)
}
