package activity

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Filter selects records for [Log.Query]. Zero fields select everything.
type Filter struct {
	Server string
	App    string
	// Tool is a glob on the tool name or URI (SQLite GLOB: * ? [...],
	// case-sensitive).
	Tool         string
	Since, Until time.Time // Since <= Time < Until
	ErrorsOnly   bool      // every outcome but ok
	// AfterID keeps records with a greater ID (for following the log).
	AfterID int64
	// Limit is the most records returned (0: 1000; negative: no limit).
	Limit int
}

// Query returns the records f selects, newest first.
func (l *Log) Query(ctx context.Context, f Filter) ([]Record, error) {
	var where []string
	var args []any
	add := func(cond string, v any) {
		where = append(where, cond)
		args = append(args, v)
	}
	if f.Server != "" {
		add("server = ?", f.Server)
	}
	if f.App != "" {
		add("app = ?", f.App)
	}
	if f.Tool != "" {
		add("target GLOB ?", f.Tool)
	}
	if !f.Since.IsZero() {
		add("time >= ?", f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		add("time < ?", f.Until.UnixNano())
	}
	if f.ErrorsOnly {
		add("outcome <> ?", string(OK))
	}
	if f.AfterID > 0 {
		add("id > ?", f.AfterID)
	}
	q := `SELECT id, time, app, conn, server, kind, target, arg_bytes, result_bytes,
		preview, duration, outcome, code, approval, wait, preview_cut FROM calls`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY time DESC, id DESC"
	limit := f.Limit
	if limit == 0 {
		limit = 1000
	}
	if limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", limit)
	}
	rows, err := l.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("activity: cannot query %s: %w", l.opts.Path, err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		var r Record
		var t, d, w, cut int64
		var kind, outcome string
		if err := rows.Scan(&r.ID, &t, &r.App, &r.Conn, &r.Server, &kind, &r.Target,
			&r.ArgBytes, &r.ResultBytes, &r.Preview, &d, &outcome, &r.Code, &r.Approval, &w, &cut); err != nil {
			return nil, fmt.Errorf("activity: cannot read %s: %w", l.opts.Path, err)
		}
		r.Time = time.Unix(0, t)
		r.Duration = time.Duration(d)
		r.Wait = time.Duration(w)
		r.PreviewCut, r.PreviewCutKnown = cut == 1, cut >= 0
		r.Kind = Kind(kind)
		r.Outcome = Outcome(outcome)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("activity: cannot read %s: %w", l.opts.Path, err)
	}
	return out, nil
}

// ServerCounts sums one server's records over a window.
type ServerCounts struct {
	Server string
	Calls  int
	Errors int           // records whose outcome is not ok
	P50    time.Duration // the median duration
}

// Counts returns per-server counts of the records with since <= Time <
// until (a zero bound is open), ordered by server.
func (l *Log) Counts(ctx context.Context, since, until time.Time) ([]ServerCounts, error) {
	lo, hi := int64(-1<<63), int64(1<<63-1)
	if !since.IsZero() {
		lo = since.UnixNano()
	}
	if !until.IsZero() {
		hi = until.UnixNano()
	}
	// One pass over the window (the calls_time index), the medians in Go:
	// cheaper than a sorted query per server.
	rows, err := l.db.QueryContext(ctx, `SELECT server, duration, outcome <> 'ok'
		FROM calls WHERE time >= ? AND time < ?`, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("activity: cannot count in %s: %w", l.opts.Path, err)
	}
	defer rows.Close()
	type acc struct {
		errors int
		durs   []int64
	}
	by := map[string]*acc{}
	for rows.Next() {
		var server string
		var d int64
		var failed bool
		if err := rows.Scan(&server, &d, &failed); err != nil {
			return nil, fmt.Errorf("activity: cannot count in %s: %w", l.opts.Path, err)
		}
		a := by[server]
		if a == nil {
			a = &acc{}
			by[server] = a
		}
		a.durs = append(a.durs, d)
		if failed {
			a.errors++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("activity: cannot count in %s: %w", l.opts.Path, err)
	}
	out := make([]ServerCounts, 0, len(by))
	for server, a := range by {
		slices.Sort(a.durs)
		// The lower median.
		out = append(out, ServerCounts{Server: server, Calls: len(a.durs), Errors: a.errors,
			P50: time.Duration(a.durs[(len(a.durs)-1)/2])})
	}
	slices.SortFunc(out, func(a, b ServerCounts) int { return strings.Compare(a.Server, b.Server) })
	return out, nil
}
