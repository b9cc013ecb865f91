package buffer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// takeQueues creates queues on dev's agent until it refuses one, as
// streams holding QueuesMax queues would, and destroys them at the end.
func takeQueues(t *testing.T, dev *gpu.Device) {
	t.Helper()
	var qs []*rocr.Queue
	t.Cleanup(func() {
		for _, q := range qs {
			_ = q.Destroy()
		}
	})
	for {
		q, err := dev.Agent().CreateQueue(2, hsa.QueueSingle, nil)
		if err != nil {
			require.ErrorIs(t, err, hsa.ErrOutOfResources)
			return
		}
		qs = append(qs, q)
		require.LessOrEqual(t, len(qs), dev.Agent().Info().QueuesMax)
	}
}

// Synchronous copies and fills run with every queue the program may make
// taken: the copy queue does not depend on one being left.
func TestCopiesWithQueuesTaken(t *testing.T) {
	root := setup(t)
	for _, tc := range []struct {
		name string
		dev  func(t *testing.T) *gpu.Device
	}{
		{"device", func(*testing.T) *gpu.Device { return root }},
		{"view", func(t *testing.T) *gpu.Device { return gputest.Device(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dev := tc.dev(t)
			a, err := buffer.New[int32](dev, 4)
			require.NoError(t, err)
			defer a.Free()
			b, err := buffer.New[int32](dev, 4)
			require.NoError(t, err)
			defer b.Free()
			p, err := buffer.NewPitched[int32](dev, 2, 2)
			require.NoError(t, err)
			defer p.Free()
			takeQueues(t, dev)

			require.NoError(t, a.CopyFrom([]int32{1, 2, 3, 4}))
			require.NoError(t, b.CopyFromBuffer(a))
			require.NoError(t, buffer.Copy(a, 0, b, 2, 2))
			got, err := a.ToSlice()
			require.NoError(t, err)
			assert.Equal(t, []int32{3, 4, 3, 4}, got)
			require.NoError(t, b.Fill(7))
			require.NoError(t, b.Memset(0))
			require.NoError(t, buffer.Copy2D(p.View(), buffer.SliceView([]int32{5, 6, 7, 8}, 8), 2, 2))
			require.NoError(t, buffer.Memset2D(p.View(), 0, 2, 1))
			row := make([]int32, 4)
			require.NoError(t, buffer.Copy2D(buffer.SliceView(row, 8), p.View(), 2, 2))
			assert.Equal(t, []int32{0, 0, 7, 8}, row)
			got, err = b.ToSlice()
			require.NoError(t, err)
			assert.Equal(t, []int32{0, 0, 0, 0}, got)
		})
	}
}

// ToSlice returns nil with its error, not a slice of zeros.
func TestToSliceErrorIsNil(t *testing.T) {
	dev := setup(t)
	b, err := buffer.New[int32](dev, 4)
	require.NoError(t, err)
	require.NoError(t, b.Free())
	got, err := b.ToSlice()
	require.Error(t, err)
	assert.Nil(t, got)
}
