package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type placeArgs struct {
	Out rocr.Ptr[int32]
	N   int32
}

// place is a per-group kernel: each work-group writes where it is, one
// row of 10 per group, through the Block's per-group calls.
var place = kernel.Define("test_group_place", func(b *kernel.Block, a *placeArgs) {
	id, dim, grid, size := b.BlockIdx(), b.BlockDim(), b.GridDim(), b.GridSize()
	lo, hi := b.Span(0, int(a.N))
	row := a.Out.Slice(b, (id.Y*grid.X+id.X)*10, (id.Y*grid.X+id.X+1)*10)
	for i, v := range []int{id.X, id.Y, dim.X, dim.Y, grid.X, grid.Y, size.X, b.Items(1), lo, hi} {
		row[i] = int32(v)
	}
	shared := kernel.GroupShared[int32](b, 4, 3)
	shared[2] = 7 // inside the kernel's 16 bytes
	if b.Canceled() {
		row[0] = -1
	}
})

// A per-group kernel sees its place in a two-dimensional grid, its range
// clipped to n, and its group memory.
func TestPerGroupKernelPlace(t *testing.T) {
	dev, err := gpu.Default()
	require.NoError(t, err)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	m, err := module.Load(dev, kernel.NewSet("place", place))
	require.NoError(t, err)
	defer m.Unload()
	f, err := m.Function("test_group_place")
	require.NoError(t, err)
	out, err := buffer.New[int32](dev, 3*2*10)
	require.NoError(t, err)
	defer out.Free()
	// 3×2 groups of 8×4; n = 20 clips the third column's range [16, 24).
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D2(3, 2), gpu.D2(8, 4), 16, s, out, int32(20)))
	require.NoError(t, s.Synchronize())
	got, err := out.ToSlice()
	require.NoError(t, err)
	for y := 0; y < 2; y++ {
		for x := 0; x < 3; x++ {
			lo, hi := 8*x, min(8*x+8, 20)
			assert.Equal(t, []int32{int32(x), int32(y), 8, 4, 3, 2, 24, 4, int32(lo), int32(hi)}, got[(y*3+x)*10:(y*3+x+1)*10], "group (%d, %d)", x, y)
		}
	}
}
