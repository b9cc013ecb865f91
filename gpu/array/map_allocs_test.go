package array

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// A Map call allocates no more on the host than Add does (the result
// array; the lookup of its kernel and the launch allocate nothing), with
// and without broadcasting.
func TestMapAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	s := newStream(t)
	cpuAgent(t, s.Device())
	const rows, cols = 64, 512
	a := fromSlice(t, s, make([]float32, rows*cols), rows, cols)
	b := fromSlice(t, s, make([]float32, rows*cols), rows, cols)
	row := fromSlice(t, s, make([]float32, cols), cols)
	measure := func(f func() (*Array[float32], error)) float64 {
		run := func() {
			out, err := f()
			require.NoError(t, err)
			require.NoError(t, out.Free())
			require.NoError(t, s.Synchronize())
		}
		for range 3 {
			run()
		}
		return testenv.AllocsPerCall(30, run)
	}
	add := measure(func() (*Array[float32], error) { return Add(a, b) })
	for name, f := range map[string]func() (*Array[float32], error){
		"map1":           func() (*Array[float32], error) { return Map1(softplus{}, a) },
		"map2":           func() (*Array[float32], error) { return Map2(axpyClip{}, a, b) },
		"map2 broadcast": func() (*Array[float32], error) { return Map2(axpyClip{}, a, row) },
		"map4":           func() (*Array[float32], error) { return Map4(dist4{}, a, b, a, row) },
	} {
		assert.LessOrEqual(t, measure(f), add, "%s: allocations per call, against Add's", name)
	}
}
