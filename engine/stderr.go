package engine

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// Line is one captured line and when it was captured: when the first
// byte of the line was read.
type Line struct {
	Time time.Time
	Text string
}

// Ring keeps the last lines a server wrote to stderr, each with the time
// it was read, bounded in count and bytes (a time is a fixed cost per
// kept line, so the bound on lines bounds it), and lets readers follow new
// lines live. Writing never blocks: a follower that does not keep up
// misses lines (and is told how many).
type Ring struct {
	maxLines, maxBytes int
	now                func() time.Time

	mu        sync.Mutex
	lines     []Line    // oldest first
	size      int       // bytes in lines' text
	partial   []byte    // an unterminated last line
	partialAt time.Time // when partial's first byte was read
	total     uint64    // lines ever added
	subs      map[*Follower]struct{}
}

// NewRing returns a ring that keeps at most maxLines lines and maxBytes
// bytes. A longer line is cut to maxBytes.
func NewRing(maxLines, maxBytes int) *Ring {
	return &Ring{maxLines: maxLines, maxBytes: maxBytes, now: time.Now, subs: map[*Follower]struct{}{}}
}

// Write adds the complete lines of p; a trailing partial line waits for its
// end. It always returns len(p), nil.
func (r *Ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	now := r.now()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(r.partial) == 0 {
				r.partialAt = now
			}
			room := r.maxBytes - len(r.partial)
			if room > 0 {
				r.partial = append(r.partial, p[:min(room, len(p))]...)
			}
			break
		}
		chunk, at := p[:i], now
		if len(r.partial) > 0 {
			room := r.maxBytes - len(r.partial)
			if room > 0 {
				r.partial = append(r.partial, chunk[:min(room, len(chunk))]...)
			}
			chunk, r.partial, at = r.partial, nil, r.partialAt
		}
		r.addLocked(Line{Time: at, Text: string(bytes.TrimSuffix(chunk[:min(len(chunk), r.maxBytes)], []byte("\r")))})
		p = p[i+1:]
	}
	return n, nil
}

// Flush adds a pending unterminated line, if any (when the stream ends).
func (r *Ring) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.partial) > 0 {
		r.addLocked(Line{Time: r.partialAt, Text: string(r.partial)})
		r.partial = nil
	}
}

// Add adds a complete line with the time it was captured elsewhere (a
// ring that collects the lines of another, across restarts). A longer
// line is cut to maxBytes.
func (r *Ring) Add(l Line) {
	if len(l.Text) > r.maxBytes {
		l.Text = l.Text[:r.maxBytes]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addLocked(l)
}

func (r *Ring) addLocked(line Line) {
	r.lines = append(r.lines, line)
	r.size += len(line.Text)
	r.total++
	for len(r.lines) > r.maxLines || (r.size > r.maxBytes && len(r.lines) > 1) {
		r.size -= len(r.lines[0].Text)
		r.lines[0] = Line{}
		r.lines = r.lines[1:]
	}
	if cap(r.lines) > 4*r.maxLines+16 { // let the old backing array go
		r.lines = append([]Line(nil), r.lines...)
	}
	for f := range r.subs {
		select {
		case f.ch <- line:
		default:
			f.mu.Lock()
			f.missed++
			f.mu.Unlock()
		}
	}
}

// Lines returns the text of the kept lines, oldest first.
func (r *Ring) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return texts(r.lines)
}

// Entries returns a copy of the kept lines with their times, oldest first.
func (r *Ring) Entries() []Line {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Line(nil), r.lines...)
}

// Tail returns the text of the last n kept lines.
func (r *Ring) Tail(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n > len(r.lines) {
		n = len(r.lines)
	}
	return texts(r.lines[len(r.lines)-n:])
}

func texts(lines []Line) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.Text
	}
	return out
}

// Total returns how many lines were ever added.
func (r *Ring) Total() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// Follower receives the lines added to a [Ring] after it was made.
type Follower struct {
	r      *Ring
	ch     chan Line
	mu     sync.Mutex
	missed int
}

// Follow returns the kept lines and a follower for the lines that come
// after them, with no gap and no overlap. Close the follower when done.
func (r *Ring) Follow(buffer int) ([]Line, *Follower) {
	if buffer < 1 {
		buffer = 256
	}
	f := &Follower{r: r, ch: make(chan Line, buffer)}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subs[f] = struct{}{}
	return append([]Line(nil), r.lines...), f
}

// C delivers new lines.
func (f *Follower) C() <-chan Line { return f.ch }

// Missed returns how many lines were dropped because the follower was slow.
func (f *Follower) Missed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.missed
}

// Close stops the follower.
func (f *Follower) Close() {
	f.r.mu.Lock()
	delete(f.r.subs, f)
	f.r.mu.Unlock()
}

// pump copies a stream into the ring until it ends; used for captured
// stderr. A 32 KiB buffer bounds what one read holds.
func pump(r io.Reader, ring *Ring) {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			ring.Write(buf[:n])
		}
		if err != nil {
			ring.Flush()
			return
		}
	}
}
