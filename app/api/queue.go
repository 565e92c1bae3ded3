package api

import "sync"

// queue is a FIFO of encoded messages bounded in count and bytes. Bytes that
// a consumer took stay counted until it calls done, so the bound covers
// what waits and what is being written.
type queue struct {
	maxMsgs, maxBytes int

	mu     sync.Mutex
	msgs   [][]byte
	n      int // messages queued or taken and not done
	bytes  int // their bytes
	closed bool
	wake   chan struct{} // capacity 1: "something changed"
}

func newQueue(maxMsgs, maxBytes int) *queue {
	return &queue{maxMsgs: maxMsgs, maxBytes: maxBytes, wake: make(chan struct{}, 1)}
}

// pushResult tells what push did.
type pushResult int

const (
	pushed   pushResult = iota
	overflow            // over a bound: the consumer is too slow
	closed              // the queue no longer takes messages
)

// push appends m unless that would exceed a bound or the queue is closed.
// A message alone over the byte bound is still taken when the queue is
// empty, so a bound below the message size limit cannot wedge a connection.
func (q *queue) push(m []byte) pushResult {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return closed
	}
	if q.n > 0 && (q.n+1 > q.maxMsgs || q.bytes+len(m) > q.maxBytes) {
		return overflow
	}
	q.msgs = append(q.msgs, m)
	q.n++
	q.bytes += len(m)
	q.signal()
	return pushed
}

// pushLast appends m whatever the bounds and closes the queue: m is the
// last message.
func (q *queue) pushLast(m []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	q.msgs = append(q.msgs, m)
	q.n++
	q.bytes += len(m)
	q.closed = true
	q.signal()
	return true
}

// close stops the queue taking messages; what it holds can still be taken.
func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.signal()
	q.mu.Unlock()
}

func (q *queue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns everything queued, and whether the queue is closed (then
// nothing more will come after this batch).
func (q *queue) take() (batch [][]byte, isClosed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	batch, q.msgs = q.msgs, nil
	return batch, q.closed
}

// done releases the bound held by n messages of the given bytes that take
// returned.
func (q *queue) done(n, bytes int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.n -= n
	q.bytes -= bytes
}
