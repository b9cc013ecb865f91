package prim

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/raceflag"
)

// argGo is ArgMin (ArgMax when isMax) in plain Go as documented: the
// least (greatest) element that is not NaN, the first among equal ones;
// the first NaN where every element is one.
func argGo(x []float64, isMax bool) (float64, int64) {
	best, at := math.NaN(), int64(-1)
	for i, v := range x {
		switch {
		case at < 0:
			best, at = v, int64(i)
		case math.IsNaN(v):
		case math.IsNaN(best), !isMax && v < best, isMax && v > best:
			best, at = v, int64(i)
		}
	}
	return best, at
}

func testArgNaN(t *testing.T, sizes []int) {
	dev, s := newStream(t)
	nan := math.NaN()
	for _, n := range sizes {
		// NaNs first, at the end, at every 7th place (so whole blocks and
		// vectors of NaNs), with the extremes among the numbers after the
		// leading NaNs.
		x := make([]float64, n)
		for i := range x {
			x[i] = float64((i*7919)%1000) - 500
			if i < 5 || i%7 == 3 || i == n-1 {
				x[i] = nan
			}
		}
		allNaN := make([]float64, n)
		for i := range allNaN {
			allNaN[i] = nan
		}
		for name, h := range map[string][]float64{"mixed": x, "all NaN": allNaN} {
			for _, isMax := range []bool{false, true} {
				wantV, wantI := argGo(h, isMax)
				in := upload(t, dev, h)
				out, idx := upload(t, dev, []float64{7}), upload(t, dev, []int64{-7})
				in32 := upload(t, dev, f32(h))
				out32, idx32 := upload(t, dev, []float32{7}), upload(t, dev, []int64{-7})
				if isMax {
					require.NoError(t, ArgMax(s, in, out, idx))
					require.NoError(t, ArgMax(s, in32, out32, idx32))
				} else {
					require.NoError(t, ArgMin(s, in, out, idx))
					require.NoError(t, ArgMin(s, in32, out32, idx32))
				}
				what := map[bool]string{false: "ArgMin", true: "ArgMax"}[isMax]
				assert.Equal(t, wantI, download(t, s, idx)[0], "%s %s n=%d: index", what, name, n)
				assert.Equal(t, wantI, download(t, s, idx32)[0], "%s %s float32 n=%d: index", what, name, n)
				got, got32 := download(t, s, out)[0], download(t, s, out32)[0]
				if math.IsNaN(wantV) {
					assert.True(t, math.IsNaN(got) && math.IsNaN(float64(got32)), "%s %s n=%d: %v, %v", what, name, n, got, got32)
				} else {
					assert.Equal(t, wantV, got, "%s %s n=%d", what, name, n)
					assert.Equal(t, float32(wantV), got32, "%s %s float32 n=%d", what, name, n)
				}
			}
		}
	}
}

func f32(x []float64) []float32 {
	out := make([]float32, len(x))
	for i, v := range x {
		out[i] = float32(v)
	}
	return out
}

// A NaN is never the least or greatest unless every element is one, on
// every path: leading NaNs, NaNs in vector loads, in whole blocks, in
// the second pass; in the cpu agent's shape and a GPU's.
func TestArgMinMaxNaN(t *testing.T) {
	cpu, gpuShape := []int{1, 6, 9, 100, 1000, 70001, 300000}, []int{6, 9, 100, 3000, 70001}
	if raceflag.Enabled { // the race detector's memory and time
		cpu, gpuShape = []int{1, 6, 9, 1000, 70001}, []int{9, 3000, 70001}
	}
	testArgNaN(t, cpu)
	withGPUShape(t, func() {
		t.Run("gpu-shape", func(t *testing.T) { testArgNaN(t, gpuShape) })
	})
}
