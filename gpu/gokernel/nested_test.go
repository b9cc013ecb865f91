package gokernel_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// batchInputs are batches n x n matrices a and m.
func batchInputs(n, batches int) (a, m []float32) {
	a, m = make([]float32, batches*n*n), make([]float32, batches*n*n)
	for i := range a {
		a[i] = float32(i*7919%1000)/256 - 2
		m[i] = float32(i*104729%997)/128 - 3
	}
	return a, m
}

// batchedMatMulGo is batchedMatMul as a plain Go loop, in the kernel's
// order of operations.
func batchedMatMulGo(c, a, m []float32, n, batches int) {
	for b := 0; b < batches; b++ {
		ab, mb, cb := a[b*n*n:], m[b*n*n:], c[b*n*n:]
		for row := 0; row < n; row++ {
			for col := 0; col < n; col++ {
				var sum float32
				for k := 0; k < n; k++ {
					sum += float32(ab[row*n+k] * mb[k*n+col])
				}
				cb[row*n+col] = sum
			}
		}
	}
}

// batchLaunch is LaunchBatchedMatMul's or LaunchBatchedMatMulDev's shape.
type batchLaunch = func(*stream.Stream, gpu.Dim3, gpu.Dim3, int, buffer.Array[float32], buffer.Array[float32], buffer.Array[float32], int, int) error

var batchKernels = []struct {
	name   string
	launch batchLaunch
}{{"inline", faulty.LaunchBatchedMatMul}, {"device", faulty.LaunchBatchedMatMulDev}}

func runBatchedMatMul(dev *gpu.Device, launch batchLaunch, n, batches int) ([]float32, error) {
	a, m := batchInputs(n, batches)
	ba, err := buffer.FromSlice(dev, a)
	if err != nil {
		return nil, err
	}
	defer ba.Free()
	bm, err := buffer.FromSlice(dev, m)
	if err != nil {
		return nil, err
	}
	defer bm.Free()
	c, err := buffer.New[float32](dev, batches*n*n)
	if err != nil {
		return nil, err
	}
	defer c.Free()
	s, err := stream.New(dev)
	if err != nil {
		return nil, err
	}
	defer s.Destroy()
	g := uint32(n / faulty.BatchTile)
	if err := launch(s, gpu.D2(g, g), gpu.D2(faulty.BatchTile, faulty.BatchTile), 0, c, ba, bm, n, batches); err != nil {
		return nil, err
	}
	if err := s.Synchronize(); err != nil {
		return nil, err
	}
	return c.ToSlice()
}

// A kernel with barriers two loops deep, written inline or with the inner
// loop in a generic device function, run by loop fission on the cpu agent,
// gives plain Go's bits; every GPU gives the cpu agent's.
func TestBarriersTwoLoopsDeep(t *testing.T) {
	const n, batches = 48, 3
	a, m := batchInputs(n, batches)
	want := make([]float32, batches*n*n)
	batchedMatMulGo(want, a, m, n, batches)
	for _, k := range batchKernels {
		t.Run(k.name, func(t *testing.T) {
			got, err := runBatchedMatMul(gputest.DeviceOf(t, "cpu"), k.launch, n, batches)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			gputest.Differential(t, func(dev *gpu.Device) ([]float32, error) { return runBatchedMatMul(dev, k.launch, n, batches) })
		})
	}
}

// BenchmarkBarriersTwoLoopsDeep is batchedMatMul on the cpu agent beside
// the same work as a plain Go loop on one goroutine, in the same run:
// the ratio of their ns/op is the cpu agent's cost.
func BenchmarkBarriersTwoLoopsDeep(b *testing.B) {
	const n, batches = 64, 16
	a, m := batchInputs(n, batches)
	b.Run("go=plain", func(b *testing.B) {
		c := make([]float32, batches*n*n)
		for b.Loop() {
			batchedMatMulGo(c, a, m, n, batches)
		}
	})
	for _, k := range batchKernels {
		b.Run("agent=cpu/kernel="+k.name, func(b *testing.B) {
			dev := gputest.DeviceOf(b, "cpu")
			faulty.Library.SetChecked(false)
			b.Cleanup(func() { faulty.Library.SetChecked(true) })
			ba, err := buffer.FromSlice(dev, a)
			require.NoError(b, err)
			defer ba.Free()
			bm, err := buffer.FromSlice(dev, m)
			require.NoError(b, err)
			defer bm.Free()
			c, err := buffer.New[float32](dev, batches*n*n)
			require.NoError(b, err)
			defer c.Free()
			s, err := stream.New(dev)
			require.NoError(b, err)
			defer s.Destroy()
			g := uint32(n / faulty.BatchTile)
			for b.Loop() {
				if err := k.launch(s, gpu.D2(g, g), gpu.D2(faulty.BatchTile, faulty.BatchTile), 0, c, ba, bm, n, batches); err != nil {
					b.Fatal(err)
				}
				if err := s.Synchronize(); err != nil {
					b.Fatal(fmt.Errorf("%s: %w", k.name, err))
				}
			}
		})
	}
}
