package rtc

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// pair is k.cu's `struct Pair { float x; double y; }`: 16 bytes, aligned
// to 8.
type pair struct {
	X float32
	Y float64
}

// TestCompileNVSource compiles rocr/codeobj/testdata/nv/k.cu, the source
// of the nvcc fixtures (written as a CUDA user writes it, not for this
// project), at run time on the GPU's compiler, and runs a struct passed by
// value, a template instance by its expression and a kernel of dynamic
// shared memory, which refuses a launch without it.
func TestCompileNVSource(t *testing.T) {
	dir := os.Getenv("HIPGO_NV_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "rocr", "codeobj", "testdata", "nv")
	}
	src, err := os.ReadFile(filepath.Join(dir, "k.cu"))
	if err != nil {
		t.Skipf("k.cu not here (set HIPGO_NV_DIR): %v", err)
	}
	dev := gpuDevice(t)
	m, err := Compile(dev, string(src), Options{NameExpressions: []string{"scale<float>"}, Cache: "off"})
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unload()) }()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()

	const n = 256
	out, err := buffer.New[float64](dev, n)
	require.NoError(t, err)
	defer func() { assert.NoError(t, out.Free()) }()
	require.NoError(t, m.MustFunction("pair_axpy").Launch(s, gpu.D1(1), gpu.D1(n), 0, out, pair{X: 1.5, Y: -2}, int32(n)))

	xs := make([]float32, n)
	for i := range xs {
		xs[i] = float32(i)
	}
	x, err := buffer.FromSlice(dev, xs)
	require.NoError(t, err)
	defer func() { assert.NoError(t, x.Free()) }()
	scale, err := m.Function("scale<float>")
	require.NoError(t, err)
	require.NoError(t, scale.Launch(s, gpu.D1(1), gpu.D1(n), 0, x, float32(3), int32(n)))

	y, err := buffer.FromSlice(dev, xs)
	require.NoError(t, err)
	defer func() { assert.NoError(t, y.Free()) }()
	rev := m.MustFunction("reverse_dyn")
	assert.ErrorIs(t, rev.Launch(s, gpu.D1(1), gpu.D1(n), 0, y, int32(n)), gpu.ErrInvalidValue, "0 bytes of dynamic shared memory")
	require.NoError(t, rev.Launch(s, gpu.D1(1), gpu.D1(n), n*4, y, int32(n)))
	require.NoError(t, s.Synchronize())

	pairs, err := out.ToSlice()
	require.NoError(t, err)
	scaled, err := x.ToSlice()
	require.NoError(t, err)
	reversed, err := y.ToSlice()
	require.NoError(t, err)
	for i := range n {
		require.InDelta(t, 1.5*float64(i)-2, pairs[i], 0, "pair_axpy[%d]", i)
		require.InDelta(t, 3*float64(i), scaled[i], 0, "scale<float>[%d]", i)
		require.InDelta(t, float64(n-1-i), reversed[i], 0, "reverse_dyn[%d]", i)
	}
}
