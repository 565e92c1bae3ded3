package stdio

import (
	"bytes"
	"errors"
	"io"
)

// errTooLarge means a line grew past the limit; it was not buffered whole.
var errTooLarge = errors.New("line too large")

// framer splits a stream into newline-terminated lines while holding at
// most about max+chunk bytes: a longer line is refused as soon as it has
// passed the limit, never buffered whole.
type framer struct {
	r          io.Reader
	max        int
	buf        []byte
	start, end int // the unread bytes are buf[start:end]
	scanned    int // bytes after start known to hold no '\n'
	err        error
}

const chunk = 64 << 10

func newFramer(r io.Reader, max int) *framer {
	return &framer{r: r, max: max, buf: make([]byte, min(chunk, max+1))}
}

// next returns the next line without its "\n" (or "\r\n"). The slice is
// valid until the next call. A final line without a newline is returned
// before the stream's error.
func (f *framer) next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(f.buf[f.start+f.scanned:f.end], '\n'); i >= 0 {
			j := f.start + f.scanned + i
			line := f.buf[f.start:j]
			f.start, f.scanned = j+1, 0
			if len(line) > f.max {
				return nil, errTooLarge
			}
			return bytes.TrimSuffix(line, []byte{'\r'}), nil
		}
		f.scanned = f.end - f.start
		if f.scanned > f.max {
			return nil, errTooLarge
		}
		if f.err != nil {
			if f.end > f.start {
				line := f.buf[f.start:f.end]
				f.start = f.end
				f.scanned = 0
				return bytes.TrimSuffix(line, []byte{'\r'}), nil
			}
			return nil, f.err
		}
		f.makeRoom()
		n, err := f.r.Read(f.buf[f.end:])
		f.end += n
		if err != nil {
			f.err = err
		}
	}
}

// makeRoom moves the unread bytes to the front or grows the buffer, never
// past max plus one chunk.
func (f *framer) makeRoom() {
	if f.start == f.end {
		f.start, f.end = 0, 0
	}
	if f.end < len(f.buf) {
		return
	}
	if f.start > 0 {
		n := copy(f.buf, f.buf[f.start:f.end])
		f.start, f.end = 0, n
		if f.end < len(f.buf) {
			return
		}
	}
	// Doubling stops at max+chunk in one step: growing to max and then
	// again to max+chunk would hold both buffers (2 x max) for the copy.
	size := 2 * len(f.buf)
	if size >= f.max {
		size = f.max + chunk
	}
	if size <= len(f.buf) {
		size = len(f.buf) + chunk
	}
	nb := make([]byte, size)
	copy(nb, f.buf[f.start:f.end])
	f.end -= f.start
	f.start = 0
	f.buf = nb
}
