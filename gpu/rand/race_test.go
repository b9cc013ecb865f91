package rand

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// raceBufs are the outputs of the racing calls: buffers of each element
// type and views of a float32 and a uint32 buffer.
type raceBufs struct {
	f32 *buffer.Buffer[float32]
	f64 *buffer.Buffer[float64]
	u32 *buffer.Buffer[uint32]
	u64 *buffer.Buffer[uint64]
	vf  *buffer.Sub[float32]
	vu  *buffer.Sub[uint32]
}

func newRaceBufs(t *testing.T, dev *gpu.Device, n int) *raceBufs {
	f32, err := buffer.New[float32](dev, n)
	require.NoError(t, err)
	f64, err := buffer.New[float64](dev, n)
	require.NoError(t, err)
	u32, err := buffer.New[uint32](dev, n)
	require.NoError(t, err)
	u64, err := buffer.New[uint64](dev, n)
	require.NoError(t, err)
	return &raceBufs{f32: f32, f64: f64, u32: u32, u64: u64, vf: f32.Sub(3, n-5), vu: u32.Sub(1, n-2)}
}

func (b *raceBufs) free() {
	_ = b.f32.Free()
	_ = b.f64.Free()
	_ = b.u32.Free()
	_ = b.u64.Free()
}

// racingCalls makes every call of the package on s into b with g, the
// generator's setters among them, until one fails, and returns the first
// error. The views come first, so that a freed parent fails through its
// view.
func racingCalls(g *Generator, s *stream.Stream, b *raceBufs) error {
	for i := range 30 {
		if i%10 == 9 {
			g.SetSeed(g.Seed() + 1)
			g.SetOffset(g.Offset() + 3)
		}
		for _, err := range []error{
			Uniform(g, s, b.vf),
			Range(g, s, b.vu, 3, 17),
			Uniform(g, s, b.f32),
			Normal(g, s, b.f64, 1, 2),
			LogNormal(g, s, b.vf, 0, 1),
			Bits(g, s, b.u32),
			Bits(g, s, b.u64),
			Range(g, s, b.u64, 0, 1<<40),
		} {
			if err != nil {
				return err
			}
		}
	}
	return s.Synchronize()
}

// Calls on several goroutines, sharing one Generator, race a buffer's
// Free, a view's parent's Free, the stream's Destroy and gpu.Shutdown:
// each call returns nil or a gpu error for the released object, none
// panics or hangs (run under -race), and the runtime opens again after
// Shutdown.
func TestRacesFreeDestroyShutdown(t *testing.T) {
	const n = 4099
	for round := range 8 {
		dev := gputest.Device(t)
		s, err := stream.New(dev)
		require.NoError(t, err)
		b := newRaceBufs(t, dev, n)
		g := NewPhilox(uint64(round))
		errs := make([]error, 3)
		var raceErr error
		var wg sync.WaitGroup
		for i := range errs {
			wg.Go(func() { errs[i] = racingCalls(g, s, b) })
		}
		wg.Go(func() {
			time.Sleep(time.Duration(round%3) * time.Millisecond)
			switch round % 4 {
			case 0:
				raceErr = b.u64.Free()
			case 1:
				raceErr = b.f32.Free() // the parent of vf
			case 2:
				raceErr = s.Destroy()
			case 3:
				raceErr = gpu.Shutdown()
			}
		})
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			t.Fatalf("round %d: calls racing Free, Destroy or Shutdown did not return", round)
		}
		for _, err := range errs {
			gputest.Released(t, err, "the calls")
		}
		gputest.Released(t, raceErr, "the free, destroy or shutdown")
		// After the race every call still returns nil or an error.
		gputest.Released(t, racingCalls(g, s, b), "calls after the race")
		_ = s.Destroy()
		b.free()
		if round%4 == 3 {
			assert.Error(t, Uniform(g, s, b.f32), "a call on a stream of a shut runtime")
		}
	}
}

// One Generator shared by goroutines hands each call a distinct range of
// its stream: together the calls read words 0 to the total, each once,
// and the offset ends at the total.
func TestConcurrentGenerator(t *testing.T) {
	dev := gputest.Device(t)
	const workers, calls, n = 4, 25, 37
	g := NewPhilox(21)
	outs := make([][]*buffer.Buffer[uint32], workers)
	streams := make([]*stream.Stream, workers)
	for w := range workers {
		s, err := stream.New(dev)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Destroy() })
		streams[w] = s
		for range calls {
			outs[w] = append(outs[w], newBuf[uint32](t, dev, n))
		}
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for _, o := range outs[w] {
				if err := Bits(g, streams[w], o); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	const total = workers * calls * n
	assert.Equal(t, uint64(total), g.Offset())
	var got []uint32
	for w := range workers {
		for _, o := range outs[w] {
			got = append(got, download(t, streams[w], o)...)
		}
	}
	want := refBits32(21, 0, total)
	slices.Sort(got)
	slices.Sort(want)
	assert.Equal(t, want, got, "the calls read each word of [0, total) once")
}

// A call waiting for room on a full stream does not hold the Generator:
// a host function earlier on that stream that draws from the same
// Generator runs, the stream drains and the waiting call goes on.
func TestFullStreamHoldsNoGenerator(t *testing.T) {
	dev, s := newStream(t)
	s2, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s2.Destroy() })
	a, c := newBuf[uint32](t, dev, 4), newBuf[uint32](t, dev, 4)
	g := NewPhilox(5)
	started, gate := make(chan struct{}), make(chan struct{})
	var hostErr error
	require.NoError(t, s.LaunchHostFunc(func() error {
		close(started)
		<-gate
		hostErr = Bits(g, s2, c)
		return hostErr
	}))
	<-started
	var calls atomic.Int64
	done := make(chan error, 1)
	go func() {
		for range 1 << 17 {
			if err := Bits(g, s, a); err != nil {
				done <- err
				return
			}
			calls.Add(1)
		}
		done <- nil
	}()
	// Wait until the calls stop: the stream is full behind the host
	// function (or they all went in).
	for last := int64(-1); ; {
		time.Sleep(50 * time.Millisecond)
		n := calls.Load()
		if n == last {
			break
		}
		last = n
	}
	close(gate)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatalf("a call waiting on a full stream held the generator from the host function on it (%d calls in)", calls.Load())
	}
	require.NoError(t, s.Synchronize())
	require.NoError(t, s2.Synchronize())
	assert.NoError(t, hostErr)
}

// A call whose launch fails (its buffer, a view's parent, was freed)
// returns the error and leaves the offset where it was.
func TestFailedLaunchMovesNothing(t *testing.T) {
	dev, s := newStream(t)
	b, err := buffer.New[uint32](dev, 64)
	require.NoError(t, err)
	v := b.Sub(4, 40)
	require.NoError(t, b.Free())
	g := NewPhilox(3)
	g.SetOffset(7)
	err = Bits(g, s, v)
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Equal(t, uint64(7), g.Offset(), "a failed launch gives its words back")
	ok := newBuf[uint32](t, dev, 5)
	require.NoError(t, Bits(g, s, ok))
	assert.Equal(t, refBits32(3, 7, 5), download(t, s, ok))
}
