package gputest

import (
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu/stream"
)

// Option says what one operation of a benchmark does, for the rates the
// benchmark reports.
type Option func(*Timer)

// Bytes is the memory traffic of one operation (read plus written),
// reported as GB/s of GPU time (gpu-ns/op). It also calls b.SetBytes, so
// the testing package reports MB/s beside ns/op as it does for any
// benchmark: MB/s is 10^6 bytes a second of the host's time, GB/s 10^9
// bytes a second of the GPU's.
func Bytes(n int64) Option { return func(t *Timer) { t.bytes = n } }

// FLOPs is the floating-point operations of one operation, reported as
// GFLOP/s of GPU time.
func FLOPs(n float64) Option { return func(t *Timer) { t.flops = n } }

// Benchmark runs op as b's operation, on stream s: once untimed to warm up
// (module load, JIT, first touch of memory), then as many times as b.Loop
// asks, and the timed region ends when s has finished the work, so ns/op
// is the work's and not its submission's. Beside ns/op it reports the
// GPU's own time per operation from events on s (gpu-ns/op) and, with
// Bytes and FLOPs, GB/s and GFLOP/s of that time. op submits work to s;
// it may wait for it too.
func Benchmark(b *testing.B, s *stream.Stream, op func() error, opts ...Option) {
	b.Helper()
	if err := op(); err != nil {
		b.Fatalf("gputest: warm-up: %v", err)
	}
	if err := s.Synchronize(); err != nil {
		b.Fatalf("gputest: warm-up: %v", err)
	}
	t := StartTimer(b, s, opts...)
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatalf("gputest: %v", err)
		}
		t.Pace()
	}
	t.Stop()
}

// Timer times a hand-written benchmark loop on a stream:
//
//	t := gputest.StartTimer(b, s, gputest.Bytes(12*n))
//	for b.Loop() { // or for range b.N
//		kernels.VectorAdd(s, x, y, z, n)
//		t.Pace()
//	}
//	t.Stop()
//
// Warm up before StartTimer: it resets b's timer.
type Timer struct {
	b          *testing.B
	s          *stream.Stream
	start, end *stream.Event
	bytes      int64
	flops      float64

	ops     int              // operations paced so far
	base    int              // operations before start was last recorded
	pending int              // operations since the last pace event
	window  int              // operations between pace events
	paced   bool             // window is sized: wait for the window before
	recs    int              // pace events recorded
	pace    [2]*stream.Event // recorded in turn; untimed: timing is start and end's
	last    time.Time        // when the last paced operation was seen done
	from    time.Time        // just before start was last recorded: the host's view of the GPU window
}

// Pace bounds the work in flight to about paceLag of GPU time, and a
// window to maxWindow operations: few enough that the wall clock keeps the
// GPU's pace, enough that the GPU does not wait for the host.
const (
	paceLag   = time.Millisecond
	maxWindow = 256
)

// StartTimer records an event on s that the GPU time starts from and
// resets b's timer.
func StartTimer(b *testing.B, s *stream.Stream, opts ...Option) *Timer {
	b.Helper()
	t := &Timer{b: b, s: s, window: 1}
	for _, o := range opts {
		o(t)
	}
	if t.bytes > 0 {
		b.SetBytes(t.bytes)
	}
	var err error
	if t.start, err = stream.NewEvent(s.Device(), stream.EventDefault); err != nil {
		b.Fatalf("gputest: %v", err)
	}
	if t.end, err = stream.NewEvent(s.Device(), stream.EventDefault); err != nil {
		b.Fatalf("gputest: %v", err)
	}
	for i := range t.pace {
		if t.pace[i], err = stream.NewEvent(s.Device(), stream.EventDisableTiming); err != nil {
			b.Fatalf("gputest: %v", err)
		}
	}
	b.Cleanup(func() {
		for _, ev := range []*stream.Event{t.start, t.end, t.pace[0], t.pace[1]} {
			_ = ev.Destroy()
		}
	})
	t.from = time.Now()
	if err := s.Record(t.start); err != nil {
		b.Fatalf("gputest: %v", err)
	}
	b.ResetTimer()
	return t
}

// Pace ends one operation of the loop. Launches return before the work
// is done and a stream's queue holds a thousand of them: without a bound,
// b.Loop's ramp-up sees the submissions' pace, not the GPU's, asks for far
// too many operations, and the benchmark runs for minutes. Pace waits for
// the first operations until it knows what one costs on the GPU; then it
// records an event every window of operations worth paceLag (one
// operation if it is longer) and waits for the window before, so the host
// stays at most two windows ahead and the GPU always has the next window
// queued while the host waits.
func (t *Timer) Pace() {
	t.ops++
	t.pending++
	if t.pending < t.window {
		return
	}
	n := t.pending
	t.pending = 0
	cur, prev := t.pace[t.recs%2], t.pace[(t.recs+1)%2]
	t.recs++
	if err := t.s.Record(cur); err != nil {
		t.b.Fatalf("gputest: %v", err)
	}
	if t.paced {
		if err := prev.Synchronize(); err != nil {
			t.b.Fatalf("gputest: %v", err)
		}
		return
	}
	if err := cur.Synchronize(); err != nil {
		t.b.Fatalf("gputest: %v", err)
	}
	now, last := time.Now(), t.last
	t.last = now
	if t.recs < 2 {
		return
	}
	// One operation submitted and waited for: the host's view of its cost
	// is an upper bound of the GPU's, enough to size the window.
	t.paced = true
	// The GPU clock restarts here: the operations waited for one by one
	// left the GPU idle between them, which is the host's time, not the
	// work's (a benchmark of 50 operations of 30 us read 10% slow).
	t.from = time.Now()
	if err := t.s.Record(t.start); err != nil {
		t.b.Fatalf("gputest: %v", err)
	}
	t.base = t.ops
	if d := now.Sub(last); d > 0 {
		if per := d / time.Duration(n); per < paceLag {
			t.window = min(int(paceLag/per), maxWindow)
		}
	}
}

// Stop waits for the stream inside the timed region (b.Loop stops the
// timer when it ends: Stop starts it again), stops the timer and reports
// gpu-ns/op, GB/s and GFLOP/s: GPU time over the operations after the
// first ones, which Pace waits for one by one to size its window (all
// b.N operations when there are no more). window-ns/op is the host's time
// over those same operations.
func (t *Timer) Stop() {
	b := t.b
	b.Helper()
	b.StartTimer()
	if err := t.s.Record(t.end); err != nil {
		b.Fatalf("gputest: %v", err)
	}
	if err := t.s.Synchronize(); err != nil {
		b.Fatalf("gputest: %v", err)
	}
	b.StopTimer()
	host := time.Since(t.from)
	gpu, err := stream.Elapsed(t.start, t.end)
	if err != nil {
		b.Fatalf("gputest: GPU time: %v", err)
	}
	n := b.N - t.base
	if n <= 0 || gpu <= 0 {
		return
	}
	ns := float64(gpu.Nanoseconds()) / float64(n)
	b.ReportMetric(ns, "gpu-ns/op")
	// The host's time over the same operations, which contains the GPU's
	// window: ns/op also counts the first operations, waited for one by one.
	b.ReportMetric(float64(host.Nanoseconds())/float64(n), "window-ns/op")
	if t.bytes > 0 {
		b.ReportMetric(float64(t.bytes)/ns, "GB/s") // bytes per ns are GB/s
	}
	if t.flops > 0 {
		b.ReportMetric(t.flops/ns, "GFLOP/s")
	}
}
