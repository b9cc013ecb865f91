package rtc

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

// gpuDevice is the default device where it runs compiled source, and the
// words of HIPGO_REQUIRE that make a missing GPU or compiler a failure.
func gpuDevice(t testing.TB) *gpu.Device {
	t.Helper()
	dev := gputest.Device(t)
	c := compilerFor(dev.Target())
	// Either GPU word requires a GPU and its compiler, whichever is here.
	word := "cuda"
	if testenv.Required("rocm") {
		word = "rocm"
	}
	if c == nil {
		testenv.Requiref(t, word, "%s runs no compiled source: set HIPGO_DRIVER=cuda or rocm on a GPU machine", dev)
	}
	if err := c.open(); err != nil {
		if testenv.Required(c.name) {
			word = c.name
		}
		testenv.Require(t, word, err)
	}
	return dev
}

// TestCompileAndLaunch compiles source on the GPU's compiler, launches a
// template instance found by its expression and a plain kernel, and
// loads the program a second time from the cache. HIPGO_RTC_CACHE set
// keeps the cache between runs, so a second process shows a cache hit
// from its first compile.
func TestCompileAndLaunch(t *testing.T) {
	dev := gpuDevice(t)
	dir := os.Getenv(CacheEnv)
	if dir == "" {
		dir = t.TempDir()
		privateKey(t) // a cache kept in HIPGO_RTC_CACHE between runs needs the user's key
	}
	opts := Options{NameExpressions: []string{"scale<float>"}, Headers: headers, Cache: dir, Flags: []string{"-DUNUSED=1"}}

	// The first in this process: a compile, or a read where another
	// process has compiled the program into HIPGO_RTC_CACHE.
	start := time.Now()
	p, err := CompileFor(dev.Target(), source, opts)
	first := time.Since(start)
	require.NoError(t, err)
	start = time.Now()
	m, err := Compile(dev, source, opts)
	load := time.Since(start)
	require.NoError(t, err)
	defer func() { assert.NoError(t, m.Unload()) }()
	t.Logf("first CompileFor on %s: %v (cached=%v, %s, %d bytes); then Compile with module load %v (%s code)", dev.Target(), first, p.Cached, p.Compiler, len(p.Image), load, m.Kind())
	assert.True(t, m.Program.Cached)

	s, err := stream.New(dev)
	require.NoError(t, err)
	defer func() { assert.NoError(t, s.Destroy()) }()
	const n = 1000
	xs, ys := make([]float32, n), make([]float32, n)
	for i := range xs {
		xs[i], ys[i] = float32(i), 1
	}
	x, err := buffer.FromSlice(dev, xs)
	require.NoError(t, err)
	defer func() { assert.NoError(t, x.Free()) }()
	y, err := buffer.FromSlice(dev, ys)
	require.NoError(t, err)
	defer func() { assert.NoError(t, y.Free()) }()

	grid, block := gpu.D1((n+255)/256), gpu.D1(256)
	axpy := m.MustFunction("axpy")
	require.NoError(t, axpy.Launch(s, grid, block, 0, float32(2), x, y, int32(n)))
	scale, err := m.Function("scale<float>")
	require.NoError(t, err)
	require.NoError(t, scale.Launch(s, grid, block, 0, x, float32(3), int32(n)))
	// The layout came from the code: a double for the float is refused.
	assert.ErrorIs(t, scale.Launch(s, grid, block, 0, x, 3.0, int32(n)), gpu.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	gotY, err := y.ToSlice()
	require.NoError(t, err)
	gotX, err := x.ToSlice()
	require.NoError(t, err)
	for i := range n {
		require.InDelta(t, 2*float64(i)+1, gotY[i], 1e-3, "axpy[%d]", i)
		require.InDelta(t, 3*float64(i), gotX[i], 1e-3, "scale<float>[%d]", i)
	}

	// From the cache: no compile, and (the target) under a millisecond.
	var lookup time.Duration
	var again *Module
	assert.Zero(t, compileCount(func() {
		start := time.Now()
		p, err := CompileFor(dev.Target(), source, opts)
		lookup = time.Since(start)
		require.NoError(t, err)
		assert.True(t, p.Cached)
		start = time.Now()
		again, err = Compile(dev, source, opts)
		load = time.Since(start)
		require.NoError(t, err)
	}))
	defer func() { assert.NoError(t, again.Unload()) }()
	assert.True(t, again.Program.Cached)
	assert.Equal(t, m.Program.Image, again.Program.Image)
	// How long a hit takes is BenchmarkCacheHit's to say (target=device
	// on a GPU), not a test's.
	t.Logf("cached: CompileFor %v, Compile with module load %v", lookup, load)
	_, err = again.Function("scale<float>")
	assert.NoError(t, err)
}

// A program that fails on the GPU's compiler says why in the error.
func TestCompileErrorOnGPU(t *testing.T) {
	dev := gpuDevice(t)
	_, err := Compile(dev, "__global__ void f(float* x) { x[0] = undefined_name; }", Options{Cache: "off"})
	var ce *CompileError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, ce.Log, "undefined_name")
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	t.Log(err)
}
