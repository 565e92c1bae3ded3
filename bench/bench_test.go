//go:build unix

package bench

// The benchmarks. Each compares our transport ("ours") with a go-sdk
// baseline on the same bytes or the same child process; run.sh runs them
// in alternating rounds and prints the medians and ratios.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/stdio"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// maxMessage is the line limit given to both sides: the engine's default
// maxMessageBytes (8 MiB), which a 1 MiB message fits.
const maxMessage = engine.DefaultMaxMessageBytes

// cpuTime is the CPU time this process has used, user and system. The
// children's CPU is not in it: the child of a comparison is the same on
// both sides, the transport's cost is on ours.
func cpuTime() time.Duration { return testkit.ProcessCPU() }

// cpuMeter reports the CPU time per operation since it was started, a
// figure that the load of other processes on the machine disturbs much
// less than the wall-clock rate.
type cpuMeter time.Duration

func startCPU() cpuMeter { return cpuMeter(cpuTime()) }

func (m cpuMeter) report(b *testing.B) {
	used := cpuTime() - time.Duration(m)
	b.ReportMetric(float64(used.Nanoseconds())/1e3/float64(b.N), "cpu-us/op")
}

// --- 1. Read path: bytes in, jsonrpc.Message out -------------------------

// toolResult returns one newline-terminated tools/call result of exactly
// size bytes (with the newline), its text a lorem ipsum with JSON escapes.
func toolResult(id, size int) []byte {
	prefix := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"`, id)
	const suffix = `"}],"isError":false}}` + "\n"
	n := size - len(prefix) - len(suffix)
	if n < 0 {
		panic("message size too small")
	}
	const pattern = `Lorem ipsum dolor sit amet, consectetur adipiscing elit, \"quoted\" text\n`
	line := make([]byte, 0, size)
	line = append(line, prefix...)
	for i := 0; i < n; i++ {
		line = append(line, pattern[i%len(pattern)])
	}
	if line[len(line)-1] == '\\' { // an escape cut in half
		line[len(line)-1] = '.'
	}
	return append(line, suffix...)
}

// stream returns at least total bytes (and at least 4 messages) of
// tools/call results of size bytes each.
func stream(size, total int) []byte {
	n := max(4, total/size)
	out := make([]byte, 0, n*size)
	for i := 1; i <= n; i++ {
		out = append(out, toolResult(i, size)...)
	}
	return out
}

// replay serves the same buffer over and over, never blocking: the
// benchmark reads from memory, not from a pipe.
type replay struct {
	data []byte
	off  int
}

func (r *replay) Read(p []byte) (int, error) {
	if r.off == len(r.data) {
		r.off = 0
	}
	n := copy(p, r.data[r.off:])
	r.off += n
	return n, nil
}

func (r *replay) Close() error { return nil }

// discard is the write side of an in-memory connection.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

type connector func(r io.ReadCloser) mcp.Connection

func oursOver(r io.ReadCloser) mcp.Connection {
	return stdio.NewConn(r, discard{}, stdio.ConnOptions{MaxMessageBytes: maxMessage})
}

func ioTransportOver(r io.ReadCloser) mcp.Connection {
	c, err := (&mcp.IOTransport{Reader: r, Writer: discard{}, MaxLineLength: maxMessage}).Connect(context.Background())
	if err != nil {
		panic(err)
	}
	return c
}

var sizes = []struct {
	name string
	size int
}{{"1KiB", 1 << 10}, {"1MiB", 1 << 20}}

func BenchmarkReadPath(b *testing.B) {
	for _, sz := range sizes {
		data := stream(sz.size, 8<<20)
		b.Run(sz.name+"/ours", func(b *testing.B) { benchRead(b, data, sz.size, oursOver) })
		b.Run(sz.name+"/iotransport", func(b *testing.B) { benchRead(b, data, sz.size, ioTransportOver) })
	}
}

func benchRead(b *testing.B, data []byte, size int, connect connector) {
	ctx := context.Background()
	conn := connect(&replay{data: data})
	defer conn.Close()
	m, err := conn.Read(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if r, ok := m.(*jsonrpc.Response); !ok || len(r.Result) == 0 {
		b.Fatalf("read %T, want a response with a result", m)
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for range b.N {
		if _, err := conn.Read(ctx); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
}

// --- 2. Ping-pong with an echo child --------------------------------------

// pong is what each round trip sends and gets back. It is a response, so
// that its echo is not counted by our flood limit (which slows down
// requests and notifications from a server beyond 2000/s).
func pong(i int) *jsonrpc.Response {
	return &jsonrpc.Response{ID: intID(i), Result: json.RawMessage(`{"content":[{"type":"text","text":"pong"}],"isError":false}`)}
}

func intID(i int) jsonrpc.ID {
	id, err := jsonrpc.MakeID(float64(i))
	if err != nil {
		panic(err)
	}
	return id
}

// oursProc starts a helper through our Transport and returns the
// connection and a function that closes it and waits for the stop ladder.
func oursProc(tb testing.TB, s engine.Spec) (*stdio.Conn, func()) {
	tb.Helper()
	c, err := (&stdio.Transport{Spec: s}).Connect(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	conn := c.(*stdio.Conn)
	return conn, func() {
		conn.Close()
		<-conn.Process().Done()
	}
}

// ioTransportProc starts a helper with exec.Cmd and connects an IOTransport
// to its pipes.
func ioTransportProc(tb testing.TB, role string) (mcp.Connection, func()) {
	tb.Helper()
	cmd := command(role)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	conn, err := (&mcp.IOTransport{Reader: stdout, Writer: stdin, MaxLineLength: maxMessage}).Connect(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	return conn, func() {
		conn.Close()
		_ = cmd.Wait()
	}
}

func BenchmarkPingPong(b *testing.B) {
	b.Run("ours", func(b *testing.B) {
		conn, stop := oursProc(b, spec("echo"))
		defer stop()
		pingPong(b, conn)
	})
	b.Run("iotransport", func(b *testing.B) {
		conn, stop := ioTransportProc(b, "echo")
		defer stop()
		pingPong(b, conn)
	})
}

func roundTrip(ctx context.Context, conn mcp.Connection, i int) error {
	if err := conn.Write(ctx, pong(i)); err != nil {
		return err
	}
	m, err := conn.Read(ctx)
	if err != nil {
		return err
	}
	if r, ok := m.(*jsonrpc.Response); !ok || r.ID != intID(i) {
		return fmt.Errorf("got a %T back, want the response %d", m, i)
	}
	return nil
}

func pingPong(b *testing.B, conn mcp.Connection) {
	ctx := context.Background()
	if err := roundTrip(ctx, conn, 0); err != nil { // the child is up
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for i := range b.N {
		if err := roundTrip(ctx, conn, i+1); err != nil {
			b.Fatal(err)
		}
	}
	cpu.report(b)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "trips/s")
}

// --- 3. tools/call through the go-sdk client ------------------------------

// session connects a go-sdk client through t and returns the session and a
// function that closes it and waits for the server to be gone.
func session(tb testing.TB, t mcp.Transport, done func() <-chan struct{}) (*mcp.ClientSession, func()) {
	tb.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench-client", Version: "1.0.0"}, nil)
	cs, err := client.Connect(context.Background(), t, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return cs, func() {
		cs.Close()
		if done != nil {
			<-done()
		}
	}
}

func oursSession(tb testing.TB) (*mcp.ClientSession, func()) {
	var proc *engine.Process
	t := &stdio.Transport{Spec: spec("mcp"), Started: func(p *engine.Process) { proc = p }}
	return session(tb, t, func() <-chan struct{} { return proc.Done() })
}

func commandSession(tb testing.TB) (*mcp.ClientSession, func()) {
	// CommandTransport.Close waits for the process itself.
	return session(tb, &mcp.CommandTransport{Command: command("mcp")}, nil)
}

func callEcho(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}})
	if err != nil {
		return err
	}
	if len(res.Content) != 1 {
		return fmt.Errorf("tools/call returned %d content items", len(res.Content))
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "hello" {
		return fmt.Errorf("tools/call returned %#v", res.Content[0])
	}
	return nil
}

func BenchmarkToolsCall(b *testing.B) {
	for _, callers := range []int{1, 16} {
		name := "sequential"
		if callers > 1 {
			name = fmt.Sprintf("concurrent%d", callers)
		}
		b.Run(name+"/ours", func(b *testing.B) {
			cs, stop := oursSession(b)
			defer stop()
			callTools(b, cs, callers)
		})
		b.Run(name+"/commandtransport", func(b *testing.B) {
			cs, stop := commandSession(b)
			defer stop()
			callTools(b, cs, callers)
		})
	}
}

func callTools(b *testing.B, cs *mcp.ClientSession, callers int) {
	ctx := context.Background()
	if err := callEcho(ctx, cs); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	var next atomic.Int64
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				if err := callEcho(ctx, cs); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	cpu.report(b)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "calls/s")
}

// --- 4. Heap while a 100 MB line is refused -------------------------------

const hugeSize = 100 << 20

var ones = func() []byte {
	b := make([]byte, 64<<10)
	for i := range b {
		b[i] = 'a'
	}
	return b
}()

// hugeLine is a 100 MB tools/call result on one line, made up as it is
// read: it holds nothing itself. read counts the bytes handed out.
type hugeLine struct {
	read int64
}

const hugePrefix = `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`

func (h *hugeLine) Read(p []byte) (int, error) {
	if h.read >= hugeSize {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), hugeSize-h.read)]
	n := 0
	if h.read < int64(len(hugePrefix)) {
		n = copy(p, hugePrefix[h.read:])
	}
	for n < len(p) {
		n += copy(p[n:], ones)
	}
	if h.read+int64(n) == hugeSize {
		p[n-1] = '\n'
	}
	h.read += int64(n)
	return n, nil
}

func (h *hugeLine) Close() error { return nil }

// heapSampler records the peak of the heap's object bytes (live and not
// yet swept) while it runs, reading runtime/metrics in a loop.
type heapSampler struct {
	stop chan struct{}
	done chan struct{}
	peak uint64
}

const heapMetric = "/memory/classes/heap/objects:bytes"

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func startSampler() *heapSampler {
	h := &heapSampler{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(h.done)
		s := []metrics.Sample{{Name: heapMetric}}
		for {
			metrics.Read(s)
			h.peak = max(h.peak, s[0].Value.Uint64())
			select {
			case <-h.stop:
				metrics.Read(s)
				h.peak = max(h.peak, s[0].Value.Uint64())
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	return h
}

func (h *heapSampler) finish() uint64 {
	close(h.stop)
	<-h.done
	return h.peak
}

// hugeResult is what one refusal cost.
type hugeResult struct {
	peak, alloc, read uint64
}

// refuseHuge feeds a 100 MB line to a connection and checks that Read
// fails; it returns the growth of the heap over its level after a GC, the
// bytes allocated meanwhile, and the bytes the connection read.
func refuseHuge(connect connector, check func(error) error) (hugeResult, error) {
	runtime.GC()
	base := readMetric(heapMetric)
	alloc0 := readMetric("/gc/heap/allocs:bytes")
	gen := &hugeLine{}
	s := startSampler()
	conn := connect(gen)
	_, err := conn.Read(context.Background())
	peak := s.finish()
	alloc := readMetric("/gc/heap/allocs:bytes") - alloc0
	conn.Close()
	if cerr := check(err); cerr != nil {
		return hugeResult{}, cerr
	}
	var growth uint64
	if peak > base {
		growth = peak - base
	}
	return hugeResult{peak: growth, alloc: alloc, read: uint64(gen.read)}, nil
}

func tooLargeOurs(err error) error {
	var ce *stdio.CloseError
	if !errors.As(err, &ce) || ce.Reason != stdio.ReasonMessageTooLarge {
		return fmt.Errorf("Read returned %v, want a CloseError for a message too large", err)
	}
	return nil
}

func tooLargeIOTransport(err error) error {
	if err == nil {
		return errors.New("Read returned a message, want an error")
	}
	return nil
}

func BenchmarkHugeLine(b *testing.B) {
	b.Run("ours", func(b *testing.B) { benchHuge(b, oursOver, tooLargeOurs) })
	b.Run("iotransport", func(b *testing.B) { benchHuge(b, ioTransportOver, tooLargeIOTransport) })
}

func benchHuge(b *testing.B, connect connector, check func(error) error) {
	var peak, alloc, read uint64
	for range b.N {
		r, err := refuseHuge(connect, check)
		if err != nil {
			b.Fatal(err)
		}
		peak = max(peak, r.peak)
		alloc += r.alloc
		read += r.read
	}
	const mib = 1 << 20
	b.ReportMetric(float64(peak)/mib, "heap-peak-MiB")
	b.ReportMetric(float64(peak)/float64(maxMessage), "heap-peak/max-msg")
	b.ReportMetric(float64(alloc)/float64(b.N)/mib, "alloc-MiB/op")
	b.ReportMetric(float64(read)/float64(b.N)/mib, "read-MiB/op")
}

// --- 5. Stopping 50 servers that ignore EOF -------------------------------

const nStop = 50

// grace is stdin_grace + term_grace at their defaults (2000 ms each), the
// graces both sides use here.
const grace = engine.DefaultStdinGrace + engine.DefaultTermGrace

func BenchmarkStop50(b *testing.B) {
	for _, role := range []string{"ignore-eof", "ignore-term"} {
		b.Run(role+"/ours", func(b *testing.B) { benchStop(b, func() stopper { return startOurs(b, role) }) })
		b.Run(role+"/commandtransport", func(b *testing.B) {
			benchStop(b, func() stopper { return startCommand(b, role, engine.DefaultStdinGrace) })
		})
	}
}

// stopper stops one running server and waits until it is gone.
type stopper func()

func waitReady(tb testing.TB, conn mcp.Connection) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := conn.Read(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	if r, ok := m.(*jsonrpc.Request); !ok || r.Method != "notifications/ready" {
		tb.Fatalf("read %#v, want the ready notification", m)
	}
}

func startOurs(tb testing.TB, role string) stopper {
	conn, stop := oursProc(tb, spec(role)) // default graces: 2000 ms + 2000 ms
	waitReady(tb, conn)
	return stop
}

// startCommand starts a helper through the go-sdk's CommandTransport, whose
// Close waits td after closing stdin, and td again after SIGTERM.
func startCommand(tb testing.TB, role string, td time.Duration) stopper {
	t := &mcp.CommandTransport{Command: command(role), TerminateDuration: td}
	conn, err := t.Connect(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	waitReady(tb, conn)
	return func() { conn.Close() }
}

func benchStop(b *testing.B, start func() stopper) {
	var total time.Duration
	for range b.N {
		b.StopTimer()
		stops := make([]stopper, nStop)
		for i := range stops {
			stops[i] = start()
		}
		b.StartTimer()
		t0 := time.Now()
		var wg sync.WaitGroup
		for _, stop := range stops {
			wg.Go(stop)
		}
		wg.Wait()
		total += time.Since(t0)
	}
	per := total / time.Duration(b.N)
	b.ReportMetric(per.Seconds(), "s/stop-all")
	b.ReportMetric(float64(per)/float64(grace), "stop/grace")
}

// --- Paired runs -----------------------------------------------------------
//
// The machine these run on is shared: the load of other processes changes
// from one second to the next, which moves the wall-clock rate of two
// separate sub-benchmarks apart even when they run back to back. A paired
// benchmark runs ours and the baseline in the same benchmark, in alternating
// blocks of a few operations (the side that goes first alternates too), and
// times each side on its own: both see the same load. Each reports its rate
// and CPU per operation as ours-UNIT and base-UNIT (ns/op is of both sides
// together and means nothing). One bias remains, against ours: GC work for
// the garbage of one side may be done during the other's blocks, and the
// baselines make more garbage.

// side is one side of a paired benchmark: run does n operations.
type side func(n int) error

func pair(b *testing.B, block int, unit string, perOp float64, ours, base side) {
	b.Helper()
	sides := [2]side{ours, base}
	var wall, cpu [2]time.Duration
	b.ResetTimer()
	for done, k := 0, 0; done < b.N; k++ {
		n := min(block, b.N-done)
		for j := range 2 {
			s := (j + k) % 2
			t0, c0 := time.Now(), cpuTime()
			if err := sides[s](n); err != nil {
				b.Fatal(err)
			}
			wall[s] += time.Since(t0)
			cpu[s] += cpuTime() - c0
		}
		done += n
	}
	for s, name := range []string{"ours", "base"} {
		b.ReportMetric(float64(b.N)*perOp/wall[s].Seconds(), name+"-"+unit)
		b.ReportMetric(float64(cpu[s].Nanoseconds())/1e3/float64(b.N), name+"-cpu-us/op")
	}
}

func reads(conn mcp.Connection) side {
	return func(n int) error {
		for range n {
			if _, err := conn.Read(context.Background()); err != nil {
				return err
			}
		}
		return nil
	}
}

func BenchmarkPairedReadPath(b *testing.B) {
	for _, sz := range sizes {
		data := stream(sz.size, 8<<20)
		b.Run(sz.name, func(b *testing.B) {
			ours, base := oursOver(&replay{data: data}), ioTransportOver(&replay{data: data})
			defer ours.Close()
			defer base.Close()
			block := max(1, (256<<10)/sz.size) // about 256 KiB a block
			pair(b, block, "MB/s", float64(sz.size)/1e6, reads(ours), reads(base))
		})
	}
}

func trips(conn mcp.Connection) side {
	i := 0
	return func(n int) error {
		for range n {
			i++
			if err := roundTrip(context.Background(), conn, i); err != nil {
				return err
			}
		}
		return nil
	}
}

func BenchmarkPairedPingPong(b *testing.B) {
	ours, stopOurs := oursProc(b, spec("echo"))
	defer stopOurs()
	base, stopBase := ioTransportProc(b, "echo")
	defer stopBase()
	for _, c := range []mcp.Connection{ours, base} {
		if err := roundTrip(context.Background(), c, 0); err != nil {
			b.Fatal(err)
		}
	}
	pair(b, 16, "trips/s", 1, trips(ours), trips(base))
}

// calls makes n tools/call requests from callers goroutines.
func calls(cs *mcp.ClientSession, callers int) side {
	return func(n int) error {
		var next atomic.Int64
		errs := make(chan error, callers)
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				for next.Add(1) <= int64(n) {
					if err := callEcho(context.Background(), cs); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		select {
		case err := <-errs:
			return err
		default:
			return nil
		}
	}
}

func BenchmarkPairedToolsCall(b *testing.B) {
	for _, callers := range []int{1, 16} {
		name := "sequential"
		if callers > 1 {
			name = fmt.Sprintf("concurrent%d", callers)
		}
		b.Run(name, func(b *testing.B) {
			ours, stopOurs := oursSession(b)
			defer stopOurs()
			base, stopBase := commandSession(b)
			defer stopBase()
			for _, cs := range []*mcp.ClientSession{ours, base} {
				if err := callEcho(context.Background(), cs); err != nil {
					b.Fatal(err)
				}
			}
			pair(b, 4*callers, "calls/s", 1, calls(ours, callers), calls(base, callers))
		})
	}
}
