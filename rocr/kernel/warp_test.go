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
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

type warpArgs struct {
	Out  rocr.Ptr[int32]
	OutN int64
	Case int32
}

type warpFrame struct {
	out []int32
	c   int32
}

// misuse is a kernel that uses the warp operations as CUDA leaves
// undefined, by case.
func misuse(t kernel.Thread, out []int32, c int32) {
	lane := t.Lane()
	switch c {
	case 0: // a mask without the caller's lane
		out[lane] = kernel.ShflSync(t, 1, int32(lane), 0, 32)
	case 1: // a lane of the mask waits at a barrier
		if lane == 0 {
			t.SyncThreads()
			return
		}
		out[lane] = kernel.ReduceAddSync(t, kernel.FullMask, int32(lane))
		t.SyncThreads()
	case 2: // lanes of one mask at two operations
		if lane < 4 {
			out[lane] = kernel.ShflSync(t, kernel.FullMask, int32(lane), 0, 32)
		} else {
			out[lane] = int32(kernel.BallotSync(t, kernel.FullMask, true))
		}
	case 3: // a width that is not a power of two
		out[lane] = kernel.ShflSync(t, kernel.FullMask, int32(lane), 0, 12)
	case 4: // lanes that returned drop out of the mask, as exited lanes do
		if lane >= 20 {
			return
		}
		out[lane] = kernel.ReduceAddSync(t, kernel.FullMask, int32(1))
	}
}

var misuseKernel = kernel.Define("misuse", func(b *kernel.Block, a *warpArgs) {
	f := kernelimpl.Frame[warpFrame](b)
	f.out, f.c = kernelimpl.View(b, a.Out, a.OutN), a.Case
	b.Lockstep(func(t kernel.Thread) {
		f := kernelimpl.FrameOf[warpFrame](t)
		misuse(t, f.out, f.c)
	})
}, kernelimpl.Lockstep())

// What CUDA leaves undefined fails the launch on the cpu agent with what
// went wrong, where a GPU would give any value or hang.
func TestWarpMisuseFailsLaunch(t *testing.T) {
	dev, _, _ := setup(t)
	m, err := module.Load(dev, kernel.NewSet("sdk-warp", misuseKernel))
	require.NoError(t, err)
	defer m.Unload()
	f, err := m.Function("misuse")
	require.NoError(t, err)
	out, err := buffer.New[int32](dev, 32)
	require.NoError(t, err)
	defer out.Free()
	for c, want := range []string{
		"calls a shuffle with mask 0x1, which does not name its lane 1",
		"warp operation never completes: work-item 1 is at a reduction with mask 0xffffffff",
		"divergent warp operations",
		"shuffle width 12: want a power of two from 1 to 32",
	} {
		s, err := stream.New(dev) // a failed launch fails its stream
		require.NoError(t, err)
		defer s.Destroy()
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(32), 0, s, out, int64(32), int32(c)))
		err = s.Synchronize()
		require.Error(t, err, "case %d", c)
		assert.Contains(t, err.Error(), want, "case %d", c)
	}
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	require.NoError(t, out.Memset(0))
	require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(32), 0, s, out, int64(32), int32(4)))
	require.NoError(t, s.Synchronize())
	got, err := out.ToSlice()
	require.NoError(t, err)
	for lane, v := range got {
		if lane < 20 {
			assert.Equal(t, int32(20), v, "lane %d", lane)
		} else {
			assert.Zero(t, v, "lane %d", lane)
		}
	}
}
