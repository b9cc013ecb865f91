package rand

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/internal/raceflag"
)

// ulps32 is |got - want| in units of the last place of want rounded to
// float32.
func ulps32(got float32, want float64) float64 {
	w := float32(want)
	if w == 0 {
		return math.Abs(float64(got)) / 0x1p-149
	}
	_, e := math.Frexp(math.Abs(float64(w)))
	return math.Abs(float64(got)-want) / math.Ldexp(1, e-24)
}

// The float32 transform's log and sin/cos against package math's
// float64 functions, over the inputs the generator gives them (a stride
// through the words) and over the float32 values in [2^-33, 1] the log
// may see (a stride through their bits): the largest errors, in float32
// units in the last place, are what docs/random.md gives. sin and cos
// are measured twice: of the float32 rest of the angle they are given
// (the polynomials' error), and of the word's exact angle (that and the
// angle's rounding to float32).
func TestMath32(t *testing.T) {
	step, logStep := uint32(1999), uint32(61)
	if testing.Short() || raceflag.Enabled {
		step, logStep = 19997, 613
	}
	var logWorst, sinWorst, cosWorst, angleWorst, normAbs float64
	for x := uint64(0); x < 1<<32; x += uint64(step) {
		w := uint32(x)
		u := open32f(w)
		logWorst = max(logWorst, ulps32(log32(u), math.Log(float64(u))))
		s, c := sinCos2Pi32(w)
		q, a := angle32(w)
		ws, wc := math.Sincos(float64(q)*math.Pi/2 + float64(a))
		sinWorst = max(sinWorst, ulps32(s, ws))
		cosWorst = max(cosWorst, ulps32(c, wc))
		ws, wc = math.Sincos(2 * math.Pi * (float64(w) + 0.5) * 0x1p-32)
		angleWorst = max(angleWorst, ulps32(s, ws), ulps32(c, wc))
		// A normal against the float64 transform of the same float32
		// uniform and angle, in absolute terms (a normal near 0 is a
		// cosine near a zero).
		z0, z1 := boxMuller32(w, w*0x9E3779B9)
		r := math.Sqrt(-2 * math.Log(float64(open32f(w))))
		ws, wc = math.Sincos(2 * math.Pi * (float64(w*0x9E3779B9) + 0.5) * 0x1p-32)
		normAbs = max(normAbs, math.Abs(float64(z0)-r*wc)/max(1, r), math.Abs(float64(z1)-r*ws)/max(1, r))
	}
	// Every float32 the log may see, by a stride through their bits.
	for b := math.Float32bits(0x1p-33); b <= math.Float32bits(1); b += logStep {
		u := math.Float32frombits(b)
		logWorst = max(logWorst, ulps32(log32(u), math.Log(float64(u))))
	}
	t.Logf("largest errors in float32 ulps: log %.3f, sin %.3f, cos %.3f, sin or cos of the exact angle %.3f; normal |z - z64|/max(1, r) %.3g", logWorst, sinWorst, cosWorst, angleWorst, normAbs)
	assert.Less(t, logWorst, 1.0, "log32")
	assert.Less(t, sinWorst, 1.5, "sin")
	assert.Less(t, cosWorst, 1.5, "cos")
	assert.Less(t, angleWorst, 3.0, "sin and cos of the exact angle")
	assert.Less(t, normAbs, 4e-7, "normals")
	assert.Equal(t, float32(0), log32(1))
	assert.Equal(t, float32(1), open32f(math.MaxUint32), "the largest word rounds to 1")
	assert.Equal(t, float32(0x1p-33), open32f(0))
}
