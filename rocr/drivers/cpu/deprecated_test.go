package cpu_test

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// The deprecated per-group SDK's kernels still run, through kernel.Define:
// each work-item adds its index into out[0] and counts itself in out[1].
var oldSum = cpu.Define("test_deprecated_sum", func(g *cpu.Group, a *struct {
	Out rocr.Ptr[int64]
	N   int32
}) {
	lo, hi := g.Span(0, int(a.N))
	for i := lo; i < hi; i++ {
		cpu.AtomicAdd(g, a.Out, 0, int64(i))
	}
	cpu.AtomicAdd(g, a.Out, 1, int64(g.Items(0)))
}, cpu.MaxThreads(256))

func TestDeprecatedDefineRuns(t *testing.T) {
	var k *kernel.Kernel = oldSum // the same kernel type
	assert.Equal(t, 256, k.Symbol().MaxFlatWorkGroupSize)
	set := cpu.NewSet("old", oldSum)
	require.Len(t, set.Code().Kernels, 1)

	ag := setup(t)
	out := alloc(t, ag, hsa.FlagCoarseGrained, 16)
	o := unsafe.Slice((*int64)(hostmem.At(out.Base)), 2)
	o[0], o[1] = 0, 0
	q, err := ag.CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	defer q.Destroy()
	sig, err := rocr.NewSignal(1)
	require.NoError(t, err)
	defer sig.Destroy()
	const n = 1000
	args := struct {
		Out rocr.Ptr[int64]
		N   int32
	}{rocr.Ptr[int64](out.Base), n}
	dispatch(t, q, oldSum, unsafe.Pointer(&args), unsafe.Sizeof(args), n, 64, sig)
	_, ok := sig.WaitTimed(hsa.CondEQ, 0, 10*time.Second, hsa.WaitBlocked)
	require.True(t, ok)
	require.NoError(t, sig.Err())
	assert.Equal(t, int64(n*(n-1)/2), o[0])
	assert.Equal(t, int64(n), o[1], "the groups' Items add up to the grid")
}
