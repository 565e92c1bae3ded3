// Package activity is the activity log's storage: one [Record] per request
// an app sends to a server through Switchboard, kept in a SQLite database
// (the pure-Go driver modernc.org/sqlite, no cgo) written by one batching
// goroutine, so that recording a call never waits for the disk.
//
// The host opens one [Log] in the user's state directory and adds a record
// from the relay's Hook (app/relay): [Log.Add] in After, with the arguments
// it copied in Before. See docs/activity.md for the schema and decisions.
package activity

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Kind is the method of a recorded request.
type Kind string

// The recorded methods.
const (
	ToolCall     Kind = "tools/call"
	ResourceRead Kind = "resources/read"
	PromptGet    Kind = "prompts/get"
	Complete     Kind = "completion/complete"
)

// Outcome is how a recorded request ended.
type Outcome string

// The outcomes.
const (
	OK            Outcome = "ok"             // answered, not an error
	ToolError     Outcome = "tool_error"     // answered with isError: true
	ProtocolError Outcome = "protocol_error" // a JSON-RPC error (Record.Code)
	Cancelled     Outcome = "cancelled"      // withdrawn by its caller
	TimedOut      Outcome = "timed_out"      // past its callTimeout
	Denied        Outcome = "denied"         // refused before the server saw it
)

// Record is one request.
type Record struct {
	ID     int64     // set by the store
	Time   time.Time // when the request started
	App    string    // the clientInfo name the app gave
	Conn   string    // its connection: "bridge pid N", "http"
	Server string
	Kind   Kind
	// Target is the tool or prompt name, or the resource's URI (redacted
	// like the preview).
	Target      string
	ArgBytes    int // size of the arguments (params for a read)
	ResultBytes int
	// Preview is the first [PreviewLimit] bytes of the arguments, redacted
	// and valid JSON (see [Preview]); set by the store from Add's args.
	Preview string
	// PreviewCut says whether Preview holds only part of the arguments;
	// PreviewCutKnown is false for records written before the log stored
	// it (issue 27 item 14), whose previews may or may not be cut.
	PreviewCut      bool
	PreviewCutKnown bool
	Duration        time.Duration
	Outcome         Outcome
	Code            int    // the JSON-RPC error code of a protocol_error
	Approval        string // the approval decision, empty when none was asked
	// Wait is how long the request waited for its server to have a
	// session before it was sent: a sleeping server's start (docs/sleep.md)
	// or a restart it was held through; 0 when it went at once. Not part
	// of Duration, which starts when the request is sent.
	Wait time.Duration
}

// Options configure [Open].
type Options struct {
	// Path is the database file; its directory must exist. The file is
	// created 0600 (SQLite gives its -wal and -shm files the same mode).
	Path string
	// RetainDays keeps records this many days (0: 30; negative: no age
	// limit).
	RetainDays int
	// MaxBytes bounds the database's files (0: 200 MB; negative: no size
	// limit): the database, its -wal and -shm stay within 1.1x MaxBytes
	// while records are written, and the live records keep to between
	// about 0.63x (at 1 MiB) and 0.96x (at 200 MB) of it (docs/activity.md,
	// "Size"). The writer prunes the
	// oldest records as it goes; an oversized database is brought down in
	// the background after Open.
	MaxBytes int64
	// QueueSize is how many records may wait for the writer (0: 4096).
	// Beyond it Add drops them and counts them ([Log.Dropped]).
	QueueSize int
	// BatchSize is the most records written in one transaction (0: 512).
	BatchSize int
	// Linger is how long the writer waits, after the first record of a
	// batch, for more before it commits (0: DefaultLinger; negative: no
	// wait). A transaction's fixed cost then falls on a batch rather than
	// on every record of a sparse stream, and an Add meanwhile wakes no
	// goroutine; a record is committed about Linger (plus the write) after
	// Add. QueueSize must hold what comes in one Linger.
	Linger time.Duration
	// PruneEvery is how often retention by age runs (0: 1 h); it also
	// runs after Open, in the background. Retention by size runs as the
	// writer writes.
	PruneEvery time.Duration
	// Redactor is the initial redactor (see [Log.SetRedactor]).
	Redactor *Redactor
	// OnCommit, when set, is called on the writer goroutine after each
	// batch's transaction has committed, with the batch's size.
	OnCommit func(n int)
	// Now is the clock for retention (nil: time.Now).
	Now func() time.Time

	// startPrune, when set (tests), holds the writer's first retention
	// pass until it is closed.
	startPrune <-chan struct{}
	// bigStep, when set (tests), replaces the 16 MiB of a step that brings
	// an oversized log down.
	bigStep int64
}

// Log is an open activity log. Its methods are safe for concurrent use.
type Log struct {
	db      *sql.DB
	opts    Options
	queue   chan item
	flushes chan chan error
	prunes  chan chan error
	done    chan struct{}
	exited  chan struct{}
	closed  atomic.Bool
	dropped atomic.Uint64
	red     atomic.Pointer[Redactor]
	closeMu sync.Mutex
	err     error // the writer's last error, under closeMu
	// rowsPerInsert, when set, replaces insertRows (for the benchmark's
	// baseline of one row per statement).
	rowsPerInsert int

	lim        limits
	autoVacuum int64 // PRAGMA auto_vacuum of the database
	// The writer goroutine's own: retention still to do, the bytes
	// written since the size was last looked at, and settled, closed when
	// the first retention pass (the one Open starts) has ended.
	w           work
	sinceCheck  int64
	settled     chan struct{}
	settledDone bool
}

type item struct {
	rec      Record
	args     []byte
	complete bool
	red      *Redactor
}

const schema = `
CREATE TABLE IF NOT EXISTS calls (
	id           INTEGER PRIMARY KEY,
	time         INTEGER NOT NULL, -- start, Unix nanoseconds UTC
	app          TEXT    NOT NULL,
	conn         TEXT    NOT NULL,
	server       TEXT    NOT NULL,
	kind         TEXT    NOT NULL,
	target       TEXT    NOT NULL,
	arg_bytes    INTEGER NOT NULL,
	result_bytes INTEGER NOT NULL,
	preview      TEXT    NOT NULL,
	duration     INTEGER NOT NULL, -- nanoseconds
	outcome      TEXT    NOT NULL,
	code         INTEGER NOT NULL,
	approval     TEXT    NOT NULL,
	wait         INTEGER NOT NULL DEFAULT 0, -- nanoseconds waited for the server before time
	preview_cut  INTEGER NOT NULL DEFAULT -1 -- 1: the preview is cut, 0: whole, -1: not known (older records)
);
CREATE INDEX IF NOT EXISTS calls_server_time ON calls(server, time);
CREATE INDEX IF NOT EXISTS calls_time ON calls(time);
`

// Open opens (creating if needed) the log at opts.Path and starts its
// writer, which then applies retention in the background: Open does no
// pruning itself, however large the database.
func Open(opts Options) (*Log, error) {
	if opts.Path == "" {
		return nil, errors.New("activity: no database path given")
	}
	if opts.RetainDays == 0 {
		opts.RetainDays = 30
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = 200 << 20
	}
	if opts.QueueSize <= 0 {
		opts.QueueSize = 4096
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 512
	}
	if opts.PruneEvery <= 0 {
		opts.PruneEvery = time.Hour
	}
	if opts.Linger == 0 {
		opts.Linger = DefaultLinger
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	f, err := os.OpenFile(opts.Path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("activity: cannot create the database %s: %w (check that its directory exists and is writable)", opts.Path, err)
	}
	f.Close()
	// A new database's pages are 4 KiB; one made otherwise is opened again
	// with its own page size, which the WAL's limits are counted in.
	lim := newLimits(opts.MaxBytes, 4096)
	db, err := openDB(opts.Path, lim)
	if err != nil {
		return nil, err
	}
	var page, autoVacuum int64
	err = db.QueryRow(`SELECT (SELECT page_size FROM pragma_page_size()), (SELECT auto_vacuum FROM pragma_auto_vacuum())`).Scan(&page, &autoVacuum)
	if err == nil && page != lim.page {
		db.Close()
		lim = newLimits(opts.MaxBytes, page)
		db, err = openDB(opts.Path, lim)
		if err != nil {
			return nil, err
		}
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("activity: cannot read %s: %w (delete the file to start a new log)", opts.Path, err)
	}
	l := &Log{
		db:         db,
		opts:       opts,
		queue:      make(chan item, opts.QueueSize),
		flushes:    make(chan chan error),
		prunes:     make(chan chan error),
		done:       make(chan struct{}),
		exited:     make(chan struct{}),
		lim:        lim,
		autoVacuum: autoVacuum,
		settled:    make(chan struct{}),
	}
	l.red.Store(opts.Redactor)
	go l.writer()
	return l, nil
}

// openDB opens the database with the connection settings lim implies and
// brings its schema up to date.
func openDB(path string, lim limits) (*sql.DB, error) {
	// auto_vacuum must precede the first table; busy_timeout lets a
	// second process (the CLI reading) wait out the writer. The WAL is
	// checkpointed every lim.wal bytes and cut back to that size when it
	// restarts, so that the -wal file counts in MaxBytes too.
	dsn := "file:" + pathURI(path) +
		"?_pragma=auto_vacuum(INCREMENTAL)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(5000)" +
		fmt.Sprintf("&_pragma=wal_autocheckpoint(%d)&_pragma=journal_size_limit(%d)", max(1, lim.wal/lim.page), lim.wal) +
		"&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("activity: cannot open %s: %w", path, err)
	}
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("activity: cannot set up %s: %w (delete the file to start a new log)", path, err)
	}
	if err := migrate(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("activity: cannot bring %s up to date: %w (delete the file to start a new log)", path, err)
	}
	return db, nil
}

// pathURI escapes a file path for a file: URI (the query separator and
// percent sign; backslashes of Windows paths become slashes).
func pathURI(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	p = strings.ReplaceAll(p, "%", "%25")
	p = strings.ReplaceAll(p, "?", "%3f")
	p = strings.ReplaceAll(p, "#", "%23")
	return p
}

// SetRedactor replaces the redactor for records added from now on. The
// host calls it whenever the set of secrets in use changes; a record keeps
// the redactor current when it was added.
func (l *Log) SetRedactor(r *Redactor) { l.red.Store(r) }

// Add queues r for writing, with the call's arguments (JSON; may be nil),
// and returns at once: it copies at most [ArgsCopyLimit] of args (so the
// caller may reuse them), and the preview is built and redacted on the
// writer goroutine. r.ArgBytes of 0 means len(args); a larger ArgBytes
// says args is a prefix of the arguments. When the queue is full, or the log is closed, r is dropped
// and counted ([Log.Dropped]) and Add returns false.
func (l *Log) Add(r Record, args []byte) bool {
	if l.closed.Load() {
		l.dropped.Add(1)
		return false
	}
	it := item{rec: r, red: l.red.Load()}
	if r.ArgBytes == 0 {
		it.rec.ArgBytes = len(args)
	}
	// args may be a prefix the caller copied: ArgBytes tells.
	it.complete = len(args) <= ArgsCopyLimit && it.rec.ArgBytes <= len(args)
	if len(args) > 0 {
		it.args = append([]byte(nil), args[:min(len(args), ArgsCopyLimit)]...)
	}
	select {
	case l.queue <- it:
		return true
	default:
		l.dropped.Add(1)
		return false
	}
}

// Dropped is how many records Add has dropped since Open.
func (l *Log) Dropped() uint64 { return l.dropped.Load() }

// Flush waits until every record added before it is committed, and returns
// the error of the writer's last failed batch, if any.
func (l *Log) Flush(ctx context.Context) error { return l.ask(ctx, l.flushes) }

// ask hands the writer a request on ch and waits for its answer.
func (l *Log) ask(ctx context.Context, ch chan<- chan error) error {
	reply := make(chan error, 1)
	select {
	case ch <- reply:
	case <-l.exited:
		return errors.New("activity: the log is closed")
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes what is queued, stops the writer and closes the database.
func (l *Log) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	close(l.done)
	<-l.exited
	// An Add that raced with Close may have queued after the writer's
	// last drain: count it as dropped.
	for {
		select {
		case <-l.queue:
			l.dropped.Add(1)
			continue
		default:
		}
		break
	}
	l.closeMu.Lock()
	err := l.err
	l.closeMu.Unlock()
	if cerr := l.db.Close(); err == nil {
		err = cerr
	}
	return err
}

func (l *Log) writer() {
	defer close(l.exited)
	defer l.endWork(errors.New("activity: the log is closed"))
	prune := time.NewTicker(l.opts.PruneEvery)
	defer prune.Stop()
	batch := make([]item, 0, l.opts.BatchSize)
	if l.opts.startPrune != nil {
		select {
		case <-l.opts.startPrune:
		case <-l.done:
		}
	}
	// The first retention pass, in the background: a step at a time
	// between batches.
	l.w.age, l.w.check = l.opts.RetainDays > 0, true
	for {
		// While retention is pending, a step is taken whenever nothing
		// else is ready (and after each commit: see wrote).
		var idle <-chan time.Time
		if l.w.pending() {
			idle = closedTime
		}
		select {
		case it := <-l.queue:
			l.take(it, &batch)
		case reply := <-l.flushes:
			reply <- l.drainAll(&batch)
		case reply := <-l.prunes:
			l.w.age, l.w.check = l.opts.RetainDays > 0, true
			l.w.waiters = append(l.w.waiters, reply)
		case <-prune.C:
			l.w.age, l.w.check = l.opts.RetainDays > 0, true
		case <-l.done:
			l.drainAll(&batch)
			return
		case <-idle:
			l.step()
		}
	}
}

// closedTime is always ready: the writer's idle case while retention is
// pending.
var closedTime = func() <-chan time.Time {
	c := make(chan time.Time)
	close(c)
	return c
}()

// take writes it and what queues behind it, a batch at a time.
func (l *Log) take(it item, batch *[]item) {
	flush := l.linger()
	*batch = append((*batch)[:0], it)
	l.drain(batch, l.opts.BatchSize)
	l.commit(*batch) // its error, if any, is drainAll's
	if flush != nil {
		flush <- l.drainAll(batch)
		return
	}
	for { // what queued meanwhile, a batch at a time
		*batch = (*batch)[:0]
		if l.drain(batch, l.opts.BatchSize); len(*batch) == 0 {
			return
		}
		l.commit(*batch)
	}
}

// DefaultLinger is [Options.Linger]'s default.
const DefaultLinger = 100 * time.Millisecond

// linger waits Linger after a batch's first item, so that more queue
// behind it. It does not receive them meanwhile: an Add then sends into
// the channel's buffer and wakes no one (a receive per item would wake
// the writer, and a thread, for every call). A Flush ends the wait (its
// reply channel is returned, for the writer to answer once everything
// queued is committed), and so does Close.
func (l *Log) linger() chan error {
	if l.opts.Linger < 0 {
		return nil
	}
	t := time.NewTimer(l.opts.Linger)
	defer t.Stop()
	select {
	case reply := <-l.flushes:
		return reply
	case <-t.C:
	case <-l.done:
	}
	return nil
}

// drain appends queued items to batch without waiting, up to max items
// and lim.batch estimated bytes (one transaction's share of the WAL).
func (l *Log) drain(batch *[]item, max int) {
	var bytes int64
	for _, it := range *batch {
		bytes += it.bytes()
	}
	for len(*batch) < max && bytes < l.lim.batch {
		select {
		case it := <-l.queue:
			*batch = append(*batch, it)
			bytes += it.bytes()
		default:
			return
		}
	}
}

// bytes estimates what the item will take in the database (its preview
// is not built yet: the arguments' length stands for it).
func (it *item) bytes() int64 {
	return recordBytes(&it.rec, min(len(it.args), PreviewLimit), len(it.rec.Target))
}

// drainAll commits everything queued now; it returns the last error.
func (l *Log) drainAll(batch *[]item) error {
	var last error
	for {
		*batch = (*batch)[:0]
		l.drain(batch, l.opts.BatchSize)
		if len(*batch) == 0 {
			if last == nil {
				l.closeMu.Lock()
				last = l.err
				l.err = nil
				l.closeMu.Unlock()
			}
			return last
		}
		if err := l.commit(*batch); err != nil {
			last = err
		}
	}
}

func (l *Log) setErr(err error) {
	l.closeMu.Lock()
	l.err = err
	l.closeMu.Unlock()
}

// insertRows is how many records one INSERT statement writes at most,
// insertCols the columns of each.
const insertRows, insertCols = 32, 15

// insertN is the INSERT statement of n records.
func insertN(n int) string {
	var b strings.Builder
	b.WriteString(`INSERT INTO calls (time, app, conn, server, kind, target,
	arg_bytes, result_bytes, preview, duration, outcome, code, approval, wait, preview_cut) VALUES `)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
	}
	return b.String()
}

// migrate brings a log made by an earlier version to the schema: CREATE
// TABLE IF NOT EXISTS leaves an existing table as it is, so each column
// added since is added here when it is missing, with its default for the
// records already there. Columns added: wait (issue 15, servers that
// sleep), preview_cut (issue 27 item 14; -1, not known, for the records
// already there).
func migrate(db *sql.DB) error {
	rows, err := db.Query(`SELECT name FROM pragma_table_info('calls')`)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		have[n] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if !have["wait"] {
		if _, err := db.Exec(`ALTER TABLE calls ADD COLUMN wait INTEGER NOT NULL DEFAULT 0`); err != nil {
			return err
		}
	}
	if !have["preview_cut"] {
		if _, err := db.Exec(`ALTER TABLE calls ADD COLUMN preview_cut INTEGER NOT NULL DEFAULT -1`); err != nil {
			return err
		}
	}
	return nil
}

// commit writes batch in one transaction. A failed batch is lost (and
// counted as dropped): the writer must not stall the host.
func (l *Log) commit(batch []item) error {
	bytes, err := l.write(batch)
	if err != nil {
		l.dropped.Add(uint64(len(batch)))
		err = fmt.Errorf("activity: cannot write %d records to %s: %w", len(batch), l.opts.Path, err)
		l.setErr(err)
		return err
	}
	if l.opts.OnCommit != nil {
		l.opts.OnCommit(len(batch))
	}
	l.wrote(len(batch), bytes)
	return nil
}

// write writes batch in one transaction and returns an estimate of the
// bytes it added (recordBytes).
func (l *Log) write(batch []item) (int64, error) {
	tx, err := l.db.Begin()
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	// Rows go in statements of insertRows rows each (the last one
	// shorter): SQLite's per-statement cost, and database/sql's, then
	// falls on many rows.
	stmts := map[int]*sql.Stmt{}
	defer func() {
		for _, st := range stmts {
			st.Close()
		}
	}()
	rows := insertRows
	if l.rowsPerInsert > 0 {
		rows = l.rowsPerInsert
	}
	args := make([]any, 0, rows*insertCols)
	var bytes int64
	for len(batch) > 0 {
		n := min(len(batch), rows)
		st := stmts[n]
		if st == nil {
			if st, err = tx.Prepare(insertN(n)); err != nil {
				return 0, err
			}
			stmts[n] = st
		}
		args = args[:0]
		for _, it := range batch[:n] {
			r := it.rec
			preview, cut := PreviewCut(it.args, it.complete, it.red)
			target := it.red.String(r.Target)
			bytes += recordBytes(&r, len(preview), len(target))
			args = append(args, r.Time.UnixNano(), r.App, r.Conn, r.Server, string(r.Kind),
				target, r.ArgBytes, r.ResultBytes, preview,
				int64(r.Duration), string(r.Outcome), r.Code, r.Approval, int64(r.Wait), boolInt(cut))
		}
		if _, err := st.Exec(args...); err != nil {
			return 0, err
		}
		batch = batch[n:]
	}
	return bytes, tx.Commit()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
