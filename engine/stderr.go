package engine

import (
	"bytes"
	"io"
	"sync"
)

// Ring keeps the last lines a server wrote to stderr, bounded in count and
// bytes, and lets readers follow new lines live. Writing never blocks: a
// follower that does not keep up misses lines (and is told how many).
type Ring struct {
	maxLines, maxBytes int

	mu      sync.Mutex
	lines   []string // oldest first
	size    int      // bytes in lines
	partial []byte   // an unterminated last line
	total   uint64   // lines ever added
	subs    map[*Follower]struct{}
}

// NewRing returns a ring that keeps at most maxLines lines and maxBytes
// bytes. A longer line is cut to maxBytes.
func NewRing(maxLines, maxBytes int) *Ring {
	return &Ring{maxLines: maxLines, maxBytes: maxBytes, subs: map[*Follower]struct{}{}}
}

// Write adds the complete lines of p; a trailing partial line waits for its
// end. It always returns len(p), nil.
func (r *Ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := r.maxBytes - len(r.partial)
			if room > 0 {
				r.partial = append(r.partial, p[:min(room, len(p))]...)
			}
			break
		}
		chunk := p[:i]
		if len(r.partial) > 0 {
			room := r.maxBytes - len(r.partial)
			if room > 0 {
				r.partial = append(r.partial, chunk[:min(room, len(chunk))]...)
			}
			chunk, r.partial = r.partial, nil
		}
		r.addLocked(string(bytes.TrimSuffix(chunk[:min(len(chunk), r.maxBytes)], []byte("\r"))))
		p = p[i+1:]
	}
	return n, nil
}

// Flush adds a pending unterminated line, if any (when the stream ends).
func (r *Ring) Flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.partial) > 0 {
		r.addLocked(string(r.partial))
		r.partial = nil
	}
}

func (r *Ring) addLocked(line string) {
	r.lines = append(r.lines, line)
	r.size += len(line)
	r.total++
	for len(r.lines) > r.maxLines || (r.size > r.maxBytes && len(r.lines) > 1) {
		r.size -= len(r.lines[0])
		r.lines[0] = ""
		r.lines = r.lines[1:]
	}
	if cap(r.lines) > 4*r.maxLines+16 { // let the old backing array go
		r.lines = append([]string(nil), r.lines...)
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

// Lines returns a copy of the kept lines, oldest first.
func (r *Ring) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

// Tail returns the last n kept lines.
func (r *Ring) Tail(n int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n > len(r.lines) {
		n = len(r.lines)
	}
	return append([]string(nil), r.lines[len(r.lines)-n:]...)
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
	ch     chan string
	mu     sync.Mutex
	missed int
}

// Follow returns the kept lines and a follower for the lines that come
// after them, with no gap and no overlap. Close the follower when done.
func (r *Ring) Follow(buffer int) ([]string, *Follower) {
	if buffer < 1 {
		buffer = 256
	}
	f := &Follower{r: r, ch: make(chan string, buffer)}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.subs[f] = struct{}{}
	return append([]string(nil), r.lines...), f
}

// C delivers new lines.
func (f *Follower) C() <-chan string { return f.ch }

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
