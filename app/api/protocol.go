package api

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// ProtocolVersion is the version of the wire protocol that the host states
// in its greeting. A client refuses a host whose version differs.
const ProtocolVersion = 1

// DefaultMaxMessageSize is the largest message, newline included, that either
// side accepts unless configured otherwise.
const DefaultMaxMessageSize = 16 << 20

// Error codes that the host uses. A [Handler] may use others; codes are
// lower-case words joined by underscores.
const (
	CodeBadRequest    = "bad_request"    // the message or its params are malformed
	CodeUnknownMethod = "unknown_method" // no such method
	CodeNotFound      = "not_found"      // the named thing does not exist
	CodeInternal      = "internal"       // the host failed; the message says how
	CodeTooLarge      = "too_large"      // a message over the size limit
	CodeForbidden     = "forbidden"      // the peer is not the host's user
	CodeShuttingDown  = "shutting_down"  // the host is stopping
)

// Error is an error with a code, as sent on the wire. A [Handler] returns one
// (or a [CodedError]) to choose the code; the client returns one for every
// error response. Its Message is a full sentence meant for a person: it
// names the thing and the remedy. Data, if any, says the same as data (the
// host's problems and their remedies, app/hostapi.Problem), so that a
// client acts on it without parsing Message; a client that knows no Data
// shows Message.
type Error struct {
	Code    string          `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// CodedError is an error of a [Handler] that chooses its wire code and
// data without being an [*Error]: the server sends its Error() as the
// message, ErrorCode() as the code, and ErrorData() (if not nil) encoded
// as the data.
type CodedError interface {
	error
	ErrorCode() string
	ErrorData() any
}

// wireError turns a handler's error into what is sent: an [*Error] as it
// is, a [CodedError] with its code and data, anything else as "internal"
// (ok false).
func wireError(err error) (e *Error, ok bool) {
	if errors.As(err, &e) {
		return e, true
	}
	var ce CodedError
	if errors.As(err, &ce) {
		e = &Error{Code: ce.ErrorCode(), Message: err.Error()}
		if d := ce.ErrorData(); d != nil {
			if b, merr := json.Marshal(d); merr == nil {
				e.Data = b
			}
		}
		return e, true
	}
	return &Error{Code: CodeInternal, Message: err.Error()}, false
}

// Errorf returns an [*Error] with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Code
	}
	return e.Message
}

// Event is one published event as a subscriber receives it.
type Event struct {
	Topic string          `json:"event"`
	Data  json.RawMessage `json:"data"`
	Seq   uint64          `json:"seq"`
}

// hello is the host's greeting, the first message on every admitted
// connection.
type hello struct {
	Protocol int    `json:"protocol"`
	PID      int    `json:"pid"`
	API      string `json:"api,omitempty"` // the version of the methods ([Options.APIVersion])
}

// request is a client's message.
type request struct {
	ID     *uint64         `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// response is a host's answer to one request.
type response struct {
	ID     uint64          `json:"id"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// incoming is any message from the host, as the client decodes it.
type incoming struct {
	ID     *uint64         `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
	Event  string          `json:"event"`
	Data   json.RawMessage `json:"data"`
	Seq    uint64          `json:"seq"`
	Hello  *hello          `json:"hello"`
}

// subscribeParams are the params of the built-in "subscribe" method.
type subscribeParams struct {
	Topics []string `json:"topics"`
}

// subscribeResult is its result.
type subscribeResult struct {
	Seq uint64 `json:"seq"`
}

// line marshals v as one message, newline included.
func line(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// mustLine is line for values that always marshal.
func mustLine(v any) []byte {
	b, err := line(v)
	if err != nil {
		panic(err)
	}
	return b
}

// eventLine encodes an event without re-encoding its already marshalled
// data, so that one Publish encodes once for every subscriber.
func eventLine(topic string, data json.RawMessage, seq uint64) []byte {
	t, _ := json.Marshal(topic) // a string always marshals
	b := make([]byte, 0, len(t)+len(data)+48)
	b = append(b, `{"event":`...)
	b = append(b, t...)
	b = append(b, `,"data":`...)
	b = append(b, data...)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, seq, 10)
	return append(b, "}\n"...)
}

// errTooLarge is what readLine returns for a line over its limit.
var errTooLarge = errors.New("message too large")

// readLine returns the next line, without its newline, in a fresh slice. A
// line longer than max bytes (newline included) returns errTooLarge without
// ever being buffered whole.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > max {
			return nil, errTooLarge
		}
		switch {
		case err == nil:
			if buf == nil {
				return append([]byte(nil), chunk[:len(chunk)-1]...), nil
			}
			buf = append(buf, chunk...)
			return buf[:len(buf)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, chunk...)
		default:
			return nil, err // a last line without a newline is incomplete: dropped
		}
	}
}

// sizeText names a byte count for a person: "16 MiB", "1000 bytes".
func sizeText(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
