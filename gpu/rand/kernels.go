package rand

//go:generate go run ../../cmd/hipgo-gen -go . -prefix launch -o kernels_gen.go

import (
	"math"

	"github.com/hipgo/hipgo/rocr/kernel"
)

// The device side: Philox4x32-10 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC 2011) and the transforms from its
// words to the output types, written with integer operations and
// correctly rounded float64 +, -, *, / and sqrt only, each product rounded
// on its own (float64(a*b): never fused into an FMA). No vendor math
// library is called, so every agent computes the same bits: the cpu agent,
// NVIDIA and AMD GPUs.
//
// The stream of a generator is a sequence of 32-bit words: word w is word
// w%4 of Philox4x32-10 applied to the counter {lo32(w/4), hi32(w/4), 0, 0}
// under the key {lo32(seed), hi32(seed)}. An output is made of a unit of
// words (unitWords) that starts at a multiple of its size.

// Operations (the kernels' op).
const (
	opUniform int32 = iota
	opNormal
	opLogNormal
	opBits
	opRange
)

// Philox4x32 constants (Random123's philox.h).
const (
	philoxM0 = 0xD2511F53
	philoxM1 = 0xCD9E8D57
	philoxW0 = 0x9E3779B9
	philoxW1 = 0xBB67AE85
)

// philoxRound is one round of Philox4x32 under the round key {k0, k1}.
func philoxRound(c0, c1, c2, c3, k0, k1 uint32) (uint32, uint32, uint32, uint32) {
	p0 := uint64(philoxM0) * uint64(c0)
	p1 := uint64(philoxM1) * uint64(c2)
	return uint32(p1>>32) ^ c1 ^ k0, uint32(p1), uint32(p0>>32) ^ c3 ^ k1, uint32(p0)
}

// philox is Philox4x32-10 of counter c under key {k0, k1}: ten rounds,
// the key bumped by the Weyl constants between them. Written out, with the
// counter in four variables: the cpu agent runs it a third faster than
// a loop over an array.
func philox(c [4]uint32, k0, k1 uint32) [4]uint32 {
	c0, c1, c2, c3 := philoxRound(c[0], c[1], c[2], c[3], k0, k1)
	k0 += philoxW0
	k1 += philoxW1
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	k0 += philoxW0
	k1 += philoxW1
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	k0 += philoxW0
	k1 += philoxW1
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	k0 += philoxW0
	k1 += philoxW1
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	k0 += philoxW0
	k1 += philoxW1
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	k0 += philoxW0
	k1 += philoxW1
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	k0 += philoxW0
	k1 += philoxW1
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	k0 += philoxW0
	k1 += philoxW1
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	k0 += philoxW0
	k1 += philoxW1
	c0, c1, c2, c3 = philoxRound(c0, c1, c2, c3, k0, k1)
	return [4]uint32{c0, c1, c2, c3}
}

// philoxBlock is the four words of block b of the stream.
func philoxBlock(b uint64, k0, k1 uint32) [4]uint32 {
	return philox([4]uint32{uint32(b), uint32(b >> 32), 0, 0}, k0, k1)
}

// unitWords is how many words one unit of op takes for an output type of
// wide (64-bit) elements, and how many outputs it gives.
func unitWords(op int32, wide bool) (int, int) {
	switch {
	case op == opNormal || op == opLogNormal:
		if wide {
			return 4, 2
		}
		return 2, 2
	case op == opRange || wide:
		return 2, 1
	}
	return 1, 1
}

// uniform32 maps a word onto (0, 1): an odd multiple of 2^-24, exact.
func uniform32(x uint32) float32 {
	return float32(x>>8|1) * 0x1p-24
}

// uniform64 maps two words onto (0, 1): an odd multiple of 2^-53, exact.
func uniform64(lo, hi uint32) float64 {
	return float64((uint64(hi)<<32|uint64(lo))>>11|1) * 0x1p-53
}

// mulHi64 is the high word of the 128-bit product a*b.
func mulHi64(a, b uint64) uint64 {
	const m = 0xffffffff
	a0, a1 := a&m, a>>32
	b0, b1 := b&m, b>>32
	p00, p01, p10, p11 := a0*b0, a0*b1, a1*b0, a1*b1
	mid := p00>>32 + p01&m + p10&m
	return p11 + p01>>32 + p10>>32 + mid>>32
}

// logOf is the natural logarithm of u in (0, 1], fdlibm's e_log.c (the
// algorithm of Go's math.Log) with each product rounded on its own.
func logOf(u float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
		l1    = 6.666666666666735130e-01
		l2    = 3.999999999940941908e-01
		l3    = 2.857142874366239149e-01
		l4    = 2.222219843214978396e-01
		l5    = 1.818357216161805012e-01
		l6    = 1.531383769920937332e-01
		l7    = 1.479819860511658591e-01
	)
	// u = f1 * 2^ki, f1 in [sqrt(2)/2, sqrt(2)); u is normal here.
	b := math.Float64bits(u)
	ki := int64(b>>52&0x7ff) - 1022
	f1 := math.Float64frombits(b&^(uint64(0x7ff)<<52) | uint64(1022)<<52)
	if f1 < math.Sqrt2/2 {
		f1 = float64(f1 * 2)
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(s4*l7)))))))
	t2 := float64(s4 * (l2 + float64(s4*(l4+float64(s4*l6)))))
	r := t1 + t2
	hfsq := float64(float64(0.5*f) * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}

// expOf is e^x, fdlibm's e_exp.c (Go's math.Exp) with each product
// rounded on its own; 0 below -745 and +Inf above 709.78.
func expOf(x float64) float64 {
	const (
		ln2Hi     = 6.93147180369123816490e-01
		ln2Lo     = 1.90821492927058770002e-10
		log2e     = 1.44269504088896338700e+00
		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 0x1p-28
		p1        = 1.66666666666666657415e-01
		p2        = -2.77777777770155933842e-03
		p3        = 6.61375632143793436117e-05
		p4        = -1.65339022054652515390e-06
		p5        = 4.13813679705723846039e-08
	)
	switch {
	case x != x:
		return x
	case x > overflow:
		return math.Inf(1)
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	k := int64(float64(log2e*x) + 0.5)
	if x < 0 {
		k = int64(float64(log2e*x) - 0.5)
	}
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(float64(k) * ln2Lo)
	r := hi - lo
	t := float64(r * r)
	c := r - float64(t*(p1+float64(t*(p2+float64(t*(p3+float64(t*(p4+float64(t*p5)))))))))
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	// y * 2^k in two steps, each factor a normal power of two.
	k1 := k / 2
	y = float64(y * math.Float64frombits(uint64(1023+k1)<<52))
	return float64(y * math.Float64frombits(uint64(1023+k-k1)<<52))
}

// sinCos2Pi is sin(2 pi u) and cos(2 pi u) for u in [0, 1): the quadrant
// from u exactly, then fdlibm's k_sin.c and k_cos.c kernels on |x| <= pi/4.
func sinCos2Pi(u float64) (float64, float64) {
	const (
		twoPi = 6.28318530717958647692
		s1    = -1.66666666666666324348e-01
		s2    = 8.33333333332248946124e-03
		s3    = -1.98412698298579493134e-04
		s4    = 2.75573137070700676789e-06
		s5    = -2.50507602534068634195e-08
		s6    = 1.58969099521155010221e-10
		c1    = 4.16666666666666019037e-02
		c2    = -1.38888888888741095749e-03
		c3    = 2.48015872894767294178e-05
		c4    = -2.75573143513906633035e-07
		c5    = 2.08757232129817482790e-09
		c6    = -1.13596475577881948265e-11
	)
	q := int64(float64(u*4) + 0.5)
	x := float64((u - float64(float64(q)*0.25)) * twoPi)
	z := float64(x * x)
	v := float64(z * x)
	rs := s2 + float64(z*(s3+float64(z*(s4+float64(z*(s5+float64(z*s6)))))))
	sin := x + float64(v*(s1+float64(z*rs)))
	rc := float64(z * (c1 + float64(z*(c2+float64(z*(c3+float64(z*(c4+float64(z*(c5+float64(z*c6)))))))))))
	cos := 1 - (float64(0.5*z) - float64(z*rc))
	switch q & 3 {
	case 1:
		return cos, -sin
	case 2:
		return -sin, -cos
	case 3:
		return -cos, sin
	}
	return sin, cos
}

// boxMuller is the pair of standard normals of uniforms u1 in (0, 1] and u2
// in [0, 1): sqrt(-2 ln u1) (cos 2 pi u2, sin 2 pi u2), cuRAND's order.
func boxMuller(u1, u2 float64) (float64, float64) {
	r := math.Sqrt(float64(-2 * logOf(u1)))
	s, c := sinCos2Pi(u2)
	return float64(r * c), float64(r * s)
}

// scaled is mean + std*z, or its exponential for a log-normal.
func scaled(z, mean, std float64, op int32) float64 {
	v := mean + float64(std*z)
	if op == opLogNormal {
		return expOf(v)
	}
	return v
}

// blockRange is the stream blocks [lo, hi) a work-item visits with step:
// span blocks of its own (span > 0, the cpu agent) or a grid-stride set.
func blockRange(t kernel.Thread, nb, span int) (int, int, int) {
	if span > 0 {
		lo := min(t.GlobalX()*span, nb)
		return lo, min(lo+span, nb), 1
	}
	return t.GlobalX(), nb, t.BlockDim().X * t.GridDim().X
}

// unitAt is the unit whose first word is word j of block b, and whether
// it is one of this call's units [0, units) from word start.
func unitAt(b uint64, j int, start uint64, words, units int) (int, bool) {
	w := b*4 + uint64(j)
	if w < start {
		return 0, false
	}
	u := (w - start) >> uint(words>>1) // words is 1, 2 or 4
	return int(u), u < uint64(units)
}

// fullAt is the first unit of block b and whether all of b's four words
// are this call's, [start, end): then b holds 4/words whole units. end is
// past b's first word, so end-w does not wrap, nor does w+4 have to be
// formed (it wraps for the stream's last block).
func fullAt(b, start, end uint64, words int) (int, bool) {
	w := b * 4
	if w < start || end-w < 4 {
		return 0, false
	}
	return int((w - start) >> uint(words>>1)), true
}

// wordsAt is words j and j+1 of the block {x0, x1, x2, x3} (0 past its
// end), picked without indexing an array: a dynamic index puts the block
// in a GPU's local memory.
func wordsAt(x0, x1, x2, x3 uint32, j int) (uint32, uint32) {
	switch j {
	case 1:
		return x1, x2
	case 2:
		return x2, x3
	case 3:
		return x3, 0
	}
	return x0, x1
}

// pick32 is value j of four, picked without indexing an array (see
// wordsAt).
func pick32(v0, v1, v2, v3 float32, j int) float32 {
	switch j {
	case 1:
		return v1
	case 2:
		return v2
	case 3:
		return v3
	}
	return v0
}

// normalF64 writes the pair of float64 normals (or log-normals) of words
// x0 ... x3 to out[i] and, where it is in out, out[i+1].
func normalF64(out []float64, i int, x0, x1, x2, x3 uint32, a, b float64, op int32) {
	z0, z1 := boxMuller(uniform64(x0, x1), uniform64(x2, x3))
	out[i] = scaled(z0, a, b, op)
	if i+1 < len(out) {
		out[i+1] = scaled(z1, a, b, op)
	}
}

// rangeOf is lo0 + floor(v*width/2^64) of the 64 bits v = hi<<32 | lo.
func rangeOf(lo, hi uint32, lo0, width uint64) uint64 {
	return lo0 + mulHi64(uint64(hi)<<32|uint64(lo), width)
}

// The kernels below give each work-item whole Philox blocks: one block
// is computed once and all of its 4/words units written, with constant
// indices where the block lies wholly inside the call's words (every
// block but the first and the last of a call); the first and last go
// unit by unit. The block's words are kept in four variables, never an
// array indexed at run time, so that a GPU keeps them in registers.
// vec says that out starts on a 16-byte boundary and start is a multiple
// of 4 words: then a whole block's values are one 16-byte store
// (kernel.Store4, Store2), at out's index u, a multiple of 4 (1-word
// units) or of 2 (2-word units).

// fillF32 writes out's float32 values of op from the stream's words
// [start, start+units*words) under the key {k0, k1}.
//
//hipgo:kernel
func fillF32(t kernel.Thread, out []float32, k0, k1 uint32, start uint64, units int, op int32, a, b float64, span int, vec bool) {
	words, _ := unitWords(op, false)
	mean, std := float32(a), float32(b)
	end := start + uint64(units*words)
	first := start / 4
	nb := int((end-1)/4 - first + 1)
	lo, hi, step := blockRange(t, nb, span)
	// A uint64 loop: clang's unrolling of a grid-stride int loop fails
	// on this body on NVPTX, and the blocks are uint64 anyway.
	for blk := first + uint64(lo); blk < first+uint64(hi); blk += uint64(step) {
		x := philoxBlock(blk, k0, k1)
		x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
		if op != opUniform {
			// A block's four normals from its two pairs, then one 16-byte
			// store where the block is wholly the call's and in out.
			z0, z1 := boxMuller32(x0, x1)
			z2, z3 := boxMuller32(x2, x3)
			v0, v1, v2, v3 := kernel.Fma(std, z0, mean), kernel.Fma(std, z1, mean), kernel.Fma(std, z2, mean), kernel.Fma(std, z3, mean)
			if u, ok := fullAt(blk, start, end, 2); ok && vec && op == opNormal && 2*u+3 < len(out) {
				kernel.Store4(out, u/2, [4]float32{v0, v1, v2, v3})
				continue
			}
			// Value by value: a call's first and last blocks, and every
			// block of a log-normal call (one copy of the exponential
			// keeps the kernel small enough to inline into its entry
			// point, whose stores are then global ones).
			for j := 0; j < 4; j++ {
				if u, ok := unitAt(blk, j&^1, start, 2, units); ok && 2*u+(j&1) < len(out) {
					v := pick32(v0, v1, v2, v3, j)
					if op == opLogNormal {
						v = float32(expOf(float64(v)))
					}
					out[2*u+(j&1)] = v
				}
			}
			continue
		}
		if u, ok := fullAt(blk, start, end, 1); ok && vec {
			kernel.Store4(out, u/4, [4]float32{uniform32(x0), uniform32(x1), uniform32(x2), uniform32(x3)})
			continue
		}
		// Word by word: the call's first or last block, its words from
		// start or to end, or any block where vec is false. (One loop
		// for both keeps fillF32 small enough for clang to inline into
		// its entry point, whose stores are then global ones.)
		w := blk * 4
		j0, j1 := 0, 4
		if w < start {
			j0 = int(start - w)
		}
		if end-w < 4 {
			j1 = int(end - w)
		}
		for j := j0; j < j1; j++ {
			v, _ := wordsAt(x0, x1, x2, x3, j)
			out[int(w+uint64(j)-start)] = uniform32(v)
		}
	}
}

// fillF64 is fillF32 for float64.
//
//hipgo:kernel
func fillF64(t kernel.Thread, out []float64, k0, k1 uint32, start uint64, units int, op int32, a, b float64, span int, vec bool) {
	words, _ := unitWords(op, true)
	end := start + uint64(units*words)
	first := start / 4
	nb := int((end-1)/4 - first + 1)
	lo, hi, step := blockRange(t, nb, span)
	// A uint64 loop: clang's unrolling of a grid-stride int loop fails
	// on this body on NVPTX, and the blocks are uint64 anyway.
	for blk := first + uint64(lo); blk < first+uint64(hi); blk += uint64(step) {
		x := philoxBlock(blk, k0, k1)
		x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
		if op != opUniform {
			// A normal pair's unit is the whole block.
			if u, ok := unitAt(blk, 0, start, 4, units); ok {
				normalF64(out, 2*u, x0, x1, x2, x3, a, b, op)
			}
			continue
		}
		if u, ok := fullAt(blk, start, end, 2); ok {
			if vec {
				kernel.Store2(out, u/2, [2]float64{uniform64(x0, x1), uniform64(x2, x3)})
				continue
			}
			out[u] = uniform64(x0, x1)
			out[u+1] = uniform64(x2, x3)
			continue
		}
		for j := 0; j < 4; j += 2 {
			if u, ok := unitAt(blk, j, start, 2, units); ok {
				w0, w1 := wordsAt(x0, x1, x2, x3, j)
				out[u] = uniform64(w0, w1)
			}
		}
	}
}

// fillU32 writes out's uint32 values of op: the words themselves (opBits)
// or lo + floor(v*width/2^64) of 64 random bits v (opRange).
//
//hipgo:kernel
func fillU32(t kernel.Thread, out []uint32, k0, k1 uint32, start uint64, units int, op int32, lo0, width uint64, span int, vec bool) {
	words, _ := unitWords(op, false)
	end := start + uint64(units*words)
	first := start / 4
	nb := int((end-1)/4 - first + 1)
	lo, hi, step := blockRange(t, nb, span)
	// A uint64 loop: clang's unrolling of a grid-stride int loop fails
	// on this body on NVPTX, and the blocks are uint64 anyway.
	for blk := first + uint64(lo); blk < first+uint64(hi); blk += uint64(step) {
		x := philoxBlock(blk, k0, k1)
		x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
		if u, ok := fullAt(blk, start, end, words); ok {
			if op == opBits {
				if vec {
					kernel.Store4(out, u/4, [4]uint32{x0, x1, x2, x3})
					continue
				}
				out[u] = x0
				out[u+1] = x1
				out[u+2] = x2
				out[u+3] = x3
				continue
			}
			out[u] = uint32(rangeOf(x0, x1, lo0, width))
			out[u+1] = uint32(rangeOf(x2, x3, lo0, width))
			continue
		}
		for g := 0; g < 4>>uint(words>>1); g++ {
			j := g * words
			u, ok := unitAt(blk, j, start, words, units)
			if !ok {
				continue
			}
			w0, w1 := wordsAt(x0, x1, x2, x3, j)
			if op == opBits {
				out[u] = w0
				continue
			}
			out[u] = uint32(rangeOf(w0, w1, lo0, width))
		}
	}
}

// fillU64 is fillU32 for uint64: two words a value, the first the low one.
//
//hipgo:kernel
func fillU64(t kernel.Thread, out []uint64, k0, k1 uint32, start uint64, units int, op int32, lo0, width uint64, span int, vec bool) {
	words, _ := unitWords(op, true)
	end := start + uint64(units*words)
	first := start / 4
	nb := int((end-1)/4 - first + 1)
	lo, hi, step := blockRange(t, nb, span)
	// A uint64 loop: clang's unrolling of a grid-stride int loop fails
	// on this body on NVPTX, and the blocks are uint64 anyway.
	for blk := first + uint64(lo); blk < first+uint64(hi); blk += uint64(step) {
		x := philoxBlock(blk, k0, k1)
		x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
		if u, ok := fullAt(blk, start, end, words); ok {
			if op == opBits {
				if vec {
					kernel.Store2(out, u/2, [2]uint64{uint64(x1)<<32 | uint64(x0), uint64(x3)<<32 | uint64(x2)})
					continue
				}
				out[u] = uint64(x1)<<32 | uint64(x0)
				out[u+1] = uint64(x3)<<32 | uint64(x2)
				continue
			}
			out[u] = rangeOf(x0, x1, lo0, width)
			out[u+1] = rangeOf(x2, x3, lo0, width)
			continue
		}
		for g := 0; g < 4>>uint(words>>1); g++ {
			j := g * words
			u, ok := unitAt(blk, j, start, words, units)
			if !ok {
				continue
			}
			w0, w1 := wordsAt(x0, x1, x2, x3, j)
			if op == opBits {
				out[u] = uint64(w1)<<32 | uint64(w0)
				continue
			}
			out[u] = rangeOf(w0, w1, lo0, width)
		}
	}
}
