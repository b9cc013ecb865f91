package kernelgen

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
		"template <bool Checked, class T> HG_DEV void Axpy(T a, hg_slice<const T> x, hg_slice<T> y, hg_fault* hg_f) {",
		"extern \"C\" __global__ void axpy_float32(float a, const float* x_p, float* y_p, long long y_n) {\n  Axpy<false, float>(",
		"extern \"C\" __global__ void axpy_int32_checked(int32_t a, const int32_t* x_p, int32_t* y_p, long long y_n, long long x_n, hg_fault* hg_f) {\n  hg_fault hg_own = {};\n  Axpy<true, int32_t>(",
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
		{64, 9, "call of Apply through a type parameter", "no type argument of the package's generic kernels has a method Apply"},
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
	assert.Len(t, list, 9, "%v", err)
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

// TestGenericHostRun runs instances of the generic Axpy as the emitted
// C++ compiled for the host by clang-19 (testdata/host/hg_host.h), one
// work-item at a time, against plain Go: int32 wraps, float64 to the bit,
// and the checked int32 instance records Go's index fault.
func TestGenericHostRun(t *testing.T) {
	cc, err := clang()
	testenv.Require(t, "clang", err)
	testenv.GoTool(t)
	r, err := Load(filepath.Join("testdata", "generic"))
	require.NoError(t, err)
	const n = 64
	xi, yi := make([]int32, n), make([]int32, n)
	xf, yf := make([]float64, n), make([]float64, n)
	for i := range xi {
		xi[i], yi[i] = int32(i*2654435761%100003)-50000, int32(i*7919%1000)
		xf[i], yf[i] = float64(xi[i])/3, float64(yi[i])/7
	}
	var ai int32 = 70001
	af := 1.0 / 3
	list := func(vs []string) string { return strings.Join(vs, ", ") }
	var si, sf []string
	for i := range xi {
		si = append(si, fmt.Sprint(xi[i]), fmt.Sprint(yi[i]))
		sf = append(sf, fmt.Sprintf("%#x", math.Float64bits(xf[i])), fmt.Sprintf("%#x", math.Float64bits(yf[i])))
	}
	dir := t.TempDir()
	main := fmt.Sprintf(`#include %q
static int32_t iv[%[2]d * 2] = {%[3]s};
static const unsigned long long fbits[%[2]d * 2] = {%[4]s};
static int32_t xi[%[2]d], yi[%[2]d];
static double xf[%[2]d], yf[%[2]d];

int main() {
  for (int i = 0; i < %[2]d; i++) {
    xi[i] = iv[2*i]; yi[i] = iv[2*i+1];
    memcpy(&xf[i], &fbits[2*i], 8); memcpy(&yf[i], &fbits[2*i+1], 8);
  }
  gridDim.x = %[2]d;
  for (unsigned i = 0; i < %[2]d; i++) {
    blockIdx.x = i;
    axpy_int32(%[5]d, xi, yi, %[2]d);
    axpy_float64(%[6]s, xf, yf, %[2]d);
  }
  for (int i = 0; i < %[2]d; i++) {
    unsigned long long b;
    memcpy(&b, &yf[i], 8);
    printf("%%d %%llu\n", yi[i], b);
  }
  // x shorter than y: work-item 10 reads x[10] of 10.
  hg_fault f = {};
  blockIdx.x = 10;
  axpy_int32_checked(1, xi, yi, %[2]d, 10, &f);
  printf("fault %%u %%u %%lld %%lld\n", f.kind, f.line, f.index, f.len);
  return 0;
}
`, filepath.Join(dir, "unit.cu"), n, list(si), list(sf), ai, fmt.Sprintf("hg_f64_from(%#xULL)", math.Float64bits(af)))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "unit.cu"), []byte(r.Source), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.cpp"), []byte(main), 0o644))
	hdr, err := filepath.Abs(filepath.Join("testdata", "host", "hg_host.h"))
	require.NoError(t, err)
	bin := filepath.Join(dir, "g")
	msg, err := exec.Command(cc, "-x", "c++", "-std=c++17", "-O1", "-ffp-contract=off", "-w", "-include", hdr, "-o", bin, filepath.Join(dir, "main.cpp")).CombinedOutput()
	require.NoError(t, err, "%s", msg)
	out, err := exec.Command(bin).Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, n+1)
	for i := 0; i < n; i++ {
		wi := ai*xi[i] + yi[i]
		wf := af*xf[i] + yf[i]
		assert.Equal(t, fmt.Sprintf("%d %d", wi, math.Float64bits(wf)), lines[i], "work-item %d", i)
	}
	assert.Equal(t, "fault 1 24 10 10", lines[n], "the checked instance records x[10] with length 10 at generic.go:24")
}
