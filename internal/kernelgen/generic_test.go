package kernelgen

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// TestGenericKernels checks a generic kernel's instances: one Kernel and
// one pair of entry points each, named by the type arguments, with the
// type arguments in the parameters, the shared memory and the template's
// arguments; from the directives and from the package's launcher calls.
func TestGenericKernels(t *testing.T) {
	testenv.GoTool(t)
	r, err := Load(filepath.Join("testdata", "generic"))
	require.NoError(t, err)
	var names []string
	for _, k := range r.Kernels {
		names = append(names, k.Name)
	}
	assert.Equal(t, []string{
		"axpy_float32", "axpy_int32", "axpy_float64", "axpy_celsius",
		"block_sum_float64", "block_sum_int16",
		"convert_int32_float32", "convert_int32_float64",
		"fill_uint16", "fill_int64", "fill_float64",
	}, names)
	byName := map[string]Kernel{}
	for _, k := range r.Kernels {
		byName[k.Name] = k
	}
	k := byName["axpy_int32"]
	assert.Equal(t, "Axpy", k.GoName)
	assert.Equal(t, "AxpyInt32", k.Ident)
	require.Len(t, k.TypeArgs, 1)
	assert.Equal(t, "int32", k.TypeArgs[0].String())
	require.Len(t, k.Params, 3)
	assert.Equal(t, "int32_t", k.Params[0].CType)
	assert.Equal(t, Scalar, k.Params[0].Kind)
	assert.Equal(t, "int32", k.Params[1].Type.String())
	assert.True(t, k.Params[1].ReadOnly)
	assert.Equal(t, "AxpyCelsius", byName["axpy_celsius"].Ident)
	assert.Equal(t, "float", byName["axpy_celsius"].Params[0].CType)
	assert.Equal(t, 64*8, byName["block_sum_float64"].StaticShared)
	assert.Equal(t, 64*2, byName["block_sum_int16"].StaticShared)
	assert.Equal(t, 64, byName["block_sum_int16"].MaxThreads)
	assert.Equal(t, 2, byName["block_sum_int16"].MinBlocks)
	assert.True(t, byName["block_sum_int16"].Lockstep)
	assert.Equal(t, "ConvertInt32Float64", byName["convert_int32_float64"].Ident)

	for _, want := range []string{
		"template <bool Checked, class T> __device__ void Axpy(T a, hg_slice<const T> x, hg_slice<T> y, hg_fault* hg_f) {",
		"extern \"C\" __global__ void axpy_float32(float a, const float* x_p, float* y_p, long long y_n) {\n  Axpy<false, float>(",
		"extern \"C\" __global__ void axpy_int32_checked(int32_t a, const int32_t* x_p, int32_t* y_p, long long y_n, long long x_n, hg_fault* hg_f) {\n  Axpy<true, int32_t>(",
		"extern \"C\" __global__ void __launch_bounds__(64, 2) block_sum_int16(",
		"__shared__ hg_array<T, 64> hg_shared_part;",
		"Convert<false, int32_t, double>(",
		"Fill<false, uint16_t>(",
	} {
		assert.Contains(t, r.Source, want)
	}
}

// TestGenericKernelErrors checks that an instance the subset cannot
// compile is an error at the place that asks for it.
func TestGenericKernelErrors(t *testing.T) {
	testenv.GoTool(t)
	_, err := Load(filepath.Join("testdata", "badgeneric"))
	require.Error(t, err)
	var list ErrorList
	require.True(t, errors.As(err, &list), "%v", err)
	for _, c := range []struct {
		line, col int
		construct string
		detail    string
	}{
		{10, 1, "instance Strs[string]", "string: a kernel's values are fixed-size numbers"},
		{16, 28, "instantiate directive U=float32", "U is not a type parameter of the kernel"},
		{22, 6, "generic kernel Lonely without instances", "//hipgo:instantiate T=float32,int32"},
		{40, 1, "instance Atom2[int8]", "int8 does not satisfy github.com/hipgo/hipgo/rocr/kernel.Atomic"},
		{49, 6, "64000 bytes of kernel.Shared in instance Big[float64]", "at most 49152 bytes"},
		{27, 23, "type argument token.Pos", "a predeclared number or bool type, or a type the package declares"},
		{27, 33, "type argument nope", ""},
		{32, 16, "kernel directive option", `"maxthreads=2048"`},
	} {
		found := false
		for _, e := range list {
			if e.Pos.Line == c.line && e.Pos.Column == c.col && e.Construct == c.construct {
				found = true
				assert.Contains(t, e.Error(), fmt.Sprintf("bad.go:%d:%d: %s", c.line, c.col, c.construct))
				assert.Contains(t, e.Detail, c.detail)
			}
		}
		assert.True(t, found, "no error %s at %d:%d in\n%v", c.construct, c.line, c.col, err)
	}
	assert.Len(t, list, 8, "%v", err)
}

// TestGenericCompile compiles the generic kernels' translation unit with
// clang-19 for sm_90 and gfx90a.
func TestGenericCompile(t *testing.T) {
	cc, err := clang()
	testenv.Require(t, "clang", err)
	testenv.GoTool(t)
	r, err := Load(filepath.Join("testdata", "generic"))
	require.NoError(t, err)
	dir := t.TempDir()
	src := filepath.Join(dir, "g.cu")
	require.NoError(t, os.WriteFile(src, []byte(r.Source), 0o644))
	for name, flags := range map[string][]string{
		"gfx90a": {"-x", "hip", "--cuda-device-only", "--offload-arch=gfx90a", "-nogpuinc", "-nogpulib"},
		"sm_90":  {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc", "-nocudalib", "-Xclang", "-target-feature", "-Xclang", "+ptx78"},
	} {
		out := filepath.Join(dir, name+".s")
		msg, err := exec.Command(cc, append(append([]string{}, flags...), "-O2", "-Wall", "-Werror", "-S", "-o", out, src)...).CombinedOutput()
		require.NoError(t, err, "%s: %s", name, msg)
		asm, err := os.ReadFile(out)
		require.NoError(t, err)
		for _, k := range r.Kernels {
			assert.Contains(t, string(asm), k.Name+"_checked", name)
		}
	}
}
