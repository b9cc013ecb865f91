package module_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/kernels"
)

// Managed memory on an NVIDIA GPU (cuMemAllocManaged): written on the
// host, prefetched to the device (cuMemPrefetchAsync, the CUmemLocation
// form on CUDA 12.2+), added by a kernel, advised (cuMemAdvise) and read
// back on the host after Slice waits for the kernel. More than the
// device's free memory is refused before the driver is asked.
func TestManagedCUDA(t *testing.T) {
	dev := cudaDevice(t)
	const n = 1 << 20
	a, err := buffer.NewManaged[float32](dev, n)
	require.NoError(t, err)
	defer a.Free()
	b, err := buffer.NewManaged[float32](dev, n)
	require.NoError(t, err)
	defer b.Free()
	c, err := buffer.NewManaged[float32](dev, n)
	require.NoError(t, err)
	defer c.Free()
	ha, err := a.Slice()
	require.NoError(t, err)
	hb, err := b.Slice()
	require.NoError(t, err)
	for i := range ha {
		ha[i], hb[i] = float32(i), 2
	}
	require.NoError(t, a.Advise(buffer.AdviseSetReadMostly, dev))
	require.NoError(t, b.Advise(buffer.AdviseSetPreferredLocation, dev))
	require.NoError(t, c.Advise(buffer.AdviseSetAccessedBy, nil))
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	require.NoError(t, stream.Prefetch(s, a, dev))
	require.NoError(t, stream.Prefetch(s, b, dev))
	require.NoError(t, kernels.LaunchVectorAdd(s, gpu.D1(gpu.Blocks(n, 256)), gpu.D1(256), 0, a, b, c, int32(n)))
	require.NoError(t, stream.Prefetch(s, c, nil))
	hc, err := c.Slice()
	require.NoError(t, err)
	for i := 0; i < n; i += 4099 {
		require.InDelta(t, float32(i+2), hc[i], 0, "element %d", i)
	}
	for adv := buffer.AdviseSetReadMostly; adv <= buffer.AdviseUnsetAccessedBy; adv++ {
		assert.NoError(t, c.Advise(adv, dev), "%v", adv)
	}

	// More than the device has: refused before the driver is asked (the
	// pool's limit says so first; the driver's free-memory check is the
	// second guard), never handed to cuMemAllocManaged.
	_, err = buffer.NewManaged[byte](dev, int(dev.Properties().TotalGlobalMem)+1)
	require.ErrorIs(t, err, gpu.ErrOutOfMemory)
	assert.Contains(t, err.Error(), "malloc managed")
}
