package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// coopPTX is the two-phase kernel as PTX: each thread writes x[i] = i+1,
// the grid meets at a barrier (thread 0 of each block fences, adds one to
// *counter with release semantics and spins with acquire loads until every
// block has; the rest of the block waits at bar.sync: the shape of a
// cooperative-groups grid sync), then out[i] = x[n-1-i], read through L2. Without
// co-residency the spin never ends; a cooperative launch guarantees it.
const coopPTX = `.version 7.8
.target sm_90
.address_size 64

.visible .entry coop_two_phase(
	.param .u64 coop_two_phase_param_0,
	.param .u64 coop_two_phase_param_1,
	.param .u64 coop_two_phase_param_2,
	.param .u32 coop_two_phase_param_3
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<16>;
	.reg .b64 	%rd<12>;

	ld.param.u64 	%rd1, [coop_two_phase_param_0];
	ld.param.u64 	%rd2, [coop_two_phase_param_1];
	ld.param.u64 	%rd3, [coop_two_phase_param_2];
	ld.param.u32 	%r1, [coop_two_phase_param_3];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	cvta.to.global.u64 	%rd3, %rd3;
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	setp.ge.s32 	%p1, %r5, %r1;
	@%p1 bra 	$L_arrive;
	add.s32 	%r6, %r5, 1;
	mul.wide.s32 	%rd4, %r5, 4;
	add.s64 	%rd5, %rd1, %rd4;
	st.global.u32 	[%rd5], %r6;
$L_arrive:
	bar.sync 	0;
	setp.ne.s32 	%p2, %r4, 0;
	@%p2 bra 	$L_joined;
	mov.u32 	%r7, %nctaid.x;
	fence.acq_rel.gpu;
	atom.release.gpu.global.add.u32 	%r8, [%rd3], 1;
$L_spin:
	ld.acquire.gpu.global.u32 	%r9, [%rd3];
	setp.lt.u32 	%p3, %r9, %r7;
	@%p3 bra 	$L_spin;
	fence.acq_rel.gpu;
$L_joined:
	bar.sync 	0;
	@%p1 bra 	$L_end;
	sub.s32 	%r10, %r1, 1;
	sub.s32 	%r11, %r10, %r5;
	mul.wide.s32 	%rd6, %r11, 4;
	add.s64 	%rd7, %rd1, %rd6;
	ld.relaxed.gpu.global.u32 	%r12, [%rd7];
	mul.wide.s32 	%rd8, %r5, 4;
	add.s64 	%rd9, %rd2, %rd8;
	st.global.u32 	[%rd9], %r12;
$L_end:
	ret;
}
`

// The PTX parses here, so the GPU test fails only on what the GPU does.
func TestCoopPTXParses(t *testing.T) {
	spec, err := codeobj.Parse([]byte(coopPTX))
	require.NoError(t, err)
	require.Len(t, spec.Objects, 1)
	require.Len(t, spec.Objects[0].Kernels, 1)
	assert.Equal(t, "coop_two_phase", spec.Objects[0].Kernels[0].Name)
	assert.Len(t, spec.Objects[0].Kernels[0].Args, 4)
}

// A cooperative launch on an NVIDIA GPU (cuLaunchKernelEx with the
// cooperative attribute) of as many blocks as the device holds: the second
// phase reads what the other blocks wrote. One block more is refused with
// hipErrorCooperativeLaunchTooLarge before anything is queued.
func TestCooperativeCUDA(t *testing.T) {
	dev := cudaDevice(t)
	m, err := module.Load(dev, []byte(coopPTX))
	require.NoError(t, err)
	f, err := m.Function("coop_two_phase")
	require.NoError(t, err)
	const block = 256
	blocks, err := module.MaxCooperativeBlocks(f, block, 0)
	require.NoError(t, err)
	require.GreaterOrEqual(t, blocks, dev.Properties().MultiProcessorCount)
	n := blocks*block - 7
	x, err := buffer.New[int32](dev, n)
	require.NoError(t, err)
	defer x.Free()
	out, err := buffer.New[int32](dev, n)
	require.NoError(t, err)
	defer out.Free()
	counter, err := buffer.New[uint32](dev, 1)
	require.NoError(t, err)
	defer counter.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	for range 3 {
		require.NoError(t, counter.Memset(0))
		require.NoError(t, f.LaunchCooperative(s, gpu.D1(uint32(blocks)), gpu.D1(block), 0, x, out, counter, int32(n)))
		require.NoError(t, s.Synchronize())
		got, err := out.ToSlice()
		require.NoError(t, err)
		for i, v := range got {
			require.Equal(t, int32(n-i), v, "element %d", i)
		}
	}
	err = f.LaunchCooperative(s, gpu.D1(uint32(blocks+1)), gpu.D1(block), 0, x, out, counter, int32(n))
	require.ErrorIs(t, err, gpu.ErrCooperativeLaunchTooLarge)
	assert.NoError(t, s.Synchronize())
}
