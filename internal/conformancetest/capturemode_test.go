package conformancetest

import (
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/stream"
)

// onThread runs fn on a goroutine locked to its OS thread, HIP's
// "thread", and waits for it; fn must leave the thread's mode as it found
// it.
func onThread(fn func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		fn()
	}()
	<-done
}

// withMode runs fn with the calling thread's capture mode set to mode,
// then sets the old one back.
func withMode(t *testing.T, mode graph.CaptureMode, fn func()) {
	old, err := graph.ExchangeCaptureMode(mode)
	require.NoError(t, err)
	defer func() {
		back, err := graph.ExchangeCaptureMode(old)
		assert.NoError(t, err)
		assert.Equal(t, mode, back)
	}()
	fn()
}

// captureFill captures a fill of b on s in mode and, when alloc, a
// synchronous allocation in the middle; it returns the allocation's error
// and the capture's graph (nil if EndCapture failed) with EndCapture's
// error.
func captureFill(t *testing.T, s *stream.Stream, b *buffer.Buffer[int32], mode graph.CaptureMode, alloc bool) (allocErr error, g *graph.Graph, endErr error) {
	require.NoError(t, graph.BeginCaptureMode(s, mode))
	require.NoError(t, stream.Fill(s, b, int32(5)))
	if alloc {
		var c *buffer.Buffer[int32]
		c, allocErr = buffer.New[int32](s.Device(), 16)
		if allocErr == nil {
			require.NoError(t, c.Free())
		}
	}
	g, endErr = graph.EndCapture(s)
	return allocErr, g, endErr
}

// hip-tests catch/unit/graph/hipThreadExchangeStreamCaptureMode.cc
func TestThreadExchangeStreamCaptureMode(t *testing.T) {
	dev := device(t)
	modes := []graph.CaptureMode{graph.CaptureModeGlobal, graph.CaptureModeThreadLocal, graph.CaptureModeRelaxed}
	// hipGraphLaunchWithMode: the thread's mode and the capture's are
	// mode; a hipMalloc inside is made only in relaxed mode.
	launchWithMode := func(t *testing.T, s *stream.Stream, mode graph.CaptureMode) {
		b := newBuffer[int32](t, dev, 64)
		withMode(t, mode, func() {
			allocErr, g, err := captureFill(t, s, b, mode, mode == graph.CaptureModeRelaxed)
			require.NoError(t, allocErr)
			require.NoError(t, err)
			defer g.Destroy()
			assert.Equal(t, int32(5), launchAndRead(t, dev, g, b)[63])
		})
	}
	// Unit_hipThreadExchangeStreamCaptureMode_Positive_Functional
	for _, main := range modes {
		for _, other := range modes {
			t.Run("Positive_Functional/"+main.String()+"/"+other.String(), func(t *testing.T) {
				s := newStream(t, dev)
				onThread(func() { launchWithMode(t, s, main) })
				onThread(func() { launchWithMode(t, s, other) })
			})
		}
	}
	// Unit_hipThreadExchangeStreamCaptureMode_Negative_Parameters
	for name, m := range map[string]graph.CaptureMode{"Pass Mode as -1": -1, "Pass Mode as INT_MAX": math.MaxInt32, "Pass Mode as hipStreamCaptureModeRelaxed + 1": graph.CaptureModeRelaxed + 1} {
		t.Run("Negative_Parameters/"+name, func(t *testing.T) {
			_, err := graph.ExchangeCaptureMode(m)
			assert.Equal(t, gpu.ErrInvalidValue, code(err))
		})
	}
	// Unit_hipThreadExchangeStreamCaptureMode_StreamCapture_1: exchanging
	// twice gives the mode back, whatever the capture's mode.
	for _, start := range modes {
		for _, ex := range modes {
			t.Run("StreamCapture_1/"+start.String()+"/"+ex.String(), func(t *testing.T) {
				s := newStream(t, dev)
				b := newBuffer[int32](t, dev, 64)
				onThread(func() {
					require.NoError(t, graph.BeginCaptureMode(s, start))
					old, err := graph.ExchangeCaptureMode(ex)
					require.NoError(t, err)
					back, err := graph.ExchangeCaptureMode(old)
					require.NoError(t, err)
					assert.Equal(t, ex, back)
					require.NoError(t, stream.Fill(s, b, int32(6)))
					g, err := graph.EndCapture(s)
					require.NoError(t, err)
					defer g.Destroy()
					assert.Equal(t, int32(6), launchAndRead(t, dev, g, b)[0])
				})
			})
		}
	}
	// Unit_hipThreadExchangeStreamCaptureMode_StreamCapture_G_R_G_TL: a
	// global capture, the thread relaxed for a hipMalloc.
	t.Run("StreamCapture_G_R_G_TL", func(t *testing.T) {
		s := newStream(t, dev)
		b := newBuffer[int32](t, dev, 64)
		onThread(func() {
			withMode(t, graph.CaptureModeRelaxed, func() {
				allocErr, g, err := captureFill(t, s, b, graph.CaptureModeGlobal, true)
				assert.NoError(t, allocErr)
				require.NoError(t, err)
				g.Destroy()
			})
		})
	})
	// Unit_hipThreadExchangeStreamCaptureMode_StreamCapture_R_G_R_TL: a
	// relaxed capture permits hipMalloc to a thread in global mode.
	t.Run("StreamCapture_R_G_R_TL", func(t *testing.T) {
		s := newStream(t, dev)
		b := newBuffer[int32](t, dev, 64)
		onThread(func() {
			allocErr, g, err := captureFill(t, s, b, graph.CaptureModeRelaxed, true)
			assert.NoError(t, allocErr)
			require.NoError(t, err)
			g.Destroy()
		})
	})
}

// hip-tests catch/unit/graph/hipStreamBeginCapture.cc: the capture modes'
// prohibitions (Unit_hipStreamBeginCapture_Negative_Parameters "invalid
// mode"; a hipMalloc during a global or thread-local capture is
// hipErrorStreamCaptureUnsupported and invalidates the capture; from
// another thread only a global capture forbids it).
func TestStreamBeginCaptureModes(t *testing.T) {
	dev := device(t)
	t.Run("invalid mode", func(t *testing.T) {
		assert.Equal(t, gpu.ErrInvalidValue, code(graph.BeginCaptureMode(newStream(t, dev), 3)))
	})
	for _, mode := range []graph.CaptureMode{graph.CaptureModeGlobal, graph.CaptureModeThreadLocal} {
		t.Run(mode.String()+"/same thread", func(t *testing.T) {
			s := newStream(t, dev)
			b := newBuffer[int32](t, dev, 64)
			onThread(func() {
				allocErr, _, err := captureFill(t, s, b, mode, true)
				assert.Equal(t, gpu.ErrStreamCaptureUnsupported, code(allocErr), "%v", allocErr)
				assert.Equal(t, gpu.ErrStreamCaptureInvalidated, code(err), "the refusal invalidated the capture")
				assert.False(t, graph.IsCapturing(s))
			})
		})
	}
	// A capture on one thread, a hipMalloc on another.
	crossThread := func(t *testing.T, capMode, otherMode graph.CaptureMode) (allocErr, endErr error) {
		s := newStream(t, dev)
		b := newBuffer[int32](t, dev, 64)
		began, alloc, end := make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() {
			defer close(end)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if !assert.NoError(t, graph.BeginCaptureMode(s, capMode)) {
				close(began)
				return
			}
			assert.NoError(t, stream.Fill(s, b, int32(1)))
			close(began)
			<-alloc
			g, err := graph.EndCapture(s)
			endErr = err
			if err == nil {
				g.Destroy()
			}
		}()
		<-began
		onThread(func() {
			withMode(t, otherMode, func() {
				c, err := buffer.New[int32](dev, 16)
				allocErr = err
				if err == nil {
					assert.NoError(t, c.Free())
				}
			})
		})
		close(alloc)
		<-end
		return allocErr, endErr
	}
	t.Run("global capture, hipMemcpy and hipMemset on the same thread", func(t *testing.T) {
		s := newStream(t, dev)
		b := newBuffer[int32](t, dev, 64)
		c := newBuffer[int32](t, dev, 64)
		onThread(func() {
			for name, call := range map[string]func() error{
				"hipMemcpy host to device":   func() error { return c.CopyFrom(make([]int32, 64)) },
				"hipMemcpy device to host":   func() error { _, err := c.ToSlice(); return err },
				"hipMemcpy device to device": func() error { return buffer.Copy(c, 0, b, 0, 64) },
				"hipMemset":                  func() error { return c.Fill(7) },
			} {
				require.NoError(t, graph.BeginCaptureMode(s, graph.CaptureModeGlobal))
				require.NoError(t, stream.Fill(s, b, int32(1)))
				assert.Equal(t, gpu.ErrStreamCaptureUnsupported, code(call()), name)
				_, err := graph.EndCapture(s)
				assert.Equal(t, gpu.ErrStreamCaptureInvalidated, code(err), name)
			}
			require.NoError(t, graph.BeginCaptureMode(s, graph.CaptureModeRelaxed))
			assert.NoError(t, c.CopyFrom(make([]int32, 64)), "relaxed: permitted")
			g, err := graph.EndCapture(s)
			require.NoError(t, err)
			g.Destroy()
		})
	})
	t.Run("global capture, hipMalloc from another thread in global mode", func(t *testing.T) {
		allocErr, endErr := crossThread(t, graph.CaptureModeGlobal, graph.CaptureModeGlobal)
		assert.Equal(t, gpu.ErrStreamCaptureUnsupported, code(allocErr), "%v", allocErr)
		assert.Equal(t, gpu.ErrStreamCaptureInvalidated, code(endErr))
	})
	t.Run("global capture, hipMalloc from another thread in thread-local mode", func(t *testing.T) {
		allocErr, endErr := crossThread(t, graph.CaptureModeGlobal, graph.CaptureModeThreadLocal)
		assert.NoError(t, allocErr)
		assert.NoError(t, endErr)
	})
	t.Run("global capture, hipMalloc from another thread in relaxed mode", func(t *testing.T) {
		allocErr, endErr := crossThread(t, graph.CaptureModeGlobal, graph.CaptureModeRelaxed)
		assert.NoError(t, allocErr)
		assert.NoError(t, endErr)
	})
	t.Run("thread-local capture, hipMalloc from another thread", func(t *testing.T) {
		allocErr, endErr := crossThread(t, graph.CaptureModeThreadLocal, graph.CaptureModeGlobal)
		assert.NoError(t, allocErr)
		assert.NoError(t, endErr)
	})
	t.Run("async allocation stays permitted", func(t *testing.T) {
		s := newStream(t, dev)
		onThread(func() {
			require.NoError(t, graph.BeginCaptureMode(s, graph.CaptureModeGlobal))
			m, err := buffer.NewAsync[int32](s, 16)
			require.NoError(t, err, "hipMallocAsync is captured, not refused")
			require.NoError(t, m.FreeAsync(s))
			g, err := graph.EndCapture(s)
			require.NoError(t, err)
			g.Destroy()
		})
	})
}
