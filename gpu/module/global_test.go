package module_test

import (
	"context"
	"errors"
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

// coef and hits are the globals of globalSet: what a `__constant__ float
// coef[4]` and a `__device__ int hits[2]` are to a C++ kernel.
var (
	coef [4]float32
	hits [2]int32
)

type coefArgs struct {
	X rocr.Ptr[float32]
	N int32
}

// scaleByCoef reads the global coef by name, as a C++ kernel reads a
// __constant__ array: x[i] *= coef[i%4].
var scaleByCoef = kernel.Define("test_scale_by_coef", func(g *kernel.Block, a *coefArgs) {
	lo, hi := g.Span(0, int(a.N))
	x := a.X.Slice(g, lo, hi)
	for i := range x {
		x[i] *= coef[(lo+i)%4]
	}
})

var globalSet = &kernel.Set{Name: "globals-test", Kernels: []*kernel.Kernel{scaleByCoef, scale},
	Globals: []kernel.Global{kernel.Var("coef", &coef), kernel.Var("hits", &hits)}}

func TestGlobal(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, globalSet)
	require.NoError(t, err)
	defer m.Unload()
	g, err := module.GetGlobal[float32](m, "coef")
	require.NoError(t, err)
	assert.Equal(t, 4, g.Len())
	assert.Equal(t, 16, g.Bytes())
	assert.Equal(t, "coef", g.Name())
	assert.Same(t, m, g.Module())
	assert.Same(t, dev, g.Device())
	again, err := module.GetGlobal[float32](m, "coef")
	require.NoError(t, err)
	assert.Same(t, g, again, "one Global per variable, so its dependencies are one")

	// hipMemcpyToSymbol, then a kernel that reads the variable by name.
	require.NoError(t, g.CopyFrom([]float32{1, 2, 3, 4}))
	x, err := buffer.FromSlice(dev, []float32{1, 1, 1, 1, 1, 1, 1, 1})
	require.NoError(t, err)
	defer x.Free()
	f, err := m.Function("test_scale_by_coef")
	require.NoError(t, err)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(8), 0, x, int32(8)))
	require.NoError(t, s.Synchronize())
	out, err := x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 3, 4, 1, 2, 3, 4}, out)

	// Stream-ordered (hipMemcpyToSymbolAsync) on the kernel's stream.
	require.NoError(t, stream.CopyToDevice(s, g, 2, []float32{10, 100}))
	require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(8), 0, x, int32(8)))
	require.NoError(t, s.Synchronize())
	out, err = x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 4, 30, 400, 1, 4, 30, 400}, out)

	// hipMemcpyFromSymbol, whole and at an offset.
	all, err := g.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 2, 10, 100}, all)
	two := make([]float32, 2)
	require.NoError(t, g.CopyToAt(1, two))
	assert.Equal(t, []float32{2, 10}, two)

	// A Global is a kernel argument (hipGetSymbolAddress) whose uses
	// dependencies track: the launch on another stream writes it, and
	// the synchronous copy waits for that launch.
	other, err := stream.New(dev)
	require.NoError(t, err)
	defer other.Destroy()
	sf, err := m.Function("test_scale")
	require.NoError(t, err)
	require.NoError(t, sf.Launch(other, gpu.D1(1), gpu.D1(4), 0, g, float32(2), int32(4)))
	all, err = g.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{2, 4, 20, 200}, all)
	assert.Equal(t, [4]float32{2, 4, 20, 200}, coef, "on the cpu agent the Go variable is the storage")

	// Fills and device-to-device copies take it as they take a buffer.
	require.NoError(t, stream.Fill(s, g, float32(0.5)))
	require.NoError(t, s.Copy(x, 0, g, 0, 4))
	require.NoError(t, s.Synchronize())
	out, err = x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{0.5, 0.5, 0.5, 0.5}, out[:4])

	// Other element types: a variable of 16 bytes is 2 float64 or 4 int32.
	h, err := module.GetGlobal[int32](m, "hits")
	require.NoError(t, err)
	assert.Equal(t, 2, h.Len())
	require.NoError(t, h.CopyFrom([]int32{7, -7}))
	assert.Equal(t, [2]int32{7, -7}, hits)
}

func TestGlobalMisuse(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, globalSet)
	require.NoError(t, err)

	_, err = module.GetGlobal[float32](m, "nope")
	assert.ErrorIs(t, err, gpu.ErrNotFound)
	assert.ErrorContains(t, err, `"nope"`)
	assert.ErrorContains(t, err, "coef", "the error lists the variables there are")
	_, err = module.GetGlobal[float32](m, "")
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)

	// The size is checked against the symbol's.
	_, err = module.GetGlobal[[3]float32](m, "coef")
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "16 bytes")
	assert.ErrorContains(t, err, "12 bytes")
	_, err = module.GetGlobal[string](m, "coef")
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)

	g, err := module.GetGlobal[float32](m, "coef")
	require.NoError(t, err)
	_, err = module.GetGlobal[uint32](m, "coef")
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "one variable, one element type")
	assert.ErrorContains(t, err, "float32")

	// Copies are checked against the variable's size.
	assert.ErrorIs(t, g.CopyFrom(make([]float32, 5)), gpu.ErrInvalidValue)
	assert.ErrorIs(t, g.CopyFromAt(3, make([]float32, 2)), gpu.ErrInvalidValue)
	assert.ErrorIs(t, g.CopyToAt(-1, make([]float32, 1)), gpu.ErrInvalidValue)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	assert.Error(t, stream.CopyToDevice(s, g, 0, make([]float32, 5)))

	var nilG *module.Global[float32]
	assert.ErrorIs(t, nilG.CopyFrom([]float32{1}), gpu.ErrInvalidValue)
	assert.Zero(t, nilG.Len())
	assert.Empty(t, nilG.Name())
	_, err = module.GetGlobal[float32](nil, "coef")
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)

	// The memory is the module's: after Unload every use fails, and it
	// was never the program's to free.
	al := rocr.FindAllocation(uintptr(g.Ptr()))
	require.NotNil(t, al)
	assert.Error(t, al.Free(), "a variable's memory is its code's")
	require.NoError(t, m.Unload())
	assert.Nil(t, rocr.FindAllocation(uintptr(g.Ptr())), "unloading unlists the variable")
	err = g.CopyFrom([]float32{1})
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "unloaded")
	assert.Error(t, stream.CopyToDevice(s, g, 0, []float32{1}))
	_, err = module.GetGlobal[float32](m, "coef")
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
}

// Two loads of one Go set share its Go variables: each load has its
// Global, and unloading one leaves the other working.
func TestGlobalTwoLoads(t *testing.T) {
	dev := setup(t)
	m1, err := module.Load(dev, globalSet)
	require.NoError(t, err)
	m2, err := module.Load(dev, globalSet)
	require.NoError(t, err)
	defer m2.Unload()
	g1, err := module.GetGlobal[float32](m1, "coef")
	require.NoError(t, err)
	g2, err := module.GetGlobal[float32](m2, "coef")
	require.NoError(t, err)
	require.NoError(t, m1.Unload())
	assert.Error(t, g1.CopyFrom([]float32{1}))
	require.NoError(t, g2.CopyFrom([]float32{9, 8, 7, 6}))
	got, err := g2.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []float32{9, 8, 7, 6}, got)
}

// GetGlobal, copies and launches on the variable race Unload: each either
// works or fails with an error, and nothing panics.
func TestGlobalRacesUnload(t *testing.T) {
	dev := setup(t)
	for range 20 {
		m, err := module.Load(dev, globalSet)
		require.NoError(t, err)
		s, err := stream.New(dev)
		require.NoError(t, err)
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				g, err := module.GetGlobal[float32](m, "coef")
				if err != nil {
					return
				}
				switch w {
				case 0:
					_ = g.CopyFrom([]float32{1, 2})
				case 1:
					_, _ = g.ToSlice()
				case 2:
					_ = stream.CopyToDevice(s, g, 0, []float32{3})
				default:
					if f, err := m.Function("test_scale"); err == nil {
						_ = f.Launch(s, gpu.D1(1), gpu.D1(4), 0, g, float32(1), int32(4))
					}
				}
			}()
		}
		err = m.Unload()
		wg.Wait()
		require.NoError(t, err)
		if err := s.Synchronize(); err != nil && !errors.Is(err, gpu.ErrInvalidValue) {
			t.Logf("synchronize: %v", err)
		}
		require.NoError(t, s.Destroy())
	}
}

// A Global's context copies give up while a fill of it is pending,
// touching neither end, and copy once nothing is in their way.
func TestGlobalCopyContext(t *testing.T) {
	dev := setup(t)
	m, err := module.Load(dev, globalSet)
	require.NoError(t, err)
	defer m.Unload()
	g, err := module.GetGlobal[int32](m, "hits")
	require.NoError(t, err)
	require.NoError(t, g.CopyFromContext(context.Background(), []int32{1, 2}))
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	defer open()
	require.NoError(t, s.LaunchHostFunc(func() error { <-gate; return nil }))
	require.NoError(t, stream.Fill(s, g, int32(9)))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	dst := []int32{-1, -1}
	err = g.CopyToContext(ctx, dst)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, gpu.ErrNotReady)
	assert.Equal(t, []int32{-1, -1}, dst, "a copy that gave up wrote its destination")
	assert.ErrorIs(t, g.CopyFromAtContext(ctx, 1, []int32{5}), context.DeadlineExceeded)

	open()
	require.NoError(t, g.CopyToContext(context.Background(), dst))
	assert.Equal(t, []int32{9, 9}, dst, "the fill ran after the copies that gave up")
	require.NoError(t, g.CopyFromAtContext(context.Background(), 1, []int32{5}))
	one := []int32{0}
	require.NoError(t, g.CopyToAtContext(context.Background(), 1, one))
	assert.Equal(t, int32(5), one[0])
	require.NoError(t, s.Synchronize())
}
