package module_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type addArgs struct {
	Dst   rocr.Ptr[int32]
	Src   rocr.ConstPtr[int32]
	Add   int32
	N     int32
	Sleep int32 // milliseconds before the work, to make ordering visible
}

// managedAdd writes Dst[i] = Src[i] + Add.
var managedAdd = kernel.Define("test_managed_add", func(g *kernel.Block, a *addArgs) {
	if g.BlockIdx().X == 0 && a.Sleep > 0 {
		time.Sleep(time.Duration(a.Sleep) * time.Millisecond)
	}
	lo, hi := g.Span(0, int(a.N))
	src, dst := a.Src.Slice(g, lo, hi), a.Dst.Slice(g, lo, hi)
	for i := range dst {
		dst[i] = src[i] + a.Add
	}
})

func managedKernel(t *testing.T, dev *gpu.Device) *module.Function {
	m, err := module.Load(dev, kernel.NewSet("managed", managedAdd))
	require.NoError(t, err)
	f, err := m.Function("test_managed_add")
	require.NoError(t, err)
	return f
}

// The host writes managed memory, a kernel reads and writes it, and Slice
// waits for that kernel: no explicit synchronize.
func TestManagedHostAndKernel(t *testing.T) {
	dev := setup(t)
	f := managedKernel(t, dev)
	const n = 1000
	m, err := buffer.NewManaged[int32](dev, n)
	require.NoError(t, err)
	defer m.Free()
	assert.Equal(t, n, m.Len())
	assert.Equal(t, 4*n, m.Bytes())
	assert.Contains(t, m.String(), "managed buffer")
	h, err := m.Slice()
	require.NoError(t, err)
	for i := range h {
		h[i] = int32(i)
	}
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	require.NoError(t, f.Launch(s, gpu.D1(8), gpu.D1(128), 0, m, m, int32(5), int32(n), int32(30)))
	h, err = m.Slice()
	require.NoError(t, err)
	for i, v := range h {
		require.Equal(t, int32(i+5), v, "element %d", i)
	}
	// Copies to and from a Buffer, a Go slice and 2-D views.
	b, err := buffer.New[int32](dev, n)
	require.NoError(t, err)
	defer b.Free()
	require.NoError(t, buffer.Copy(b, 0, m, 0, n))
	got, err := b.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, h, got)
	out := make([]int32, 4*3)
	require.NoError(t, buffer.Copy2D(buffer.SliceView(out, 16), buffer.ObjectView[int32](m, 10, 40), 4, 3))
	assert.Equal(t, []int32{15, 16, 17, 18, 25, 26, 27, 28, 35, 36, 37, 38}, out)
}

// Managed memory has no owner: a second device launches on it without a
// Transfer, where a Buffer is refused; its dependencies order the two.
func TestManagedAcrossDevices(t *testing.T) {
	t.Setenv("HIPGO_CPU_AGENTS", "2")
	setup(t)
	devs, err := gpu.Devices()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(devs), 2)
	d0, d1 := devs[0], devs[1]
	f0, f1 := managedKernel(t, d0), managedKernel(t, d1)
	const n = 512
	m, err := buffer.NewManaged[int32](d0, n)
	require.NoError(t, err)
	defer m.Free()
	b, err := buffer.New[int32](d0, n)
	require.NoError(t, err)
	defer b.Free()
	s0, err := stream.New(d0)
	require.NoError(t, err)
	defer s0.Destroy()
	s1, err := stream.New(d1)
	require.NoError(t, err)
	defer s1.Destroy()

	err = f1.Launch(s1, gpu.D1(4), gpu.D1(128), 0, b, b, int32(1), int32(n), int32(0))
	require.ErrorIs(t, err, gpu.ErrNotOwner, "a Buffer belongs to its device")

	h, err := m.Slice()
	require.NoError(t, err)
	clear(h)
	require.NoError(t, f0.Launch(s0, gpu.D1(4), gpu.D1(128), 0, m, m, int32(1), int32(n), int32(40))) // slow writer
	require.NoError(t, f1.Launch(s1, gpu.D1(4), gpu.D1(128), 0, m, m, int32(10), int32(n), int32(0)))
	require.NoError(t, stream.Prefetch(s1, m, nil))
	h, err = m.Slice()
	require.NoError(t, err)
	for i, v := range h {
		require.Equal(t, int32(11), v, "element %d: the second device's kernel ran after the first's", i)
	}
	require.NoError(t, m.Advise(buffer.AdviseSetPreferredLocation, d1))
	require.NoError(t, m.Advise(buffer.AdviseSetAccessedBy, nil))
}

func TestManagedPrefetchAndAdvise(t *testing.T) {
	dev := setup(t)
	const n = 64
	m, err := buffer.NewManaged[float64](dev, n)
	require.NoError(t, err)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	h, err := m.Slice()
	require.NoError(t, err)
	for i := range h {
		h[i] = float64(i) / 2
	}
	require.NoError(t, stream.Prefetch(s, m, dev))
	require.NoError(t, stream.Prefetch(s, m, nil))
	require.NoError(t, s.Synchronize())
	h, err = m.Slice()
	require.NoError(t, err)
	assert.InDelta(t, 31.5, h[63], 0, "a prefetch never changes the memory")
	for a := buffer.AdviseSetReadMostly; a <= buffer.AdviseUnsetAccessedBy; a++ {
		assert.NoError(t, m.Advise(a, dev), "%v", a)
	}
	err = m.Advise(buffer.Advice(7), dev)
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "advice(7)")
	assert.ErrorIs(t, stream.Prefetch(nil, m, dev), gpu.ErrInvalidHandle)
	assert.ErrorIs(t, stream.Prefetch[float64](s, nil, dev), gpu.ErrInvalidValue)

	require.NoError(t, m.Free())
	_, err = m.Slice()
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "freed")
	assert.ErrorIs(t, stream.Prefetch(s, m, dev), gpu.ErrInvalidValue)
	assert.ErrorIs(t, m.Advise(buffer.AdviseSetReadMostly, nil), gpu.ErrInvalidValue)
	assert.ErrorIs(t, m.Free(), gpu.ErrInvalidValue, "a second Free")
	_, err = buffer.NewManaged[int32](dev, -1)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	var nilM *buffer.Managed[int32]
	_, err = nilM.Slice()
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
}

// A kernel that fails on managed memory is reported by the Slice that
// waits for it, once.
func TestManagedSliceReportsFailure(t *testing.T) {
	dev := setup(t)
	f := managedKernel(t, dev)
	m, err := buffer.NewManaged[int32](dev, 16)
	require.NoError(t, err)
	defer m.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(64), 0, m, m, int32(1), int32(64), int32(0))) // reads past the end
	_, err = m.Slice()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "test_managed_add")
}

// Allocation, launches, host access, prefetches and frees of managed
// memory race with each other.
func TestManagedRaces(t *testing.T) {
	dev := setup(t)
	f := managedKernel(t, dev)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := stream.New(dev)
			if !assert.NoError(t, err) {
				return
			}
			defer s.Destroy()
			for range 10 {
				m, err := buffer.NewManaged[int32](dev, 256)
				if !assert.NoError(t, err) {
					return
				}
				h, err := m.Slice()
				assert.NoError(t, err)
				for i := range h {
					h[i] = int32(g)
				}
				assert.NoError(t, f.Launch(s, gpu.D1(2), gpu.D1(128), 0, m, m, int32(1), int32(256), int32(0)))
				assert.NoError(t, stream.Prefetch(s, m, dev))
				h, err = m.Slice()
				if assert.NoError(t, err) {
					assert.Equal(t, int32(g+1), h[255])
				}
				var inner sync.WaitGroup
				inner.Add(1)
				go func() {
					defer inner.Done()
					if err := stream.Prefetch(s, m, nil); err != nil {
						assert.ErrorIs(t, err, gpu.ErrInvalidValue, "a prefetch that loses the race to Free")
					}
				}()
				assert.NoError(t, m.Free())
				inner.Wait()
			}
			assert.NoError(t, s.Synchronize())
		}()
	}
	wg.Wait()
}

// BenchmarkManaged: allocate + free of 4 KiB of managed memory beside a
// Buffer's, and a launch on managed memory whose result the host reads
// through Slice beside the same launch on a Buffer read with ToSlice.
func BenchmarkManaged(b *testing.B) {
	b.Setenv("HIPGO_DRIVER", "cpu")
	defer gpu.Shutdown()
	dev, err := gpu.Default()
	require.NoError(b, err)
	b.Run("NewManaged+Free-4K", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			m, err := buffer.NewManaged[byte](dev, 4096)
			if err != nil {
				b.Fatal(err)
			}
			if err := m.Free(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("New+Free-4K", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			m, err := buffer.New[byte](dev, 4096)
			if err != nil {
				b.Fatal(err)
			}
			if err := m.Free(); err != nil {
				b.Fatal(err)
			}
		}
	})
	mod, err := module.Load(dev, kernel.NewSet("managed-bench", managedAdd))
	require.NoError(b, err)
	f, err := mod.Function("test_managed_add")
	require.NoError(b, err)
	s, err := stream.New(dev)
	require.NoError(b, err)
	defer s.Destroy()
	const n = 1 << 16
	m, err := buffer.NewManaged[int32](dev, n)
	require.NoError(b, err)
	defer m.Free()
	buf, err := buffer.New[int32](dev, n)
	require.NoError(b, err)
	defer buf.Free()
	host := make([]int32, n)
	b.Run("launch+Slice-managed-256K", func(b *testing.B) {
		b.SetBytes(4 * n)
		b.ReportAllocs()
		for range b.N {
			if err := f.Launch(s, gpu.D1(n/256), gpu.D1(256), 0, m, m, int32(1), int32(n), int32(0)); err != nil {
				b.Fatal(err)
			}
			h, err := m.Slice()
			if err != nil {
				b.Fatal(err)
			}
			copy(host, h)
		}
	})
	b.Run("launch+CopyTo-buffer-256K", func(b *testing.B) {
		b.SetBytes(4 * n)
		b.ReportAllocs()
		for range b.N {
			if err := f.Launch(s, gpu.D1(n/256), gpu.D1(256), 0, buf, buf, int32(1), int32(n), int32(0)); err != nil {
				b.Fatal(err)
			}
			if err := buf.CopyTo(host); err != nil {
				b.Fatal(err)
			}
		}
	})
}
