package stream_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Every exported method of a nil Stream or Event, or of a zero one that
// New or NewEvent did not make, answers a zero value or an error that
// says which; none panics.
func TestNilReceivers(t *testing.T) {
	t.Run("nil", func(t *testing.T) { testReceivers(t, nil, nil, "nil") })
	t.Run("zero", func(t *testing.T) { testReceivers(t, &stream.Stream{}, &stream.Event{}, "zero") })
}

func testReceivers(t *testing.T, s *stream.Stream, nev *stream.Event, want string) {
	e := setup(t)
	b, err := buffer.New[int32](e.dev, 4)
	require.NoError(t, err)
	defer b.Free()
	m, err := buffer.NewManaged[int32](e.dev, 4)
	require.NoError(t, err)
	defer m.Free()
	ev, err := stream.NewEvent(e.dev, stream.EventDefault)
	require.NoError(t, err)
	defer ev.Destroy()

	assert.NotPanics(t, func() {
		assert.Nil(t, s.Device())
		assert.Equal(t, stream.Default, s.Flags())
		assert.Equal(t, stream.PriorityLow, s.Priority())
		assert.Equal(t, stream.EventDefault, nev.Flags())
	})

	ctx := context.Background()
	host := make([]int32, 4)
	ops := map[string]func() error{
		"Stream.Err":                s.Err,
		"Stream.SetKernelTimeout":   func() error { return s.SetKernelTimeout(time.Second) },
		"Stream.Synchronize":        s.Synchronize,
		"Stream.SynchronizeContext": func() error { return s.SynchronizeContext(ctx) },
		"Stream.Query":              s.Query,
		"Stream.Destroy":            s.Destroy,
		"Stream.Record":             func() error { return s.Record(ev) },
		"Stream.WaitEvent":          func() error { return s.WaitEvent(ev) },
		"Stream.WaitEvents":         func() error { return s.WaitEvents(ev, ev) },
		"Stream.Copy":               func() error { return s.Copy(b, 0, b, 0, 1) },
		"Stream.CopyPeer":           func() error { return s.CopyPeer(b, 0, b, 0, 1) },
		"Stream.Memset":             func() error { return s.Memset(b, 0) },
		"Stream.LaunchHostFunc":     func() error { return s.LaunchHostFunc(func() error { return nil }) },
		"CopyToDevice":              func() error { return stream.CopyToDevice(s, b, 0, host) },
		"CopyToHost":                func() error { return stream.CopyToHost(s, host, b, 0) },
		"Fill":                      func() error { return stream.Fill(s, b, int32(1)) },
		"Prefetch":                  func() error { return stream.Prefetch(s, m, e.dev) },
		"Copy2D": func() error {
			return stream.Copy2D(s, buffer.ObjectView[int32](b, 0, 16), buffer.SliceView(host, 16), 4, 1)
		},
		"Memset2D": func() error { return stream.Memset2D(s, buffer.ObjectView[int32](b, 0, 16), 0, 4, 1) },
		"Copy3D": func() error {
			return stream.Copy3D(s, buffer.ObjectVolume[int32](b, 0, 16, 1), buffer.SliceVolume(host, 16, 1), buffer.Extent{Width: 4, Height: 1, Depth: 1})
		},
		"Memset3D": func() error {
			return stream.Memset3D(s, buffer.ObjectVolume[int32](b, 0, 16, 1), 0, buffer.Extent{Width: 4, Height: 1, Depth: 1})
		},
		"Stream.Record(nil event)":   func() error { return e.stream().Record(nev) },
		"Event.Synchronize":          nev.Synchronize,
		"Event.SynchronizeContext":   func() error { return nev.SynchronizeContext(ctx) },
		"Event.Query":                nev.Query,
		"Event.Destroy":              nev.Destroy,
		"Elapsed":                    func() error { _, err := stream.Elapsed(nev, nev); return err },
		"ElapsedMillis":              func() error { _, err := stream.ElapsedMillis(ev, nev); return err },
		"Stream.WaitEvent(nil)":      func() error { return e.stream().WaitEvent(nev) },
		"Stream.WaitEvents(ev, nil)": func() error { return e.stream().WaitEvents(ev, nev) },
	}
	for name, f := range ops {
		var err error
		if assert.NotPanics(t, func() { err = f() }, name) {
			assert.ErrorIs(t, err, gpu.ErrInvalidHandle, name)
			assert.ErrorContains(t, err, want, name)
		}
	}
}
