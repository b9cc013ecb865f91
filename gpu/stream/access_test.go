package stream_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type sliceArgs struct {
	X      rocr.Ptr[int32]
	Lo, Hi int32
}

var sliceK = kernel.Define("stream_test_slice", func(g *kernel.Block, a *sliceArgs) {
	_ = a.X.Slice(g, int(a.Lo), int(a.Hi))
})

// A kernel's bad Slice range fails its stream with one HSA status, the
// dispatch's, and one HIP code.
func TestBadSliceRangeMessage(t *testing.T) {
	e := setup(t)
	m, err := module.Load(e.dev, kernel.NewSet("stream-test-slice", sliceK))
	require.NoError(t, err)
	f, err := m.Function("stream_test_slice")
	require.NoError(t, err)
	x := newBuf(t, e.dev, 8)
	for r, want := range map[[2]int32]string{
		{-1, 2}:  "outside",
		{3, 1}:   "elements [3, 1) through pointer",
		{-4, -2}: "outside",
		{-2, -2}: "elements [-2, -2) through pointer",
		{0, 9}:   "outside",
	} {
		t.Run(fmt.Sprint(r), func(t *testing.T) {
			s := e.stream()
			require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(1), 0, x, r[0], r[1]))
			err := s.Synchronize()
			require.Error(t, err)
			assert.ErrorIs(t, err, gpu.ErrIllegalAddress)
			msg := err.Error()
			assert.Equal(t, 1, strings.Count(msg, "HSA_STATUS_"), msg)
			assert.Equal(t, 1, strings.Count(msg, "hipError"), msg)
			assert.Contains(t, msg, "stream_test_slice")
			assert.Contains(t, msg, want)
			if r[0] > r[1] {
				assert.Contains(t, msg, "the range is reversed (lo 3 > hi 1)")
			} else if r[0] == r[1] {
				assert.Contains(t, msg, "the range is negative")
			}
			assert.NotContains(t, msg, "18446744073709551615")
		})
	}
}
