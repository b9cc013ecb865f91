package reliability_test

import (
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/reliability"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultPTX stores to address 0x10: an illegal address that ends the CUDA
// context.
const faultPTX = `.version 7.0
.target sm_50
.address_size 64

.visible .entry hipgo_fault_write(.param .u32 v)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<2>;
	ld.param.u32 %r1, [v];
	mov.u64 %rd1, 16;
	st.global.u32 [%rd1], %r1;
	ret;
}
`

// TestGPUResetAfterFault: on a cuda device, a kernel that writes to an
// illegal address loses the context; every later call says so and names
// Reset. Device.Reset then either recovers the device (new modules compute
// right) or, where the CUDA driver keeps the fault for the rest of the
// process (driver 580 on the H200 does: benchmarks/peers/reset_probe.c),
// says so and that the process must restart, and the device stays lost
// rather than half-working.
func TestGPUResetAfterFault(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cuda")
	f := start(t, "cuda")
	dev := f.dev
	m, err := module.Load(dev, faultPTX)
	require.NoError(t, err)
	s := f.stream(dev)
	require.NoError(t, m.MustFunction("hipgo_fault_write").Launch(s, gpu.D1(1), gpu.D1(1), 0, uint32(1)))
	err = reliability.Guard(t, 30*time.Second, s.Synchronize)
	require.Error(t, err, "a store to 0x10")
	t.Logf("the fault: %v", err)
	// Let the device's other queues notice, then every call names the loss.
	var serr error
	for i := 0; i < 100; i++ {
		if _, serr = buffer.New[uint32](dev, 4); serr != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.Error(t, serr, "allocation after the fault")
	t.Logf("after the fault: %v", serr)
	assert.ErrorIs(t, serr, hsa.ErrDeviceLost)
	assert.Contains(t, serr.Error(), "Reset")
	_, err = stream.New(dev)
	assert.ErrorIs(t, err, hsa.ErrDeviceLost, "stream create after the fault")

	start := time.Now()
	rerr := reliability.Guard(t, 60*time.Second, dev.Reset)
	t.Logf("Device.Reset took %v: %v", time.Since(start), rerr)
	if rerr != nil {
		assert.ErrorIs(t, rerr, hsa.ErrDeviceLost)
		assert.Contains(t, rerr.Error(), "restart the process")
		_, err = buffer.New[uint32](dev, 4)
		assert.ErrorIs(t, err, hsa.ErrDeviceLost, "still lost after a reset that could not recover it")
		return
	}
	assert.ErrorIs(t, s.Synchronize(), gpu.ErrContextIsDestroyed, "the stream from before the reset")
	f.mod, err = module.Load(dev, testLib)
	require.NoError(t, err)
	for _, k := range testSet.Kernels {
		f.fn[k.Name()] = f.mod.MustFunction(k.Name())
	}
	f.healthy()
	// The default stream is made again too.
	x := fromSlice(t, dev, []uint32{1, 2, 3, 4})
	ds, err := stream.DefaultStream(dev)
	require.NoError(t, err)
	require.NoError(t, f.fn["reliability_axpb"].Launch(ds, gpu.D1(1), gpu.D1(64), 0, x, uint32(2), uint32(1), int32(4)))
	require.NoError(t, ds.Synchronize())
	got, err := x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []uint32{3, 5, 7, 9}, got)
	require.NoError(t, x.Free())
	t.Log("the device runs new work after Device.Reset")
}
