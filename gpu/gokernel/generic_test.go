package gokernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

const genericN = 4 * faulty.GenericBlock // four blocks, eight warps

// instantiated are the types faulty's generic kernels are instantiated
// for. Generic code calls a generic launcher with a type parameter whose
// constraint holds these exact types or fewer (not ~int32: a named
// int32 has no instance).
type instantiated interface{ float32 | int32 | float64 }

// genericInputs are x, y and a of the generic kernels for T: for int32
// a product past the int32 range, which wraps.
func genericInputs[T instantiated]() (x, y []T, a T) {
	x, y = make([]T, genericN), make([]T, genericN)
	for i := range x {
		x[i] = T(i*2654435761%100003) - 50000
		y[i] = T(i*7919%1000) / 8
	}
	return x, y, 70001
}

type genericResults[T instantiated] struct{ axpy, blockSum, warpSum []T }

// runGeneric launches the three generic kernels' instances for T on dev.
func runGeneric[T instantiated](dev *gpu.Device) (r genericResults[T], err error) {
	x, y, a := genericInputs[T]()
	bx, err := buffer.FromSlice(dev, x)
	if err != nil {
		return r, err
	}
	defer bx.Free()
	by, err := buffer.FromSlice(dev, y)
	if err != nil {
		return r, err
	}
	defer by.Free()
	sums, err := buffer.New[T](dev, genericN/faulty.GenericBlock)
	if err != nil {
		return r, err
	}
	defer sums.Free()
	warps, err := buffer.New[T](dev, genericN)
	if err != nil {
		return r, err
	}
	defer warps.Free()
	s, err := stream.New(dev)
	if err != nil {
		return r, err
	}
	defer s.Destroy()
	grid, block := gpu.D1(genericN/faulty.GenericBlock), gpu.D1(faulty.GenericBlock)
	if err := faulty.LaunchGenericBlockSum(s, grid, block, 0, bx, sums); err != nil {
		return r, err
	}
	if err := faulty.LaunchGenericWarpSum(s, grid, block, 0, bx, warps); err != nil {
		return r, err
	}
	if err := faulty.LaunchGenericAxpy(s, grid, block, 0, a, bx, by); err != nil {
		return r, err
	}
	if err := s.Synchronize(); err != nil {
		return r, err
	}
	if r.axpy, err = by.ToSlice(); err != nil {
		return r, err
	}
	if r.blockSum, err = sums.ToSlice(); err != nil {
		return r, err
	}
	r.warpSum, err = warps.ToSlice()
	return r, err
}

// genericRef is what the kernels compute, in plain Go, in their order of
// operations.
func genericRef[T instantiated]() genericResults[T] {
	x, y, a := genericInputs[T]()
	r := genericResults[T]{axpy: make([]T, genericN), warpSum: make([]T, genericN)}
	for i := range y {
		p := a * x[i]
		r.axpy[i] = p + y[i]
	}
	for b := 0; b < genericN; b += faulty.GenericBlock {
		part := append([]T(nil), x[b:b+faulty.GenericBlock]...)
		for s := faulty.GenericBlock / 2; s > 0; s /= 2 {
			for i := 0; i < s; i++ {
				part[i] += part[i+s]
			}
		}
		r.blockSum = append(r.blockSum, part[0])
	}
	for w := 0; w < genericN; w += 32 {
		v := append([]T(nil), x[w:w+32]...)
		for d := 16; d > 0; d /= 2 {
			next := make([]T, 32)
			for l := range v {
				next[l] = v[l] + v[l^d]
			}
			v = next
		}
		copy(r.warpSum[w:], v)
	}
	return r
}

// testGeneric runs the instances for T: on the cpu agent against plain
// Go, to the bit; on every GPU present against the cpu agent (the GPU
// test pack), to the bit too, since the kernels round each product.
func testGeneric[T instantiated](t *testing.T) {
	want := genericRef[T]()
	got, err := runGeneric[T](gputest.DeviceOf(t, "cpu"))
	require.NoError(t, err)
	assert.Equal(t, want, got)
	for _, pick := range []func(genericResults[T]) []T{
		func(r genericResults[T]) []T { return r.axpy },
		func(r genericResults[T]) []T { return r.blockSum },
		func(r genericResults[T]) []T { return r.warpSum },
	} {
		gputest.Differential(t, func(dev *gpu.Device) ([]T, error) {
			r, err := runGeneric[T](dev)
			return pick(r), err
		})
	}
}

func TestGenericKernelFloat32(t *testing.T) { testGeneric[float32](t) }
func TestGenericKernelInt32(t *testing.T)   { testGeneric[int32](t) }
func TestGenericKernelFloat64(t *testing.T) { testGeneric[float64](t) }

// The generic launcher picks its instance without allocating.
func TestGenericLaunchAllocs(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	x, y, a := genericInputs[float64]()
	bx, err := buffer.FromSlice(dev, x)
	require.NoError(t, err)
	defer bx.Free()
	by, err := buffer.FromSlice(dev, y)
	require.NoError(t, err)
	defer by.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	launch := func() {
		require.NoError(t, faulty.LaunchGenericAxpy(s, gpu.D1(4), gpu.D1(64), 0, a, bx, by))
		require.NoError(t, s.Synchronize())
	}
	for range 10 {
		launch()
	}
	testenv.SkipAllocsUnderRace(t)
	assert.Zero(t, testing.AllocsPerRun(20, launch), "LaunchGenericAxpy + Synchronize allocations")
}

// A block past the kernel's maxthreads (its __launch_bounds__) is an
// error at launch, before anything is queued.
func TestLaunchBoundsChecked(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	in, err := buffer.New[int32](dev, 128)
	require.NoError(t, err)
	defer in.Free()
	out, err := buffer.New[int32](dev, 1)
	require.NoError(t, err)
	defer out.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	err = faulty.LaunchGenericBlockSum(s, gpu.D1(1), gpu.D1(2*faulty.GenericBlock), 0, in, out)
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidConfiguration)
	assert.Contains(t, err.Error(), "block of 128 threads exceeds its limit of 64")
}
