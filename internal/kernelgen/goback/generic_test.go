package goback

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/kernelgen"
	"github.com/hipgo/hipgo/internal/testenv"
)

// genericSrc has a generic kernel of each shape the cpu agent runs: a
// plain loop, fission (a barrier at the top level), fission with a warp
// operation (a shuffle in a uniform loop), two type parameters, a named type argument and a constraint
// of golang.org/x/exp/constraints.
const genericSrc = `package p

import (
	"golang.org/x/exp/constraints"

	"github.com/hipgo/hipgo/rocr/kernel"
)

type Celsius float32

type Number interface{ ~int32 | ~float32 | ~float64 }

//hipgo:kernel
//hipgo:instantiate T=float32,int32,float64,Celsius
func Axpy[T Number](t kernel.Thread, a T, x, y []T) {
	if i := t.GlobalX(); i < len(y) {
		y[i] = a*x[i] + y[i]
	}
}

//hipgo:kernel maxthreads=64 minblocks=2
//hipgo:instantiate T=float64,int16
func BlockSum[T constraints.Integer | constraints.Float](t kernel.Thread, in, out []T) {
	part := kernel.Shared[[64]T](t)
	tid := t.ThreadIdx().X
	part[tid] = in[t.GlobalX()]
	t.SyncThreads()
	if tid == 0 {
		var s T
		for _, v := range part {
			s += v
		}
		out[t.BlockIdx().X] = s
	}
}

//hipgo:kernel
//hipgo:instantiate T=int32,float64
func WarpSum[T kernel.Shuffleable](t kernel.Thread, in, out []T) {
	v := in[t.GlobalX()]
	for d := 16; d > 0; d /= 2 {
		v += kernel.ShflDown(t, v, d)
	}
	out[t.GlobalX()] = v
}

type Vec struct{ X, Y float32 }

//hipgo:kernel
//hipgo:instantiate T=Vec,bool,uint8
func Fill[T any](t kernel.Thread, out []T, v T) {
	if i := t.GlobalX(); i < len(out) {
		out[i] = v
	}
}

//hipgo:kernel
//hipgo:instantiate S=int32 D=float32,float64
func Convert[S, D Number](t kernel.Thread, in []S, out []D, n int) {
	if i := t.GlobalX(); i < n {
		out[i] = D(in[i])
	}
}
`

// TestGenericGoSide generates the Go side of generic kernels and builds
// it, with the C++ where clang-19 is present.
func TestGenericGoSide(t *testing.T) {
	testenv.GoTool(t)
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	dir, err := os.MkdirTemp("testdata", "generic")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.WriteFile(filepath.Join(dir, "k.go"), []byte(genericSrc), 0o644))
	use := "package p\n\nimport \"github.com/hipgo/hipgo/gpu\"\n\nfunc use() {\n\t_ = LaunchConvert[int32, float32](nil, gpu.D1(1), gpu.D1(1), 0, nil, nil, 0)\n}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "use.go"), []byte(use), 0o644))
	cfg := Config{Dir: dir, Out: "kernels_gen.go", Gen: "gen", Name: "p", Prefix: "Launch", Var: "lib"}
	res, err := kernelgen.Options{Prefix: cfg.Prefix}.Load(dir, cfg.Out)
	require.NoError(t, err)
	code, err := Generate(cfg, res, nil)
	require.NoError(t, err)
	src := string(code)
	for _, want := range []string{
		"type axpyTypes interface {\n\tfloat32 | int32 | float64 | Celsius\n}",
		"func LaunchAxpy[T axpyTypes](s *stream.Stream, grid, block gpu.Dim3, sharedMem int, a T, x buffer.Array[T], y buffer.Array[T]) error {",
		"\tswitch any((*T)(nil)).(type) {\n\tcase *float32:\n\t\treturn launchAxpyFloat32(s, grid, block, sharedMem, *(*float32)(unsafe.Pointer(&a)), *(*buffer.Array[float32])(unsafe.Pointer(&x)), *(*buffer.Array[float32])(unsafe.Pointer(&y)))",
		"func launchAxpyCelsius(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, a Celsius, x buffer.Array[Celsius], y buffer.Array[Celsius]) error {",
		"var AxpyInt32Kernel = kernel.Define(\"axpy_int32\", func(b *kernel.Block, a *axpyInt32Args) {",
		"Axpy[int32](t.Nth(g-lo), s0, v1, v2)",
		"func BlockSumGroup[T constraints.Integer | constraints.Float](hgB *kernel.Block, in []T, out []T) {",
		"kernelimpl.Frame[blockSumLocals[T]](hgB)",
		"BlockSumGroup[int16](b, ",
		"}, kernel.MaxThreads(64), kernel.StaticShared(128), kernelimpl.Lockstep())",
		"}, kernel.MaxThreads(64), kernel.StaticShared(512), kernelimpl.Lockstep())",
		"WarpSum[float64](t, f.p0, f.p1)",
		"hgW0.Post(hgB, hgI, kernelimpl.OpShflDown, kernel.FullMask, hgV[hgI], d, kernel.CPUWarpSize)",
		"WarpSumGroup[float64](b, ",
		"type convertSTypes interface {\n\tint32\n}",
		"type convertDTypes interface {\n\tfloat32 | float64\n}",
		"func LaunchConvert[S convertSTypes, D convertDTypes](",
		"switch any((*struct {\n\t\ta0 S\n\t\ta1 D\n\t})(nil)).(type) {",
		"\"golang.org/x/exp/constraints\"",
		"type fillTypes interface {\n\tVec | bool | uint8\n}",
		"args.Ptr(out).Int64(int64(out.Len())).Value(v)",
		"args.Ptr(out).Int64(int64(out.Len())).Uint8(gokernel.Bool(v))",
		"case *Vec:\n\t\treturn launchFillVec(s, grid, block, sharedMem, *(*buffer.Array[Vec])(unsafe.Pointer(&out)), *(*Vec)(unsafe.Pointer(&v)))",
	} {
		assert.Contains(t, src, want)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "gen"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gen", "p.cu"), []byte(res.Source), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kernels_gen.go"), code, 0o644))
	out, err := exec.Command("go", "vet", "./"+filepath.ToSlash(dir)).CombinedOutput()
	assert.NoError(t, err, "generated Go does not build:\n%s\n%s", out, code)
	compileCpp(t, res.Source)

	// A type argument the kernel has no instance for does not compile.
	bad := "package p\n\nimport \"github.com/hipgo/hipgo/gpu\"\n\nfunc bad() {\n\t_ = LaunchAxpy[uint32](nil, gpu.D1(1), gpu.D1(1), 0, 1, nil, nil)\n}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.go"), []byte(bad), 0o644))
	out, err = exec.Command("go", "vet", "./"+filepath.ToSlash(dir)).CombinedOutput()
	require.Error(t, err)
	assert.Contains(t, string(out), "uint32 does not satisfy axpyTypes")
}

// Two instances whose generated Go names meet are refused at
// file:line:col: A[BFloat] and AB[Float] are both ABFloat.
func TestGenericNamesMeet(t *testing.T) {
	testenv.GoTool(t)
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	dir, err := os.MkdirTemp("testdata", "generic")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	src := `package p

import "github.com/hipgo/hipgo/rocr/kernel"

type BFloat float32

type Float float32

//hipgo:kernel
//hipgo:instantiate T=BFloat
func A[T any](t kernel.Thread, out []T, v T) { out[0] = v }

//hipgo:kernel
//hipgo:instantiate T=Float
func AB[T any](t kernel.Thread, out []T, v T) { out[0] = v }
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "k.go"), []byte(src), 0o644))
	res, err := kernelgen.Load(dir)
	require.NoError(t, err)
	_, err = Generate(Config{Dir: dir, Out: "kernels_gen.go", Gen: "gen", Name: "p", Prefix: "Launch", Var: "lib"}, res, nil)
	require.Error(t, err)
	assert.Regexp(t, `k\.go:15:6: (ABFloatKernel|aBFloatArgs|launchABFloat) is the name of both kernel ABFloat's`, err.Error())
}

// A type parameter named like the generic launcher's own parameters is
// refused at its place.
func TestGenericTypeParamNamedLikeLauncher(t *testing.T) {
	testenv.GoTool(t)
	require.NoError(t, os.MkdirAll("testdata", 0o755))
	dir, err := os.MkdirTemp("testdata", "generic")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	src := `package p

import "github.com/hipgo/hipgo/rocr/kernel"

//hipgo:kernel
//hipgo:instantiate block=float32
func K[block any](t kernel.Thread, out []block, v block) { out[0] = v }
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "k.go"), []byte(src), 0o644))
	res, err := kernelgen.Load(dir)
	require.NoError(t, err)
	_, err = Generate(Config{Dir: dir, Out: "kernels_gen.go", Gen: "gen", Name: "p", Prefix: "Launch", Var: "lib"}, res, nil)
	require.Error(t, err)
	assert.Regexp(t, `k\.go:7:8: type parameter block of kernel K is also a name its generated launcher uses`, err.Error())
}
