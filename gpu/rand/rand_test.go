package rand

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// Random123's tests/kat_vectors, the three "philox4x32 10" lines: counter,
// key, result.
var katVectors = []struct {
	ctr  [4]uint32
	key  [2]uint32
	want [4]uint32
}{
	{[4]uint32{0, 0, 0, 0}, [2]uint32{0, 0}, [4]uint32{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
	{[4]uint32{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, [2]uint32{0xffffffff, 0xffffffff}, [4]uint32{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
	{[4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, [2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
}

// refPhilox is Philox4x32-10 written from the paper apart from the
// kernels' version: a round function and a key schedule.
func refPhilox(ctr [4]uint32, key [2]uint32) [4]uint32 {
	mulhilo := func(a, b uint32) (uint32, uint32) {
		p := uint64(a) * uint64(b)
		return uint32(p >> 32), uint32(p)
	}
	round := func(c [4]uint32, k [2]uint32) [4]uint32 {
		hi0, lo0 := mulhilo(0xD2511F53, c[0])
		hi1, lo1 := mulhilo(0xCD9E8D57, c[2])
		return [4]uint32{hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0}
	}
	for i := 0; i < 10; i++ {
		ctr = round(ctr, key)
		key[0] += 0x9E3779B9
		key[1] += 0xBB67AE85
	}
	return ctr
}

// refWord is word w of the stream of seed.
func refWord(seed, w uint64) uint32 {
	b := w / 4
	return refPhilox([4]uint32{uint32(b), uint32(b >> 32), 0, 0}, [2]uint32{uint32(seed), uint32(seed >> 32)})[w%4]
}

func TestPhiloxKnownAnswers(t *testing.T) {
	for _, v := range katVectors {
		assert.Equal(t, v.want, philox(v.ctr, v.key[0], v.key[1]), "kernels' philox of %08x under %08x", v.ctr, v.key)
		assert.Equal(t, v.want, refPhilox(v.ctr, v.key), "reference philox of %08x under %08x", v.ctr, v.key)
	}
}

func newStream(t testing.TB) (*gpu.Device, *stream.Stream) {
	dev := gputest.Device(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Destroy() })
	return dev, s
}

func newBuf[T any](t testing.TB, dev *gpu.Device, n int) *buffer.Buffer[T] {
	b, err := buffer.New[T](dev, n)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Free() })
	return b
}

func download[T any](t testing.TB, s *stream.Stream, b buffer.Array[T]) []T {
	require.NoError(t, s.Synchronize())
	h := make([]T, b.Len())
	require.NoError(t, stream.CopyToHost(s, h, b, 0))
	require.NoError(t, s.Synchronize())
	return h
}

// gen fills a new buffer of n values with f on a generator of seed at
// offset off and returns them and the offset after.
func gen[T any](t *testing.T, dev *gpu.Device, s *stream.Stream, seed, off uint64, n int, f func(*Generator, *stream.Stream, buffer.Array[T]) error) ([]T, uint64) {
	g := NewPhilox(seed)
	g.SetOffset(off)
	b := newBuf[T](t, dev, n)
	require.NoError(t, f(g, s, b))
	return download(t, s, b), g.Offset()
}

// The reference outputs, from refWord, of each call at offset off.
func align(off, w uint64) uint64 { return (off + w - 1) / w * w }

func refBits32(seed, off uint64, n int) []uint32 {
	out := make([]uint32, n)
	for i := range out {
		out[i] = refWord(seed, off+uint64(i))
	}
	return out
}

func ref64(seed, start uint64, i int) uint64 {
	w := start + 2*uint64(i)
	return uint64(refWord(seed, w+1))<<32 | uint64(refWord(seed, w))
}

func refBits64(seed, off uint64, n int) []uint64 {
	start, out := align(off, 2), make([]uint64, n)
	for i := range out {
		out[i] = ref64(seed, start, i)
	}
	return out
}

func refUniform32(seed, off uint64, n int) []float32 {
	out := make([]float32, n)
	for i, x := range refBits32(seed, off, n) {
		out[i] = float32(x>>8|1) / (1 << 24)
	}
	return out
}

func refUniform64(seed, off uint64, n int) []float64 {
	out := make([]float64, n)
	for i, x := range refBits64(seed, off, n) {
		out[i] = float64(x>>11|1) / (1 << 53)
	}
	return out
}

func refRange64(seed, off uint64, n int, lo, hi uint64) []uint64 {
	out := make([]uint64, n)
	for i, x := range refBits64(seed, off, n) {
		h, _ := mulFull(x, hi-lo)
		out[i] = lo + h
	}
	return out
}

// mulFull is math/bits.Mul64, written out so the test needs no import
// the kernels cannot have; it is checked against big products below.
func mulFull(a, b uint64) (uint64, uint64) {
	return mulHi64(a, b), a * b
}

// refNormal is the reference normals: the kernels' Box-Muller (checked
// against math's functions in TestMathFunctions) of the reference words.
func refNormal64(seed, off uint64, n int, mean, std float64, logn bool) []float64 {
	start, out := align(off, 4), make([]float64, n)
	for i := 0; i < n; i += 2 {
		w := start + 2*uint64(i)
		u1 := float64((uint64(refWord(seed, w+1))<<32|uint64(refWord(seed, w)))>>11|1) / (1 << 53)
		u2 := float64((uint64(refWord(seed, w+3))<<32|uint64(refWord(seed, w+2)))>>11|1) / (1 << 53)
		z0, z1 := boxMuller(u1, u2)
		for k, z := range []float64{z0, z1} {
			if i+k < n {
				v := mean + std*z
				if logn {
					v = expOf(v)
				}
				out[i+k] = v
			}
		}
	}
	return out
}

func refNormal32(seed, off uint64, n int, mean, std float64, logn bool) []float32 {
	start, out := align(off, 2), make([]float32, n)
	for i := 0; i < n; i += 2 {
		w := start + uint64(i)
		z0, z1 := boxMuller32(refWord(seed, w), refWord(seed, w+1))
		for k, z := range []float32{z0, z1} {
			if i+k < n {
				v := kernel.Fma(float32(std), z, float32(mean))
				if logn {
					v = float32(expOf(float64(v)))
				}
				out[i+k] = v
			}
		}
	}
	return out
}

// Every call gives the reference's values bit for bit, at offsets of
// every alignment, on the launch shapes of the cpu agent and of a GPU.
// On a GPU this is the same-bits promise across agents.
func TestMatchesReference(t *testing.T) {
	dev, s := newStream(t)
	const seed = 0x0123456789abcdef
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		for _, off := range []uint64{0, 1, 2, 3, 5, 1<<32 - 3} {
			for _, n := range []int{1, 7, 1000, 40001} {
				u32, o := gen(t, dev, s, seed, off, n, Bits[uint32])
				assert.Equal(t, refBits32(seed, off, n), u32, "bits uint32 n=%d off=%d gpu shape %v", n, off, shape)
				assert.Equal(t, off+uint64(n), o)
				u64, o := gen(t, dev, s, seed, off, n, Bits[uint64])
				assert.Equal(t, refBits64(seed, off, n), u64, "bits uint64 n=%d off=%d", n, off)
				assert.Equal(t, align(off, 2)+2*uint64(n), o)
				f32, _ := gen(t, dev, s, seed, off, n, Uniform[float32])
				assert.Equal(t, refUniform32(seed, off, n), f32, "uniform float32 n=%d off=%d", n, off)
				f64, _ := gen(t, dev, s, seed, off, n, Uniform[float64])
				assert.Equal(t, refUniform64(seed, off, n), f64, "uniform float64 n=%d off=%d", n, off)
				r64, _ := gen(t, dev, s, seed, off, n, func(g *Generator, s *stream.Stream, b buffer.Array[uint64]) error {
					return Range(g, s, b, 10, 1<<40+7)
				})
				assert.Equal(t, refRange64(seed, off, n, 10, 1<<40+7), r64, "range uint64 n=%d off=%d", n, off)
				r32, _ := gen(t, dev, s, seed, off, n, func(g *Generator, s *stream.Stream, b buffer.Array[uint32]) error {
					return Range(g, s, b, 3, 9)
				})
				want := refRange64(seed, off, n, 3, 9)
				for i, v := range r32 {
					if !assert.Equal(t, uint32(want[i]), v, "range uint32 n=%d off=%d [%d]", n, off, i) {
						break
					}
				}
				n64, o := gen(t, dev, s, seed, off, n, func(g *Generator, s *stream.Stream, b buffer.Array[float64]) error {
					return Normal(g, s, b, 1.5, 2)
				})
				assert.Equal(t, refNormal64(seed, off, n, 1.5, 2, false), n64, "normal float64 n=%d off=%d", n, off)
				assert.Equal(t, align(off, 4)+4*uint64((n+1)/2), o)
				n32, _ := gen(t, dev, s, seed, off, n, func(g *Generator, s *stream.Stream, b buffer.Array[float32]) error {
					return Normal(g, s, b, -1, 0.5)
				})
				assert.Equal(t, refNormal32(seed, off, n, -1, 0.5, false), n32, "normal float32 n=%d off=%d", n, off)
				l32, _ := gen(t, dev, s, seed, off, n, func(g *Generator, s *stream.Stream, b buffer.Array[float32]) error {
					return LogNormal(g, s, b, 0, 1)
				})
				assert.Equal(t, refNormal32(seed, off, n, 0, 1, true), l32, "lognormal float32 n=%d off=%d", n, off)
				l64, _ := gen(t, dev, s, seed, off, n, func(g *Generator, s *stream.Stream, b buffer.Array[float64]) error {
					return LogNormal(g, s, b, 0.25, 0.75)
				})
				assert.Equal(t, refNormal64(seed, off, n, 0.25, 0.75, true), l64, "lognormal float64 n=%d off=%d", n, off)
			}
		}
	}
	forceGPUShape = false
}

// A call that ends on the stream's last words, in its last Philox block
// (whose first word plus 4 wraps to 0), writes those words and no more.
func TestStreamEnd(t *testing.T) {
	dev, s := newStream(t)
	const seed = 77
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		for _, off := range []uint64{math.MaxUint64 - 9, math.MaxUint64 - 3, math.MaxUint64 - 1} {
			n := int(math.MaxUint64 - off)
			u32, o := gen(t, dev, s, seed, off, n, Bits[uint32])
			assert.Equal(t, refBits32(seed, off, n), u32, "bits uint32 off=%d gpu shape %v", off, shape)
			assert.Equal(t, uint64(math.MaxUint64), o)
			f32, _ := gen(t, dev, s, seed, off, n, Uniform[float32])
			assert.Equal(t, refUniform32(seed, off, n), f32, "uniform float32 off=%d gpu shape %v", off, shape)
		}
		u64, _ := gen(t, dev, s, seed, math.MaxUint64-9, 4, Bits[uint64])
		assert.Equal(t, refBits64(seed, math.MaxUint64-9, 4), u64, "bits uint64 gpu shape %v", shape)
	}
	forceGPUShape = false
}

// Generating n values and then m equals generating n+m at once, for every
// call (normals: n even, as each call starts a new pair).
func TestSplitEqualsWhole(t *testing.T) {
	dev, s := newStream(t)
	check := func(name string, whole func(g *Generator, n int) []byte, n, m int) {
		g := NewPhilox(42)
		g.SetOffset(3)
		all := whole(g, n+m)
		g.SetOffset(3)
		first := whole(g, n)
		second := whole(g, m)
		assert.Equal(t, all, append(first, second...), "%s: %d then %d", name, n, m)
	}
	bytesOf := func(g *Generator, n int, fill func(*Generator, *buffer.Buffer[float64]) error) []byte {
		b := newBuf[float64](t, dev, n)
		require.NoError(t, fill(g, b))
		h := download(t, s, b)
		out := make([]byte, 0, 8*n)
		for _, v := range h {
			out = append(out, byte(math.Float64bits(v)), byte(math.Float64bits(v)>>8), byte(math.Float64bits(v)>>56))
		}
		return out
	}
	for _, nm := range [][2]int{{2, 6}, {1000, 3000}, {40000, 2}} {
		check("uniform", func(g *Generator, n int) []byte {
			return bytesOf(g, n, func(g *Generator, b *buffer.Buffer[float64]) error { return Uniform(g, s, b) })
		}, nm[0], nm[1])
		check("normal", func(g *Generator, n int) []byte {
			return bytesOf(g, n, func(g *Generator, b *buffer.Buffer[float64]) error { return Normal(g, s, b, 0, 1) })
		}, nm[0], nm[1])
	}
	// uint32 bits take one word each: any split.
	g := NewPhilox(7)
	whole := newBuf[uint32](t, dev, 1001)
	require.NoError(t, Bits(g, s, whole))
	g.SetOffset(0)
	a, b := newBuf[uint32](t, dev, 333), newBuf[uint32](t, dev, 668)
	require.NoError(t, Bits(g, s, a))
	require.NoError(t, Bits(g, s, b))
	assert.Equal(t, download(t, s, whole), append(download(t, s, a), download(t, s, b)...))
}

// A view is filled like a buffer of its length, and nothing outside it
// is written.
func TestView(t *testing.T) {
	dev, s := newStream(t)
	b := newBuf[uint32](t, dev, 100)
	require.NoError(t, b.CopyFrom(make([]uint32, 100)))
	v := b.Sub(10, 50)
	require.NoError(t, Bits(NewPhilox(9), s, v))
	h := download(t, s, b)
	assert.Equal(t, refBits32(9, 0, 50), h[10:60])
	assert.Equal(t, make([]uint32, 10), h[:10])
	assert.Equal(t, make([]uint32, 40), h[60:])
}

func TestErrors(t *testing.T) {
	dev, s := newStream(t)
	b := newBuf[float32](t, dev, 8)
	u := newBuf[uint64](t, dev, 8)
	require.NoError(t, b.CopyFrom(make([]float32, 8)))
	g := NewPhilox(1)
	g.SetOffset(5)
	for name, c := range map[string]struct {
		err  error
		code gpu.ErrorCode
	}{
		"nil generator":  {Uniform[float32](nil, s, b), gpu.ErrInvalidHandle},
		"nil stream":     {Uniform[float32](g, nil, b), gpu.ErrInvalidHandle},
		"nil buffer":     {Uniform[float32](g, s, nil), gpu.ErrInvalidValue},
		"nan mean":       {Normal[float32](g, s, b, float32(math.NaN()), 1), gpu.ErrInvalidValue},
		"negative std":   {Normal[float32](g, s, b, 0, -1), gpu.ErrInvalidValue},
		"infinite std":   {LogNormal[float32](g, s, b, 0, float32(math.Inf(1))), gpu.ErrInvalidValue},
		"empty range":    {Range[uint64](g, s, u, 5, 5), gpu.ErrInvalidValue},
		"reversed range": {Range[uint64](g, s, u, 6, 5), gpu.ErrInvalidValue},
	} {
		require.Error(t, c.err, name)
		assert.ErrorIs(t, c.err, c.code, name)
	}
	assert.Equal(t, uint64(5), g.Offset(), "a failed call moves no offset")
	g.SetOffset(math.MaxUint64 - 4)
	err := Bits[uint64](g, s, u)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue, "past the end of the stream")
	assert.Equal(t, uint64(math.MaxUint64-4), g.Offset())
	assert.Equal(t, make([]float32, 8), download(t, s, b), "a failed call queues nothing")
	// An empty output is no work and takes no words.
	e := b.Sub(0, 0)
	g.SetOffset(3)
	require.NoError(t, Normal[float32](g, s, e, 0, 1))
	assert.Equal(t, uint64(3), g.Offset())
}

func TestSeedAndOffset(t *testing.T) {
	g := NewPhilox(11)
	assert.Equal(t, uint64(11), g.Seed())
	assert.Zero(t, g.Offset())
	g.SetOffset(40)
	g.SetSeed(12)
	assert.Equal(t, uint64(12), g.Seed())
	assert.Equal(t, uint64(40), g.Offset(), "SetSeed keeps the offset, as cuRAND's does")
	dev, s := newStream(t)
	a, _ := gen(t, dev, s, 11, 0, 64, Bits[uint32])
	c, _ := gen(t, dev, s, 12, 0, 64, Bits[uint32])
	assert.NotEqual(t, a, c, "two seeds give two streams")
}

// Known float32 normals and log-normals of seed 2026 from offset 6 (the
// calls start at an even word: the first block's last pair, then whole
// blocks), bit for bit on every agent: a change to the float32 transform
// shows here. Each is within 2e-6 of the float64 transform of its words.
func TestKnownNormals(t *testing.T) {
	dev, s := newStream(t)
	wantN := []uint32{0x3f08fb84, 0xbf95962a, 0xbe2714f2, 0xbf56b56b, 0x3e9cb10e, 0xbe5a434d, 0x3f3149d4, 0xbebf5c73}
	wantL := []uint32{0x406355e5, 0x3fc1f887, 0x40205730, 0x3fe4c2cb}
	n32, _ := gen(t, dev, s, 2026, 6, len(wantN), func(g *Generator, s *stream.Stream, b buffer.Array[float32]) error {
		return Normal(g, s, b, 0, 1)
	})
	l32, _ := gen(t, dev, s, 2026, 6, len(wantL), func(g *Generator, s *stream.Stream, b buffer.Array[float32]) error {
		return LogNormal(g, s, b, 1, 0.5)
	})
	for i, v := range n32 {
		assert.Equal(t, wantN[i], math.Float32bits(v), "normal %d: %v", i, v)
		w := 6 + 2*uint64(i/2)
		r := math.Sqrt(-2 * math.Log((float64(refWord(2026, w))+0.5)*0x1p-32))
		sin, cos := math.Sincos(2 * math.Pi * (float64(refWord(2026, w+1)) + 0.5) * 0x1p-32)
		want := r * cos
		if i%2 == 1 {
			want = r * sin
		}
		assert.InDelta(t, want, float64(v), 2e-6, "normal %d against float64", i)
	}
	for i, v := range l32 {
		assert.Equal(t, wantL[i], math.Float32bits(v), "log-normal %d: %v", i, v)
		assert.InDelta(t, math.Exp(1+0.5*float64(math.Float32frombits(wantN[i]))), float64(v), 1e-5, "log-normal %d is exp of the normal", i)
	}
}
