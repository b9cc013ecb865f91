package kernel

import (
	"math"
	"unsafe"
)

// Float is float32 or float64.
type Float interface{ ~float32 | ~float64 }

// The math functions below are generic over Float, as CUDA's overloads
// are (sqrtf for float32, sqrt for float64). On the cpu agent a float32
// result is the float64 result rounded once; on a GPU it is the target's
// float32 function, within its documented ULP bound.

// Sqrt is the square root (sqrtf, sqrt).
func Sqrt[T Float](x T) T { return T(math.Sqrt(float64(x))) }

// Rsqrt is 1/Sqrt(x) (rsqrtf, rsqrt).
func Rsqrt[T Float](x T) T { return T(1 / math.Sqrt(float64(x))) }

// Exp is e**x (expf, exp).
func Exp[T Float](x T) T { return T(math.Exp(float64(x))) }

// Exp2 is 2**x (exp2f, exp2).
func Exp2[T Float](x T) T { return T(math.Exp2(float64(x))) }

// Log is the natural logarithm (logf, log).
func Log[T Float](x T) T { return T(math.Log(float64(x))) }

// Log2 is the binary logarithm (log2f, log2).
func Log2[T Float](x T) T { return T(math.Log2(float64(x))) }

// Sin is the sine (sinf, sin).
func Sin[T Float](x T) T { return T(math.Sin(float64(x))) }

// Cos is the cosine (cosf, cos).
func Cos[T Float](x T) T { return T(math.Cos(float64(x))) }

// Tanh is the hyperbolic tangent (tanhf, tanh).
func Tanh[T Float](x T) T { return T(math.Tanh(float64(x))) }

// Pow is x**y (powf, pow).
func Pow[T Float](x, y T) T { return T(math.Pow(float64(x), float64(y))) }

// Abs is |x| (fabsf, fabs).
func Abs[T Float](x T) T { return T(math.Abs(float64(x))) }

// Floor rounds down (floorf, floor).
func Floor[T Float](x T) T { return T(math.Floor(float64(x))) }

// Ceil rounds up (ceilf, ceil).
func Ceil[T Float](x T) T { return T(math.Ceil(float64(x))) }

// Fma is x*y+z rounded once (fmaf, fma), on the cpu agent as on a GPU:
// for float32 too, the correctly rounded result. Of float32: the float64
// product of two float32 values is exact, and so is the float64 sum
// unless it lands on a float32 tie (halfway between two float32 values):
// a sum just above a tie rounds onto it, then to even. Only there (and
// below float32's normal range, where ties are coarser) does fma32Odd
// redo the rounding. The test is written out here rather than in a
// function of its own: on the cpu agent each Fma of float32 is then one
// call (Fma's, too large to inline), not two.
func Fma[T Float](x, y, z T) T {
	if unsafe.Sizeof(x) == 4 {
		p := float64(float64(x) * float64(y))
		s := p + float64(z)
		if b := math.Float64bits(s); b&(1<<29-1) != 1<<28 && b&(0x7ff<<52) >= (1023-125)<<52 {
			return T(float32(s))
		}
		return T(fma32Odd(p, float64(z), s))
	}
	return T(math.FMA(float64(x), float64(y), float64(z)))
}

// fma32Odd rounds the exact sum p + c, whose float64 rounding is s, to
// float32: s rounded to odd (its last bit set where it is inexact) is 29
// bits wider than float32 and so rounds to float32 as the exact sum does
// (Boldo and Melquiond, "When double rounding is odd", 2005). Not
// inlined: it is rare.
//
//go:noinline
func fma32Odd(p, c, s float64) float32 {
	b := math.Float64bits(s)
	if b&1 == 0 && s-s == 0 { // even and finite
		// Knuth's TwoSum: the sum's error, exactly.
		v := s - p
		if e := (p - (s - v)) + (c - v); e != 0 {
			if (e > 0) == (s > 0) {
				b++
			} else {
				b--
			}
			s = math.Float64frombits(b)
		}
	}
	return float32(s)
}
