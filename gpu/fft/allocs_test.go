package fft

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/testenv"
)

// An execution after the first allocates nothing on the host: inline,
// batched over the workers, split in lines, through a layout, in place.
func TestExecAllocs(t *testing.T) {
	prevMin, prevProcs := parallelMin, runtime.GOMAXPROCS(4)
	parallelMin = 1 << 10
	defer func() { parallelMin = prevMin; runtime.GOMAXPROCS(prevProcs) }()
	dev, s := newStream(t)
	c := func(n int) *bufferC { return upload(t, dev, make([]complex64, n)) }
	small := newPlan(t, dev, C2C, []int{1024}, 1)
	batched := newPlan(t, dev, C2C, []int{256}, 64)
	split := newPlan(t, dev, C2C, []int{64, 64}, 1)
	real := newPlan(t, dev, R2C, []int{32, 32}, 8)
	l := &Layout{InEmbed: []int{64}, InStride: 2, InDist: 1, OutEmbed: []int{64}, OutStride: 1, OutDist: 64}
	strided := newPlanMany(t, dev, C2C, []int{64}, 2, l)
	r := upload(t, dev, make([]float32, 32*32*8))
	a, b := c(1<<14), c(1<<14)
	p := c(8 * 32 * 17)
	for name, call := range map[string]func() error{
		"small":         func() error { return C2CExec(small, s, a, b, Forward) },
		"in place":      func() error { return C2CExec(small, s, a, a, Inverse) },
		"batched":       func() error { return C2CExec(batched, s, a, b, Forward) },
		"split":         func() error { return C2CExec(split, s, a, b, Forward) },
		"real":          func() error { return R2CExec(real, s, r, p) },
		"real in place": func() error { return R2CInPlace(real, s, p) },
		"strided":       func() error { return C2CExec(strided, s, a, b, Forward) },
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
		assert.Zero(t, allocs, "%s: allocations per call + Synchronize", name)
	}
}
