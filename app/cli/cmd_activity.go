package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

var activityFlags = []flagDef{
	{name: "server", kind: stringFlag, arg: "NAME", help: "only this server's records"},
	{name: "app", kind: stringFlag, arg: "APP", help: "only this app's (the name it gave: claude-ai, cursor-vscode, switchboard for 'call' and the window)"},
	{name: "tool", kind: stringFlag, arg: "GLOB", help: "only tools, prompts or URIs that match (* ? [...], case-sensitive)"},
	{name: "since", kind: stringFlag, arg: "WHEN", help: "only records since then: a duration back (90s, 1h, 24h) or a time (2026-12-01T10:00:00Z)"},
	{name: "errors", kind: boolFlag, help: "only the records whose outcome is not ok"},
	{name: "limit", kind: stringFlag, arg: "N", help: "the newest N records (default 1000, at most 10000)"},
	{name: "follow", short: "f", kind: boolFlag, help: "keep printing new records until Ctrl-C"},
}

// activityPoll is how often 'activity -f' asks for new records.
const activityPoll = 500 * time.Millisecond

// parseSince reads --since: a duration back from now or a time.
func parseSince(v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(v); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, v, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usagef("activity: --since %q is neither a duration back (90s, 1h, 24h) nor a time (2026-12-01T10:00:00Z, 2026-12-01 10:00)", v)
}

func (e *env) activity(a *argv) error {
	since, err := parseSince(a.str("since"), time.Now())
	if err != nil {
		return err
	}
	p := hostapi.ActivityQueryParams{Server: a.str("server"), App: a.str("app"), Tool: a.str("tool"), Since: since, ErrorsOnly: a.flag("errors")}
	if v := a.str("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 10000 {
			return usagef("activity: --limit %q is not a number of records from 1 to 10000", v)
		}
		p.Limit = n
	}
	follow := a.flag("follow")
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	c, err := e.needHost(ctx, "activity")
	if err != nil {
		return err
	}
	defer c.Close()
	r, err := c.ActivityQuery(ctx, p)
	if err != nil {
		return err
	}
	if note := activityNote(r.ActivityStatus); note != "" {
		fmt.Fprintln(e.stderr, note) // stdout stays the records
	}
	slices.Reverse(r.Records) // oldest first: the newest at the bottom, as a log reads
	if e.json && !follow {
		return e.printJSON(r.Records)
	}
	headed := false // the table's header is printed once, with the first records
	print := func(rs []hostapi.ActivityRecord) {
		if !e.json {
			if len(rs) > 0 {
				printActivity(e.stdout, rs, !headed)
				headed = true
			}
			return
		}
		for _, rec := range rs { // with -f: one JSON object a line
			b, _ := json.Marshal(rec)
			fmt.Fprintln(e.stdout, string(b))
		}
	}
	print(r.Records)
	if !follow {
		return nil
	}
	var last int64
	for _, rec := range r.Records {
		last = max(last, rec.ID)
	}
	dropped := r.Dropped
	t := time.NewTicker(activityPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-c.Done():
			return fmt.Errorf("the host went away")
		case <-t.C:
		}
		q := p
		q.AfterID, q.Limit = last, 10000
		r, err := c.ActivityQuery(ctx, q)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		if r.Dropped > dropped {
			fmt.Fprintf(e.stderr, "%d more records were dropped: the activity log's queue was full\n", r.Dropped-dropped)
			dropped = r.Dropped
		}
		slices.Reverse(r.Records)
		for _, rec := range r.Records {
			last = max(last, rec.ID)
		}
		print(r.Records)
	}
}

// activityNote is what the command says about the log's state: off, not
// open, records dropped; "" when all is well.
func activityNote(st hostapi.ActivityStatus) string {
	switch {
	case st.Problem != "":
		return "activity log: " + st.Problem
	case !st.On:
		return `the activity log is off ("activity": false in the config file): nothing is recorded`
	case st.Dropped > 0:
		return fmt.Sprintf("%d records were dropped since the host started: the activity log's queue was full", st.Dropped)
	}
	return ""
}

// activityLine is status's line about the log: only when it is off, not
// open, or has dropped records.
func activityLine(st hostapi.ActivityStatus) string { return activityNote(st) }

// activityHeader is the activity table's header line (issue 27 item 14:
// the table had none).
const activityHeader = "TIME\tSERVER\tREQUEST\tOUTCOME\tDURATION\tAPP\tIN\tOUT\tARGUMENTS"

// printActivity writes records as rows of the activity table, the header
// first when header is set; columns line up within one call (with -f,
// within each batch of new records).
func printActivity(w io.Writer, rs []hostapi.ActivityRecord, header bool) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	if header {
		fmt.Fprintln(tw, activityHeader)
	}
	for _, r := range rs {
		fmt.Fprintln(tw, activityRecordLine(r))
	}
	_ = tw.Flush()
}

// activityRecordLine is one record as a row (cells separated by tabs):
// time, server, what, outcome, duration, who, sizes, the arguments'
// preview (shortened, and marked when the host cut it).
func activityRecordLine(r hostapi.ActivityRecord) string {
	what := r.Target
	if r.Kind != "tools/call" {
		what = r.Kind + " " + r.Target
	}
	outcome := outcomeText(r.Outcome, r.Code)
	if r.Approval != "" {
		outcome += " [" + r.Approval + "]"
	}
	dur := english.DurationMs(r.DurationMs)
	if r.WaitMs > 0 {
		dur += fmt.Sprintf(" (after waiting %s for the server to start)", english.DurationMs(r.WaitMs))
	}
	who := r.App
	if who == "" {
		who = "(no name)"
	}
	if r.Conn != "" {
		who += " (" + r.Conn + ")"
	}
	args := shorten(r.Preview, 160)
	if r.PreviewCut != nil && *r.PreviewCut {
		args += " (cut)"
	}
	cells := []string{r.Time.Local().Format("2006-01-02 15:04:05.000"), r.Server, what, outcome, dur, who,
		bytesText(r.ArgBytes), bytesText(r.ResultBytes), args}
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "\t", " ") // a tab would start a new column
	}
	return strings.Join(cells, "\t")
}

func outcomeText(o string, code int) string {
	if o == "protocol_error" && code != 0 {
		return fmt.Sprintf("protocol_error %d", code)
	}
	return o
}

func bytesText(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f kB", float64(n)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
}
