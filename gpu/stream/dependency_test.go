package stream_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// A buffer written on stream a and then used on stream b, with no event:
// b's launch gets a BARRIER_AND on a's kernel automatically.
func TestAutomaticDependency(t *testing.T) {
	e := setup(t)
	a, b := e.stream(), e.stream()
	const n = 64
	x, y := newBuf(t, e.dev, n), newBuf(t, e.dev, n)
	e.launch(a, "stream_test_slow_write", x, int32(42), int32(50), int32(n))
	w := written(b)
	e.launch(b, "stream_test_copy", y, x, int32(n))
	if got := written(b) - w; got != 2 {
		t.Errorf("dependent launch submitted %d packets, want a barrier and the dispatch", got)
	}
	sync(t, b)
	got, err := y.ToSlice()
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if v != 42 {
			t.Fatalf("b read x[%d] = %d before a wrote it", i, v)
		}
	}
	sync(t, a)

	// The same through asynchronous copies and fills, in both directions.
	e.launch(a, "stream_test_slow_write", x, int32(7), int32(30), int32(n))
	host := make([]int32, n)
	if err := stream.CopyToHost(b, host, x, 0); err != nil {
		t.Fatal(err)
	}
	sync(t, b)
	if host[0] != 7 || host[n-1] != 7 {
		t.Errorf("async copy on b read %d before a's kernel wrote 7", host[n-1])
	}
	if err := stream.Fill(b, y, int32(3)); err != nil {
		t.Fatal(err)
	}
	e.launch(a, "stream_test_copy", x, y, int32(n))
	sync(t, a)
	if got, _ := x.ToSlice(); got[n-1] != 3 {
		t.Errorf("a's kernel ran before b's fill: %d", got[n-1])
	}

	// Work on the same stream needs no barrier, nor does a buffer whose
	// last user has completed.
	w = written(a)
	e.launch(a, "stream_test_inc", x, int32(n))
	e.launch(b, "stream_test_inc", y, int32(n))
	sync(t, b)
	w2 := written(a)
	e.launch(a, "stream_test_inc", y, int32(n))
	if written(a)-w != 2 || written(a)-w2 != 1 {
		t.Errorf("independent launches submitted barriers: %d packets", written(a)-w)
	}
	sync(t, a)
}

// Two streams that share nothing run at the same time: each kernel waits
// until the other has started (giving up after 5 s, so a serialized run
// fails instead of hanging). The order of events proves the overlap; no
// clock bound is needed.
func TestStreamsOverlap(t *testing.T) {
	e := setup(t)
	arrived.Store(0)
	a, b := e.stream(), e.stream()
	e.launch(a, "stream_test_rendezvous", int32(0))
	e.launch(b, "stream_test_rendezvous", int32(1))
	sync(t, a)
	sync(t, b)
	if !met[0].Load() || !met[1].Load() {
		t.Fatal("the kernels of two independent streams did not run concurrently")
	}
}

// The fence of a pending packet must survive any amount of churn in the
// fence pool: a dependency on it taken later still waits for the packet.
// a's kernel stays pending until the test opens its gate, so the churn
// always happens while it runs.
func TestFenceOutlivesChurn(t *testing.T) {
	e := setup(t)
	a, b, c := e.stream(), e.stream(), e.stream()
	const n = 16
	x, y, z := newBuf(t, e.dev, n), newBuf(t, e.dev, n), newBuf(t, e.dev, 1)
	open := closeGate(t)
	e.launch(a, "stream_test_gated_write", x, int32(9), int32(n))
	// More packets than a stream's ring holds, each with its own fence,
	// all completing while a's kernel still runs.
	for i := 0; i < 2*stream.QueueSize+10; i++ {
		e.launch(c, "stream_test_inc", z, int32(1))
	}
	sync(t, c)
	if err := a.Query(); err != gpu.ErrNotReady {
		t.Fatalf("a's gated kernel is not pending after the churn: %v", err)
	}
	e.launch(b, "stream_test_copy", y, x, int32(n))
	if err := b.Query(); err != gpu.ErrNotReady {
		t.Errorf("b's copy did not wait for a's pending kernel: query %v", err)
	}
	open()
	sync(t, b)
	if got, _ := y.ToSlice(); got[0] != 9 {
		t.Errorf("b did not wait for a's pending kernel: %v", got)
	}
	if got, _ := z.ToSlice(); got[0] != 2*stream.QueueSize+10 {
		t.Errorf("churn: %d increments", got[0])
	}
}

// Many goroutines share one stream; each one's work stays in its order and
// nothing is lost or freed early.
func TestConcurrentSubmitters(t *testing.T) {
	e := setup(t)
	s := e.stream()
	const workers, rounds = 4, 200
	bufs := make([]any, workers)
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		x := newBuf(t, e.dev, 1)
		bufs[w] = x
		go func() {
			for i := 0; i < rounds; i++ {
				if err := e.tryLaunch(s, "stream_test_inc", x, int32(1)); err != nil {
					errs <- err
					return
				}
				if i%50 == 0 {
					if err := s.Synchronize(); err != nil {
						errs <- err
						return
					}
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < workers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	sync(t, s)
	for w := range bufs {
		got, _ := bufs[w].(interface{ ToSlice() ([]int32, error) }).ToSlice()
		if got[0] != rounds {
			t.Errorf("worker %d: %d increments, want %d", w, got[0], rounds)
		}
	}
}

// The per-launch and per-operation paths allocate nothing.
func TestZeroAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	e := setup(t)
	s, s2 := e.stream(), e.stream()
	x, y := newBuf(t, e.dev, 64), newBuf(t, e.dev, 64)
	f, err := e.mod.Function("stream_test_inc")
	if err != nil {
		t.Fatal(err)
	}
	empty, _ := e.mod.Function("test_empty")
	ev := e.event(stream.EventDisableTiming)
	host := make([]int32, 64)
	cases := []struct {
		name string
		op   func()
	}{
		{"launch", func() { _ = empty.Launch(s, gpu.D1(1), gpu.D1(1), 0) }},
		{"launch with buffer", func() { _ = f.Launch(s, gpu.D1(1), gpu.D1(64), 0, x, int32(64)) }},
		{"launch with dependency", func() {
			_ = f.Launch(s2, gpu.D1(1), gpu.D1(64), 0, x, int32(64))
			_ = f.Launch(s, gpu.D1(1), gpu.D1(64), 0, x, int32(64))
		}},
		{"fill", func() { _ = stream.Fill(s, x, int32(1)) }},
		{"memset", func() { _ = s.Memset(x, 1) }},
		{"copy", func() { _ = s.Copy(y, 0, x, 0, 64) }},
		{"copy to device", func() { _ = stream.CopyToDevice(s, x, 0, host) }},
		{"copy to host", func() { _ = stream.CopyToHost(s, host, x, 0) }},
		{"record and wait", func() {
			_ = s2.Record(ev)
			_ = s.WaitEvent(ev)
		}},
		{"query", func() { _ = s.Query() }},
	}
	for _, c := range cases {
		// Warm the fence pool and the stream's ring first.
		for i := 0; i < 10; i++ {
			c.op()
			_ = s.Synchronize()
			_ = s2.Synchronize()
		}
		allocs := testing.AllocsPerRun(500, func() {
			c.op()
			_ = s.Synchronize()
			_ = s2.Synchronize()
		})
		assert.Zero(t, allocs, "%s + synchronize: allocations", c.name)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	if err := s2.Synchronize(); err != nil {
		t.Fatal(err)
	}
}
