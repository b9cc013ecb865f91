package kernel_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// The math functions give CUDA's results on the cpu agent: float64 math,
// a float32 result rounded once from it.
func TestMathFunctions(t *testing.T) {
	for _, c := range []struct {
		name string
		f32  float32
		f64  float64
		want float64
	}{
		{"Sqrt", kernel.Sqrt(float32(2)), kernel.Sqrt(2.0), math.Sqrt2},
		{"Rsqrt", kernel.Rsqrt(float32(4)), kernel.Rsqrt(4.0), 0.5},
		{"Exp", kernel.Exp(float32(1)), kernel.Exp(1.0), math.E},
		{"Exp2", kernel.Exp2(float32(10)), kernel.Exp2(10.0), 1024},
		{"Log", kernel.Log(float32(8)), kernel.Log(8.0), 3 * math.Ln2},
		{"Log2", kernel.Log2(float32(1024)), kernel.Log2(1024.0), 10},
		{"Sin", kernel.Sin(float32(math.Pi / 2)), kernel.Sin(math.Pi / 2), 1},
		{"Cos", kernel.Cos(float32(0)), kernel.Cos(0.0), 1},
		{"Tanh", kernel.Tanh(float32(0.5)), kernel.Tanh(0.5), math.Tanh(0.5)},
		{"Pow", kernel.Pow(float32(3), 4), kernel.Pow(3.0, 4), 81},
		{"Abs", kernel.Abs(float32(-2.5)), kernel.Abs(-2.5), 2.5},
		{"Floor", kernel.Floor(float32(-2.5)), kernel.Floor(-2.5), -3},
		{"Ceil", kernel.Ceil(float32(-2.5)), kernel.Ceil(-2.5), -2},
		{"Fma", kernel.Fma(float32(1.5), 2, 0.25), kernel.Fma(1.5, 2, 0.25), 3.25},
	} {
		assert.Equal(t, float32(c.want), c.f32, "%s float32", c.name)
		assert.InDelta(t, c.want, c.f64, 1e-15*math.Max(1, math.Abs(c.want)), "%s float64", c.name)
	}
	// Fma rounds once: (1+2^-23)^2 - (1+2^-22) keeps the 2^-46 a float32
	// product followed by an addition would lose.
	x := float32(1 + 1.0/(1<<23))
	assert.Equal(t, float32(1.0/(1<<46)), kernel.Fma(x, x, -float32(1+1.0/(1<<22))), "Fma float32 rounds once")
}

type shflArgs struct {
	Out  rocr.Ptr[int32]
	OutN int64
	Src  int32
}

type shflFrame struct {
	out []int32
	src int
}

var shflKernel = kernel.Define("shfl", func(b *kernel.Block, a *shflArgs) {
	f := kernelimpl.Frame[shflFrame](b)
	f.out, f.src = kernelimpl.View(b, a.Out, a.OutN), int(a.Src)
	b.Lockstep(func(t kernel.Thread) {
		f := kernelimpl.FrameOf[shflFrame](t)
		lane := t.Lane()
		f.out[lane] = kernel.Shfl(t, int32(100+lane), (lane+f.src)%64)
	})
}, kernelimpl.Lockstep())

// Shfl reads the value of lane src of the full warp, and gives the
// caller's own value where src is past the warp.
func TestShfl(t *testing.T) {
	dev, s, _ := setup(t)
	m, err := module.Load(dev, kernel.NewSet("sdk-shfl", shflKernel))
	require.NoError(t, err)
	defer m.Unload()
	f, err := m.Function("shfl")
	require.NoError(t, err)
	out, err := buffer.New[int32](dev, kernel.CPUWarpSize)
	require.NoError(t, err)
	defer out.Free()
	for _, src := range []int{0, 5, 40} {
		require.NoError(t, module.LaunchKernelGGL(f, gpu.D1(1), gpu.D1(kernel.CPUWarpSize), 0, s, out, int64(kernel.CPUWarpSize), int32(src)))
		require.NoError(t, s.Synchronize())
		got, err := out.ToSlice()
		require.NoError(t, err)
		for lane, v := range got {
			want := int32(100 + lane)
			if from := (lane + src) % 64; from < kernel.CPUWarpSize {
				want = int32(100 + from)
			}
			assert.Equal(t, want, v, "src offset %d lane %d", src, lane)
		}
	}
}
