package activity

import (
	"context"
	"fmt"
	"time"
)

// Retention and the database's size (docs/activity.md, "Size").
//
// Everything here runs on the writer goroutine, one small transaction at
// a time between batches: Open never waits for a deletion, a batch waits
// for at most a few small ones, and the files stay within 1.1x MaxBytes
// while records keep coming.

// limits is what MaxBytes comes to, in bytes.
type limits struct {
	max  int64 // MaxBytes; <= 0: no size limit
	page int64 // the database's page size
	// wal is the WAL's checkpoint threshold (wal_autocheckpoint, in pages
	// of page) and its journal_size_limit: the -wal file holds at most
	// about this plus one transaction.
	wal int64
	// batch is the most (estimated) bytes of records one batch writes:
	// one transaction's share of the WAL.
	batch int64
	// check is how many (estimated) bytes of records the writer commits
	// between two looks at the database's size.
	check int64
	// chunk is the most bytes of records one pruning transaction deletes,
	// vac the most bytes of pages one incremental_vacuum step frees
	// (both while the files are within their ceiling: past it, the steps
	// are larger, see pruneStep).
	chunk, vac int64
	// high and low bound the live pages: past high the oldest records go,
	// down to low.
	high, low int64
	// keepFree is how many bytes of free pages pruning leaves in the file
	// (the next records reuse them); the rest go back to the file system.
	keepFree int64
}

// bigStep is the most bytes one pruning or vacuum step handles while the
// files are over their ceiling (an oversized log being brought down):
// Options.bigStep, 16 MiB unless a test says.
func (l *Log) bigStep() int64 {
	if l.opts.bigStep > 0 {
		return l.opts.bigStep
	}
	return 16 << 20
}

func clamp(v, lo, hi int64) int64 { return min(max(v, lo), hi) }

func newLimits(maxBytes, page int64) limits {
	if maxBytes <= 0 {
		return limits{max: maxBytes, page: page, wal: 4 << 20, batch: 1 << 62, check: 1 << 62,
			chunk: 16 << 20, vac: 1 << 20}
	}
	l := limits{max: maxBytes, page: page}
	l.wal = clamp(maxBytes/8, 16*page, 4<<20)
	l.batch = clamp(maxBytes/32, 16<<10, 1<<20)
	l.check = clamp(maxBytes/64, 8<<10, 1<<20)
	l.chunk = clamp(maxBytes/32, 16<<10, 8<<20)
	l.vac = clamp(maxBytes/64, 4*page, 1<<20)
	// Room above high, so that the files stay within MaxBytes itself (the
	// tenth above it is slack): the WAL's threshold, one transaction (a
	// batch's pages come to up to 3x its estimate, with the indexes'
	// and the pointer map's), what is written between two looks at the
	// size, and the -shm (32 KiB).
	l.high = max(maxBytes-l.wal-3*l.batch-l.check-32<<10, maxBytes/2)
	l.low = l.high - maxBytes/10
	l.keepFree = l.high - l.low + l.check
	return l
}

// ceiling is the size the database's files never exceed (while no reader
// holds a checkpoint back).
func (m limits) ceiling() int64 { return m.max / 10 * 11 }

// work is the retention the writer has still to do, a step at a time.
type work struct {
	age    bool // records past RetainDays may remain
	check  bool // look at the size: set size and vacuum as needed
	size   bool // the live pages are past high: delete the oldest down to low
	vacuum bool // more free pages than keepFree: give them back
	// shrunk says a step gave pages back: a checkpoint ends the work (see
	// endWork).
	shrunk  bool
	waiters []chan error // prune calls waiting for the work to end
	// rows is the number of records while counted (see Log.rows).
	rows    int64
	counted bool
}

func (w *work) pending() bool { return w.age || w.check || w.size || w.vacuum }

// stepsPerCommit is the most pruning steps the writer takes after a
// commit before it takes the next batch: enough for a pass from high to
// low at once, while an oversized log is brought down between batches.
const stepsPerCommit = 8

// dbSize is the database's size as SQLite counts it.
type dbSize struct {
	pages, free int64 // page_count, freelist_count
}

func (l *Log) measure(ctx context.Context) (dbSize, error) {
	var s dbSize
	err := l.db.QueryRowContext(ctx, `SELECT
		(SELECT page_count FROM pragma_page_count()),
		(SELECT freelist_count FROM pragma_freelist_count())`).Scan(&s.pages, &s.free)
	return s, err
}

// rows is how many records there are: counted (count(*), one pass over
// the smallest index) once in a retention pass, then kept by the steps'
// deletions and the commits between them.
func (l *Log) rows(ctx context.Context) (int64, error) {
	if !l.w.counted {
		if err := l.db.QueryRowContext(ctx, `SELECT count(*) FROM calls`).Scan(&l.w.rows); err != nil {
			return 0, err
		}
		l.w.counted = true
	}
	return l.w.rows, nil
}

// prune applies retention now and returns when it is done: records older
// than RetainDays go, then, when the live pages are past the log's high
// mark, the oldest down to its low mark; free pages beyond what the next
// records will reuse go back to the file system. The writer does the
// same by itself: at Open (in the background), every PruneEvery (age),
// and as it writes (size).
func (l *Log) prune(ctx context.Context) error { return l.ask(ctx, l.prunes) }

// wrote counts a committed batch's bytes and, every lim.check bytes,
// has the size looked at; then it takes pending pruning steps.
func (l *Log) wrote(records int, bytes int64) {
	l.w.rows += int64(records)
	if l.lim.max > 0 {
		l.sinceCheck += bytes
		if l.sinceCheck >= l.lim.check {
			l.sinceCheck = 0
			l.w.check = true
		}
	}
	for range stepsPerCommit {
		if !l.w.pending() {
			break
		}
		l.step()
	}
}

// step takes one pruning step and ends the work when it is done or fails.
func (l *Log) step() {
	err := l.pruneStep(context.Background())
	if err != nil {
		err = fmt.Errorf("activity: cannot apply retention to %s: %w", l.opts.Path, err)
		l.setErr(err)
		l.endWork(err)
		return
	}
	if !l.w.pending() {
		l.endWork(nil)
	}
}

// endWork answers the prune calls waiting and, after the first pass,
// closes settled. A pass that gave pages back ends with a checkpoint that
// truncates the database file to its pages and the -wal to nothing (the
// vacuum's moves may have grown it past journal_size_limit, and no commit
// may come to cut it). It waits (busy_timeout at most) for readers of an
// older snapshot, which the log's own queries hold for milliseconds.
func (l *Log) endWork(err error) {
	if err == nil && l.w.shrunk {
		if _, cerr := l.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); cerr != nil {
			err = fmt.Errorf("activity: cannot checkpoint %s: %w", l.opts.Path, cerr)
			l.setErr(err)
		}
	}
	for _, w := range l.w.waiters {
		w <- err
	}
	l.w = work{}
	if !l.settledDone {
		l.settledDone = true
		close(l.settled)
	}
}

// pruneStep does one transaction of the pending work.
func (l *Log) pruneStep(ctx context.Context) error {
	s, err := l.measure(ctx)
	if err != nil {
		return err
	}
	page := l.lim.page
	live := (s.pages - s.free) * page
	rows, err := l.rows(ctx)
	if err != nil {
		return err
	}
	// What a record takes in pages, on average (its share of the
	// indexes' and of pages not full included).
	avg := max(1, live/max(1, rows))
	over := l.lim.max > 0 && s.pages*page > l.lim.ceiling()
	chunk := l.lim.chunk
	if over {
		chunk = max(chunk, l.bigStep())
	}
	switch {
	case l.w.age:
		n := max(16, chunk/avg)
		cut := l.opts.Now().Add(-time.Duration(l.opts.RetainDays) * 24 * time.Hour).UnixNano()
		res, err := l.db.ExecContext(ctx, `DELETE FROM calls WHERE id IN
			(SELECT id FROM calls WHERE time < ? ORDER BY time, id LIMIT ?)`, cut, n)
		if err != nil {
			return err
		}
		got, _ := res.RowsAffected()
		l.w.rows -= got
		if got < n {
			l.w.age = false
			l.w.check = true
		}
	case l.w.check:
		l.w.check = false
		if l.lim.max > 0 && live > l.lim.high {
			l.w.size = true
		}
		if s.free*page > l.lim.keepFree || (over && s.free > 0) {
			l.w.vacuum = true
		}
	case l.w.size:
		if live <= l.lim.low || rows <= 0 {
			l.w.size = false
			l.w.check = true
			return nil
		}
		n := min((live-l.lim.low+avg-1)/avg, max(1, chunk/avg))
		res, err := l.db.ExecContext(ctx, `DELETE FROM calls WHERE id IN
			(SELECT id FROM calls ORDER BY time, id LIMIT ?)`, n)
		if err != nil {
			return err
		}
		got, _ := res.RowsAffected()
		l.w.rows -= got
	case l.w.vacuum:
		excess := s.free - l.lim.keepFree/page
		if over {
			// Past the ceiling the file gives back all it can.
			excess = s.free
		}
		if excess <= 0 {
			l.w.vacuum = false
			return nil
		}
		l.w.shrunk = true
		if l.autoVacuum != autoVacuumIncremental {
			// A database made without incremental auto-vacuum (never by
			// Switchboard) is rebuilt with it, once: one rewrite of the
			// records kept.
			l.w.vacuum = false
			return l.convert(ctx)
		}
		vac := l.lim.vac
		if over {
			vac = max(vac, l.bigStep())
		}
		if _, err := l.db.ExecContext(ctx, fmt.Sprintf(`PRAGMA incremental_vacuum(%d)`, min(excess, max(1, vac/page)))); err != nil {
			return err
		}
	}
	return nil
}

// autoVacuumIncremental is PRAGMA auto_vacuum's value for INCREMENTAL.
const autoVacuumIncremental = 2

// convert rebuilds a database that has no incremental auto-vacuum with it
// (the pragma and the VACUUM must share a connection).
func (l *Log) convert(ctx context.Context) error {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `PRAGMA auto_vacuum = INCREMENTAL`); err != nil {
		return err
	}
	if _, err := conn.ExecContext(ctx, `VACUUM`); err != nil {
		return err
	}
	return conn.QueryRowContext(ctx, `PRAGMA auto_vacuum`).Scan(&l.autoVacuum)
}

// usedBytes is the size of the database's live pages.
func (l *Log) usedBytes(ctx context.Context) (int64, error) {
	s, err := l.measure(ctx)
	if err != nil {
		return 0, err
	}
	return (s.pages - s.free) * l.lim.page, nil
}

// recordBytes estimates what a record takes in the database: its text,
// its numbers, and its two index entries.
func recordBytes(r *Record, preview, target int) int64 {
	return int64(preview + target + len(r.App) + len(r.Conn) + 2*len(r.Server) +
		len(r.Kind) + len(r.Outcome) + len(r.Approval) + 96)
}
