package stream_test

import (
	"testing"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// read8K reads eight buffers and does nothing: a launch whose cost is its
// arguments' dependency tracking.
type read8Args struct {
	A, B, C, D, E, F, G, H rocr.ConstPtr[int32]
}

var read8K = kernel.Define("stream_test_read8", func(g *kernel.Block, a *read8Args) {})

// initArrayK is CUDA's simpleStreams kernel: x[i] += factor, iters times,
// over n elements, each group its span.
type initArrayArgs struct {
	X      rocr.Ptr[int32]
	Factor int32
	Iters  int32
	N      int32
}

var initArrayK = kernel.Define("stream_test_init_array", func(g *kernel.Block, a *initArrayArgs) {
	lo, hi := g.Span(0, int(a.N))
	x := a.X.Slice(g, lo, hi)
	for range a.Iters {
		for i := range x {
			x[i] += a.Factor
		}
	}
})

// BenchmarkSimpleStreams is CUDA's simpleStreams on the cpu agent: a
// kernel over a buffer, then its copy to pinned host memory, on one
// stream (one), and split in four views on four streams (streams), whose
// kernels and copies overlap. The target is one/streams >= 1.4.
func BenchmarkSimpleStreams(b *testing.B) {
	const n, nstreams, iters = 1 << 22, 4, 5
	for _, split := range []int{1, nstreams} {
		name := "one"
		if split > 1 {
			name = "streams"
		}
		b.Run(name, func(b *testing.B) {
			e := setup(b)
			f, err := e.mod.Function("stream_test_init_array")
			if err != nil {
				b.Fatal(err)
			}
			d, err := buffer.New[int32](e.dev, n)
			if err != nil {
				b.Fatal(err)
			}
			defer d.Free()
			h, err := buffer.NewHost[int32](e.dev, n)
			if err != nil {
				b.Fatal(err)
			}
			defer h.Free()
			ss := make([]*stream.Stream, split)
			for i := range ss {
				ss[i] = e.stream()
			}
			q := n / split
			const block = 256
			grid := gpu.Blocks(q, block)
			b.SetBytes(n * 4)
			b.ResetTimer()
			for range b.N {
				for i, s := range ss {
					dv, hv := d.Sub(i*q, q), h.Sub(i*q, q)
					if err := f.Launch(s, gpu.D1(grid), gpu.D1(block), 0, dv, int32(1), int32(iters), int32(q)); err != nil {
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
		})
	}
}

// BenchmarkLaunchRanges is an asynchronous launch of a kernel that reads
// eight buffers: whole buffers that no view ever split (whole), and views
// of one range each of buffers split into 64 more ranges whose writers
// are still pending (ranges64). The target is ranges64 - whole <= 200 ns.
func BenchmarkLaunchRanges(b *testing.B) {
	const parts, width = 64, 16
	for _, split := range []bool{false, true} {
		name := "whole"
		if split {
			name = "ranges64"
		}
		b.Run(name, func(b *testing.B) {
			e := setup(b)
			f, err := e.mod.Function("stream_test_read8")
			if err != nil {
				b.Fatal(err)
			}
			s := e.stream()
			args := make([]any, 8)
			// The writers wait behind a host function on their stream, which
			// holds no kernel worker.
			gate := make(chan struct{})
			for i := range args {
				x := newBuf(b, e.dev, (parts+1)*width)
				defer x.Free()
				args[i] = x
				if split {
					w := e.stream()
					if err := w.LaunchHostFunc(func() error { <-gate; return nil }); err != nil {
						b.Fatal(err)
					}
					for p := range parts {
						if err := stream.Fill(w, x.Sub(p*width, width), int32(p)); err != nil {
							b.Fatal(err)
						}
					}
					args[i] = x.Sub(parts*width, width)
				}
			}
			defer close(gate) // before the buffers' Free, which waits for the writers
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if err := f.Launch(s, gpu.D1(1), gpu.D1(1), 0, args...); err != nil {
					b.Fatal(err)
				}
				if i%256 == 255 {
					b.StopTimer()
					if err := s.Synchronize(); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
			}
			b.StopTimer()
			if !split {
				if err := s.Synchronize(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
