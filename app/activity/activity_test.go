package activity

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

var testExe string

func TestMain(m *testing.M) {
	testkit.HelperMain(&testExe, "ACTIVITY_TEST_HELPER", map[string]func() int{
		"burst": burstHelper,
	})
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	templateDirs.Range(func(dir, _ any) bool {
		os.RemoveAll(dir.(string))
		return true
	})
	os.Exit(code)
}

func open(t testing.TB, opts Options) *Log {
	t.Helper()
	if opts.Path == "" {
		opts.Path = filepath.Join(tempDir(t), "activity.db")
	}
	l, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func flush(t testing.TB, l *Log) {
	t.Helper()
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
}

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func rec(server, app, tool string, at time.Time, o Outcome) Record {
	return Record{Time: at, App: app, Conn: "bridge pid 42", Server: server, Kind: ToolCall,
		Target: tool, ResultBytes: 17, Duration: 3 * time.Millisecond, Outcome: o}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(tempDir(t), "activity.db")
	l := open(t, Options{Path: path, RetainDays: -1})
	want := Record{Time: time.Now().Add(-time.Minute), App: "claude-ai", Conn: "bridge pid 4242",
		Server: "files", Kind: ResourceRead, Target: "file:///tmp/x.txt", ResultBytes: 99,
		Duration: 1234567 * time.Nanosecond, Outcome: ProtocolError, Code: -32602, Approval: "allow once"}
	args := []byte(`{"path": "/tmp/x.txt", "n": 3}`)
	if !l.Add(want, args) {
		t.Fatal("Add dropped a record on an empty queue")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Reopen: the record was committed to the file.
	l = open(t, Options{Path: path, RetainDays: -1})
	got, err := l.Query(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("got %d records, want 1", len(got))
	}
	g := got[0]
	if g.ID == 0 {
		t.Error("record has no ID")
	}
	want.ID = g.ID
	want.ArgBytes = len(args)
	want.Preview = `{"path":"/tmp/x.txt","n":3}`
	want.PreviewCutKnown = true // and whole: PreviewCut false
	if !g.Time.Equal(want.Time) {
		t.Errorf("time %v, want %v", g.Time, want.Time)
	}
	g.Time = want.Time
	if g != want {
		t.Errorf("got  %+v\nwant %+v", g, want)
	}
	if runtime.GOOS != "windows" {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("database mode %v, want 0600", st.Mode().Perm())
		}
	}
}

// TestRoundTripBatch: a batch of more records than one INSERT statement
// writes (two full statements and a shorter one) comes back whole, each
// record's every column its own (a column shifted between the rows of a
// statement would swap them).
func TestRoundTripBatch(t *testing.T) {
	path := filepath.Join(tempDir(t), "activity.db")
	l := open(t, Options{Path: path, RetainDays: -1})
	n := 2*insertRows + 5
	kinds := []Kind{ToolCall, ResourceRead, PromptGet, Complete}
	outcomes := []Outcome{OK, ToolError, ProtocolError, Cancelled, TimedOut, Denied}
	base := time.Now().Add(-time.Hour)
	want := map[string]Record{}
	for i := range n {
		r := Record{Time: base.Add(time.Duration(i) * time.Second), App: fmt.Sprintf("app%d", i),
			Conn: fmt.Sprintf("bridge pid %d", 1000+i), Server: fmt.Sprintf("s%d", i%7), Kind: kinds[i%len(kinds)],
			Target: fmt.Sprintf("t%03d", i), ResultBytes: 10 * i, Duration: time.Duration(i) * time.Microsecond,
			Outcome: outcomes[i%len(outcomes)], Code: -i, Approval: fmt.Sprintf("a%d", i), Wait: time.Duration(i) * time.Millisecond}
		args := []byte(fmt.Sprintf(`{"i":%d}`, i))
		if i%3 == 0 { // a third cut (preview_cut 1), in every statement
			args = []byte(fmt.Sprintf(`{"i":%d,"s":"%s"}`, i, strings.Repeat("x", 2*PreviewLimit)))
		}
		if !l.Add(r, args) {
			t.Fatalf("Add dropped record %d", i)
		}
		r.ArgBytes, r.PreviewCutKnown = len(args), true
		r.Preview, r.PreviewCut = PreviewCut(args, true, nil)
		if r.PreviewCut != (i%3 == 0) {
			t.Fatalf("record %d: preview cut %v", i, r.PreviewCut)
		}
		want[r.Target] = r
	}
	if err := l.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := l.Query(context.Background(), Filter{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("got %d records, want %d", len(got), n)
	}
	for _, g := range got {
		w, ok := want[g.Target]
		if !ok {
			t.Fatalf("a record no one added: %+v", g)
		}
		delete(want, g.Target)
		if !g.Time.Equal(w.Time) {
			t.Errorf("%s: time %v, want %v", g.Target, g.Time, w.Time)
		}
		w.ID, w.Time = g.ID, g.Time
		if g != w {
			t.Errorf("got  %+v\nwant %+v", g, w)
		}
	}
}

// TestAddOfACopiedPrefix is the relay Hook's case: it copies the first
// ArgsCopyLimit bytes in Before and gives the full size in ArgBytes.
func TestAddOfACopiedPrefix(t *testing.T) {
	l := open(t, Options{RetainDays: -1, Redactor: NewRedactor(map[string]string{"K": canary})})
	full := []byte(`{"a":"x","b":"` + canary + strings.Repeat("q", 40000) + `"}`)
	prefix := full[:100] // ends inside b's string
	r := rec("s", "a", "t", t0, OK)
	r.ArgBytes = len(full)
	l.Add(r, prefix)
	l.Add(rec("s", "a", "t2", t0.Add(time.Second), OK), full) // Add copies the prefix itself
	flush(t, l)
	rs, err := l.Query(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 {
		t.Fatalf("%d records", len(rs))
	}
	for _, r := range rs {
		if r.ArgBytes != len(full) {
			t.Errorf("%s: arg_bytes %d, want %d", r.Target, r.ArgBytes, len(full))
		}
		if want := `{"a":"x","b":"…"}`; r.Preview != want {
			t.Errorf("%s: preview %s, want %s", r.Target, r.Preview, want)
		}
		if !r.PreviewCut || !r.PreviewCutKnown {
			t.Errorf("%s: a preview of a copied prefix is not marked cut (cut %v, known %v)", r.Target, r.PreviewCut, r.PreviewCutKnown)
		}
	}
}

func TestQueryFilters(t *testing.T) {
	l := open(t, Options{RetainDays: -1})
	l.Add(rec("git", "claude-ai", "git_status", t0, OK), nil)
	l.Add(rec("git", "cursor", "git_commit", t0.Add(time.Minute), ToolError), nil)
	l.Add(rec("files", "claude-ai", "read_file", t0.Add(2*time.Minute), OK), nil)
	l.Add(rec("files", "cursor", "write_file", t0.Add(3*time.Minute), TimedOut), nil)
	l.Add(rec("git", "claude-ai", "git_log", t0.Add(4*time.Minute), OK), nil)
	flush(t, l)
	targets := func(f Filter) string {
		t.Helper()
		rs, err := l.Query(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		for _, r := range rs {
			s = append(s, r.Target)
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		name string
		f    Filter
		want string
	}{
		{"all, newest first", Filter{}, "git_log,write_file,read_file,git_commit,git_status"},
		{"server", Filter{Server: "git"}, "git_log,git_commit,git_status"},
		{"app", Filter{App: "cursor"}, "write_file,git_commit"},
		{"tool glob", Filter{Tool: "git_*"}, "git_log,git_commit,git_status"},
		{"tool glob mid", Filter{Tool: "*_file"}, "write_file,read_file"},
		{"since", Filter{Since: t0.Add(3 * time.Minute)}, "git_log,write_file"},
		{"until (exclusive)", Filter{Until: t0.Add(time.Minute)}, "git_status"},
		{"range and server", Filter{Server: "git", Since: t0.Add(time.Minute), Until: t0.Add(4 * time.Minute)}, "git_commit"},
		{"errors only", Filter{ErrorsOnly: true}, "write_file,git_commit"},
		{"limit", Filter{Limit: 2}, "git_log,write_file"},
		{"nothing", Filter{Server: "none"}, ""},
	} {
		if got := targets(c.f); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
	all, _ := l.Query(context.Background(), Filter{})
	if got := targets(Filter{AfterID: all[1].ID}); got != "git_log" {
		t.Errorf("after id: got %q, want git_log", got)
	}
}

func TestCounts(t *testing.T) {
	l := open(t, Options{RetainDays: -1})
	for i, d := range []int{5, 1, 3, 9, 7} { // median 5
		r := rec("git", "a", "t", t0.Add(time.Duration(i)*time.Second), OK)
		r.Duration = time.Duration(d) * time.Millisecond
		if i == 1 || i == 3 {
			r.Outcome = ProtocolError
		}
		l.Add(r, nil)
	}
	r := rec("files", "a", "t", t0, OK)
	r.Duration = 2 * time.Millisecond
	l.Add(r, nil)
	old := rec("files", "a", "t", t0.Add(-time.Hour), ToolError) // outside the window
	l.Add(old, nil)
	flush(t, l)
	got, err := l.Counts(context.Background(), t0.Add(-time.Minute), t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := []ServerCounts{{"files", 1, 0, 2 * time.Millisecond}, {"git", 5, 2, 5 * time.Millisecond}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counts %v, want %v", got, want)
	}
}

const canary = "sk-canary-7f3a9c1e5b"

// TestRedactionNeverReachesTheFile writes the canary secret in every form
// an app or server could put it in, and reads the database's files raw.
func TestRedactionNeverReachesTheFile(t *testing.T) {
	dir := tempDir(t)
	path := filepath.Join(dir, "activity.db")
	red := NewRedactor(map[string]string{"API_KEY": canary, "PIN": "123"})
	if got := red.Skipped(); len(got) != 1 || got[0] != "PIN" {
		t.Errorf("skipped %v, want [PIN]", got)
	}
	l := open(t, Options{Path: path, Redactor: red, RetainDays: -1})
	escaped := `sk-canary-7f3a9c1e5\u0062` // the same string, JSON-escaped
	argsList := []string{
		`{"token":"` + canary + `"}`,
		`{"header":"Bearer ` + canary + `; more"}`,
		`{"esc":"` + escaped + `"}`,
		`{"` + canary + `":1}`,
		`{"long":"` + strings.Repeat("x", 2000) + canary + `"}`, // past the preview's cut
		`{"deep":[[["` + canary + `"]]]}`,
		`not json ` + canary,
	}
	for i, a := range argsList {
		r := rec("s", "a", "tool", t0.Add(time.Duration(i)*time.Second), OK)
		if !json.Valid([]byte(a)) && !strings.HasPrefix(a, "not json") {
			t.Fatalf("test args %d are not JSON: %s", i, a)
		}
		l.Add(r, []byte(a))
	}
	uri := rec("s", "a", "https://api.example/?key="+canary, t0.Add(time.Minute), OK)
	uri.Kind = ResourceRead
	l.Add(uri, nil)
	flush(t, l)
	rs, err := l.Query(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(argsList)+1 {
		t.Fatalf("got %d records, want %d", len(rs), len(argsList)+1)
	}
	seen := 0
	for _, r := range rs {
		if strings.Contains(r.Preview, "[secret API_KEY]") || strings.Contains(r.Target, "[secret API_KEY]") {
			seen++
		}
		if r.Preview != "" && !json.Valid([]byte(r.Preview)) {
			t.Errorf("preview is not JSON: %s", r.Preview)
		}
	}
	// The record whose secret is past the 1 KiB cut shows no marker.
	if seen < len(argsList) {
		t.Errorf("%d records show [secret API_KEY], want at least %d", seen, len(argsList))
	}
	// Check the files while the log is open (the -wal holds the pages)
	// and after it is closed (checkpointed into the .db).
	check := func(when string) {
		files, _ := filepath.Glob(path + "*")
		if len(files) == 0 {
			t.Fatal("no database files")
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, form := range []string{canary, escaped, "sk-canary"} {
				if bytes.Contains(b, []byte(form)) {
					t.Errorf("%s: %s holds the canary (%q)", when, filepath.Base(f), form)
				}
			}
		}
	}
	check("open")
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	check("closed")
	// The check can fail: without a redactor the canary is in the file.
	plain := filepath.Join(dir, "plain.db")
	l2 := open(t, Options{Path: plain, RetainDays: -1})
	l2.Add(rec("s", "a", "t", t0, OK), []byte(argsList[0]))
	l2.Close()
	b, _ := os.ReadFile(plain)
	if !bytes.Contains(b, []byte(canary)) {
		t.Error("control: an unredacted record does not show the canary in the file; the raw check proves nothing")
	}
}

func TestAddNeverBlocksAndCountsDrops(t *testing.T) {
	l := open(t, Options{QueueSize: 8, BatchSize: 4, RetainDays: -1})
	// Hold the database's write lock from another connection so that the
	// writer's transaction waits (busy_timeout) and the queue fills.
	conn, err := l.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	// The writer takes a batch (at most 4) and waits for the lock; 8 more
	// fill the queue; the rest must be dropped, without Add waiting. (An
	// Add that waited would outlast the writer's busy_timeout, whose
	// failed batch would count as dropped and break the sum below.)
	const n = 1000
	accepted := 0
	for i := range n {
		if l.Add(rec("s", "a", "t"+strconv.Itoa(i), t0, OK), []byte(`{"i":1}`)) {
			accepted++
		}
	}
	if d := l.Dropped(); d != uint64(n-accepted) {
		t.Errorf("dropped %d, want %d (accepted %d)", d, n-accepted, accepted)
	}
	if accepted > 8+4 {
		t.Errorf("accepted %d records with a queue of 8, batches of 4 and a blocked writer", accepted)
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	flush(t, l) // fails if a batch failed
	rs, err := l.Query(context.Background(), Filter{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != accepted {
		t.Errorf("%d records stored, want the %d accepted", len(rs), accepted)
	}
	// Space has returned: Add accepts again.
	if !l.Add(rec("s", "a", "after", t0, OK), nil) {
		t.Error("Add dropped a record after the queue drained")
	}
}

func TestRetentionByAge(t *testing.T) {
	now := t0
	path := filepath.Join(tempDir(t), "activity.db")
	l := open(t, Options{Path: path, RetainDays: 2, Now: func() time.Time { return now }})
	l.Add(rec("s", "a", "old", t0.Add(-72*time.Hour), OK), nil)
	l.Add(rec("s", "a", "edge", t0.Add(-47*time.Hour), OK), nil)
	l.Add(rec("s", "a", "new", t0, OK), nil)
	flush(t, l)
	if err := l.prune(context.Background()); err != nil {
		t.Fatal(err)
	}
	rs, _ := l.Query(context.Background(), Filter{})
	if len(rs) != 2 || rs[0].Target != "new" || rs[1].Target != "edge" {
		t.Errorf("after pruning: %v, want new and edge", rs)
	}
	// At Open too: a day later "edge" is past 2 days.
	l.Close()
	l = open(t, Options{Path: path, RetainDays: 2, Now: func() time.Time { return now.Add(24 * time.Hour) }})
	<-l.settled // the pass Open starts, in the background
	rs, _ = l.Query(context.Background(), Filter{})
	if len(rs) != 1 || rs[0].Target != "new" {
		t.Errorf("after reopening a day later: %v, want new", rs)
	}
}

func TestRetentionBySize(t *testing.T) {
	path := filepath.Join(tempDir(t), "activity.db")
	const limit = 512 << 10
	l := open(t, Options{Path: path, RetainDays: -1, MaxBytes: limit})
	big := `{"text":"` + strings.Repeat("y", 900) + `"}`
	const n = 3000 // about 3 MB of previews
	for i := range n {
		for !l.Add(rec("s", "a", fmt.Sprintf("t%05d", i), t0.Add(time.Duration(i)*time.Second), OK), []byte(big)) {
			flush(t, l)
		}
	}
	flush(t, l)
	before, _ := os.Stat(path)
	if err := l.prune(context.Background()); err != nil {
		t.Fatal(err)
	}
	used, err := l.usedBytes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if used > limit {
		t.Errorf("live pages %d bytes after pruning, limit %d", used, limit)
	}
	after, _ := os.Stat(path)
	if after.Size() > limit {
		t.Errorf("file is %d bytes after pruning (was %d), limit %d", after.Size(), before.Size(), limit)
	}
	rs, err := l.Query(context.Background(), Filter{Limit: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 || len(rs) >= n {
		t.Fatalf("%d records kept of %d", len(rs), n)
	}
	// The newest are kept, contiguous.
	for i, r := range rs {
		if want := fmt.Sprintf("t%05d", n-1-i); r.Target != want {
			t.Fatalf("record %d is %s, want %s", i, r.Target, want)
		}
	}
	t.Logf("kept %d of %d records; file %d -> %d bytes", len(rs), n, before.Size(), after.Size())
}

// burstHelper writes records in batches until killed, printing the
// cumulative count of committed records after each commit returns.
func burstHelper() int {
	path := os.Getenv("ACTIVITY_DB")
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	total := 0
	l, err := Open(Options{Path: path, RetainDays: -1, BatchSize: 50, QueueSize: 100000,
		OnCommit: func(n int) {
			mu.Lock()
			total += n
			fmt.Fprintf(out, "committed %d\n", total)
			out.Flush()
			mu.Unlock()
		}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	args := []byte(`{"text":"` + strings.Repeat("z", 300) + `"}`)
	for i := 0; ; i++ {
		for !l.Add(rec("burst", "a", fmt.Sprintf("t%07d", i), t0.Add(time.Duration(i)), OK), args) {
			_ = l.Flush(context.Background()) // the queue is full: wait for the writer
		}
	}
}

func TestSIGKILLMidBurstKeepsCommittedBatches(t *testing.T) {
	path := filepath.Join(tempDir(t), "activity.db")
	cmd := exec.Command(testExe)
	cmd.Env = append(os.Environ(), "ACTIVITY_TEST_HELPER=burst", "ACTIVITY_DB="+path)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	committed, lines := 0, 0
	for sc.Scan() {
		n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "committed "))
		if err != nil {
			t.Fatalf("bad line from the child: %q", sc.Text())
		}
		committed = n
		if lines++; lines == 40 {
			// Kill it while it writes: the queue holds records and a
			// batch is probably in its transaction. (SIGKILL on Unix,
			// TerminateProcess on Windows.)
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
		}
	}
	err = cmd.Wait()
	if runtime.GOOS != "windows" {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("the child did not die of SIGKILL: %v", err)
		}
	} else if err == nil {
		t.Fatal("the child exited normally; it was to be killed")
	}
	if committed == 0 {
		t.Fatal("the child committed nothing")
	}
	l := open(t, Options{Path: path, RetainDays: -1})
	var count int
	var check string
	if err := l.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil {
		t.Fatal(err)
	}
	if check != "ok" {
		t.Errorf("integrity_check: %s", check)
	}
	if err := l.db.QueryRow(`SELECT count(*) FROM calls`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count < committed {
		t.Errorf("%d records after the kill, the child reported %d committed", count, committed)
	}
	// Every committed record is there: the first `committed` in order.
	var have int
	if err := l.db.QueryRow(`SELECT count(*) FROM calls WHERE target < ?`,
		fmt.Sprintf("t%07d", committed)).Scan(&have); err != nil {
		t.Fatal(err)
	}
	if have != committed {
		t.Errorf("%d of the first %d records are there", have, committed)
	}
	t.Logf("child reported %d committed, %d in the database after SIGKILL", committed, count)
}
