package activity

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"
)

// TestMigrateWait: a log made before the wait column (issue 15) opens: its
// records are kept with a wait of 0, and a new record keeps its wait.
func TestMigrateWait(t *testing.T) {
	path := filepath.Join(tempDir(t), "activity.db")
	db, err := sql.Open("sqlite", "file:"+pathURI(path))
	if err != nil {
		t.Fatal(err)
	}
	// The schema before the wait column, with one record.
	if _, err := db.Exec(`CREATE TABLE calls (
		id INTEGER PRIMARY KEY, time INTEGER NOT NULL, app TEXT NOT NULL, conn TEXT NOT NULL,
		server TEXT NOT NULL, kind TEXT NOT NULL, target TEXT NOT NULL, arg_bytes INTEGER NOT NULL,
		result_bytes INTEGER NOT NULL, preview TEXT NOT NULL, duration INTEGER NOT NULL,
		outcome TEXT NOT NULL, code INTEGER NOT NULL, approval TEXT NOT NULL);
		INSERT INTO calls (time, app, conn, server, kind, target, arg_bytes, result_bytes, preview, duration, outcome, code, approval)
		VALUES (?, 'a', 'c', 'old', 'tools/call', 't', 0, 0, '', 1000, 'ok', 0, '')`, time.Now().UnixNano()); err != nil {
		t.Fatal(err)
	}
	db.Close()

	l := open(t, Options{Path: path})
	r := rec("new", "a", "t", time.Now(), OK)
	r.Wait = 1200 * time.Millisecond
	l.Add(r, nil)
	flush(t, l)
	rs, err := l.Query(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]time.Duration{}
	for _, r := range rs {
		got[r.Server] = r.Wait
		// preview_cut (issue 27 item 14): not known for the old record.
		if known := r.Server == "new"; r.PreviewCutKnown != known || r.PreviewCut {
			t.Errorf("%s: preview cut %v, known %v; want known %v", r.Server, r.PreviewCut, r.PreviewCutKnown, known)
		}
	}
	if len(rs) != 2 || got["old"] != 0 || got["new"] != 1200*time.Millisecond {
		t.Fatalf("records after the migration: %+v", rs)
	}
	// Opening it again (migrated already) changes nothing.
	l.Close()
	l2 := open(t, Options{Path: path})
	if rs, err := l2.Query(context.Background(), Filter{}); err != nil || len(rs) != 2 {
		t.Fatalf("reopened: %d records, %v", len(rs), err)
	}
}
