package rand

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// The kernels' own log, exp and sin/cos agree with package math's to a
// few units in the last place over their domains here.
func TestMathFunctions(t *testing.T) {
	rel := func(got, want float64) float64 {
		if want == 0 {
			return math.Abs(got)
		}
		return math.Abs(got-want) / math.Abs(want)
	}
	worst := [3]float64{}
	for i := 0; i < 200000; i++ {
		// u over (0, 1): uniform, and tiny values down to 2^-53.
		u := (float64(i) + 0.5) / 200000
		if i%2 == 1 {
			u = math.Ldexp(1+float64(i)/200000, -1-i%53)
		}
		worst[0] = max(worst[0], rel(logOf(u), math.Log(u)))
		s, c := sinCos2Pi(u)
		ws, wc := math.Sincos(2 * math.Pi * u)
		worst[1] = max(worst[1], math.Abs(s-ws), math.Abs(c-wc))
		x := -708 + 1408*float64(i)/200000 // normal results (amd64's math.Exp is +Inf from 709.7)
		worst[2] = max(worst[2], rel(expOf(x), math.Exp(x)))
	}
	assert.Less(t, worst[0], 4e-16, "log: largest relative error")
	assert.Less(t, worst[1], 4e-15, "sin/cos of 2 pi u: largest absolute error (math's own argument rounds by 2^-53 2pi)")
	assert.Less(t, worst[2], 4e-16, "exp: largest relative error")
	assert.Equal(t, 1.0, expOf(0))
	assert.Equal(t, math.Inf(1), expOf(710))
	assert.Equal(t, 0.0, expOf(-746))
	assert.True(t, math.IsNaN(expOf(math.NaN())))
	for _, ab := range [][2]uint64{{math.MaxUint64, math.MaxUint64}, {1 << 63, 3}, {0xdeadbeefcafef00d, 0x123456789}} {
		want := new(big128).mul(ab[0], ab[1])
		assert.Equal(t, want, mulHi64(ab[0], ab[1]), "mulHi64(%#x, %#x)", ab[0], ab[1])
	}
}

// big128 is a schoolbook 128-bit product's high word, by 16-bit digits.
type big128 struct{}

func (big128) mul(a, b uint64) uint64 {
	var d [8]uint64
	for i := 0; i < 4; i++ {
		for j := 0; j < 4; j++ {
			d[i+j] += (a >> (16 * i) & 0xffff) * (b >> (16 * j) & 0xffff)
		}
	}
	var carry uint64
	var hi uint64
	for k := 0; k < 8; k++ {
		v := d[k] + carry
		carry = v >> 16
		if k >= 4 {
			hi |= (v & 0xffff) << (16 * (k - 4))
		}
	}
	return hi
}

// moments is the mean and variance of x.
func moments[T float32 | float64](x []T) (mean, variance float64) {
	for _, v := range x {
		mean += float64(v)
	}
	mean /= float64(len(x))
	for _, v := range x {
		d := float64(v) - mean
		variance += d * d
	}
	return mean, variance / float64(len(x)-1)
}

// ksStat is the Kolmogorov-Smirnov statistic of x against cdf.
func ksStat(x []float64, cdf func(float64) float64) float64 {
	x = slices.Clone(x)
	slices.Sort(x)
	n := float64(len(x))
	d := 0.0
	for i, v := range x {
		f := cdf(v)
		d = max(d, f-float64(i)/n, float64(i+1)/n-f)
	}
	return d
}

// A test battery: the moments of 10^6 values of each distribution within
// six standard errors, and a Kolmogorov-Smirnov test at several sizes at
// the 0.1% level (critical value 1.95/sqrt(n)). The seeds are fixed, so
// the outcome is too.
func TestStatistics(t *testing.T) {
	dev, s := newStream(t)
	const n = 1000000
	se := 6 / math.Sqrt(n)
	f32 := newBuf[float32](t, dev, n)
	f64 := newBuf[float64](t, dev, n)
	g := NewPhilox(2026)
	toF64 := func(x []float32) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = float64(v)
		}
		return out
	}
	normCDF := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

	require.NoError(t, Uniform(g, s, f32))
	u32 := download(t, s, f32)
	m, v := moments(u32)
	assert.InDelta(t, 0.5, m, se*math.Sqrt(1.0/12), "uniform float32 mean")
	assert.InDelta(t, 1.0/12, v, se*math.Sqrt(1.0/180), "uniform float32 variance")
	assert.Greater(t, slices.Min(u32), float32(0))
	assert.Less(t, slices.Max(u32), float32(1))

	require.NoError(t, Uniform(g, s, f64))
	u64 := download(t, s, f64)
	m, v = moments(u64)
	assert.InDelta(t, 0.5, m, se*math.Sqrt(1.0/12), "uniform float64 mean")
	assert.InDelta(t, 1.0/12, v, se*math.Sqrt(1.0/180), "uniform float64 variance")

	require.NoError(t, Normal(g, s, f32, 3, 2))
	n32 := download(t, s, f32)
	m, v = moments(n32)
	assert.InDelta(t, 3, m, se*2, "normal float32 mean")
	assert.InDelta(t, 4, v, se*4*math.Sqrt2, "normal float32 variance")

	require.NoError(t, Normal(g, s, f64, 0, 1))
	n64 := download(t, s, f64)
	m, v = moments(n64)
	assert.InDelta(t, 0, m, se, "normal float64 mean")
	assert.InDelta(t, 1, v, se*math.Sqrt2, "normal float64 variance")

	require.NoError(t, LogNormal(g, s, f64, 0, 0.5))
	l64 := download(t, s, f64)
	m, _ = moments(l64)
	lm, lv := math.Exp(0.125), (math.Exp(0.25)-1)*math.Exp(0.25)
	assert.InDelta(t, lm, m, se*math.Sqrt(lv), "lognormal float64 mean")

	r := newBuf[uint32](t, dev, n)
	require.NoError(t, Range[uint32](g, s, r, 10, 20))
	counts := map[uint32]int{}
	for _, x := range download(t, s, r) {
		counts[x]++
	}
	require.Len(t, counts, 10, "range [10, 20) takes each of its values: %v", counts)
	chi := 0.0
	for k, c := range counts {
		assert.True(t, k >= 10 && k < 20, "value %d outside [10, 20)", k)
		chi += math.Pow(float64(c)-n/10, 2) / (n / 10)
	}
	assert.Less(t, chi, 27.88, "chi-square of range [10, 20), 9 degrees of freedom, 0.1%% level")

	for _, size := range []int{1000, 30000, n} {
		crit := 1.95 / math.Sqrt(float64(size))
		assert.Less(t, ksStat(toF64(u32[:size]), func(x float64) float64 { return x }), crit, "KS uniform float32, n=%d", size)
		assert.Less(t, ksStat(u64[:size], func(x float64) float64 { return x }), crit, "KS uniform float64, n=%d", size)
		z := toF64(n32[:size])
		for i := range z {
			z[i] = (z[i] - 3) / 2
		}
		assert.Less(t, ksStat(z, normCDF), crit, "KS normal float32, n=%d", size)
		assert.Less(t, ksStat(n64[:size], normCDF), crit, "KS normal float64, n=%d", size)
		lz := slices.Clone(l64[:size])
		for i := range lz {
			lz[i] = math.Log(lz[i]) / 0.5
		}
		assert.Less(t, ksStat(lz, normCDF), crit, "KS log of lognormal float64, n=%d", size)
	}
}

// A call allocates nothing on the host (checked mode off, as in programs).
func TestCallAllocs(t *testing.T) {
	prev := goKernels.Checked()
	goKernels.SetChecked(false)
	defer goKernels.SetChecked(prev)
	dev, s := newStream(t)
	g := NewPhilox(5)
	for _, shape := range []bool{false, true} {
		forceGPUShape = shape
		f32 := newBuf[float32](t, dev, 1<<14)
		f64 := newBuf[float64](t, dev, 1<<14)
		u32 := newBuf[uint32](t, dev, 1<<14)
		u64 := newBuf[uint64](t, dev, 1<<14)
		for name, call := range map[string]func() error{
			"uniform":   func() error { return Uniform(g, s, f32) },
			"normal":    func() error { return Normal(g, s, f64, 0, 1) },
			"lognormal": func() error { return LogNormal(g, s, f32, 0, 1) },
			"bits":      func() error { return Bits(g, s, u32) },
			"range":     func() error { return Range(g, s, u64, 1, 100) },
			"view":      func() error { return Bits[uint32](g, s, u32.Sub(3, 100)) },
		} {
			run := func() {
				require.NoError(t, call())
				require.NoError(t, s.Synchronize())
			}
			for range 3 {
				run()
			}
			testenv.SkipAllocsUnderRace(t)
			allocs := testing.AllocsPerRun(30, run)
			if name == "view" {
				allocs-- // the view itself
			}
			assert.Zero(t, allocs, "%s (gpu shape %v): allocations per call + Synchronize", name, shape)
		}
	}
	forceGPUShape = false
}
