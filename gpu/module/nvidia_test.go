package module_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// nvDir holds nvcc's output for rocr/codeobj/testdata/nv/k.cu: the
// committed sm_90 fixtures, or HIPGO_NV_DIR (a fresh nvcc build on the
// GPU machine).
func nvDir() string {
	if d := os.Getenv("HIPGO_NV_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "rocr", "codeobj", "testdata", "nv")
}

// needNV skips a test whose binary runs away from the source tree without
// HIPGO_NV_DIR.
func needNV(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(nvDir(), "k.cubin")); err != nil {
		t.Skipf("NVIDIA fixtures not here (set HIPGO_NV_DIR): %v", err)
	}
}

// A device without NVIDIA code says what the fat binary holds.
func TestNVIDIABinariesOnCPU(t *testing.T) {
	needNV(t)
	dev := setup(t)
	for _, name := range []string{"k.cubin", "k.fatbin", "k.o"} {
		_, err := module.LoadFile(dev, filepath.Join(nvDir(), name))
		require.ErrorIs(t, err, gpu.ErrNoBinaryForGpu, name)
		assert.Contains(t, err.Error(), "cubin sm_90", name)
	}
	_, err := module.LoadFile(dev, filepath.Join(nvDir(), "k.fatbin"))
	assert.Contains(t, err.Error(), "ptx sm_80")
}

// TestNVIDIABinaries loads nvcc's cubin, fat binary, object file and PTX
// on an NVIDIA GPU and runs a plain kernel, a kernel of mixed scalar
// parameters, a template instance, a struct passed by value and a dynamic
// shared memory kernel.
func TestNVIDIABinaries(t *testing.T) {
	needNV(t)
	if os.Getenv("HIPGO_DRIVER") != "cuda" {
		testenv.Requiref(t, "cuda", "set HIPGO_DRIVER=cuda on an NVIDIA GPU")
	}
	t.Cleanup(func() { assert.NoError(t, gpu.Shutdown()) })
	dev, err := gpu.Default()
	require.NoError(t, err)
	if !strings.HasPrefix(dev.Target(), "sm_") {
		testenv.Requiref(t, "cuda", "no NVIDIA device: %s", dev)
	}
	s, err := stream.New(dev)
	require.NoError(t, err)
	for name, kind := range map[string]hsa.CodeKind{"k.cubin": hsa.CodeCubin, "k.fatbin": hsa.CodeCubin, "k.o": hsa.CodeCubin, "k.ptx": hsa.CodePTX, "k80.fatbin": hsa.CodePTX} {
		t.Run(name, func(t *testing.T) {
			m, err := module.LoadFile(dev, filepath.Join(nvDir(), name))
			require.NoError(t, err)
			defer m.Unload()
			assert.Equal(t, kind, m.Kind())
			runNVKernels(t, m, s, name != "k.cubin")
		})
	}
	_, err = module.LoadFile(dev, filepath.Join(nvDir(), "k100.fatbin"))
	require.ErrorIs(t, err, gpu.ErrNoBinaryForGpu)
	assert.Contains(t, err.Error(), "cubin sm_100")
	t.Log(err)
}

// knowsShared is false for a bare cubin: it does not record extern
// __shared__, so a 0-byte launch cannot be refused and would fault the GPU.
func runNVKernels(t *testing.T, m *module.Module, s *stream.Stream, knowsShared bool) {
	dev := m.Device()
	const n = 256
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), 1
	}
	x, err := buffer.FromSlice(dev, xs)
	require.NoError(t, err)
	y, err := buffer.FromSlice(dev, ys)
	require.NoError(t, err)
	defer x.Free()
	defer y.Free()

	axpy := m.MustFunction("axpy")
	require.NoError(t, axpy.Launch(s, gpu.D1(1), gpu.D1(n), 0, float32(2), x, y, int32(n)))
	// As strict as PTX: an 8-byte value for the 4-byte float is refused.
	assert.ErrorIs(t, axpy.Launch(s, gpu.D1(1), gpu.D1(n), 0, float64(2), x, y, int32(n)), gpu.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	got, err := y.ToSlice()
	require.NoError(t, err)
	for i, v := range got {
		require.Equal(t, float32(2*i+1), v, "axpy[%d]", i)
	}

	scale := m.MustFunction("_Z5scaleIfEvPT_S0_i") // scale<float>
	require.NoError(t, scale.Launch(s, gpu.D1(1), gpu.D1(n), 0, x, float32(3), int32(n)))
	require.NoError(t, s.Synchronize())
	got, err = x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, float32(3*5), got[5])

	mixed := m.MustFunction("mixed")
	require.NoError(t, mixed.Launch(s, gpu.D1(1), gpu.D1(4), 0, int8(1), 2.5, int64(3), int16(4), y))
	require.NoError(t, s.Synchronize())
	got, err = y.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, float32(10.5), got[3])

	// A struct by value, laid out by nvcc (a cubin's .nv.info gives its
	// offset and size; PTX its .align and size).
	pair := m.MustFunction("pair_axpy")
	out, err := buffer.New[float64](dev, n)
	require.NoError(t, err)
	defer out.Free()
	require.NoError(t, pair.Launch(s, gpu.D1(1), gpu.D1(n), 0, out, Pair{X: 1.5, Y: -2}, int32(n)))
	assert.ErrorIs(t, pair.Launch(s, gpu.D1(1), gpu.D1(n), 0, out, int64(1), int32(n)), gpu.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	pairs, err := out.ToSlice()
	require.NoError(t, err)
	for i, v := range pairs {
		require.InDelta(t, 1.5*float64(i)-2, v, 0, "pair_axpy[%d]", i)
	}

	rev := m.MustFunction("reverse_dyn")
	if knowsShared {
		err = rev.Launch(s, gpu.D1(1), gpu.D1(n), 0, y, int32(n))
		require.ErrorIs(t, err, gpu.ErrInvalidValue, "0 bytes of dynamic shared memory")
	}
	require.NoError(t, y.CopyFrom(xs))
	require.NoError(t, rev.Launch(s, gpu.D1(1), gpu.D1(n), n*4, y, int32(n)))
	require.NoError(t, s.Synchronize())
	got, err = y.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, xs[n-1], got[0])
	assert.Equal(t, xs[0], got[n-1])
}
