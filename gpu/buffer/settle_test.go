package buffer_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A synchronous copy waiting for a buffer's writer on one goroutine must
// not hide that writer from another stream that reads the buffer
// meanwhile: the read still waits for it.
func TestSettleKeepsWriterForOtherStreams(t *testing.T) {
	dev := setup(t)
	const n = 1024
	a := must[*stream.Stream](t)(stream.New(dev))
	other := must[*stream.Stream](t)(stream.New(dev))
	b := must[*buffer.Buffer[float32]](t)(buffer.New[float32](dev, n))
	c := must[*buffer.Buffer[float32]](t)(buffer.New[float32](dev, n))
	gate := make(chan struct{})
	require.NoError(t, a.LaunchHostFunc(func() error { <-gate; return nil }))
	require.NoError(t, stream.Fill(a, b, float32(7)))

	copied := make(chan error)
	go func() { copied <- b.CopyTo(make([]float32, n)) }()
	time.Sleep(20 * time.Millisecond) // the copy waits for the fill
	require.NoError(t, other.Copy(c, 0, b, 0, n))
	time.Sleep(20 * time.Millisecond) // a copy not ordered after the fill runs now
	close(gate)
	require.NoError(t, <-copied)
	require.NoError(t, other.Synchronize())

	got := must[[]float32](t)(c.ToSlice())
	assert.Equal(t, float32(7), got[0])
	assert.Equal(t, float32(7), got[n-1])
}

// A host function that copies or frees a buffer which later work on its
// own stream uses gets ErrNotPermitted instead of waiting for ever, and
// the buffer stays allocated for that work.
func TestHostFuncWaitForOwnStreamRefused(t *testing.T) {
	dev := setup(t)
	s := must[*stream.Stream](t)(stream.New(dev))
	b := must[*buffer.Buffer[float32]](t)(buffer.New[float32](dev, 16))
	gate := make(chan struct{})
	require.NoError(t, s.LaunchHostFunc(func() error { <-gate; return nil }))
	errs := make(chan error, 3)
	require.NoError(t, s.LaunchHostFunc(func() error {
		errs <- b.CopyTo(make([]float32, 16))
		errs <- b.Fill(1)
		errs <- b.Free()
		return nil
	}))
	require.NoError(t, stream.Fill(s, b, float32(3)))
	close(gate)

	for _, what := range []string{"copy", "fill", "free"} {
		select {
		case err := <-errs:
			require.Error(t, err, what)
			assert.ErrorIs(t, err, gpu.ErrNotPermitted, what)
			assert.Contains(t, err.Error(), "memset async", what)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s from a host function waits for its own stream", what)
		}
	}
	require.NoError(t, s.Synchronize())
	got := must[[]float32](t)(b.ToSlice())
	assert.Equal(t, float32(3), got[15])
	require.NoError(t, b.Free())
}
