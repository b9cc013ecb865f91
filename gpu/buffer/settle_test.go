package buffer_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
