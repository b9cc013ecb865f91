package collective_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/collective"
	"github.com/hipgo/hipgo/gpu/stream"
)

// A Comm that NewRank, NewAll, Join or FromEnv did not make (a zero
// value) is no rank: its accessors answer zero values and its operations
// an error; none panics. A zero Stream is refused too.
func TestZeroValues(t *testing.T) {
	r := newRanks(t, 2)
	s := r.streams[0]
	dev := r.comms[0].Device()
	a, b := zeros[float32](t, dev, 4), zeros[float32](t, dev, 4)

	c := &collective.Comm{}
	assert.NotPanics(t, func() {
		assert.Equal(t, -1, c.Rank())
		assert.Zero(t, c.Size())
		assert.Nil(t, c.Device())
		assert.Contains(t, c.String(), "zero")
	})
	ops := map[string]struct {
		f    func() error
		want string
	}{
		"Destroy":       {c.Destroy, "zero Comm"},
		"Abort":         {c.Abort, "zero Comm"},
		"AllReduce":     {func() error { return collective.AllReduce(c, s, a, b, collective.Sum) }, "zero Comm"},
		"Broadcast":     {func() error { return collective.Broadcast(c, s, a, b, 0) }, "zero Comm"},
		"Reduce":        {func() error { return collective.Reduce(c, s, a, b, collective.Sum, 0) }, "zero Comm"},
		"AllGather":     {func() error { return collective.AllGather(c, s, a, b) }, "zero Comm"},
		"ReduceScatter": {func() error { return collective.ReduceScatter(c, s, a, b, collective.Sum) }, "zero Comm"},
		"Send":          {func() error { return collective.Send(c, s, a, 1) }, "zero Comm"},
		"Recv":          {func() error { return collective.Recv(c, s, a, 1) }, "zero Comm"},
		"GroupStart":    {func() error { _, err := collective.GroupStart(c); return err }, "zero Comm"},
		"GroupStart(real, zero)": {func() error {
			g, err := collective.GroupStart(r.comms[0], c)
			if err == nil {
				require.NoError(t, g.End())
			}
			return err
		}, "zero Comm"},
		"zero Stream": {func() error {
			return collective.AllReduce(r.comms[0], &stream.Stream{}, a, b, collective.Sum)
		}, "zero Stream"},
	}
	for name, op := range ops {
		var err error
		if assert.NotPanics(t, func() { err = op.f() }, name) {
			assert.ErrorIs(t, err, gpu.ErrInvalidHandle, name)
			assert.ErrorContains(t, err, op.want, name)
		}
	}
	// The real rank is still free to join a group.
	g, err := collective.GroupStart(r.comms[0])
	require.NoError(t, err)
	require.NoError(t, g.End())
}
