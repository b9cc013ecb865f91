package rtc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/internal/vendorlib"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// source is valid CUDA and HIP alike: hipRTC and NVRTC both declare the
// built-in indices.
const source = `
#include "config.h"
template <typename T>
__global__ void scale(T* x, T a, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) x[i] *= a * SCALE_BIAS;
}

extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] += a * x[i];
}
`

var headers = map[string]string{"config.h": "#define SCALE_BIAS 1\n"}

// gfx is the AMD target the tests compile for: hipRTC needs no GPU for it.
const gfx = "gfx90a"

// needHipRTC skips t where hipRTC cannot be opened, unless HIPGO_REQUIRE
// lists hiprtc (CI installs libamdhip64-5 and libamd-comgr2).
func needHipRTC(t *testing.T) {
	t.Helper()
	if err := hiprtc.open(); err != nil {
		testenv.Requiref(t, "hiprtc", "hipRTC: %v (apt-get install libamdhip64-5 libamd-comgr2)", err)
	}
}

// privateKey gives t a cache key of its own, so that tests leave the
// user's key alone.
func privateKey(t *testing.T) {
	t.Helper()
	t.Setenv(KeyFileEnv, filepath.Join(t.TempDir(), "key"))
}

// compileCount runs f and says how many programs it handed to a compiler.
func compileCount(f func()) int64 {
	before := compilations.Load()
	f()
	return compilations.Load() - before
}

// The cpu agent has no compiler: the error says so and points to Go kernels.
func TestCompileOnCPU(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	m, err := Compile(dev, source, Options{})
	require.Error(t, err)
	assert.Nil(t, m)
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	assert.ErrorIs(t, err, ErrNoCompiler)
	assert.Contains(t, err.Error(), "rocr/kernel", "the kernel SDK, not the deprecated kernel.Define")
	assert.NotContains(t, err.Error(), "kernel.Define")

	_, err = Compile(nil, source, Options{})
	assert.Error(t, err)
	_, err = CompileFor("x86_64", source, Options{})
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
}

// hipRTC compiles for gfx90a without a GPU; the code object carries both
// kernels, the template instance under the name its expression lowers to,
// with the arguments' layout.
func TestHipRTCCompile(t *testing.T) {
	needHipRTC(t)
	p, err := CompileFor(gfx, source, Options{NameExpressions: []string{"scale<float>", "scale<double>"}, Headers: headers, Cache: "off"})
	require.NoError(t, err)
	assert.False(t, p.Cached)
	assert.Equal(t, "_Z5scaleIfEvPT_S0_i", p.Symbol("scale<float>"))
	assert.Equal(t, "_Z5scaleIdEvPT_S0_i", p.Symbol("scale<double>"))
	assert.Equal(t, "axpy", p.Symbol("axpy"))
	assert.Equal(t, "axpy", (*Program)(nil).Symbol("axpy"))
	_, err = (&Module{}).Function("axpy")
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)

	spec, err := codeobj.Parse(p.Image)
	require.NoError(t, err)
	obj, err := spec.Select(gfx)
	require.NoError(t, err)
	assert.Equal(t, codeobj.FormatELF, obj.Format)
	kernels := map[string]*codeobj.Kernel{}
	for i := range obj.Kernels {
		kernels[obj.Kernels[i].Name] = &obj.Kernels[i]
	}
	type layout struct {
		kind         codeobj.ValueKind
		offset, size uint32
	}
	explicit := func(name string) []layout {
		k := kernels[name]
		require.NotNil(t, k, "kernel %s in %v", name, spec.Targets())
		var out []layout
		for _, a := range k.Args {
			if !a.Hidden() {
				out = append(out, layout{a.Kind, a.Offset, a.Size})
			}
		}
		return out
	}
	assert.Equal(t, []layout{{codeobj.KindGlobalBuffer, 0, 8}, {codeobj.KindByValue, 8, 4}, {codeobj.KindByValue, 12, 4}}, explicit("_Z5scaleIfEvPT_S0_i"))
	assert.Equal(t, []layout{{codeobj.KindGlobalBuffer, 0, 8}, {codeobj.KindByValue, 8, 8}, {codeobj.KindByValue, 16, 4}}, explicit("_Z5scaleIdEvPT_S0_i"))
	assert.Equal(t, []layout{{codeobj.KindByValue, 0, 4}, {codeobj.KindGlobalBuffer, 8, 8}, {codeobj.KindGlobalBuffer, 16, 8}, {codeobj.KindByValue, 24, 4}}, explicit("axpy"))
}

// Bad source is an error carrying the compiler's log, never a panic.
func TestHipRTCBadSource(t *testing.T) {
	needHipRTC(t)
	for name, src := range map[string]string{
		"syntax":      "__global__ void f(int* x { x[0] = 1; }",
		"undeclared":  "__global__ void f(int* x) { x[0] = nope; }",
		"bad include": `#include "missing.h"`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := CompileFor(gfx, src, Options{Cache: "off"})
			require.Error(t, err)
			var ce *CompileError
			require.ErrorAs(t, err, &ce)
			assert.ErrorIs(t, err, gpu.ErrInvalidValue)
			assert.Contains(t, ce.Log, "error")
			assert.Contains(t, err.Error(), ce.Log)
		})
	}
	_, err := CompileFor(gfx, source, Options{Headers: headers, NameExpressions: []string{"no_such<float>"}, Cache: "off"})
	require.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.Contains(t, err.Error(), "no_such")
	_, err = CompileFor(gfx, source, Options{Headers: headers, Flags: []string{"--no-such-flag"}, Cache: "off"})
	assert.Error(t, err)
}

// C strings end at a NUL: a source, flag, name or header holding one
// would be cut short without a word, so it is refused.
func TestNUL(t *testing.T) {
	for name, o := range map[string]Options{
		"flag":    {Flags: []string{"-O3\x00-O0"}},
		"name":    {NameExpressions: []string{"scale<float>\x00"}},
		"header":  {Headers: map[string]string{"config.h": "#define SCALE_BIAS 1\x00"}},
		"include": {Headers: map[string]string{"a\x00.h": ""}},
		"program": {Name: "a\x00.cu"},
	} {
		_, err := CompileFor(gfx, source, o)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
	}
	_, err := CompileFor(gfx, "__global__ void f() {}\x00garbage", Options{})
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, err = CompileFor(gfx, " \n", Options{})
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
}

// Options that would contradict the target or make no name are refused
// before anything is compiled.
func TestBadOptions(t *testing.T) {
	for _, f := range []string{"-arch=sm_80", "--gpu-architecture=sm_80", "--gpu-arch=sm_80", "--offload-arch=gfx1030", "-arch"} {
		n := compileCount(func() {
			_, err := CompileFor(gfx, source, Options{Flags: []string{f}})
			assert.ErrorIs(t, err, gpu.ErrInvalidValue, f)
		})
		assert.Zero(t, n, f)
	}
	_, err := CompileFor("sm_90", source, Options{NameExpressions: []string{" "}})
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
}

// The second compile of a program is read from the cache; anything that
// changes the output (flags, names, headers, target) compiles again.
func TestCache(t *testing.T) {
	needHipRTC(t)
	privateKey(t)
	dir := t.TempDir()
	opts := Options{NameExpressions: []string{"scale<float>"}, Headers: headers, Cache: dir}
	var first, second *Program
	assert.EqualValues(t, 1, compileCount(func() {
		var err error
		first, err = CompileFor(gfx, source, opts)
		require.NoError(t, err)
	}))
	assert.False(t, first.Cached)
	assert.Zero(t, compileCount(func() {
		var err error
		second, err = CompileFor(gfx, source, opts)
		require.NoError(t, err)
	}))
	assert.True(t, second.Cached)
	assert.Equal(t, first.Image, second.Image)
	assert.Equal(t, first.Lowered, second.Lowered)
	assert.Equal(t, first.Compiler, second.Compiler)

	changed := map[string]func(o *Options) string{
		"flags": func(o *Options) string { o.Flags = []string{"-O1"}; return source },
		"names": func(o *Options) string { o.NameExpressions = []string{"scale<double>"}; return source },
		"headers": func(o *Options) string {
			o.Headers = map[string]string{"config.h": "#define SCALE_BIAS 2\n"}
			return source
		},
		"source": func(o *Options) string { return source + "\n// changed\n" },
	}
	for name, change := range changed {
		o := opts
		src := change(&o)
		assert.EqualValues(t, 1, compileCount(func() {
			_, err := CompileFor(gfx, src, o)
			require.NoError(t, err)
		}), name)
	}
	assert.EqualValues(t, 1, compileCount(func() {
		_, err := CompileFor("gfx1030", source, opts)
		require.NoError(t, err)
	}), "another target")

	// "off" compiles every time, from the option or the environment.
	assert.EqualValues(t, 1, compileCount(func() {
		_, err := CompileFor(gfx, source, Options{NameExpressions: opts.NameExpressions, Headers: headers, Cache: "off"})
		require.NoError(t, err)
	}))
	t.Setenv(CacheEnv, "off")
	assert.EqualValues(t, 1, compileCount(func() {
		_, err := CompileFor(gfx, source, Options{NameExpressions: opts.NameExpressions, Headers: headers})
		require.NoError(t, err)
	}))
	// The environment moves the cache.
	envDir := t.TempDir()
	t.Setenv(CacheEnv, envDir)
	for _, want := range []int64{1, 0} {
		assert.Equal(t, want, compileCount(func() {
			_, err := CompileFor(gfx, source, Options{Headers: headers})
			require.NoError(t, err)
		}))
	}
	entries, err := filepath.Glob(filepath.Join(envDir, "*.bin"))
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}

// A damaged entry is ignored, compiled again and replaced.
func TestCacheCorrupt(t *testing.T) {
	needHipRTC(t)
	privateKey(t)
	dir := t.TempDir()
	opts := Options{Headers: headers, Cache: dir}
	p, err := CompileFor(gfx, source, opts)
	require.NoError(t, err)
	entries, err := filepath.Glob(filepath.Join(dir, "*.bin"))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	good, err := os.ReadFile(entries[0])
	require.NoError(t, err)

	flip := append([]byte(nil), good...)
	flip[len(flip)-100] ^= 0xff
	for name, bad := range map[string][]byte{
		"empty":      {},
		"truncated":  good[:len(good)/2],
		"no image":   good[:strings.IndexByte(string(good[len(entryMagic):]), '\n')+len(entryMagic)+1],
		"flipped":    flip,
		"garbage":    []byte("\x7fELF not really"),
		"bad header": append([]byte(entryMagic+"{not json\n"), p.Image...),
	} {
		require.NoError(t, os.WriteFile(entries[0], bad, 0o644))
		var again *Program
		assert.EqualValues(t, 1, compileCount(func() {
			again, err = CompileFor(gfx, source, opts)
			require.NoError(t, err, name)
		}), name)
		assert.False(t, again.Cached, name)
		assert.Equal(t, p.Image, again.Image, name)
		assert.Zero(t, compileCount(func() {
			again, err = CompileFor(gfx, source, opts)
			require.NoError(t, err, name)
		}), "%s: rebuilt entry", name)
		assert.True(t, again.Cached, name)
	}

	// An unwritable cache costs a compile, not an error.
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = CompileFor(gfx, source, Options{Headers: headers, Cache: filepath.Join(file, "sub")})
	assert.NoError(t, err)
}

// Goroutines compiling one program into one cache all get it whole.
func TestCacheConcurrent(t *testing.T) {
	needHipRTC(t)
	privateKey(t)
	dir := t.TempDir()
	opts := Options{NameExpressions: []string{"scale<float>"}, Headers: headers, Cache: dir}
	const n = 4
	progs := make([]*Program, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { progs[i], errs[i] = CompileFor(gfx, source, opts) })
	}
	wg.Wait()
	for i := range n {
		require.NoError(t, errs[i])
		assert.Equal(t, progs[0].Image, progs[i].Image)
		assert.Equal(t, "_Z5scaleIfEvPT_S0_i", progs[i].Symbol("scale<float>"))
	}
	// Readers and writers of one entry: a reader sees all of it or none.
	key := strings.Repeat("ab", 32)
	c, err := openCache(dir)
	require.NoError(t, err)
	var rw sync.WaitGroup
	for i := range n {
		rw.Go(func() {
			for range 50 {
				if i%2 == 0 {
					assert.NoError(t, c.write(key, progs[0]))
				} else if p, err := c.read(key); assert.NoError(t, err) && p != nil {
					assert.Equal(t, progs[0].Image, p.Image)
				}
			}
		})
	}
	rw.Wait()
	left, err := filepath.Glob(filepath.Join(dir, ".tmp-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "temporary files left behind")
}

// helperEnv makes the test binary a process that compiles once into the
// cache named and prints how many compiles that took.
const helperEnv = "HIPGO_RTC_TEST_HELPER"

func TestCacheHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("run by TestCacheProcesses")
	}
	var p *Program
	n := compileCount(func() {
		var err error
		p, err = CompileFor(gfx, source, Options{NameExpressions: []string{"scale<float>"}, Headers: headers, Cache: dir})
		require.NoError(t, err)
	})
	fmt.Printf("compiles=%d cached=%v\n", n, p.Cached)
}

// Processes compiling one program at once leave a good entry, and a later
// process reads it without compiling.
func TestCacheProcesses(t *testing.T) {
	needHipRTC(t)
	privateKey(t)
	dir := t.TempDir()
	helper := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+dir)
		return cmd
	}
	var wg sync.WaitGroup
	outs := make([][]byte, 4)
	errs := make([]error, len(outs))
	for i := range outs {
		wg.Go(func() { outs[i], errs[i] = helper().CombinedOutput() })
	}
	wg.Wait()
	for i := range outs {
		require.NoError(t, errs[i], "%s", outs[i])
		assert.Contains(t, string(outs[i]), "compiles=", "%s", outs[i])
	}
	out, err := helper().CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "compiles=0 cached=true")
}

// A compiler whose library is absent is ErrNoCompiler, not a crash.
func TestNoLibrary(t *testing.T) {
	t.Setenv("HIPGO_TEST_NO_LIBRARY", filepath.Join(t.TempDir(), "libnone.so"))
	lib := *vendorlib.HIPRTC
	lib.Env = "HIPGO_TEST_NO_LIBRARY"
	c := &compiler{name: "hiprtc", lib: &lib}
	_, err := c.run(&request{target: gfx, source: source})
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNoCompiler)
	assert.ErrorIs(t, err, gpu.ErrNotSupported)
	assert.Contains(t, err.Error(), "HIPGO_TEST_NO_LIBRARY")
	_, err = c.identity()
	assert.ErrorIs(t, err, ErrNoCompiler)
}

// The architecture options as each compiler spells them.
func TestArchFlag(t *testing.T) {
	assert.Equal(t, "--gpu-architecture=sm_90", nvrtc.archFlag("sm_90"))
	assert.Equal(t, "--offload-arch=gfx90a:xnack-", hiprtc.archFlag("gfx90a:xnack-"))
}

// BenchmarkCacheHit is the cost of a compile the cache answers: hash the
// request, read and check one file. target=gfx90a asks hipRTC's cache;
// target=device the default GPU's compiler (NVRTC on an NVIDIA GPU),
// where TestCompileAndLaunch once asserted a hit under 50 ms.
func BenchmarkCacheHit(b *testing.B) {
	b.Run("target=gfx90a", func(b *testing.B) {
		if err := hiprtc.open(); err != nil {
			b.Skip(err)
		}
		benchCacheHit(b, gfx)
	})
	b.Run("target=device", func(b *testing.B) {
		benchCacheHit(b, gpuDevice(b).Target())
	})
}

func benchCacheHit(b *testing.B, target string) {
	b.Setenv(KeyFileEnv, filepath.Join(b.TempDir(), "key"))
	opts := Options{NameExpressions: []string{"scale<float>"}, Headers: headers, Cache: b.TempDir()}
	_, err := CompileFor(target, source, opts)
	require.NoError(b, err)
	b.ReportAllocs()
	for b.Loop() {
		p, err := CompileFor(target, source, opts)
		if err != nil || !p.Cached {
			b.Fatal(err, p.Cached)
		}
	}
}

// A compile error's message ends with the log's text, and the code the
// error carries follows it on the same line.
func TestCompileErrorMessage(t *testing.T) {
	for name, log := range map[string]string{"log": "x.cu(1): error: expected a \";\"\n\n", "none": "", "blank": "\n \x00"} {
		ce := &CompileError{Program: "x.cu", Target: "sm_90", Compiler: "NVRTC 12.4", Msg: "nvrtcCompileProgram: error 6 (NVRTC_ERROR_COMPILATION)", Log: log}
		err := error(&gpu.Error{Code: gpu.ErrInvalidValue, Op: "compile", Err: ce})
		msg := err.Error()
		assert.NotRegexp(t, `\s \(hipErrorInvalidValue\)$`, msg, name)
		assert.True(t, strings.HasSuffix(msg, ") (hipErrorInvalidValue)") || strings.HasSuffix(msg, `";" (hipErrorInvalidValue)`), "%s: %q", name, msg)
		assert.False(t, strings.HasSuffix(ce.Error(), "\n"), name)
		if name == "log" {
			assert.Equal(t, "compile: x.cu for sm_90 (NVRTC 12.4): nvrtcCompileProgram: error 6 (NVRTC_ERROR_COMPILATION)\nx.cu(1): error: expected a \";\" (hipErrorInvalidValue)", msg)
		}
	}
}

// CompileForContext with a done context does not start; with a live one
// it compiles as CompileFor does.
func TestCompileForContext(t *testing.T) {
	needHipRTC(t)
	privateKey(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	n := compileCount(func() {
		p, err := CompileForContext(ctx, gfx, source, Options{Headers: headers, Cache: "off"})
		assert.Nil(t, p)
		assert.ErrorIs(t, err, gpu.ErrNotReady)
		assert.ErrorIs(t, err, context.Canceled)
	})
	assert.Zero(t, n, "a cancelled context started a compile")
	live, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	p, err := CompileForContext(live, gfx, source, Options{Headers: headers, Cache: "off"})
	require.NoError(t, err)
	assert.NotEmpty(t, p.Image)
}
