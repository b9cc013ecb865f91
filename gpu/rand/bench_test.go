package rand

import (
	"fmt"
	mrand "math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// benchLogs are the benchmarks' sizes as powers of two: 2^20 and 2^24, and
// on a GPU 2^26 and 2^28 too (the targets).
func benchLogs(s *stream.Stream) []int {
	if s.Device().Properties().IsCPU {
		return []int{20, 24}
	}
	return []int{20, 24, 26, 28}
}

func benchFill[T any](b *testing.B, name string, size int64, fill func(*Generator, *stream.Stream, buffer.Array[T]) error) {
	dev, s := newStream(b)
	for _, l := range benchLogs(s) {
		b.Run(fmt.Sprintf("%s/2^%d", name, l), func(b *testing.B) {
			out := newBuf[T](b, dev, 1<<l)
			g := NewPhilox(1)
			gputest.Benchmark(b, s, func() error { return fill(g, s, out) }, gputest.Bytes(size<<l))
		})
	}
}

func BenchmarkUniform(b *testing.B) {
	benchFill(b, "float32", 4, Uniform[float32])
	benchFill(b, "float64", 8, Uniform[float64])
}

func BenchmarkNormal(b *testing.B) {
	benchFill(b, "float32", 4, func(g *Generator, s *stream.Stream, out buffer.Array[float32]) error {
		return Normal(g, s, out, 0, 1)
	})
	benchFill(b, "float64", 8, func(g *Generator, s *stream.Stream, out buffer.Array[float64]) error {
		return Normal(g, s, out, 0, 1)
	})
}

func BenchmarkBits(b *testing.B) {
	benchFill(b, "uint32", 4, Bits[uint32])
	benchFill(b, "uint64", 8, Bits[uint64])
}

// BenchmarkCPUAgent is the cpu agent's Philox (span.go) filling 2^24
// float32 uniforms, bits, normals and log-normals (and 2^23 float64
// normals, as many bytes) beside math/rand/v2's ChaCha8 and PCG filling a slice of as many
// bytes, each split over GOMAXPROCS goroutines as the agent's workers
// are; GB/s/core is the bytes a second per core. The agent's workers
// are as many as GOMAXPROCS when the runtime opens, so run one and all
// cores as separate runs. GB/cpu-s is the bytes per second of the
// process's CPU time over the benchmark (warm-up included): a per-core
// rate that other processes on the machine do not dilute.
//
//	for c in 1 2; do go test -run '^$' -bench CPUAgent -cpu $c -count 3 ./gpu/rand; done
func BenchmarkCPUAgent(b *testing.B) {
	dev := gputest.DeviceOf(b, "cpu")
	s, err := stream.New(dev)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Destroy()
	const n = 1 << 24
	var cpu0 time.Duration
	perCore := func(b *testing.B) {
		b.ReportMetric(float64(4*n)*float64(b.N)/b.Elapsed().Seconds()/1e9/float64(runtime.GOMAXPROCS(0)), "GB/s/core")
		if c := cpuTime() - cpu0; c > 0 && cpu0 > 0 {
			b.ReportMetric(float64(4*n)*float64(b.N+1)/c.Seconds()/1e9, "GB/cpu-s")
		}
	}
	b.Run("philox-uniform/float32", func(b *testing.B) {
		out := newBuf[float32](b, dev, n)
		g := NewPhilox(1)
		cpu0 = cpuTime()
		b.ReportAllocs()
		gputest.Benchmark(b, s, func() error { return Uniform(g, s, out) }, gputest.Bytes(4*n))
		perCore(b)
	})
	b.Run("philox-bits/uint32", func(b *testing.B) {
		out := newBuf[uint32](b, dev, n)
		g := NewPhilox(1)
		cpu0 = cpuTime()
		b.ReportAllocs()
		gputest.Benchmark(b, s, func() error { return Bits(g, s, out) }, gputest.Bytes(4*n))
		perCore(b)
	})
	b.Run("philox-normal/float32", func(b *testing.B) {
		out := newBuf[float32](b, dev, n)
		g := NewPhilox(1)
		cpu0 = cpuTime()
		b.ReportAllocs()
		gputest.Benchmark(b, s, func() error { return Normal(g, s, out, 0, 1) }, gputest.Bytes(4*n))
		perCore(b)
	})
	b.Run("philox-lognormal/float32", func(b *testing.B) {
		out := newBuf[float32](b, dev, n)
		g := NewPhilox(1)
		cpu0 = cpuTime()
		b.ReportAllocs()
		gputest.Benchmark(b, s, func() error { return LogNormal(g, s, out, 0, 1) }, gputest.Bytes(4*n))
		perCore(b)
	})
	b.Run("philox-normal/float64", func(b *testing.B) {
		out := newBuf[float64](b, dev, n/2)
		g := NewPhilox(1)
		cpu0 = cpuTime()
		b.ReportAllocs()
		gputest.Benchmark(b, s, func() error { return Normal(g, s, out, 0, 1) }, gputest.Bytes(4*n))
		perCore(b)
	})
	peer := func(name string, src func(seed uint64) mrand.Source) {
		b.Run(name, func(b *testing.B) {
			out := make([]uint32, n)
			p := runtime.GOMAXPROCS(0)
			srcs := make([]mrand.Source, p)
			for i := range srcs {
				srcs[i] = src(uint64(i))
			}
			b.SetBytes(4 * n)
			cpu0 = cpuTime()
			for b.Loop() {
				var wg sync.WaitGroup
				for k := range p {
					wg.Add(1)
					go func(r mrand.Source, o []uint32) {
						defer wg.Done()
						for i := 0; i+1 < len(o); i += 2 {
							v := r.Uint64()
							o[i], o[i+1] = uint32(v), uint32(v>>32)
						}
					}(srcs[k], out[k*n/p:(k+1)*n/p])
				}
				wg.Wait()
			}
			perCore(b)
		})
	}
	peer("chacha8/uint32", func(seed uint64) mrand.Source {
		var k [32]byte
		k[0] = byte(seed)
		return mrand.NewChaCha8(k)
	})
	peer("pcg/uint32", func(seed uint64) mrand.Source { return mrand.NewPCG(seed, 1) })
}
