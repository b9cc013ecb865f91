package rand

import (
	"math"
	"sync"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Float is an element type of Uniform, Normal and LogNormal.
type Float interface {
	float32 | float64
}

// Uint is an element type of Bits and Range.
type Uint interface {
	uint32 | uint64
}

// Generator is a Philox4x32-10 generator: a seed (the key) and an offset
// into its stream of 32-bit words, as cuRAND's host API has
// (curandSetPseudoRandomGeneratorSeed, curandSetGeneratorOffset). Each
// call reads the words it needs from the offset on and moves the offset
// past them; a call that fails moves nothing (unless another call or
// SetOffset moved the offset while its launch was failing: then its
// words are skipped). A Generator is safe for concurrent use: each call
// reserves its words under the Generator's lock, so calls from several
// goroutines take disjoint words, in the order they reserve them, and
// never the same numbers. The lock is not held while a call queues its
// launch, so a call waiting for room on a full stream holds up no other
// call of the Generator.
type Generator struct {
	mu     sync.Mutex
	seed   uint64
	offset uint64
	moves  uint64 // counts the offset's moves, so that a failed launch gives its words back only where none came since
}

// NewPhilox returns a Philox4x32-10 generator of seed at offset 0.
func NewPhilox(seed uint64) *Generator {
	return &Generator{seed: seed}
}

// Seed is the generator's seed.
func (g *Generator) Seed() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.seed
}

// SetSeed sets the seed and leaves the offset as it is (cuRAND's
// curandSetPseudoRandomGeneratorSeed).
func (g *Generator) SetSeed(seed uint64) {
	g.mu.Lock()
	g.seed = seed
	g.mu.Unlock()
}

// Offset is the index of the next 32-bit word of the stream a call reads
// (before its alignment, below).
func (g *Generator) Offset() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.offset
}

// SetOffset moves the generator to word offset of its stream.
func (g *Generator) SetOffset(offset uint64) {
	g.mu.Lock()
	g.offset = offset
	g.moves++
	g.mu.Unlock()
}

// Launch shapes: a GPU runs blocks of 256 work-items, at most gpuBlocksPerSM
// blocks a multiprocessor, over a grid-stride loop of Philox blocks; the
// cpu agent blocks of one work-item over contiguous spans of at least
// cpuMinSpan Philox blocks, about four a worker.
const (
	blockSize      = 256
	gpuBlocksPerSM = 8
)

var cpuMinSpan = 1 << 12 // a var: the tests shorten it

// forceGPUShape makes the cpu agent launch the GPU shapes, so that the
// cpu's tests cover the grid-stride path too; noSpanKernels makes it run
// fillF32 ... on its spans instead of spanF32 ... (span.go), so that the
// tests compare the two.
var forceGPUShape, noSpanKernels = false, false

// call is one checked request's launch: its first word, its units of
// words and its shape.
type call struct {
	start      uint64
	from, move uint64 // the offset before the call, and its move's number
	units      int
	grid, span int
	block      int
}

// checkArgs is the checks every call makes first.
func checkArgs[T any](op string, g *Generator, s *stream.Stream, out buffer.Array[T]) error {
	if g == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil generator")
	}
	if s == nil {
		return gpu.Errorf(gpu.ErrInvalidHandle, op, "nil stream")
	}
	if out == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "out: nil buffer")
	}
	return nil
}

// plan lays out a call of n outputs of op for element width wide under
// g's lock: its words, from the offset rounded up to a multiple of the
// unit's words, and the launch shape.
func (g *Generator) plan(op string, s *stream.Stream, n int, kind int32, wide bool) (call, error) {
	words, outs := unitWords(kind, wide)
	units := (n + outs - 1) / outs
	start := (g.offset + uint64(words) - 1) / uint64(words) * uint64(words)
	need := uint64(units) * uint64(words)
	if start < g.offset || start > math.MaxUint64-need {
		return call{}, gpu.Errorf(gpu.ErrInvalidValue, op, "%d words from offset %d pass the end of the stream (2^64 words)", need, g.offset)
	}
	c := call{start: start, units: units}
	nb := int((start+need-1)/4 - start/4 + 1)
	p := s.Device().Properties()
	sms := max(1, p.MultiProcessorCount)
	if p.IsCPU && !forceGPUShape {
		c.grid = min(max(1, ceilDiv(nb, cpuMinSpan)), 4*sms)
		c.span = ceilDiv(nb, c.grid)
		c.grid = ceilDiv(nb, c.span)
		c.block = 1
		return c, nil
	}
	c.grid = max(1, min(ceilDiv(nb, blockSize), gpuBlocksPerSM*sms))
	c.block = blockSize
	return c, nil
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// reserve plans a call under g's lock and moves the offset past its
// words, so that a call made meanwhile takes the words after them; the
// launch is queued after the lock is let go, so that a call waiting for
// room on a full stream holds no other call of g (a host function
// earlier on that stream may be one).
func (g *Generator) reserve(op string, s *stream.Stream, n int, kind int32, wide bool) (c call, k0, k1 uint32, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, err = g.plan(op, s, n, kind, wide)
	if err != nil {
		return c, 0, 0, err
	}
	k0, k1 = g.keys()
	w, _ := unitWords(kind, wide)
	c.from = g.offset
	g.offset = c.start + uint64(c.units)*uint64(w)
	g.moves++
	c.move = g.moves
	return c, k0, k1, nil
}

// unreserve gives back the words of a call whose launch failed, where
// nothing has moved the offset since the call reserved them; otherwise
// they stay skipped.
func (g *Generator) unreserve(c call) {
	g.mu.Lock()
	if g.moves == c.move {
		g.offset = c.from
		g.moves++
	}
	g.mu.Unlock()
}

// vecStores says whether the kernels may write out a Philox block at a
// time as one 16-byte store: out starts on a 16-byte boundary (a buffer
// does; a view may not) and the call's first word on a block's.
func vecStores[T any](out buffer.Array[T], start uint64) bool {
	return out.Ptr().Addr()%16 == 0 && start%4 == 0
}

// keys is the Philox key of the seed.
func (g *Generator) keys() (k0, k1 uint32) {
	return uint32(g.seed), uint32(g.seed >> 32)
}

// fillFloat queues out's values of kind on s.
func fillFloat[T Float](op string, g *Generator, s *stream.Stream, out buffer.Array[T], kind int32, a, b T) error {
	if err := checkArgs(op, g, s, out); err != nil {
		return err
	}
	if kind != opUniform {
		if math.IsNaN(float64(a)) || math.IsInf(float64(a), 0) {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "mean %v is not finite", a)
		}
		if !(b >= 0) || math.IsInf(float64(b), 0) {
			return gpu.Errorf(gpu.ErrInvalidValue, op, "standard deviation %v, want a finite value >= 0", b)
		}
	}
	n := out.Len()
	if n == 0 {
		return nil
	}
	var zero T
	_, wide := any(zero).(float64)
	c, k0, k1, err := g.reserve(op, s, n, kind, wide)
	if err != nil {
		return err
	}
	grid, block := gpu.D1(uint32(c.grid)), gpu.D1(uint32(c.block))
	o32, f32 := any(out).(buffer.Array[float32])
	switch {
	case kind == opUniform && c.span > 0 && !noSpanKernels && f32:
		err = launchSpanF32(s, grid, block, 0, o32, k0, k1, c.start, c.units, c.span)
	case kind == opUniform && c.span > 0 && !noSpanKernels:
		err = launchSpanF64(s, grid, block, 0, any(out).(buffer.Array[float64]), k0, k1, c.start, c.units, c.span)
	case c.span > 0 && !noSpanKernels && f32:
		err = launchSpanN32(s, grid, block, 0, o32, k0, k1, c.start, c.units, kind, float64(a), float64(b), c.span)
	case f32:
		err = launchFillF32(s, grid, block, 0, o32, k0, k1, c.start, c.units, kind, float64(a), float64(b), c.span, vecStores(out, c.start))
	default:
		err = launchFillF64(s, grid, block, 0, any(out).(buffer.Array[float64]), k0, k1, c.start, c.units, kind, float64(a), float64(b), c.span, vecStores(out, c.start))
	}
	if err != nil {
		g.unreserve(c)
	}
	return err
}

// fillUint queues out's values of kind on s.
func fillUint[T Uint](op string, g *Generator, s *stream.Stream, out buffer.Array[T], kind int32, lo, hi T) error {
	if err := checkArgs(op, g, s, out); err != nil {
		return err
	}
	if kind == opRange && lo >= hi {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "empty range [%d, %d)", lo, hi)
	}
	n := out.Len()
	if n == 0 {
		return nil
	}
	var zero T
	_, wide := any(zero).(uint64)
	c, k0, k1, err := g.reserve(op, s, n, kind, wide)
	if err != nil {
		return err
	}
	grid, block := gpu.D1(uint32(c.grid)), gpu.D1(uint32(c.block))
	width := uint64(hi) - uint64(lo)
	o32, u32 := any(out).(buffer.Array[uint32])
	switch {
	case kind == opBits && c.span > 0 && !noSpanKernels && u32:
		err = launchSpanU32(s, grid, block, 0, o32, k0, k1, c.start, c.units, c.span)
	case kind == opBits && c.span > 0 && !noSpanKernels:
		err = launchSpanU64(s, grid, block, 0, any(out).(buffer.Array[uint64]), k0, k1, c.start, c.units, c.span)
	case u32:
		err = launchFillU32(s, grid, block, 0, o32, k0, k1, c.start, c.units, kind, uint64(lo), width, c.span, vecStores(out, c.start))
	default:
		err = launchFillU64(s, grid, block, 0, any(out).(buffer.Array[uint64]), k0, k1, c.start, c.units, kind, uint64(lo), width, c.span, vecStores(out, c.start))
	}
	if err != nil {
		g.unreserve(c)
	}
	return err
}

// Uniform queues out.Len() uniform values in (0, 1) from g on s: float32
// values are odd multiples of 2^-24 (23 random bits, one word each),
// float64 values odd multiples of 2^-53 (52 random bits, two words each,
// starting at an even word). Neither 0 nor 1 occurs, and the mean is
// exactly 1/2.
func Uniform[T Float](g *Generator, s *stream.Stream, out buffer.Array[T]) error {
	return fillFloat("rand uniform", g, s, out, opUniform, 0, 0)
}

// Normal queues out.Len() normal values of mean and standard deviation
// stddev from g on s, by the Box-Muller transform (cuRAND's Philox normal
// is Box-Muller too), in float32 for float32 and in float64 for float64:
// each pair of values comes from two uniforms, two words each for float64
// (four words, starting at a multiple of four) and one each for float32
// (two words, starting at an even word). An odd count drops the last
// pair's second value. docs/random.md gives the transform's accuracy.
func Normal[T Float](g *Generator, s *stream.Stream, out buffer.Array[T], mean, stddev T) error {
	return fillFloat("rand normal", g, s, out, opNormal, mean, stddev)
}

// LogNormal queues out.Len() values exp(x), x normal of mean and standard
// deviation stddev, from g on s; the words are Normal's.
func LogNormal[T Float](g *Generator, s *stream.Stream, out buffer.Array[T], mean, stddev T) error {
	return fillFloat("rand lognormal", g, s, out, opLogNormal, mean, stddev)
}

// Bits queues out.Len() random integers of every bit pattern from g on s:
// one word per uint32, two per uint64 (the first the low half, starting
// at an even word).
func Bits[T Uint](g *Generator, s *stream.Stream, out buffer.Array[T]) error {
	return fillUint("rand bits", g, s, out, opBits, 0, 0)
}

// Range queues out.Len() integers in [lo, hi) from g on s: lo +
// floor(v*(hi-lo)/2^64) of 64 random bits v (two words, starting at an
// even word). No value is rejected, so each call takes a fixed number of
// words; a value's probability is off from 1/(hi-lo) by at most
// (hi-lo)/2^64 of itself. lo >= hi is an error.
func Range[T Uint](g *Generator, s *stream.Stream, out buffer.Array[T], lo, hi T) error {
	return fillUint("rand range", g, s, out, opRange, lo, hi)
}
