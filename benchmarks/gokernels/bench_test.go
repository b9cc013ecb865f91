package gokernels

import (
	"runtime"
	"sync"
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// The benchmarks run the same sizes and launch shapes as
// benchmarks/peers/gokernels_peer.cu, so gpu-ns/op sits beside the nvcc
// peer's time in the same run. Checked mode is off: that is the figure
// the targets name (BenchmarkChecked measures its cost).

func benchBuf[T any](b *testing.B, dev *gpu.Device, n int) *buffer.Buffer[T] {
	b.Helper()
	x, err := buffer.New[T](dev, n)
	if err != nil {
		b.Fatal(err)
	}
	if err := x.Memset(0); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = x.Free() })
	return x
}

// benchChecked is the checked mode the benchmarks run in: off, but under
// BenchmarkChecked.
var benchChecked = false

func benchStream(b *testing.B) (*gpu.Device, *stream.Stream) {
	b.Helper()
	goKernels.SetChecked(benchChecked)
	b.Cleanup(func() { goKernels.SetChecked(true) })
	dev := gputest.Device(b)
	s, err := stream.New(dev)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Destroy() })
	return dev, s
}

func BenchmarkVectorAdd(b *testing.B) {
	dev, s := benchStream(b)
	n := 1 << 26
	if dev.Properties().Driver == "cpu" {
		n = 1 << 24
	}
	x, y, z := benchBuf[float32](b, dev, n), benchBuf[float32](b, dev, n), benchBuf[float32](b, dev, n)
	gputest.Benchmark(b, s, func() error {
		return LaunchVectorAdd(s, gpu.D1(gpu.Blocks(n, 256)), gpu.D1(256), 0, x, y, z)
	}, gputest.Bytes(int64(12*n)))
}

// BenchmarkChecked is every benchmark of a kernel of the package in
// checked mode: its cost beside the unchecked run of the same name
// (benchmarks/peers/gokernels_summary.py prints checked/unchecked).
func BenchmarkChecked(b *testing.B) {
	benchChecked = true
	defer func() { benchChecked = false }()
	b.Run("kernel=VectorAdd", BenchmarkVectorAdd)
	b.Run("kernel=MatrixMul", BenchmarkMatrixMul)
	b.Run("kernel=Reduce", BenchmarkReduce)
	b.Run("kernel=Histogram256", BenchmarkHistogram256)
	b.Run("kernel=Transpose", BenchmarkTranspose)
	b.Run("kernel=Scan", BenchmarkScan)
}

func BenchmarkMatrixMul(b *testing.B) {
	dev, s := benchStream(b)
	n := 2048
	if dev.Properties().Driver == "cpu" {
		n = 128
	}
	x, y, z := benchBuf[float32](b, dev, n*n), benchBuf[float32](b, dev, n*n), benchBuf[float32](b, dev, n*n)
	for _, bs := range []int{16, 32} {
		launch := LaunchMatrixMul16
		if bs == 32 {
			launch = LaunchMatrixMul32
		}
		b.Run(map[int]string{16: "block=16", 32: "block=32"}[bs], func(b *testing.B) {
			grid := gpu.D2(uint32(n/bs), uint32(n/bs))
			gputest.Benchmark(b, s, func() error {
				return launch(s, grid, gpu.D2(uint32(bs), uint32(bs)), 0, z, x, y, int32(n), int32(n))
			}, gputest.FLOPs(2*float64(n)*float64(n)*float64(n)))
		})
	}
}

func BenchmarkReduce(b *testing.B) {
	dev, s := benchStream(b)
	n, grid := 1<<24, 2048
	if dev.Properties().Driver == "cpu" {
		n, grid = 1<<22, 64
	}
	in, out := benchBuf[float32](b, dev, n), benchBuf[float32](b, dev, grid)
	gputest.Benchmark(b, s, func() error {
		return LaunchReduceF32(s, gpu.D1(uint32(grid)), gpu.D1(256), 256*4, in, out)
	}, gputest.Bytes(int64(4*n)))
}

func BenchmarkHistogram256(b *testing.B) {
	dev, s := benchStream(b)
	n, grid := 64<<20, 1024
	if dev.Properties().Driver == "cpu" {
		n, grid = 4<<20, 64
	}
	data, bins := benchBuf[uint8](b, dev, n), benchBuf[uint32](b, dev, 256)
	gputest.Benchmark(b, s, func() error {
		return LaunchHistogram256(s, gpu.D1(uint32(grid)), gpu.D1(256), 0, data, bins)
	}, gputest.Bytes(int64(n)))
}

func BenchmarkTranspose(b *testing.B) {
	dev, s := benchStream(b)
	n := 4096
	if dev.Properties().Driver == "cpu" {
		n = 512
	}
	in, out := benchBuf[float32](b, dev, n*n), benchBuf[float32](b, dev, n*n)
	gputest.Benchmark(b, s, func() error {
		return LaunchTranspose(s, gpu.D2(uint32(n/32), uint32(n/32)), gpu.D2(32, 8), 0, out, in, int32(n), int32(n))
	}, gputest.Bytes(int64(8*n*n)))
}

func BenchmarkScan(b *testing.B) {
	dev, s := benchStream(b)
	n := 1 << 24
	if dev.Properties().Driver == "cpu" {
		n = 1 << 20
	}
	data, sums := benchBuf[int32](b, dev, n), benchBuf[int32](b, dev, n/256)
	gputest.Benchmark(b, s, func() error {
		return LaunchScanBlock(s, gpu.D1(uint32(n/256)), gpu.D1(256), 0, data, sums)
	}, gputest.Bytes(int64(8*n)))
}

// The plain Go peers of BenchmarkScan and BenchmarkReduce on the cpu
// agent: the same work on host slices, the blocks shared out over
// GOMAXPROCS goroutines as the cpu agent shares its work-groups, so
// ns/op beside the kernel's is what fission costs over a Go loop.

// parallelBlocks runs fn(blk) for blocks 0 to n-1 over GOMAXPROCS
// goroutines.
func parallelBlocks(n int, fn func(blk int)) {
	p := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for blk := w; blk < n; blk += p {
				fn(blk)
			}
		}()
	}
	wg.Wait()
}

// BenchmarkScanGo is scanBlock's work as a Go loop: an inclusive scan of
// each block of 256 in place, its total in sums.
func BenchmarkScanGo(b *testing.B) {
	n := 1 << 20
	data, sums := make([]int32, n), make([]int32, n/256)
	b.SetBytes(int64(8 * n))
	for b.Loop() {
		parallelBlocks(n/256, func(blk int) {
			d := data[blk*256 : blk*256+256]
			var s int32
			for i := range d {
				s += d[i]
				d[i] = s
			}
			sums[blk] = s
		})
	}
}

// BenchmarkReduceGo is reduceF32's work on the cpu agent's shape as a Go
// loop: the sum of 2^22 floats in 64 parts.
func BenchmarkReduceGo(b *testing.B) {
	n, grid := 1<<22, 64
	in, out := make([]float32, n), make([]float32, grid)
	b.SetBytes(int64(4 * n))
	for b.Loop() {
		parallelBlocks(grid, func(blk int) {
			var s float32
			for _, v := range in[blk*n/grid : (blk+1)*n/grid] {
				s += v
			}
			out[blk] = s
		})
	}
}

// BenchmarkCoroutines is BenchmarkScan and BenchmarkReduce with the cpu
// agent running them as coroutines (kernelimpl.SetCoroutines), as it did
// before their warp operations ran in lockstep within loop fission.
func BenchmarkCoroutines(b *testing.B) {
	kernelimpl.SetCoroutines(true)
	defer kernelimpl.SetCoroutines(false)
	b.Run("kernel=Scan", BenchmarkScan)
	b.Run("kernel=Reduce", BenchmarkReduce)
}

// BenchmarkVectorAddGo is vectorAdd's work on the cpu agent's shape as a
// Go loop: c = a + b over 2^24 floats in blocks of 256.
func BenchmarkVectorAddGo(b *testing.B) {
	n := 1 << 24
	x, y, z := make([]float32, n), make([]float32, n), make([]float32, n)
	b.SetBytes(int64(12 * n))
	for b.Loop() {
		parallelBlocks(n/256, func(blk int) {
			lo := blk * 256
			zs, xs, ys := z[lo:lo+256], x[lo:lo+256], y[lo:lo+256]
			for i := range zs {
				zs[i] = xs[i] + ys[i]
			}
		})
	}
}

// BenchmarkMatrixMulGo is matrixMul's work on the cpu agent's shape as a
// Go loop: a 128x128 product, a row of c per block.
func BenchmarkMatrixMulGo(b *testing.B) {
	n := 128
	x, y, z := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for b.Loop() {
		parallelBlocks(n, func(r int) {
			for c := 0; c < n; c++ {
				var s float32
				for k := 0; k < n; k++ {
					s += x[r*n+k] * y[k*n+c]
				}
				z[r*n+c] = s
			}
		})
	}
}

// BenchmarkHistogram256Go is histogram256's work on the cpu agent's
// shape as a Go loop: 4 MiB of bytes in 64 parts, each counted on its
// own and added to the bins.
func BenchmarkHistogram256Go(b *testing.B) {
	n, grid := 4<<20, 64
	data := make([]uint8, n)
	var bins [256]uint32
	var mu sync.Mutex
	b.SetBytes(int64(n))
	for b.Loop() {
		parallelBlocks(grid, func(blk int) {
			var local [256]uint32
			for _, v := range data[blk*n/grid : (blk+1)*n/grid] {
				local[v]++
			}
			mu.Lock()
			for i, c := range local {
				bins[i] += c
			}
			mu.Unlock()
		})
	}
}

// BenchmarkTransposeGo is transpose's work on the cpu agent's shape as a
// Go loop: a 512x512 transpose in tiles of 32.
func BenchmarkTransposeGo(b *testing.B) {
	n := 512
	in, out := make([]float32, n*n), make([]float32, n*n)
	b.SetBytes(int64(8 * n * n))
	for b.Loop() {
		parallelBlocks((n/32)*(n/32), func(blk int) {
			r0, c0 := blk/(n/32)*32, blk%(n/32)*32
			for r := r0; r < r0+32; r++ {
				for c := c0; c < c0+32; c++ {
					out[c*n+r] = in[r*n+c]
				}
			}
		})
	}
}
