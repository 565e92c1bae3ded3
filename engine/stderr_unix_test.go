//go:build unix

package engine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestRingLines(t *testing.T) {
	r := NewRing(3, 1024)
	r.Write([]byte("one\ntw"))
	if got := r.Lines(); !reflect.DeepEqual(got, []string{"one"}) {
		t.Errorf("after a partial line: %q", got)
	}
	r.Write([]byte("o\r"))
	r.Write([]byte("\nthree\r\nfour\n\nfi"))
	if got := r.Lines(); !reflect.DeepEqual(got, []string{"three", "four", ""}) {
		t.Errorf("Lines = %q, want the last 3 with CR stripped", got)
	}
	if got := r.Tail(2); !reflect.DeepEqual(got, []string{"four", ""}) {
		t.Errorf("Tail(2) = %q", got)
	}
	if got := r.Tail(10); len(got) != 3 {
		t.Errorf("Tail(10) = %q", got)
	}
	r.Flush()
	if got := r.Lines(); !reflect.DeepEqual(got, []string{"four", "", "fi"}) {
		t.Errorf("after Flush: %q", got)
	}
	if r.Total() != 6 {
		t.Errorf("Total = %d, want 6", r.Total())
	}
	r.Flush() // nothing pending: no empty line
	if r.Total() != 6 {
		t.Errorf("Total after a second Flush = %d, want 6", r.Total())
	}
}

// TestRingTimes checks each line's time: when its first byte was read
// (a line that comes in pieces keeps the time of its first piece, as does
// one that Flush ends), and that Add keeps a time given with the line.
func TestRingTimes(t *testing.T) {
	r := NewRing(4, 1024)
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	at := func(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }
	clock := t0
	r.now = func() time.Time { return clock }
	r.Write([]byte("one\ntw")) // one at 0; tw… begins at 0
	clock = at(1)
	r.Write([]byte("o\nthree\nfo")) // two at 0, three at 1; fo… begins at 1
	clock = at(2)
	r.Write([]byte("ur"))
	r.Flush() // four, begun at 1
	r.Add(Line{Time: at(-60), Text: "added"})
	want := []Line{{at(0), "two"}, {at(1), "three"}, {at(1), "four"}, {at(-60), "added"}}
	if got := r.Entries(); !reflect.DeepEqual(got, want) {
		t.Errorf("Entries = %v\nwant      %v", got, want)
	}
	if got := r.Lines(); !reflect.DeepEqual(got, []string{"two", "three", "four", "added"}) {
		t.Errorf("Lines = %q", got)
	}
	// The real clock: a line's time is between the times around its write.
	r2 := NewRing(4, 1024)
	before := time.Now()
	r2.Write([]byte("x\n"))
	after := time.Now()
	if e := r2.Entries(); len(e) != 1 || e[0].Time.Before(before) || e[0].Time.After(after) {
		t.Errorf("Entries = %v; want one line timed in [%v, %v]", e, before, after)
	}
	// Add cuts a long line to the byte bound, as Write does.
	r3 := NewRing(4, 4)
	r3.Add(Line{Time: t0, Text: "abcdefgh"})
	if got := r3.Lines(); !reflect.DeepEqual(got, []string{"abcd"}) {
		t.Errorf("Add of a long line: %q", got)
	}
}

func TestRingByteBound(t *testing.T) {
	r := NewRing(1000, 10)
	r.Write([]byte("aaaa\nbbbb\ncccc\n"))
	if got := r.Lines(); !reflect.DeepEqual(got, []string{"bbbb", "cccc"}) {
		t.Errorf("Lines = %q, want the lines that fit in 10 bytes", got)
	}
	// A long line is cut to the byte bound, and the next line starts clean.
	r.Write([]byte(strings.Repeat("x", 25) + "\n"))
	if got := r.Lines(); !reflect.DeepEqual(got, []string{strings.Repeat("x", 10)}) {
		t.Errorf("Lines = %q, want the long line cut to 10 bytes", got)
	}
	r.Write([]byte("next\n"))
	if got := r.Lines(); !reflect.DeepEqual(got, []string{"next"}) {
		t.Errorf("Lines = %q", got)
	}
	// The same when the long line comes in pieces.
	r2 := NewRing(5, 10)
	r2.Write([]byte("0123456"))
	r2.Write([]byte("789abcdef"))
	r2.Write([]byte("ghij\r\nz"))
	if got := r2.Lines(); !reflect.DeepEqual(got, []string{"0123456789"}) {
		t.Errorf("Lines = %q, want the cut line", got)
	}
	r2.Write([]byte("z\n"))
	if got := r2.Lines(); !reflect.DeepEqual(got, []string{"zz"}) {
		t.Errorf("Lines = %q, want the next line whole and alone", got)
	}
	if r2.Total() != 2 {
		t.Errorf("Total = %d, want 2", r2.Total())
	}
}

func TestRingFollow(t *testing.T) {
	r := NewRing(100, 1<<20)
	r.Write([]byte("a\nb\n"))
	kept, f := r.Follow(10)
	defer f.Close()
	if !reflect.DeepEqual(texts(kept), []string{"a", "b"}) {
		t.Errorf("kept = %q", kept)
	}
	r.Write([]byte("c\nd"))
	r.Write([]byte("\n"))
	for _, want := range []string{"c", "d"} {
		select {
		case got := <-f.C():
			if got.Text != want {
				t.Errorf("followed %q, want %q", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("follower did not get %q", want)
		}
	}
	f.Close()
	r.Write([]byte("e\n"))
	select {
	case l := <-f.C():
		t.Errorf("a closed follower got %q", l)
	default:
	}
}

// TestRingFollowConcurrent: a writer and followers that join at any time:
// each follower's snapshot plus what it receives is exactly the lines
// written, with no gap and no overlap.
func TestRingFollowConcurrent(t *testing.T) {
	const n = 2000
	r := NewRing(n, 1<<20)
	start := make(chan struct{})
	go func() {
		<-start
		for i := range n {
			fmt.Fprintf(r, "%d\n", i)
		}
	}()
	type result struct {
		kept []Line
		got  []Line
	}
	results := make(chan result, 8)
	for range 8 {
		go func() {
			<-start
			kept, f := r.Follow(n)
			defer f.Close()
			res := result{kept: kept}
			next := len(kept)
			for next < n {
				select {
				case l := <-f.C():
					res.got = append(res.got, l)
					next++
				case <-time.After(10 * time.Second):
					results <- res
					return
				}
			}
			results <- res
		}()
	}
	close(start)
	for range 8 {
		res := <-results
		all := append(res.kept, res.got...)
		if len(all) != n {
			t.Fatalf("kept %d + followed %d lines, want %d", len(res.kept), len(res.got), n)
		}
		for i, l := range all {
			if l.Text != fmt.Sprint(i) {
				t.Fatalf("line %d is %q (kept %d): a gap or an overlap", i, l, len(res.kept))
			}
		}
	}
}

func TestRingSlowFollowerNeverBlocks(t *testing.T) {
	r := NewRing(10, 1<<20)
	_, f := r.Follow(4)
	defer f.Close()
	done := make(chan struct{})
	go func() {
		for i := range 1000 {
			fmt.Fprintf(r, "line %d\n", i)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a follower that never reads blocked the writer")
	}
	if f.Missed() != 1000-4 {
		t.Errorf("Missed = %d, want %d", f.Missed(), 1000-4)
	}
	for i := range 4 { // the first lines, in order
		if l := <-f.C(); l.Text != fmt.Sprintf("line %d", i) {
			t.Errorf("buffered line %d = %q", i, l)
		}
	}
	if got := r.Lines(); len(got) != 10 || got[9] != "line 999" {
		t.Errorf("Lines = %q", got)
	}
}

// stderrOf runs the "stderr" helper with the given destination; it returns
// everything the server wrote to stdout.
func stderrOf(t *testing.T, se Stderr, opts StartOptions, lines ...string) (*server, string) {
	t.Helper()
	spec := helperSpec("stderr", lines...)
	spec.Stderr = se
	s := startServer(t, spec, opts)
	if l := s.line(t); l != "out" {
		t.Fatalf("stdout line %q, want out", l)
	}
	s.stop(t)
	rest, _ := io.ReadAll(s.out)
	if !s.ExitStatus().Exited || s.ExitStatus().Code != 0 {
		t.Errorf("exit status %v, want 0", s.ExitStatus())
	}
	return s, "out\n" + string(rest)
}

func TestStderrDestinations(t *testing.T) {
	t.Parallel()
	msg := []string{"err: first", "err: second"}
	t.Run("capture", func(t *testing.T) {
		t.Parallel()
		s, out := stderrOf(t, Stderr{Kind: StderrCapture}, StartOptions{}, msg...)
		if got := s.Stderr().Lines(); !reflect.DeepEqual(got, msg) {
			t.Errorf("captured %q, want %q", got, msg)
		}
		if out != "out\n" {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("discard", func(t *testing.T) {
		t.Parallel()
		spec := helperSpec("eof")
		spec.Stderr = Stderr{Kind: StderrDiscard}
		s := startServer(t, spec, StartOptions{})
		s.line(t)
		if fd2, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/2", s.Pid())); err == nil && fd2 != os.DevNull {
			t.Errorf("the server's fd 2 is %q, want %s", fd2, os.DevNull)
		}
		if s.Stderr() != nil {
			t.Error("Stderr() is not nil without capture")
		}
		_, out := stderrOf(t, Stderr{Kind: StderrDiscard}, StartOptions{}, msg...)
		if out != "out\n" {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("inherit", func(t *testing.T) {
		t.Parallel()
		var buf syncBuffer
		_, out := stderrOf(t, Stderr{Kind: StderrInherit}, StartOptions{Stderr: &buf}, msg...)
		if got := buf.String(); got != "err: first\nerr: second\n" {
			t.Errorf("inherited stderr got %q", got)
		}
		if out != "out\n" {
			t.Errorf("stdout %q", out)
		}
	})
	t.Run("file", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "server.log")
		se := Stderr{Kind: StderrFile, Path: path}
		_, out1 := stderrOf(t, se, StartOptions{}, "run 1")
		_, out2 := stderrOf(t, se, StartOptions{}, "run 2a", "run 2b")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != "run 1\nrun 2a\nrun 2b\n" {
			t.Errorf("file holds %q, want both runs appended", b)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
			t.Errorf("created with mode %v, want 0600", fi.Mode().Perm())
		}
		if out1 != "out\n" || out2 != "out\n" {
			t.Errorf("stdout %q, %q", out1, out2)
		}
	})
	t.Run("file not writable", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		spec := helperSpec("stderr")
		spec.Stderr = Stderr{Kind: StderrFile, Path: dir} // a directory
		_, err := Start(t.Context(), spec, StartOptions{})
		if se, ok := err.(*SpecError); !ok || se.Key != "stderr.file" {
			t.Errorf("err = %v, want a *SpecError for stderr.file", err)
		}
	})
}

// TestStderrCaptureComplete: when Done is closed, everything the server
// wrote to stderr is in the ring: a crash report's last lines are what the
// supervisor shows.
func TestStderrCaptureComplete(t *testing.T) {
	t.Parallel()
	for i := range 3 {
		spec := helperSpec("crash", "2000")
		spec.Stderr = Stderr{Kind: StderrCapture}
		s := startServer(t, spec, StartOptions{})
		s.waitExited(t, doneTimeout)
		s.stop(t)
		if got := s.Stderr().Total(); got != 2000 {
			t.Fatalf("run %d: %d lines captured when Done was closed, want 2000", i, got)
		}
		if tail := s.Stderr().Tail(1); len(tail) != 1 || tail[0] != "crash 1999" {
			t.Fatalf("run %d: last line %q", i, tail)
		}
		if st := s.ExitStatus().String(); st != "exit status 3" {
			t.Errorf("status %q", st)
		}
	}
}

// TestStderrFlood: a server that writes 50 MiB to stderr never blocks on
// it, and the ring keeps only its bounds.
func TestStderrFlood(t *testing.T) {
	t.Parallel()
	spec := helperSpec("flood", "50")
	spec.Stderr = Stderr{Kind: StderrCapture}
	spec.CaptureLines = 100
	spec.CaptureBytes = 64 << 10
	s := startServer(t, spec, StartOptions{})
	_, f := s.Stderr().Follow(1) // never read
	defer f.Close()
	if l := s.line(t); l != "done" {
		t.Fatalf("stdout %q, want done", l)
	}
	s.waitExited(t, 60*time.Second)
	s.stop(t)
	if st := s.ExitStatus(); !st.Exited || st.Code != 0 {
		t.Errorf("exit status %v", st)
	}
	ring := s.Stderr()
	const total = 50 * 1024
	if ring.Total() != total {
		t.Errorf("Total = %d, want %d", ring.Total(), total)
	}
	lines := ring.Lines()
	size := 0
	for _, l := range lines {
		size += len(l)
	}
	if len(lines) > 100 || size > 64<<10 || len(lines) == 0 {
		t.Errorf("the ring holds %d lines, %d bytes; bounds are 100 lines, 64 KiB", len(lines), size)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, fmt.Sprintf("line %06d ", total-1)) || len(last) != 1023 {
		t.Errorf("last line %.20q... (%d bytes)", last, len(last))
	}
	if f.Missed() == 0 {
		t.Error("a follower that never reads missed nothing")
	}
}
