package kernel

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fmaRef is x*y+z rounded once to float32, by exact big.Float arithmetic.
func fmaRef(x, y, z float32) float32 {
	p := new(big.Float).SetPrec(200).Mul(big.NewFloat(float64(x)).SetPrec(200), big.NewFloat(float64(y)).SetPrec(200))
	p.Add(p, big.NewFloat(float64(z)).SetPrec(200))
	f, _ := p.Float32()
	return f
}

// Fma of float32 rounds once, as fmaf does on a GPU, where rounding
// float64's fused result to float32 would round twice.
func TestFmaFloat32RoundsOnce(t *testing.T) {
	// (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 lies on a float32 tie; + 2^-80
	// puts the exact sum above it, which float64 rounds back onto the tie.
	x := float32(1 + 0x1p-12)
	assert.Equal(t, float32(1+0x1p-11+0x1p-23), Fma(x, x, float32(0x1p-80)), "just above a tie")
	assert.Equal(t, float32(1+0x1p-11), Fma(x, x, float32(-0x1p-80)), "just below a tie")
	assert.NotEqual(t, float32(math.FMA(float64(x), float64(x), 0x1p-80)), Fma(x, x, float32(0x1p-80)), "the float64 route rounds twice here")
	r := rand.New(rand.NewPCG(1, 2))
	word := func() float32 {
		// values near ties: few significant bits, varied exponents
		m := float32(r.Uint32()>>uint(r.IntN(24))) + 1
		return float32(math.Ldexp(float64(m), r.IntN(40)-20)) * float32(1-2*r.IntN(2))
	}
	for i := 0; i < 100000; i++ {
		x, y, z := word(), word(), word()
		if i%3 == 0 {
			z = float32(math.Ldexp(float64(z), -40))
		}
		if got, want := Fma(x, y, z), fmaRef(x, y, z); got != want {
			t.Fatalf("Fma(%g, %g, %g) = %g, want %g", x, y, z, got, want)
		}
	}
	type named float32
	assert.Equal(t, named(1+0x1p-11+0x1p-23), Fma(named(x), named(x), named(0x1p-80)), "a named float32 type")
	assert.Equal(t, 7.0, Fma(2.0, 3.0, 1.0))
	assert.True(t, math.IsInf(float64(Fma(float32(math.MaxFloat32), 2, 0)), 1))
	assert.True(t, math.IsNaN(float64(Fma(float32(math.Inf(1)), 0, 1))))
}
