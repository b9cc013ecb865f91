package conformancetest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// block queues a host function on s that waits for the returned release.
func block(t *testing.T, s *stream.Stream) (release func()) {
	t.Helper()
	ch := make(chan struct{})
	require.NoError(t, s.LaunchHostFunc(func() error { <-ch; return nil }))
	done := false
	release = func() {
		if !done {
			done = true
			close(ch)
		}
	}
	t.Cleanup(release)
	return release
}

// hip-tests catch/unit/stream/hipDeviceGetStreamPriorityRange.cc: Unit_hipDeviceGetStreamPriorityRange_Default
func TestDeviceGetStreamPriorityRangeDefault(t *testing.T) {
	d0, d1 := twoDevices(t)
	for _, d := range []*gpu.Device{d0, d1} {
		least, greatest := d.StreamPriorityRange()
		assert.GreaterOrEqual(t, least, greatest, "%s", d)
	}
	if d0.Properties().Driver == "cpu" {
		least, greatest := d0.StreamPriorityRange()
		assert.Equal(t, [2]int{stream.PriorityLow, stream.PriorityHigh}, [2]int{least, greatest})
	}
}

// hip-tests catch/unit/stream/hipStreamCreateWithPriority.cc: Unit_hipStreamCreateWithPriority_NegTst
func TestStreamCreateWithPriorityNegTst(t *testing.T) {
	dev := device(t)
	t.Run("flag value invalid test", func(t *testing.T) {
		_, err := stream.NewWithFlags(dev, 0xffff, stream.PriorityLow)
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
}

// hip-tests catch/unit/stream/hipStreamCreateWithPriority.cc: Unit_hipStreamCreateWithPriority_CheckPriorityVal
// hip-tests catch/unit/stream/hipStreamGetPriority.cc: Unit_hipStreamGetPriority_happy
func TestStreamCreateWithPriorityCheckPriorityVal(t *testing.T) {
	dev := device(t)
	least, greatest := dev.StreamPriorityRange()
	cases := []struct {
		name      string
		flags     stream.Flags
		prio, got int
	}{
		{"Setting high priority", stream.Default, greatest, greatest},
		{"Setting low priority", stream.Default, least, least},
		{"Setting lowest possible priority", stream.Default, least + 100, least},
		{"Setting highest possible priority", stream.Default, greatest - 100, greatest},
		{"Setting flags to hipStreamNonBlocking", stream.NonBlocking, greatest, greatest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := stream.NewWithFlags(dev, c.flags, c.prio)
			require.NoError(t, err)
			defer s.Destroy()
			assert.Equal(t, c.got, s.Priority())
			assert.Equal(t, c.flags, s.Flags())
		})
	}
	t.Run("Null Stream", func(t *testing.T) {
		s, err := stream.DefaultStream(dev)
		require.NoError(t, err)
		assert.Equal(t, least, s.Priority())
	})
	t.Run("Default Priority", func(t *testing.T) {
		assert.Equal(t, least, newStream(t, dev).Priority())
	})
}

// hip-tests catch/unit/stream/hipStreamQuery.cc
func TestStreamQuery(t *testing.T) {
	dev := device(t)
	// Unit_hipStreamQuery_WithNoWork
	t.Run("WithNoWork", func(t *testing.T) {
		assert.NoError(t, newStream(t, dev).Query())
	})
	// Unit_hipStreamQuery_WithFinishedWork
	t.Run("WithFinishedWork", func(t *testing.T) {
		s := newStream(t, dev)
		b := newBuffer[int32](t, dev, 64)
		require.NoError(t, stream.Fill(s, b, int32(3)))
		require.NoError(t, s.Synchronize())
		assert.NoError(t, s.Query())
	})
	// Unit_hipStreamQuery_WithPendingWork
	t.Run("WithPendingWork", func(t *testing.T) {
		s := newStream(t, dev)
		release := block(t, s)
		assert.ErrorIs(t, s.Query(), gpu.ErrNotReady)
		release()
		require.NoError(t, s.Synchronize())
		assert.NoError(t, s.Query())
	})
	// Unit_hipStreamQuery_WithDestroyedStream
	t.Run("WithDestroyedStream", func(t *testing.T) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		require.NoError(t, s.Destroy())
		// Documented difference: HIP says hipErrorContextIsDestroyed; hipgo
		// keeps that code for a reset device or a shut-down runtime.
		assert.Equal(t, gpu.ErrInvalidHandle, code(s.Query()))
	})
}

// hip-tests catch/unit/stream/hipStreamSynchronize.cc
func TestStreamSynchronize(t *testing.T) {
	dev := device(t)
	// Unit_hipStreamSynchronize_EmptyStream
	t.Run("EmptyStream", func(t *testing.T) { assert.NoError(t, newStream(t, dev).Synchronize()) })
	// Unit_hipStreamSynchronize_FinishWork
	t.Run("FinishWork", func(t *testing.T) {
		s := newStream(t, dev)
		b := newBuffer[int32](t, dev, 256)
		require.NoError(t, stream.Fill(s, b, int32(7)))
		require.NoError(t, s.Synchronize())
		assert.NoError(t, s.Query())
		out, err := b.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, int32(7), out[255])
	})
	// Unit_hipStreamSynchronize_UninitializedStream
	t.Run("UninitializedStream", func(t *testing.T) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		require.NoError(t, s.Destroy())
		// Documented difference: HIP says hipErrorContextIsDestroyed.
		assert.Equal(t, gpu.ErrInvalidHandle, code(s.Synchronize()))
	})
}

// hip-tests catch/unit/stream/hipStreamDestroy.cc
func TestStreamDestroy(t *testing.T) {
	dev := device(t)
	// Unit_hipStreamDestroy_Default
	t.Run("Default", func(t *testing.T) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		assert.NoError(t, s.Destroy())
	})
	// Unit_hipStreamDestroy_Negative_DoubleDestroy
	t.Run("Negative_DoubleDestroy", func(t *testing.T) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		require.NoError(t, s.Destroy())
		// Documented difference: HIP says hipErrorContextIsDestroyed.
		assert.Equal(t, gpu.ErrInvalidHandle, code(s.Destroy()))
	})
	// Unit_hipStreamDestroy_Negative_NullStream: hipStreamDestroy(nullptr)
	// is the null stream's handle; a nil *Stream is no stream.
	t.Run("Negative_NullStream", func(t *testing.T) {
		var s *stream.Stream
		assert.Equal(t, gpu.ErrInvalidHandle, code(s.Destroy()))
	})
	// Unit_hipStreamDestroy_WithPendingWork: the work still completes.
	t.Run("WithPendingWork", func(t *testing.T) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		b := newBuffer[int32](t, dev, 1024)
		require.NoError(t, stream.Fill(s, b, int32(5)))
		require.NoError(t, s.Destroy())
		out, err := b.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, int32(5), out[1023])
	})
}

// hip-tests catch/unit/stream/hipStreamWaitEvent.cc
func TestStreamWaitEvent(t *testing.T) {
	dev := device(t)
	// Unit_hipStreamWaitEvent_Negative
	t.Run("Invalid Event", func(t *testing.T) {
		assert.Equal(t, gpu.ErrInvalidHandle, code(newStream(t, dev).WaitEvent(nil)))
	})
	// Unit_hipStreamWaitEvent_UninitializedStream_Negative
	t.Run("UninitializedStream_Negative", func(t *testing.T) {
		ev := newEvent(t, dev, stream.EventDefault)
		assert.Equal(t, gpu.ErrInvalidHandle, code((&stream.Stream{}).WaitEvent(ev)))
	})
	// Unit_hipStreamWaitEvent_Default and _DifferentStreams: the waiting
	// stream is not ready until the event's work is done.
	t.Run("DifferentStreams", func(t *testing.T) {
		a, b := newStream(t, dev), newStream(t, dev)
		ev := newEvent(t, dev, stream.EventDefault)
		release := block(t, a)
		require.NoError(t, a.Record(ev))
		require.NoError(t, b.WaitEvent(ev))
		assert.ErrorIs(t, b.Query(), gpu.ErrNotReady)
		release()
		require.NoError(t, b.Synchronize())
		assert.NoError(t, ev.Query())
	})
}

// hip-tests catch/unit/stream/hipLaunchHostFunc.cc
func TestLaunchHostFunc(t *testing.T) {
	dev := device(t)
	// Unit_hipLaunchHostFunc_Negative
	t.Run("Pass nullptr as function", func(t *testing.T) {
		assert.Equal(t, gpu.ErrInvalidValue, code(newStream(t, dev).LaunchHostFunc(nil)))
	})
	// Unit_hipLaunchHostFunc_basic
	t.Run("basic", func(t *testing.T) {
		s := newStream(t, dev)
		ran := 0
		require.NoError(t, s.LaunchHostFunc(func() error { ran++; return nil }))
		require.NoError(t, s.Synchronize())
		assert.Equal(t, 1, ran)
	})
}

// hip-tests catch/unit/event/Unit_hipEventElapsedTime.cc
func TestEventElapsedTime(t *testing.T) {
	dev := device(t)
	// Unit_hipEventElapsedTime_NullCheck
	t.Run("NullCheck", func(t *testing.T) {
		ev := newEvent(t, dev, stream.EventDefault)
		_, err := stream.Elapsed(nil, ev)
		assert.Equal(t, gpu.ErrInvalidHandle, code(err))
		_, err = stream.Elapsed(ev, nil)
		assert.Equal(t, gpu.ErrInvalidHandle, code(err))
	})
	// Unit_hipEventElapsedTime_DisableTiming
	t.Run("DisableTiming", func(t *testing.T) {
		s := newStream(t, dev)
		a, b := newEvent(t, dev, stream.EventDisableTiming), newEvent(t, dev, stream.EventDisableTiming)
		require.NoError(t, s.Record(a))
		require.NoError(t, s.Record(b))
		require.NoError(t, s.Synchronize())
		_, err := stream.Elapsed(a, b)
		assert.Equal(t, gpu.ErrInvalidHandle, code(err))
	})
	// Unit_hipEventElapsedTime_DifferentDevices
	t.Run("DifferentDevices", func(t *testing.T) {
		d0, d1 := twoDevices(t)
		a, b := newEvent(t, d0, stream.EventDefault), newEvent(t, d1, stream.EventDefault)
		require.NoError(t, newStream(t, d0).Record(a))
		require.NoError(t, newStream(t, d1).Record(b))
		require.NoError(t, a.Synchronize())
		require.NoError(t, b.Synchronize())
		_, err := stream.Elapsed(a, b)
		assert.Equal(t, gpu.ErrInvalidHandle, code(err), "%v", err)
	})
	// Unit_hipEventElapsedTime_NotReady_Negative
	t.Run("NotReady_Negative", func(t *testing.T) {
		s := newStream(t, dev)
		a, b := newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault)
		require.NoError(t, s.Record(a))
		release := block(t, s)
		require.NoError(t, s.Record(b))
		_, err := stream.Elapsed(a, b)
		assert.Equal(t, gpu.ErrNotReady, code(err))
		release()
		require.NoError(t, s.Synchronize())
	})
	// Unit_hipEventElapsedTime
	t.Run("Positive", func(t *testing.T) {
		s := newStream(t, dev)
		a, b := newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault)
		require.NoError(t, s.Record(a))
		require.NoError(t, stream.Fill(s, newBuffer[int32](t, dev, 4096), int32(1)))
		require.NoError(t, s.Record(b))
		require.NoError(t, b.Synchronize())
		ms, err := stream.ElapsedMillis(a, b)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, ms, float32(0))
	})
	// A never-recorded event (Unit_hipEventElapsedTime's unrecorded case).
	t.Run("NotRecorded", func(t *testing.T) {
		_, err := stream.Elapsed(newEvent(t, dev, stream.EventDefault), newEvent(t, dev, stream.EventDefault))
		assert.Equal(t, gpu.ErrInvalidHandle, code(err))
	})
}

// hip-tests catch/unit/event/Unit_hipEventRecord.cc: Unit_hipEventRecord_Negative
func TestEventRecordNegative(t *testing.T) {
	dev := device(t)
	t.Run("Nullptr event", func(t *testing.T) {
		assert.Equal(t, gpu.ErrInvalidHandle, code(newStream(t, dev).Record(nil)))
	})
	t.Run("Different devices", func(t *testing.T) {
		d0, d1 := twoDevices(t)
		ev := newEvent(t, d0, stream.EventDefault)
		assert.Equal(t, gpu.ErrInvalidHandle, code(newStream(t, d1).Record(ev)))
	})
}

// hip-tests catch/unit/event/hipEventSynchronize.cc
func TestEventSynchronize(t *testing.T) {
	dev := device(t)
	// Unit_hipEventSynchronize_Default_Positive
	t.Run("Default_Positive", func(t *testing.T) {
		s := newStream(t, dev)
		b := newBuffer[int32](t, dev, 512)
		ev := newEvent(t, dev, stream.EventDefault)
		require.NoError(t, stream.Fill(s, b, int32(9)))
		require.NoError(t, s.Record(ev))
		require.NoError(t, ev.Synchronize())
		assert.NoError(t, ev.Query())
	})
	// Unit_hipEventSynchronize_NoEventRecord_Positive
	t.Run("NoEventRecord_Positive", func(t *testing.T) {
		assert.NoError(t, newEvent(t, dev, stream.EventDefault).Synchronize())
	})
}

// hip-tests catch/unit/event/hipEventDestroy.cc
func TestEventDestroy(t *testing.T) {
	dev := device(t)
	// Unit_hipEventDestroy_Negative
	t.Run("Invalid Event", func(t *testing.T) {
		var ev *stream.Event
		assert.Equal(t, gpu.ErrInvalidHandle, code(ev.Destroy()))
	})
	t.Run("Destroy twice", func(t *testing.T) {
		ev, err := stream.NewEvent(dev, stream.EventDefault)
		require.NoError(t, err)
		require.NoError(t, ev.Destroy())
		// Documented difference: HIP says hipErrorContextIsDestroyed.
		assert.Equal(t, gpu.ErrInvalidHandle, code(ev.Destroy()))
	})
	// Unit_hipEventDestroy_Unfinished: destroying an event whose work is
	// pending succeeds, and the work completes.
	t.Run("Unfinished", func(t *testing.T) {
		s := newStream(t, dev)
		ev, err := stream.NewEvent(dev, stream.EventDefault)
		require.NoError(t, err)
		release := block(t, s)
		require.NoError(t, s.Record(ev))
		assert.ErrorIs(t, ev.Query(), gpu.ErrNotReady)
		require.NoError(t, ev.Destroy())
		release()
		assert.NoError(t, s.Synchronize())
	})
}

// hip-tests catch/unit/event/Unit_hipEventQuery.cc: Unit_hipEventQuery_DifferentDevice
func TestEventQueryDifferentDevice(t *testing.T) {
	d0, d1 := twoDevices(t)
	s := newStream(t, d1)
	ev := newEvent(t, d1, stream.EventDefault)
	release := block(t, s)
	require.NoError(t, s.Record(ev))
	assert.Equal(t, gpu.ErrNotReady, code(ev.Query()))
	release()
	require.NoError(t, ev.Synchronize())
	assert.NoError(t, ev.Query())
	assert.NoError(t, newStream(t, d0).WaitEvent(ev), "a stream of another device waits for it")
}

// hip-tests catch/unit/event/hipEventCreateWithFlags.cc: Unit_hipEventCreateWithFlags_Positive
// hip-tests catch/unit/event/Unit_hipEvent_Negative.cc: Unit_hipEventCreateWithFlags_Negative (invalid flags)
func TestEventCreateWithFlags(t *testing.T) {
	dev := device(t)
	for name, f := range map[string]stream.EventFlags{
		"hipEventDefault":                              stream.EventDefault,
		"hipEventBlockingSync":                         stream.EventBlockingSync,
		"hipEventDisableTiming":                        stream.EventDisableTiming,
		"hipEventBlockingSync | hipEventDisableTiming": stream.EventBlockingSync | stream.EventDisableTiming,
	} {
		t.Run(name, func(t *testing.T) {
			ev := newEvent(t, dev, f)
			assert.Equal(t, f, ev.Flags())
		})
	}
	t.Run("invalid flags", func(t *testing.T) {
		_, err := stream.NewEvent(dev, 0x4000)
		assert.Equal(t, gpu.ErrInvalidValue, code(err))
	})
}

// hip-tests hipIpcOpenMemHandle.cc: Unit_hipIpcOpenMemHandle_Negative_Open_In_Creating_Process
// and hipIpcGetEventHandle's negative codes (CLR: a null event is
// hipErrorInvalidValue, an event made without hipEventInterprocess
// hipErrorInvalidResourceHandle).
func TestIpcNegative(t *testing.T) {
	dev := device(t)
	t.Run("Open_In_Creating_Process", func(t *testing.T) {
		b, err := buffer.NewShareable[int32](dev, 256)
		require.NoError(t, err)
		defer b.Free()
		h, err := b.IPCHandle()
		require.NoError(t, err)
		_, err = buffer.OpenIPC[int32](dev, h)
		assert.Equal(t, gpu.ErrInvalidContext, code(err), "%v", err)
	})
	t.Run("hipIpcGetEventHandle null event", func(t *testing.T) {
		var ev *stream.Event
		_, err := ev.IPCHandle()
		assert.Equal(t, gpu.ErrInvalidValue, code(err), "%v", err)
	})
	t.Run("hipIpcGetEventHandle event without hipEventInterprocess", func(t *testing.T) {
		_, err := newEvent(t, dev, stream.EventDisableTiming).IPCHandle()
		assert.Equal(t, gpu.ErrInvalidHandle, code(err), "%v", err)
	})
	t.Run("hipIpcOpenEventHandle in creating process", func(t *testing.T) {
		ev := newEvent(t, dev, stream.EventInterprocess|stream.EventDisableTiming)
		h, err := ev.IPCHandle()
		require.NoError(t, err)
		_, err = stream.OpenIPCEvent(dev, h)
		assert.Equal(t, gpu.ErrInvalidContext, code(err), "%v", err)
	})
}

// hip-tests catch/unit/stream/hipStreamAddCallback.cc
func TestStreamAddCallback(t *testing.T) {
	dev := device(t)
	// Unit_hipStreamAddCallback_WithDefaultStream / _WithCreatedStream:
	// the callback runs after the stream's earlier work, with hipSuccess.
	t.Run("WithCreatedStream", func(t *testing.T) {
		s := newStream(t, dev)
		b := newBuffer[int32](t, dev, 256)
		require.NoError(t, stream.Fill(s, b, int32(9)))
		type result struct {
			s      *stream.Stream
			status error
			seen   int32
		}
		got := make(chan result, 1)
		require.NoError(t, s.AddCallback(func(cs *stream.Stream, status error) {
			out := make([]int32, 1)
			err := b.CopyToAt(255, out) // the fill before it is done
			if err != nil {
				status = err
			}
			got <- result{cs, status, out[0]}
		}))
		require.NoError(t, s.Synchronize())
		r := <-got
		assert.Same(t, s, r.s)
		assert.NoError(t, r.status)
		assert.Equal(t, int32(9), r.seen)
	})
	t.Run("WithDefaultStream", func(t *testing.T) {
		s, err := stream.DefaultStream(dev)
		require.NoError(t, err)
		done := make(chan error, 1)
		require.NoError(t, s.AddCallback(func(_ *stream.Stream, status error) { done <- status }))
		require.NoError(t, s.Synchronize())
		assert.NoError(t, <-done)
	})
	// The callback receives the stream's status: the failure of its
	// earlier work.
	t.Run("status of a failed stream", func(t *testing.T) {
		s := newStream(t, dev)
		require.NoError(t, s.LaunchHostFunc(func() error { return gpu.Errorf(gpu.ErrLaunchFailure, "test", "earlier work failed") }))
		done := make(chan error, 1)
		require.NoError(t, s.AddCallback(func(_ *stream.Stream, status error) { done <- status }))
		assert.Error(t, s.Synchronize())
		status := <-done
		assert.Equal(t, gpu.ErrLaunchFailure, code(status), "%v", status)
	})
	// The failure came before the callback was added: it still runs, with
	// that failure, and adding it is no error.
	t.Run("status of a stream that failed before", func(t *testing.T) {
		s := newStream(t, dev)
		require.NoError(t, s.LaunchHostFunc(func() error { return gpu.Errorf(gpu.ErrLaunchFailure, "test", "earlier work failed") }))
		require.Error(t, s.Synchronize())
		done := make(chan error, 1)
		require.NoError(t, s.AddCallback(func(_ *stream.Stream, status error) { done <- status }))
		status := <-done
		assert.Equal(t, gpu.ErrLaunchFailure, code(status), "%v", status)
	})
	// Unit_hipStreamAddCallback_ParamTst: a null callback.
	t.Run("ParamTst: callback == nullptr", func(t *testing.T) {
		assert.Equal(t, gpu.ErrInvalidValue, code(newStream(t, dev).AddCallback(nil)))
	})
	t.Run("ParamTst: destroyed stream", func(t *testing.T) {
		s, err := stream.New(dev)
		require.NoError(t, err)
		require.NoError(t, s.Destroy())
		assert.Equal(t, gpu.ErrInvalidHandle, code(s.AddCallback(func(*stream.Stream, error) {})))
	})
}
