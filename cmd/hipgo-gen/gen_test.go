package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ptx is a PTX module of entries; ptxSaxpy is the entry of
// saxpy(float, const float *, float *, int).
func ptx(entries string) string {
	return ".version 7.8\n.target sm_90\n.address_size 64\n\n" + entries
}

const ptxSaxpy = `.visible .entry saxpy(
	.param .f32 saxpy_param_0,
	.param .u64 saxpy_param_1,
	.param .u64 saxpy_param_2,
	.param .u32 saxpy_param_3
)
{
	ret;
}
`

// TestRunErrors checks the command's failures: missing flags, an unknown
// C type, a code object that disagrees with the sources.
func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	hip := filepath.Join(dir, "k.hip")
	obj := filepath.Join(dir, "k.ptx")
	if err := os.WriteFile(hip, []byte("HIPGO_KERNEL void saxpy(float alpha, const float *x, float *y, int n) {}\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(obj, []byte(ptx(strings.ReplaceAll(ptxSaxpy, ".param .u32 saxpy_param_3", ".param .u64 saxpy_param_3"))), 0o666); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-src", hip}, "-src and -pkg (set by go generate) are required"},
		{[]string{"-src", hip, "-pkg", "p"}, "the generated loader has nothing to load"},
		{[]string{"-src", hip, "-pkg", "p", "-obj", obj + ".missing"}, "must be a path inside the package's directory"},
		{[]string{"-src", hip, "-pkg", "p", "-loader", "set", "-cpu", "cpuKernels"}, "-cpu goes with the generated loader"},
		{[]string{"-src", hip, "-pkg", "p", "-cpu", "not a name"}, `"not a name" is not a Go identifier`},
		{[]string{"-src", filepath.Join(dir, "*.cu"), "-pkg", "p", "-loader", "set"}, "no such file"},
		{[]string{"-src", hip, "-obj", obj, "-pkg", "p", "-loader", "set"}, "the sources and the code objects disagree:\n" +
			filepath.ToSlash(obj) + " (sm_90): kernel saxpy argument 3 (n, int): the source gives 4 bytes at offset 24, the code object 8 bytes at offset 24"},
		{[]string{"-src", hip, "-pkg", "p", "-loader", "set", "-type", "not an identifier"}, `"not an identifier" is not a Go identifier`},
	} {
		err := run(c.args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("hipgo-gen %q:\ngot  %v\nwant %s", c.args, err, c.want)
		}
	}
	// Without code objects the declarations alone give the launchers.
	stdout.Reset()
	if err := run([]string{"-src", hip, "-pkg", "p", "-loader", "load", "-type", "Kernels", "-prefix", "Run"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"type Kernels struct {",
		"func RunSaxpy(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, alpha float32, x buffer.Array[float32], y buffer.Array[float32], n int32) error {",
		"fs, err := load(s)",
		"args.Float32(alpha).ConstPtr(x).Ptr(y).Int32(n)", "err = module.LaunchKernel(fs.Saxpy, grid, block, &args, sharedMem, s)\n\targs.Release()\n\treturn err",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
}

func TestPrefixNotIdentifier(t *testing.T) {
	hip := filepath.Join(t.TempDir(), "k.hip")
	require.NoError(t, os.WriteFile(hip, []byte("HIPGO_KERNEL void k(float *a) {}\n"), 0o666))
	var stdout, stderr bytes.Buffer
	for _, prefix := range []string{"1", "a b", "Run-"} {
		err := run([]string{"-src", hip, "-pkg", "p", "-loader", "load", "-prefix", prefix}, &stdout, &stderr)
		require.Error(t, err, "-prefix %q", prefix)
		assert.Equal(t, fmt.Sprintf("-prefix %q does not begin a Go identifier", prefix), err.Error())
	}
	assert.Zero(t, stdout.Len())
	require.NoError(t, run([]string{"-src", hip, "-pkg", "p", "-loader", "load", "-prefix", ""}, &stdout, &stderr))
	assert.Contains(t, stdout.String(), "\nfunc K(s *stream.Stream")
}

func TestHelpIsNotAFailure(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run([]string{"-h"}, &stdout, &stderr)
	assert.Equal(t, 0, exitCode(err), "-h: %v", err)
	assert.Contains(t, stderr.String(), "usage: hipgo-gen")
	assert.Equal(t, 1, exitCode(run(nil, &stdout, &stderr)), "no flags")
}

// Without -loader, hipgo-gen writes the loader: the -obj files embedded,
// the -cpu kernels beside them, loaded once per device.
func TestGeneratedLoader(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("k.hip", []byte("#include \"hipgo.h\"\nHIPGO_KERNEL void saxpy(float alpha, const float *x, float *y, int n) {}\n"), 0o666))
	require.NoError(t, os.Mkdir("gen", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("gen", "k.ptx"), []byte(ptx(ptxSaxpy)), 0o666))
	var stdout, stderr bytes.Buffer
	// The header first, as a build script writes it before clang runs.
	require.NoError(t, run([]string{"-header", "hipgo.h"}, &stdout, &stderr))
	b, err := os.ReadFile("hipgo.h")
	require.NoError(t, err)
	assert.Equal(t, hipgoH, b)
	assert.Zero(t, stdout.Len())

	require.NoError(t, run([]string{"-src", "k.hip", "-obj", "gen/k.ptx", "-cpu", "cpuKernels", "-pkg", "p"}, &stdout, &stderr))
	for _, want := range []string{
		"import (\n\t_ \"embed\"",
		"//go:embed gen/k.ptx\n\tfunctionsObject0 []byte",
		"func loadKernels(s *stream.Stream) (*Functions, error) {",
		"module.Load(dev, module.Library{cpuKernels, functionsObject0})",
		"fs, err := loadKernels(s)",
	} {
		assert.Contains(t, stdout.String(), want)
	}
	// The cpu agent's kernels alone: nothing to embed.
	stdout.Reset()
	require.NoError(t, run([]string{"-src", "k.hip", "-cpu", "cpuKernels", "-pkg", "p"}, &stdout, &stderr))
	assert.NotContains(t, stdout.String(), "embed")
	assert.Contains(t, stdout.String(), "module.Load(dev, module.Library{cpuKernels})")
}

// The header hipgo-gen embeds is the one the example's source includes,
// which build.sh writes with -header.
func TestHeaderInExample(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "examples", "hip_kernel", "src", "hipgo.h"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("not in the source tree: %v", err)
	}
	require.NoError(t, err)
	assert.True(t, bytes.Equal(hipgoH, b), "examples/hip_kernel/src/hipgo.h differs from cmd/hipgo-gen/hipgo.h: run go generate ./examples/hip_kernel")
}

// An error about the declarations says which forms hipgo-gen reads.
func TestDeclarationFormsInErrors(t *testing.T) {
	hip := filepath.Join(t.TempDir(), "k.cu")
	require.NoError(t, os.WriteFile(hip, []byte("__global__ void hist64(const unsigned char *d, unsigned *bins) {}\n"), 0o666))
	var stdout, stderr bytes.Buffer
	err := run([]string{"-src", hip, "-pkg", "p", "-loader", "load"}, &stdout, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no kernels found in")
	assert.Contains(t, err.Error(), `HIPGO_KERNEL void name(...)`)
	assert.Contains(t, err.Error(), `extern "C" __global__ void name(...)`)
}
