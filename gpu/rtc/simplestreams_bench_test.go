package rtc

import (
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
)

// simpleStreamsSource is CUDA's simpleStreams kernel, with the factor
// passed by value: x[i] += factor, iters times. benchmarks/peers/
// simple_streams.cu builds the same source with nvcc.
const simpleStreamsSource = `extern "C" __global__ void init_array(int* x, int factor, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < iters; k++) x[i] += factor;
}
`

// BenchmarkSimpleStreamsGPU is CUDA's simpleStreams on a GPU: a kernel
// over 16 Mi ints, then their copy to pinned host memory, on one stream
// (one), and split in four views on four streams (streams), whose kernels
// and copies overlap. Its native peer is benchmarks/peers/simple_streams.cu
// in the same run; the target is hipgo's one/streams within 0.95x of the
// native one/streams.
func BenchmarkSimpleStreamsGPU(b *testing.B) {
	const n, nstreams, iters, block = 16 << 20, 4, 5, 512
	dev := gputest.Device(b)
	if compilerFor(dev.Target()) == nil {
		b.Skipf("%s runs no compiled source: simpleStreams needs a GPU", dev)
	}
	c, err := Compile(dev, simpleStreamsSource, Options{Name: "simple_streams.cu", Cache: "off"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Module.Unload()
	f, err := c.Module.Function("init_array")
	if err != nil {
		b.Fatal(err)
	}
	for _, split := range []int{1, nstreams} {
		name := "one"
		if split > 1 {
			name = "streams"
		}
		b.Run(name, func(b *testing.B) {
			d, err := buffer.New[int32](dev, n)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Free()
			h, err := buffer.NewHost[int32](dev, n)
			if err != nil {
				b.Fatal(err)
			}
			defer h.Free()
			ss := make([]*stream.Stream, split)
			for i := range ss {
				if ss[i], err = stream.New(dev); err != nil {
					b.Fatal(err)
				}
				defer ss[i].Destroy()
			}
			q := n / split
			views := make([][2]*buffer.Sub[int32], split)
			for i := range views {
				views[i] = [2]*buffer.Sub[int32]{d.Sub(i*q, q), h.Sub(i*q, q)}
			}
			if err := stream.Fill(ss[0], d, int32(0)); err != nil {
				b.Fatal(err)
			}
			if err := ss[0].Synchronize(); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(n * 4)
			b.ResetTimer()
			for range b.N {
				for i, s := range ss {
					dv, hv := views[i][0], views[i][1]
					if err := f.Launch(s, gpu.D1(uint32(q/block)), gpu.D1(block), 0, dv, int32(1), int32(iters)); err != nil {
						b.Fatal(err)
					}
					if err := s.Copy(hv, 0, dv, 0, q); err != nil {
						b.Fatal(err)
					}
				}
				for _, s := range ss {
					if err := s.Synchronize(); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			if got, want := h.Slice()[n-1], int32(iters*b.N); got != want {
				b.Fatalf("x[n-1] = %d after %d rounds, want %d", got, b.N, want)
			}
		})
	}
}
