package graph_test

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

func newStream(t *testing.T, dev *gpu.Device) *stream.Stream {
	t.Helper()
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return s
}

func newEvent(t *testing.T, dev *gpu.Device) *stream.Event {
	t.Helper()
	ev, err := stream.NewEvent(dev, stream.EventDefault)
	require.NoError(t, err)
	return ev
}

var grid, block = gpu.D1(gpu.Blocks(n, 256)), gpu.D1(256)

// What a stream does while capturing is recorded, not run, and the graph
// replays it.
func TestCaptureReplay(t *testing.T) {
	dev, _ := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, -1)
	z := newBuf(t, dev, -1)
	s := newStream(t, dev)
	var hosts atomic.Int32

	require.NoError(t, graph.BeginCapture(s))
	assert.True(t, graph.IsCapturing(s))
	require.NoError(t, stream.Fill(s, y, float32(1)))
	for i := 0; i < 5; i++ {
		require.NoError(t, kernels.LaunchSaxpy(s, grid, block, 0, 2, x, y, n))
	}
	require.NoError(t, s.Copy(z, 0, y, 0, n))
	require.NoError(t, s.LaunchHostFunc(func() error { hosts.Add(1); return nil }))
	g, err := graph.EndCapture(s)
	require.NoError(t, err)
	assert.False(t, graph.IsCapturing(s))
	assert.Equal(t, 8, g.Len())
	assert.Equal(t, float32(-1), read(t, y)[0], "nothing ran while capturing")
	assert.Equal(t, int32(0), hosts.Load())

	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	for r := 1; r <= 2; r++ {
		require.NoError(t, e.Launch(s))
		require.NoError(t, s.Synchronize())
		assert.InDelta(t, 11.0, read(t, z)[n-1], 1e-6)
		assert.Equal(t, int32(r), hosts.Load())
	}
}

// Work forked onto a second stream through an event and joined back is
// captured with its dependencies, and the second stream leaves the
// capture with the first.
func TestCaptureForkJoin(t *testing.T) {
	dev, _ := setup(t)
	x := newBuf(t, dev, 0)
	y := newBuf(t, dev, 0)
	w := newBuf(t, dev, 0)
	z := newBuf(t, dev, 0)
	s1, s2 := newStream(t, dev), newStream(t, dev)
	fork, join := newEvent(t, dev), newEvent(t, dev)
	defer fork.Destroy()
	defer join.Destroy()

	require.NoError(t, graph.BeginCapture(s1))
	require.NoError(t, stream.Fill(s1, x, float32(2)))
	require.NoError(t, s1.Record(fork))
	require.NoError(t, s2.WaitEvent(fork))
	assert.True(t, graph.IsCapturing(s2), "waiting for a captured event joins the capture")
	require.NoError(t, kernels.LaunchSaxpy(s2, grid, block, 0, 3, x, y, n)) // y = 6
	require.NoError(t, kernels.LaunchSaxpy(s1, grid, block, 0, 5, x, w, n)) // w = 10
	require.NoError(t, s2.Record(join))
	require.NoError(t, s1.WaitEvent(join))
	require.NoError(t, s1.Copy(z, 0, y, 0, n))
	g, err := graph.EndCapture(s1)
	require.NoError(t, err)
	assert.False(t, graph.IsCapturing(s2))
	assert.Equal(t, 4, g.Len())

	e, err := g.Instantiate(dev)
	require.NoError(t, err)
	defer e.Destroy()
	s3 := newStream(t, dev)
	require.NoError(t, e.Launch(s3))
	require.NoError(t, s3.Synchronize())
	assert.InDelta(t, 6.0, read(t, z)[0], 1e-6)
	assert.InDelta(t, 10.0, read(t, w)[n-1], 1e-6)

	// After the capture the streams and events work as before.
	require.NoError(t, s2.Record(join))
	require.NoError(t, s1.WaitEvent(join))
	require.NoError(t, s1.Synchronize())
}

// Every capture error is HIP's, names the operation, and invalidates the
// capture where HIP does.
func TestCaptureErrors(t *testing.T) {
	dev, ks := setup(t)
	x := newBuf(t, dev, 1)
	y := newBuf(t, dev, 0)
	saxpyOn := func(s *stream.Stream) error { return kernels.LaunchSaxpy(s, grid, block, 0, 1, x, y, n) }

	t.Run("synchronize", func(t *testing.T) {
		s := newStream(t, dev)
		require.NoError(t, graph.BeginCapture(s))
		require.NoError(t, saxpyOn(s))
		err := s.Synchronize()
		assert.Equal(t, gpu.ErrStreamCaptureUnsupported, codeOf(err), "%v", err)
		assert.ErrorContains(t, err, "stream synchronize")
		err = saxpyOn(s)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err), "%v", err)
		_, err = graph.EndCapture(s)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err), "%v", err)
		assert.False(t, graph.IsCapturing(s))
		require.NoError(t, s.Synchronize(), "the stream works after the capture")
	})
	t.Run("query", func(t *testing.T) {
		s := newStream(t, dev)
		require.NoError(t, graph.BeginCapture(s))
		assert.Equal(t, gpu.ErrStreamCaptureUnsupported, codeOf(s.Query()))
		_, err := graph.EndCapture(s)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err))
	})
	t.Run("go memory", func(t *testing.T) {
		s := newStream(t, dev)
		require.NoError(t, graph.BeginCapture(s))
		err := stream.CopyToDevice(s, x, 0, make([]float32, 4))
		assert.Equal(t, gpu.ErrStreamCaptureUnsupported, codeOf(err), "%v", err)
		assert.ErrorContains(t, err, "memcpy")
		_, err = graph.EndCapture(s)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err))
	})
	t.Run("graph launch", func(t *testing.T) {
		g := graph.New()
		_, err := g.AddKernel(saxpy(ks, 1, x, y))
		require.NoError(t, err)
		e, err := g.Instantiate(dev)
		require.NoError(t, err)
		defer e.Destroy()
		s := newStream(t, dev)
		require.NoError(t, graph.BeginCapture(s))
		assert.Equal(t, gpu.ErrStreamCaptureUnsupported, codeOf(e.Launch(s)))
		_, err = graph.EndCapture(s)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err))
	})
	t.Run("unmatched and unjoined", func(t *testing.T) {
		s1, s2 := newStream(t, dev), newStream(t, dev)
		ev := newEvent(t, dev)
		defer ev.Destroy()
		require.NoError(t, graph.BeginCapture(s1))
		require.NoError(t, s1.Record(ev))
		require.NoError(t, s2.WaitEvent(ev))
		require.NoError(t, saxpyOn(s2))
		_, err := graph.EndCapture(s2)
		assert.Equal(t, gpu.ErrStreamCaptureUnmatched, codeOf(err), "%v", err)
		_, err = graph.EndCapture(s1)
		assert.Equal(t, gpu.ErrStreamCaptureUnjoined, codeOf(err), "%v", err)
		assert.False(t, graph.IsCapturing(s2))
	})
	t.Run("isolation", func(t *testing.T) {
		s1, s3 := newStream(t, dev), newStream(t, dev)
		ev := newEvent(t, dev)
		defer ev.Destroy()
		gate := make(chan struct{})
		require.NoError(t, s3.LaunchHostFunc(func() error { <-gate; return nil }))
		require.NoError(t, s3.Record(ev))
		require.NoError(t, graph.BeginCapture(s1))
		err := s1.WaitEvent(ev)
		close(gate)
		assert.Equal(t, gpu.ErrStreamCaptureIsolation, codeOf(err), "%v", err)
		_, err = graph.EndCapture(s1)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err))
		require.NoError(t, s3.Synchronize())
	})
	t.Run("merge", func(t *testing.T) {
		s1, s2 := newStream(t, dev), newStream(t, dev)
		ev := newEvent(t, dev)
		defer ev.Destroy()
		require.NoError(t, graph.BeginCapture(s1))
		require.NoError(t, graph.BeginCapture(s2))
		require.NoError(t, s1.Record(ev))
		err := s2.WaitEvent(ev)
		assert.Equal(t, gpu.ErrStreamCaptureMerge, codeOf(err), "%v", err)
		_, err = graph.EndCapture(s1)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err))
		_, err = graph.EndCapture(s2)
		assert.NoError(t, err, "the other capture was not harmed")
	})
	t.Run("state", func(t *testing.T) {
		s := newStream(t, dev)
		_, err := graph.EndCapture(s)
		assert.Equal(t, gpu.ErrIllegalState, codeOf(err))
		require.NoError(t, graph.BeginCapture(s))
		assert.Equal(t, gpu.ErrIllegalState, codeOf(graph.BeginCapture(s)))
		assert.Equal(t, gpu.ErrInvalidHandle, codeOf(graph.BeginCapture(nil)))
		_, err = graph.EndCapture(nil)
		assert.Equal(t, gpu.ErrInvalidHandle, codeOf(err))
		g, err := graph.EndCapture(s)
		require.NoError(t, err)
		assert.Equal(t, 0, g.Len())
	})
	t.Run("destroy while capturing", func(t *testing.T) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		require.NoError(t, graph.BeginCapture(s))
		err = s.Destroy()
		require.Error(t, err)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err))
		assert.ErrorContains(t, err, "the stream was destroyed while capturing: its capture ended")
		assert.False(t, graph.IsCapturing(s))
		_, err = graph.EndCapture(s)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err))
		assert.ErrorContains(t, err, "the capture ended because the stream was destroyed")
		assert.Equal(t, gpu.ErrInvalidHandle, codeOf(s.Destroy()), "destroyed once")
	})
	t.Run("destroy a joined stream while capturing", func(t *testing.T) {
		s, j := newStream(t, dev), newStream(t, dev)
		fork, err := stream.NewEvent(dev, stream.EventDisableTiming)
		require.NoError(t, err)
		defer fork.Destroy()
		require.NoError(t, graph.BeginCapture(s))
		require.NoError(t, s.Record(fork))
		require.NoError(t, j.WaitEvent(fork))
		require.True(t, graph.IsCapturing(j))
		err = j.Destroy()
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err))
		assert.ErrorContains(t, err, "destroyed while taking part in a capture")
		_, err = graph.EndCapture(s)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err))
		assert.ErrorContains(t, err, "a stream of the capture was destroyed")
	})
}

// Captures on several streams at once, beside direct launches, stay
// apart: each graph holds its own stream's work only.
func TestCaptureRacing(t *testing.T) {
	dev, _ := setup(t)
	x := newBuf(t, dev, 1)
	const workers = 4
	done := make(chan error, 2*workers)
	for w := 0; w < workers; w++ {
		y := newBuf(t, dev, 0)
		go func() {
			s, err := stream.New(dev)
			if err != nil {
				done <- err
				return
			}
			defer s.Destroy()
			for r := 0; r < 10; r++ {
				if err := graph.BeginCapture(s); err != nil {
					done <- err
					return
				}
				for i := 0; i <= w; i++ {
					if err := kernels.LaunchSaxpy(s, grid, block, 0, 1, x, y, n); err != nil {
						done <- err
						return
					}
				}
				g, err := graph.EndCapture(s)
				if err != nil {
					done <- err
					return
				}
				if g.Len() != w+1 {
					done <- gpu.Errorf(gpu.ErrUnknown, "test", "worker %d captured %d nodes", w, g.Len())
					return
				}
			}
			done <- nil
		}()
		go func() {
			s, err := stream.New(dev)
			if err != nil {
				done <- err
				return
			}
			defer s.Destroy()
			z := newBuf(t, dev, 0)
			for r := 0; r < 10; r++ {
				if err := kernels.LaunchSaxpy(s, grid, block, 0, 1, x, z, n); err != nil {
					done <- err
					return
				}
			}
			if err := s.Synchronize(); err != nil {
				done <- err
				return
			}
			if v := read(t, z)[0]; v != 10 {
				done <- gpu.Errorf(gpu.ErrUnknown, "test", "direct launches gave %v", v)
				return
			}
			done <- nil
		}()
	}
	for i := 0; i < 2*workers; i++ {
		assert.NoError(t, <-done)
	}
}

// A host query or wait on an event recorded in a capture that has not
// ended is hipErrorCapturedEvent and invalidates the capture, as in HIP;
// it must not block (the event completes only when the capture ends).
func TestCapturedEventHostWait(t *testing.T) {
	dev, _ := setup(t)
	for name, wait := range map[string]func(*stream.Event) error{
		"query":       (*stream.Event).Query,
		"synchronize": (*stream.Event).Synchronize,
	} {
		t.Run(name, func(t *testing.T) {
			s := newStream(t, dev)
			ev := newEvent(t, dev)
			require.NoError(t, graph.BeginCapture(s))
			require.NoError(t, s.Record(ev))
			err := wait(ev)
			require.Error(t, err)
			assert.Equal(t, gpu.ErrCapturedEvent, codeOf(err), "%v", err)
			_, err = graph.EndCapture(s)
			assert.Equal(t, gpu.ErrStreamCaptureInvalidated, codeOf(err), "%v", err)
			require.NoError(t, wait(ev), "the capture ended: the event is complete")
		})
	}
}

// Capture is relaxed mode: allocation and synchronous copies that involve
// no capturing stream neither fail nor invalidate the capture.
func TestCaptureRelaxedMode(t *testing.T) {
	dev, _ := setup(t)
	s := newStream(t, dev)
	require.NoError(t, graph.BeginCapture(s))
	b, err := buffer.New[float32](dev, 4)
	require.NoError(t, err)
	require.NoError(t, b.CopyFrom([]float32{1, 2, 3, 4}))
	require.NoError(t, b.Free())
	g, err := graph.EndCapture(s)
	require.NoError(t, err)
	assert.Equal(t, 0, g.Len())
}
