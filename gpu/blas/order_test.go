package blas_test

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/blas"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// slowFill sleeps, then sets x[0:n] to v: a writer that loses any race.
type slowFillArgs struct {
	X  rocr.Ptr[float32]
	V  float32
	Ms int32
	N  int32
}

var slowFill = kernel.Define("blas_test_slow_fill", func(g *kernel.Block, a *slowFillArgs) {
	time.Sleep(time.Duration(a.Ms) * time.Millisecond)
	x := a.X.Slice(g, 0, int(a.N))
	for i := range x {
		x[i] = a.V
	}
})

// A gemm on stream B that reads a buffer a kernel on stream A is still
// writing waits for it, and a copy on stream A of the gemm's result waits
// for the gemm: the automatic dependencies of launches hold for BLAS work.
func TestOrderedWithKernelsOnOtherStreams(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	mod, err := module.Load(dev, kernel.NewSet("blas-test", slowFill))
	require.NoError(t, err)
	fill, err := mod.Function("blas_test_slow_fill")
	require.NoError(t, err)
	sa, err := stream.New(dev)
	require.NoError(t, err)
	sb, err := stream.New(dev)
	require.NoError(t, err)
	h, err := blas.New(sb)
	require.NoError(t, err)
	const n = 16
	a, err := buffer.New[float32](dev, n*n)
	require.NoError(t, err)
	b, err := buffer.FromSlice(dev, identity(n))
	require.NoError(t, err)
	c, err := buffer.New[float32](dev, n*n)
	require.NoError(t, err)
	out, err := buffer.New[float32](dev, n*n)
	require.NoError(t, err)

	require.NoError(t, module.LaunchKernelGGL(fill, gpu.D1(1), gpu.D1(1), 0, sa, a, float32(3), int32(100), int32(n*n)))
	require.NoError(t, blas.Gemm(h, blas.NoTrans, blas.NoTrans, n, n, n, 2, a, n, b, n, 0, c, n))
	require.NoError(t, sa.Copy(out, 0, c, 0, n*n))
	require.NoError(t, sa.Synchronize())
	got, err := out.ToSlice()
	require.NoError(t, err)
	for i, v := range got {
		require.Equal(t, float32(6), v, "element %d: the gemm or the copy ran out of order", i)
	}
	require.NoError(t, h.Destroy())
	for _, m := range []interface{ Free() error }{a, b, c, out} {
		assert.NoError(t, m.Free())
	}
	assert.NoError(t, sa.Destroy())
	assert.NoError(t, sb.Destroy())
	assert.NoError(t, mod.Unload())
}

func identity(n int) []float32 {
	v := make([]float32, n*n)
	for i := 0; i < n; i++ {
		v[i*n+i] = 1
	}
	return v
}

// Goroutines sharing a handle each get their own results.
func TestConcurrentCalls(t *testing.T) {
	f := newFixture(t)
	const n, workers = 24, 8
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		x := upload(f, constant(n, float32(w+1)))
		c := upload(f, make([]float32, n*n))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				// c = x·xᵀ: every element is (w+1)²; x·x is n(w+1)².
				if !assert.NoError(t, blas.Gemm(f.h, blas.NoTrans, blas.Trans, n, n, 1, 1, x, 1, x, 1, 0, c, n)) {
					return
				}
				d, err := blas.Dot(f.h, n, x, 1, x, 1)
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, float32(n*(w+1)*(w+1)), d)
			}
		}()
		t.Cleanup(func() {
			assert.Equal(t, constant(n*n, float32((w+1)*(w+1))), download(f, c))
		})
	}
	wg.Wait()
}

func constant(n int, v float32) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return s
}
