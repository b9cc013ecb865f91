package rand

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// The cpu agent's span kernels (span.go) give what the kernels of every
// agent give, bit for bit: at odd and even offsets, lengths that start
// and end inside a block, spans of one block and more, odd counts of
// normals, and the stream's last words.
func TestSpanMatchesKernel(t *testing.T) {
	dev, s := newStream(t)
	if !s.Device().Properties().IsCPU {
		t.Skip("the span kernels run on the cpu agent only")
	}
	defer func(m int) { cpuMinSpan, noSpanKernels = m, false }(cpuMinSpan)
	const seed = 0xfeedface12345678
	both := func(f func() any) (any, any) {
		noSpanKernels = true
		want := f()
		noSpanKernels = false
		return want, f()
	}
	for _, minSpan := range []int{1, 3, 1 << 12} {
		cpuMinSpan = minSpan
		for _, off := range []uint64{0, 1, 2, 3, 6, 1<<32 - 3, math.MaxUint64 - 2001} {
			for _, n := range []int{1, 2, 3, 5, 8, 9, 31, 1000, 40001} {
				if off > math.MaxUint64-2*uint64(n)-8 {
					continue
				}
				want, got := both(func() any { v, _ := gen(t, dev, s, seed, off, n, Bits[uint32]); return v })
				assert.Equal(t, want, got, "bits uint32 off=%d n=%d span>=%d", off, n, minSpan)
				want, got = both(func() any { v, _ := gen(t, dev, s, seed, off, n, Bits[uint64]); return v })
				assert.Equal(t, want, got, "bits uint64 off=%d n=%d span>=%d", off, n, minSpan)
				want, got = both(func() any { v, _ := gen(t, dev, s, seed, off, n, Uniform[float32]); return v })
				assert.Equal(t, want, got, "uniform float32 off=%d n=%d span>=%d", off, n, minSpan)
				want, got = both(func() any { v, _ := gen(t, dev, s, seed, off, n, Uniform[float64]); return v })
				assert.Equal(t, want, got, "uniform float64 off=%d n=%d span>=%d", off, n, minSpan)
				want, got = both(func() any {
					v, _ := gen(t, dev, s, seed, off, n, func(g *Generator, s *stream.Stream, o buffer.Array[float32]) error { return Normal(g, s, o, 0.5, 2) })
					return v
				})
				assert.Equal(t, want, got, "normal float32 off=%d n=%d span>=%d", off, n, minSpan)
				want, got = both(func() any {
					v, _ := gen(t, dev, s, seed, off, n, func(g *Generator, s *stream.Stream, o buffer.Array[float32]) error {
						return LogNormal(g, s, o, -1, 0.25)
					})
					return v
				})
				assert.Equal(t, want, got, "lognormal float32 off=%d n=%d span>=%d", off, n, minSpan)
			}
		}
	}
	// A view that starts off a 16-byte boundary, inside a buffer whose
	// other values stay as they were.
	b := newBuf[float32](t, dev, 103)
	v := b.Sub(1, 101)
	fill := func() any {
		_ = b.CopyFrom(make([]float32, 103))
		g := NewPhilox(seed)
		g.SetOffset(3)
		_ = Uniform[float32](g, s, v)
		return download[float32](t, s, b)
	}
	cpuMinSpan = 2
	want, got := both(fill)
	assert.Equal(t, want, got, "a view")
}
