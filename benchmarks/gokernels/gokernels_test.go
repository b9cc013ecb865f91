package gokernels

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Each test runs its kernel on the cpu agent and on every GPU present
// (gputest.Differential) and checks the cpu agent's result against a
// plain Go loop.

func upload[T any](t testing.TB, dev *gpu.Device, h []T) *buffer.Buffer[T] {
	t.Helper()
	b, err := buffer.FromSlice(dev, h)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Free() })
	return b
}

func zeros[T any](t testing.TB, dev *gpu.Device, n int) *buffer.Buffer[T] {
	t.Helper()
	b, err := buffer.New[T](dev, n)
	require.NoError(t, err)
	require.NoError(t, b.Memset(0))
	t.Cleanup(func() { _ = b.Free() })
	return b
}

func finish[T any](t testing.TB, s *stream.Stream, b *buffer.Buffer[T]) ([]T, error) {
	if err := s.Synchronize(); err != nil {
		return nil, err
	}
	return b.ToSlice()
}

func defaultStream(t testing.TB, dev *gpu.Device) *stream.Stream {
	t.Helper()
	s, err := stream.DefaultStream(dev)
	require.NoError(t, err)
	return s
}

func TestVectorAdd(t *testing.T) {
	const n = 100_003
	ha, hb := make([]float32, n), make([]float32, n)
	for i := range ha {
		ha[i], hb[i] = float32(i)*0.5, float32(n-i)
	}
	gputest.Differential(t, func(dev *gpu.Device) ([]float32, error) {
		s := defaultStream(t, dev)
		c := zeros[float32](t, dev, n)
		if err := LaunchVectorAdd(s, gpu.D1(gpu.Blocks(n, 256)), gpu.D1(256), 0, upload(t, dev, ha), upload(t, dev, hb), c); err != nil {
			return nil, err
		}
		got, err := finish(t, s, c)
		if err == nil && dev.Properties().Driver == "cpu" {
			for i := range got {
				if got[i] != ha[i]+hb[i] {
					t.Errorf("c[%d] = %v, want %v", i, got[i], ha[i]+hb[i])
					break
				}
			}
		}
		return got, err
	})
}

func matmulRef(a, b []float32, n int) []float32 {
	c := make([]float32, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var s float32
			for k := 0; k < n; k++ {
				s += a[i*n+k] * b[k*n+j]
			}
			c[i*n+j] = s
		}
	}
	return c
}

func TestMatrixMul(t *testing.T) {
	const n = 64
	ha, hb := make([]float32, n*n), make([]float32, n*n)
	for i := range ha {
		ha[i], hb[i] = float32(i%7)-3, float32(i%5)*0.25
	}
	want := matmulRef(ha, hb, n)
	for _, bs := range []int{16, 32} {
		launch := LaunchMatrixMul16
		if bs == 32 {
			launch = LaunchMatrixMul32
		}
		gputest.Differential(t, func(dev *gpu.Device) ([]float32, error) {
			s := defaultStream(t, dev)
			c := zeros[float32](t, dev, n*n)
			grid := gpu.D2(uint32(n/bs), uint32(n/bs))
			if err := launch(s, grid, gpu.D2(uint32(bs), uint32(bs)), 0, c, upload(t, dev, ha), upload(t, dev, hb), n, n); err != nil {
				return nil, err
			}
			got, err := finish(t, s, c)
			if err == nil && dev.Properties().Driver == "cpu" {
				assert.InDeltaSlice(t, want, got, 1e-3, "block %d", bs)
			}
			return got, err
		}, gputest.ULPs(64))
	}
}

func TestReduce(t *testing.T) {
	const n, block, grid = 1<<16 + 77, 256, 32
	hf, hi := make([]float32, n), make([]int32, n)
	var wantI int64
	for i := range hf {
		hi[i] = int32(i%1000) - 500
		hf[i] = float32(hi[i]) / 4
		wantI += int64(hi[i])
	}
	gputest.Differential(t, func(dev *gpu.Device) ([]int32, error) {
		s := defaultStream(t, dev)
		out := zeros[int32](t, dev, grid)
		if err := LaunchReduceI32(s, gpu.D1(grid), gpu.D1(block), block*4, upload(t, dev, hi), out); err != nil {
			return nil, err
		}
		got, err := finish(t, s, out)
		if err == nil && dev.Properties().Driver == "cpu" {
			var sum int64
			for _, v := range got {
				sum += int64(v)
			}
			assert.Equal(t, wantI, sum)
		}
		return got, err
	})
	gputest.Differential(t, func(dev *gpu.Device) ([]float32, error) {
		s := defaultStream(t, dev)
		out := zeros[float32](t, dev, grid)
		if err := LaunchReduceF32(s, gpu.D1(grid), gpu.D1(block), block*4, upload(t, dev, hf), out); err != nil {
			return nil, err
		}
		got, err := finish(t, s, out)
		if err == nil && dev.Properties().Driver == "cpu" {
			var sum float64
			for _, v := range got {
				sum += float64(v)
			}
			assert.InDelta(t, float64(wantI)/4, sum, 1)
		}
		return got, err
	}, gputest.ULPs(1<<12)) // the order of a float sum differs between the agents' warps
}

func TestHistogram256(t *testing.T) {
	const n = 1<<18 + 5
	h := make([]uint8, n)
	want := make([]uint32, 256)
	for i := range h {
		h[i] = uint8(uint32(i) * 2654435761 >> 13)
		want[h[i]]++
	}
	gputest.Differential(t, func(dev *gpu.Device) ([]uint32, error) {
		s := defaultStream(t, dev)
		bins := zeros[uint32](t, dev, 256)
		if err := LaunchHistogram256(s, gpu.D1(16), gpu.D1(256), 0, upload(t, dev, h), bins); err != nil {
			return nil, err
		}
		got, err := finish(t, s, bins)
		if err == nil && dev.Properties().Driver == "cpu" {
			assert.Equal(t, want, got)
		}
		return got, err
	})
}

func TestTranspose(t *testing.T) {
	const rows, cols = 96, 160
	h := make([]float32, rows*cols)
	for i := range h {
		h[i] = float32(i)
	}
	gputest.Differential(t, func(dev *gpu.Device) ([]float32, error) {
		s := defaultStream(t, dev)
		out := zeros[float32](t, dev, rows*cols)
		if err := LaunchTranspose(s, gpu.D2(cols/32, rows/32), gpu.D2(32, 8), 0, out, upload(t, dev, h), rows, cols); err != nil {
			return nil, err
		}
		got, err := finish(t, s, out)
		if err == nil && dev.Properties().Driver == "cpu" {
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					if got[c*rows+r] != h[r*cols+c] {
						t.Fatalf("out[%d][%d] = %v, want %v", c, r, got[c*rows+r], h[r*cols+c])
					}
				}
			}
		}
		return got, err
	})
}

func TestScan(t *testing.T) {
	const block = 256
	const n = block*block - 3 // two levels: the blocks' sums fit one block
	h := make([]int32, n)
	for i := range h {
		h[i] = int32(i%11) - 5
	}
	gputest.Differential(t, func(dev *gpu.Device) ([]int32, error) {
		s := defaultStream(t, dev)
		data := upload(t, dev, h)
		sums := zeros[int32](t, dev, block)
		top := zeros[int32](t, dev, 1)
		blocks := gpu.Blocks(n, block)
		if err := LaunchScanBlock(s, gpu.D1(blocks), gpu.D1(block), 0, data, sums); err != nil {
			return nil, err
		}
		if err := LaunchScanBlock(s, gpu.D1(1), gpu.D1(block), 0, sums, top); err != nil {
			return nil, err
		}
		if err := LaunchUniformAdd(s, gpu.D1(blocks), gpu.D1(block), 0, data, sums); err != nil {
			return nil, err
		}
		got, err := finish(t, s, data)
		if err == nil && dev.Properties().Driver == "cpu" {
			var acc int32
			for i := range h {
				acc += h[i]
				if got[i] != acc {
					t.Fatalf("scan[%d] = %d, want %d", i, got[i], acc)
				}
			}
		}
		return got, err
	})
}
