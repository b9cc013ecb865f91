package rand

import (
	"math"

	"github.com/hipgo/hipgo/rocr/kernel"
)

// The float32 normals' transform, in float32: integer operations, float32
// +, -, products rounded on their own (float32(a*b), never contracted),
// fused multiply-adds written as such (kernel.Fma) and square roots, each
// correctly rounded on every agent, so that the cpu agent, NVIDIA and AMD
// GPUs compute the same bits. The polynomials are Chebyshev fits (near
// minimax) of the functions' smooth parts on the reduced ranges, their
// coefficients rounded to float32. Accuracy, measured against package
// math over the generator's inputs (TestMath32): docs/random.md.

// open32f maps a word onto (0, 1]: x rounded to float32, times 2^-32,
// plus 2^-33, rounded (the product is exact). Words below 2^24 keep all
// their bits: the smallest value is 2^-33, the largest words give 1.
func open32f(x uint32) float32 {
	return kernel.Fma(float32(x), 0x1p-32, 0x1p-33)
}

// log32 is the natural logarithm of a positive normal float32 u: with u =
// m 2^k, m in [sqrt(2)/2, sqrt(2)), ln u = k ln 2 + ln(1 + f), f = m - 1
// (exact), ln(1 + f) = f + f^2 P(f), P a degree-8 fit of (ln(1+f) - f)/f^2
// on f's range; ln 2 in two parts.
func log32(u float32) float32 {
	const (
		p0    = -0.49999997
		p1    = 0.333333313
		p2    = -0.250007808
		p3    = 0.200012341
		p4    = -0.166266456
		p5    = 0.142048553
		p6    = -0.13127555
		p7    = 0.127226725
		p8    = -0.0767364129
		ln2Hi = 0.693147182
		ln2Lo = -1.90465421e-09
	)
	// Subtracting sqrt(2)/2's bits leaves k in the exponent's place
	// (an arithmetic shift takes it, negative below sqrt(2)/2) and m's
	// offset from sqrt(2)/2 in the mantissa's.
	ix := math.Float32bits(u) - 0x3f3504f3
	k := float32(int32(ix) >> 23)
	f := math.Float32frombits(ix&0x007fffff+0x3f3504f3) - 1
	p := kernel.Fma(f, p8, p7)
	p = kernel.Fma(f, p, p6)
	p = kernel.Fma(f, p, p5)
	p = kernel.Fma(f, p, p4)
	p = kernel.Fma(f, p, p3)
	p = kernel.Fma(f, p, p2)
	p = kernel.Fma(f, p, p1)
	p = kernel.Fma(f, p, p0)
	l := kernel.Fma(f, float32(f*p), f)
	return kernel.Fma(k, ln2Hi, kernel.Fma(k, ln2Lo, l))
}

// sinCos2Pi32 is sin and cos of the angle 2 pi (x + 1/2) / 2^32 of a word
// x: the quadrant q from x's top bits, exactly, then the angle's rest in
// (-pi/4, pi/4), t = (2r + 1) pi 2^-32 with r = x - q 2^30 as a signed
// number, through sin t = t + t^3 S(t^2) and cos t = 1 + t^2 C(t^2), S and
// C fits of degree 2 and 3.
func sinCos2Pi32(x uint32) (float32, float32) {
	const (
		s0 = -0.166666642
		s1 = 0.00833274797
		s2 = -0.000195878907
		c0 = -0.5
		c1 = 0.0416666493
		c2 = -0.00138875889
		c3 = 2.44637886e-05
	)
	q, t := angle32(x)
	z := float32(t * t)
	s := kernel.Fma(float32(t*z), kernel.Fma(z, kernel.Fma(z, s2, s1), s0), t)
	c := kernel.Fma(z, kernel.Fma(z, kernel.Fma(z, kernel.Fma(z, c3, c2), c1), c0), 1)
	switch q {
	case 1:
		return c, -s
	case 2:
		return -s, -c
	case 3:
		return -c, s
	}
	return s, c
}

// angle32 is the quadrant q and the rest t of the angle of x (sinCos2Pi32).
func angle32(x uint32) (uint32, float32) {
	const piOver2p32 = 7.3145906e-10 // pi 2^-32
	q := (x + 1<<29) >> 30
	r := int32(x - q<<30)
	return q, float32(float32(2*r+1) * piOver2p32)
}

// boxMuller32 is the pair of float32 standard normals of words x0 and x1:
// sqrt(-2 ln u) (cos 2 pi v, sin 2 pi v), u = open32f(x0) in (0, 1] and v
// the angle of x1 (sinCos2Pi32), cuRAND's order.
func boxMuller32(x0, x1 uint32) (float32, float32) {
	r := kernel.Sqrt(float32(-2 * log32(open32f(x0))))
	s, c := sinCos2Pi32(x1)
	return float32(r * c), float32(r * s)
}
