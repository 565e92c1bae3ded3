package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/switchboard-mcp/switchboard/app/activity"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/engine"
)

// ActivityFile is the activity log's database in the host's state
// directory.
const ActivityFile = "activity.db"

// activityLog is the host's side of the activity log (issue 14 §1,
// docs/activity.md): the open app/activity.Log (nil when the config turns
// it off or it could not be opened), the relay Hook that records every
// tools/call, the recording of the requests the host forwards through the
// go-sdk's client, and the redactor built from every keyring secret
// resolved for a server.
type activityLog struct {
	log  atomic.Pointer[activity.Log]
	args sync.Map // *relay.Info -> *argsCopy, from Before to After
	// red redacts every secret resolved so far, log or no log: what the
	// host shows a person (a servers.call's result) is redacted with it.
	red atomic.Pointer[activity.Redactor]

	mu      sync.Mutex
	secrets map[string]string // name -> value: every secret resolved for a server since the host started
	path    string            // the database, "" if off
	// configured, settings and dir are what open last applied.
	configured bool
	settings   config.ActivitySettings
	dir        string
	err        error // why the log is not open, nil if it is (or is off)
	logger     *slog.Logger
}

type argsCopy struct {
	b []byte // the first activity.ArgsCopyLimit bytes of the arguments
	n int    // their full size
}

func newActivityLog(logger *slog.Logger) *activityLog {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &activityLog{secrets: map[string]string{}, logger: logger}
}

// open opens the log in dir with the config's settings. A failure is the
// host's problem (status shows it), never a reason not to start.
func (a *activityLog) open(dir string, s config.ActivitySettings) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.configured && a.settings == s && a.dir == dir {
		return // unchanged (a reload that touched other keys)
	}
	if l := a.log.Swap(nil); l != nil {
		// The settings changed: the log reopens with the new ones (or
		// stays closed). A call that loaded the old log just before is
		// counted as dropped there.
		if err := l.Close(); err != nil {
			a.logger.Warn("closing the activity log", "error", err)
		}
	}
	a.configured, a.settings, a.dir = true, s, dir
	a.path, a.err = "", nil
	if s.Off {
		a.logger.Info("the activity log is off (config: \"activity\": false)")
		return
	}
	if dir == "" {
		a.err = errors.New("the host has no state directory to keep the activity log in (neither XDG_STATE_HOME nor HOME is set in its environment): set HOME for the host, or turn the log off with \"activity\": false")
		a.logger.Warn("activity log", "error", a.err)
		return
	}
	a.path = filepath.Join(dir, ActivityFile)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		a.err = fmt.Errorf("the activity log cannot be kept: its directory %s cannot be made (%v); the host runs without it: fix the directory's permissions, or turn the log off with \"activity\": false", dir, err)
		a.logger.Error("activity log", "error", a.err)
		return
	}
	l, err := activity.Open(activity.Options{Path: a.path, RetainDays: s.RetainDays, MaxBytes: s.MaxBytes,
		Redactor: activity.NewRedactor(a.secrets)})
	if err != nil {
		a.err = fmt.Errorf("the activity log %s cannot be opened (%v); the host runs without it: move the file aside (a new one is made at the next start), or turn the log off with \"activity\": false", a.path, err)
		a.logger.Error("activity log", "error", a.err)
		return
	}
	a.log.Store(l)
	a.logger.Info("activity log open", "path", a.path, "retainDays", s.RetainDays, "maxBytes", s.MaxBytes)
}

// close flushes and closes the log.
func (a *activityLog) close() {
	if l := a.log.Swap(nil); l != nil {
		if err := l.Close(); err != nil {
			a.logger.Warn("closing the activity log", "error", err)
		}
	}
}

// status is the log's state for the host's Info.
func (a *activityLog) status() (path string, on bool, dropped uint64, problem string) {
	a.mu.Lock()
	path = a.path
	if a.err != nil {
		problem = a.err.Error()
	}
	a.mu.Unlock()
	if l := a.log.Load(); l != nil {
		return path, true, l.Dropped(), problem
	}
	return path, false, 0, problem
}

// secretResolved keeps name's value for the redactor; a new or changed
// value replaces the log's redactor. Old values are kept too (a server may
// still echo a value it was given before a change): redacting more is the
// safe side.
func (a *activityLog) secretResolved(name string, v []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	key := name
	if old, ok := a.secrets[name]; ok {
		if old == string(v) {
			return
		}
		// Keep the old value under a name of its own.
		for i := 2; ; i++ {
			k := fmt.Sprintf("%s (before a change %d)", name, i-1)
			if _, taken := a.secrets[k]; !taken {
				a.secrets[k] = old
				break
			}
		}
	}
	a.secrets[key] = string(v)
	r := activity.NewRedactor(a.secrets)
	a.red.Store(r)
	if sk := r.Skipped(); len(sk) > 0 {
		sort.Strings(sk)
		a.logger.Warn("secrets too short to be redacted in the activity log (under 4 bytes)", "secrets", sk)
	}
	if l := a.log.Load(); l != nil {
		l.SetRedactor(r)
	}
}

// redact replaces in b every value of a secret resolved for a server so
// far, as the log's previews do ("[secret NAME]"); JSON stays JSON.
func (a *activityLog) redact(b []byte) []byte {
	r := a.red.Load()
	if r == nil {
		return b
	}
	if s := r.String(string(b)); s != string(b) {
		return []byte(s)
	}
	return b
}

// redactString is redact for text: a server's stderr line or error.
func (a *activityLog) redactString(s string) string {
	if r := a.red.Load(); r != nil {
		return r.String(s)
	}
	return s
}

// resolver wraps the host's secret resolver so that every value resolved
// for a server joins the redactor.
func (a *activityLog) resolver(inner engine.SecretResolver) engine.SecretResolver {
	if inner == nil {
		return nil
	}
	return &recordingResolver{inner: inner, a: a}
}

type recordingResolver struct {
	inner engine.SecretResolver
	a     *activityLog
}

func (r *recordingResolver) Resolve(ctx context.Context, name string) ([]byte, error) {
	v, err := r.inner.Resolve(ctx, name)
	if err == nil {
		r.a.secretResolved(name, v) // copied: BuildEnv zeroes v
	}
	return v, err
}

// Before implements relay.Hook: it keeps a copy of the arguments' first
// activity.ArgsCopyLimit bytes (Info.Arguments is valid during Before
// only) for After.
func (a *activityLog) Before(info *relay.Info) error {
	if a.log.Load() == nil {
		return nil
	}
	n := len(info.Arguments)
	b := info.Arguments[:min(n, activity.ArgsCopyLimit)]
	a.args.Store(info, &argsCopy{b: append([]byte(nil), b...), n: n})
	return nil
}

// After implements relay.Hook: the call's record.
func (a *activityLog) After(info *relay.Info, res *relay.Result, err error) {
	v, ok := a.args.LoadAndDelete(info)
	l := a.log.Load()
	if l == nil {
		return
	}
	var args []byte
	var n int
	if ok {
		c := v.(*argsCopy)
		args, n = c.b, c.n
	}
	r := activity.Record{Time: info.Started, App: info.Caller.App, Conn: info.Caller.Conn, Server: info.Server,
		Kind: activity.Kind(info.Kind), Target: info.Tool, ArgBytes: n, Duration: time.Since(info.Started),
		Approval: info.Approval, Wait: info.Waited}
	if r.Kind == "" {
		r.Kind = activity.ToolCall
	}
	if res != nil {
		r.ResultBytes = len(res.Raw)
	}
	r.Outcome, r.Code = outcomeOf(res != nil && res.IsError, err)
	l.Add(r, args)
}

// outcomeOf maps how a call ended onto the log's outcomes
// (docs/activity.md): a server that stopped under the call, or any other
// failure of the connection, is a protocol_error with code -32603
// (internal error), as the gateway answers a read or a prompt in that
// case.
func outcomeOf(toolError bool, err error) (activity.Outcome, int) {
	var rpc *jsonrpc.Error
	var te *relay.TimeoutError
	var de *relay.DeniedError
	switch {
	case err == nil && toolError:
		return activity.ToolError, 0
	case err == nil:
		return activity.OK, 0
	case errors.As(err, &de):
		return activity.Denied, 0
	case errors.As(err, &te):
		return activity.TimedOut, 0
	case errors.Is(err, relay.ErrWithdrawn), errors.Is(err, context.Canceled):
		return activity.Cancelled, 0
	case errors.As(err, &rpc):
		return activity.ProtocolError, int(rpc.Code)
	}
	return activity.ProtocolError, int(jsonrpc.CodeInternalError)
}

// apiCaller is who makes a servers.call: Switchboard's own API client
// (the command line's 'call', the window's Try it), on its connection.
func apiCaller(ci *api.ConnInfo) relay.Caller {
	c := relay.Caller{App: "switchboard", Conn: "api"}
	if ci != nil && ci.PID > 0 {
		c.Conn = "api pid " + strconv.Itoa(ci.PID)
	}
	return c
}

// maxQueryLimit bounds activity.query's answer (an API message has a size
// limit; a follower pages with AfterID, a reader back with Until).
const maxQueryLimit = 10000

// activityQuery answers activity.query.
func (h *Host) activityQuery(ctx context.Context, _ *api.ConnInfo, p hostapi.ActivityQueryParams) (hostapi.ActivityQueryResult, error) {
	a := h.mgr.activity // h.mgr is made after the methods
	out := hostapi.ActivityQueryResult{Records: []hostapi.ActivityRecord{}, ActivityStatus: a.apiStatus()}
	l := a.log.Load()
	if l == nil {
		return out, nil
	}
	limit := p.Limit
	if limit <= 0 {
		limit = 1000
	}
	flushBeforeRead(ctx, l)
	rs, err := l.Query(ctx, activity.Filter{Server: p.Server, App: p.App, Tool: p.Tool, Since: p.Since, Until: p.Until,
		ErrorsOnly: p.ErrorsOnly, AfterID: p.AfterID, Limit: min(limit, maxQueryLimit)})
	if err != nil {
		return hostapi.ActivityQueryResult{}, fmt.Errorf("the activity log %s cannot be read: %w", out.Path, err)
	}
	for _, r := range rs {
		var cut *bool
		if r.PreviewCutKnown {
			cut = &r.PreviewCut
		}
		out.Records = append(out.Records, hostapi.ActivityRecord{ID: r.ID, Time: r.Time, App: r.App, Conn: r.Conn,
			Server: r.Server, Kind: string(r.Kind), Target: r.Target, ArgBytes: r.ArgBytes, ResultBytes: r.ResultBytes,
			Preview: r.Preview, PreviewCut: cut, DurationMs: float64(r.Duration) / float64(time.Millisecond), Outcome: string(r.Outcome),
			Code: r.Code, Approval: r.Approval, WaitMs: float64(r.Wait) / float64(time.Millisecond)})
	}
	return out, nil
}

// activityCounts answers activity.counts.
func (h *Host) activityCounts(ctx context.Context, _ *api.ConnInfo, p hostapi.ActivityCountsParams) (hostapi.ActivityCountsResult, error) {
	a := h.mgr.activity
	if p.Since.IsZero() {
		p.Since = time.Now().Add(-24 * time.Hour)
	}
	out := hostapi.ActivityCountsResult{Since: p.Since, Servers: []hostapi.ActivityCounts{}, ActivityStatus: a.apiStatus()}
	l := a.log.Load()
	if l == nil {
		return out, nil
	}
	flushBeforeRead(ctx, l)
	cs, err := l.Counts(ctx, p.Since, p.Until)
	if err != nil {
		return hostapi.ActivityCountsResult{}, fmt.Errorf("the activity log %s cannot be read: %w", out.Path, err)
	}
	for _, c := range cs {
		out.Servers = append(out.Servers, hostapi.ActivityCounts{Server: c.Server, Calls: c.Calls, Errors: c.Errors,
			P50Ms: float64(c.P50) / float64(time.Millisecond)})
	}
	return out, nil
}

// apiStatus is the log's state as the API tells it.
func (a *activityLog) apiStatus() hostapi.ActivityStatus {
	path, on, dropped, problem := a.status()
	return hostapi.ActivityStatus{On: on, Path: path, Dropped: dropped, Problem: problem}
}

// openActivity opens the activity log with f's settings: at start, before
// any server, and at each reload or change of the file (applyFile), where
// a change of the "activity" key closes the log and opens it again with
// the new settings, or leaves it closed. A malformed key leaves the log on
// with its defaults (the config's report names the key).
func (h *Host) openActivity(f *config.File) {
	s, err := f.Activity()
	if err != nil {
		h.log.Warn("the activity settings cannot be used; the activity log keeps its defaults", "error", err)
	}
	h.mgr.activity.open(h.opts.StateDir, s)
}

// flushBeforeRead writes the records still queued (the writer lingers up
// to 100 ms to batch them) before a read, so that a query sees every call
// that ended before it: 'switchboard call' then 'switchboard activity'
// showed nothing. A failed flush is the log's own error, which the read
// reports if it persists; the read goes ahead.
func flushBeforeRead(ctx context.Context, l *activity.Log) {
	fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_ = l.Flush(fctx)
}
