package gokernel_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gokernel/internal/faulty"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
)

const warpN = 256 // eight warps of 32

// warpInputs are values whose float sums depend on the order of the adds,
// so a reduction that adds in another order than the documented one gives
// other bits.
func warpInputs() ([]int32, []float32) {
	in, fin := make([]int32, warpN), make([]float32, warpN)
	for i := range in {
		in[i] = int32(i*2654435761%100003) - 50000
		fin[i] = float32(i*7919%1000) * 1.37e-3
		if i%5 == 0 {
			fin[i] += 1.5e7
		}
		if i%7 == 0 {
			fin[i] = -fin[i]
		}
	}
	return in, fin
}

type warpResults struct {
	out   []int32
	fout  []float32
	votes []uint64
}

func runWarpOps(dev *gpu.Device) (warpResults, error) {
	var r warpResults
	in, fin := warpInputs()
	bin, err := buffer.FromSlice(dev, in)
	if err != nil {
		return r, err
	}
	defer bin.Free()
	bfin, err := buffer.FromSlice(dev, fin)
	if err != nil {
		return r, err
	}
	defer bfin.Free()
	out, err := buffer.New[int32](dev, warpN*faulty.WarpOuts)
	if err != nil {
		return r, err
	}
	defer out.Free()
	fout, err := buffer.New[float32](dev, warpN*faulty.WarpFloatOuts)
	if err != nil {
		return r, err
	}
	defer fout.Free()
	votes, err := buffer.New[uint64](dev, 2*warpN)
	if err != nil {
		return r, err
	}
	defer votes.Free()
	for _, err := range []error{out.Memset(0), fout.Memset(0), votes.Memset(0)} {
		if err != nil {
			return r, err
		}
	}
	s, err := stream.New(dev)
	if err != nil {
		return r, err
	}
	defer s.Destroy()
	if err := faulty.LaunchWarpOps(s, gpu.D1(2), gpu.D1(warpN/2), 0, bin, bfin, out, fout, votes); err != nil {
		return r, err
	}
	if err := s.Synchronize(); err != nil {
		return r, err
	}
	if r.out, err = out.ToSlice(); err != nil {
		return r, err
	}
	if r.fout, err = fout.ToSlice(); err != nil {
		return r, err
	}
	r.votes, err = votes.ToSlice()
	return r, err
}

// warpRef is what CUDA defines for warpOps, computed in plain Go: the
// shuffles' source lanes, and the reductions in the documented order (a
// butterfly over the full warp, a fold in lane order over part of it).
func warpRef() warpResults {
	in, fin := warpInputs()
	r := warpResults{make([]int32, warpN*faulty.WarpOuts), make([]float32, warpN*faulty.WarpFloatOuts), make([]uint64, 2*warpN)}
	for w := 0; w < warpN; w += 32 {
		v, f := in[w:w+32], fin[w:w+32]
		bfly := func(x [32]float32, op func(a, b float32) float32) [32]float32 {
			for k := 16; k > 0; k >>= 1 {
				var y [32]float32
				for i := range y {
					y[i] = op(x[i], x[i^k])
				}
				x = y
			}
			return x
		}
		var fx [32]float32
		copy(fx[:], f)
		fsum := bfly(fx, func(a, b float32) float32 { return a + b })
		fmax := bfly(fx, func(a, b float32) float32 {
			if b > a {
				return b
			}
			return a
		})
		sum, mn, mx, and, or, xor := int32(0), int32(math.MaxInt32), int32(math.MinInt32), int32(-1), int32(0), int32(0)
		var ballot uint64
		for i, x := range v {
			sum += x
			mn, mx = min(mn, x), max(mx, x)
			and, or, xor = and&x, or|x, xor^x
			if x > 0 {
				ballot |= 1 << i
			}
		}
		const low = 0x1ff
		lowSum, highMax := int32(0), int32(math.MinInt32)
		var lowF, highF, highMin float32
		anyNeg, allBig := false, true
		for i := 0; i < 32; i++ {
			if i < 9 {
				lowSum += v[i]
				anyNeg = anyNeg || v[i] < 0
				if i == 0 {
					lowF = f[i]
				} else {
					lowF += f[i]
				}
				continue
			}
			highMax = max(highMax, v[i])
			allBig = allBig && v[i] > -1000000
			if i == 9 {
				highF, highMin = f[i], f[i]
			} else {
				highF += f[i]
				if f[i] < highMin {
					highMin = f[i]
				}
			}
		}
		// xor may read an earlier section of the width, not a later one.
		xor16 := func(lane, m int) int32 {
			if j := lane ^ m; j < lane&^15+16 {
				return v[j]
			}
			return v[lane]
		}
		for lane := 0; lane < 32; lane++ {
			o := r.out[(w+lane)*faulty.WarpOuts:]
			of := r.fout[(w+lane)*faulty.WarpFloatOuts:]
			o[0] = v[(lane*7+3)&31]
			o[1] = v[lane&^7|(-lane)&7]
			if lane%16 >= 3 {
				o[2] = v[lane-3]
			} else {
				o[2] = v[lane]
			}
			if lane%8+5 < 8 {
				o[3] = v[lane+5]
			} else {
				o[3] = v[lane]
			}
			o[4] = xor16(lane, 17)
			o[5] = v[lane]
			o[6], o[7], o[8], o[9], o[10] = sum, mn, mx, and^or, xor
			of[0], of[1] = fsum[lane], fmax[lane]
			r.votes[2*(w+lane)] = ballot
			if lane < 9 {
				o[11] = v[(lane+1)%9]
				o[12] = lowSum
				of[2] = lowF
				r.votes[2*(w+lane)+1] = ballot & low
				if anyNeg {
					o[13] = 1
				}
			} else {
				o[11] = v[9+(lane-8)%23]
				o[12] = highMax
				of[2], of[3] = highF, highMin
				r.votes[2*(w+lane)+1] = ballot &^ low
				if allBig {
					o[13] = 2
				}
			}
			if lane >= 1 {
				o[14] = v[lane-1]
			} else {
				o[14] = v[lane]
			}
			o[15] = v[lane^31]
		}
	}
	return r
}

// The warp operations give CUDA's results on the cpu agent, floats to the
// bit, and every GPU gives the cpu agent's (on an H100 or H200 with
// HIPGO_DRIVER=cuda: the GPU test pack). A 32-lane warp is assumed.
func TestWarpOperationsDifferential(t *testing.T) {
	want := warpRef()
	check := func(dev *gpu.Device, r warpResults) {
		if dev.Properties().Driver != "cpu" {
			return
		}
		for i := range want.out {
			assert.Equal(t, want.out[i], r.out[i], "work-item %d result %d", i/faulty.WarpOuts, i%faulty.WarpOuts)
		}
		for i := range want.fout {
			assert.Equal(t, math.Float32bits(want.fout[i]), math.Float32bits(r.fout[i]), "work-item %d float result %d: %v, want %v", i/faulty.WarpFloatOuts, i%faulty.WarpFloatOuts, r.fout[i], want.fout[i])
		}
		assert.Equal(t, want.votes, r.votes)
	}
	gputest.Differential(t, func(dev *gpu.Device) ([]int32, error) {
		r, err := runWarpOps(dev)
		if err == nil {
			check(dev, r)
		}
		return r.out, err
	})
	gputest.Differential(t, func(dev *gpu.Device) ([]float32, error) {
		r, err := runWarpOps(dev)
		return r.fout, err
	})
	gputest.Differential(t, func(dev *gpu.Device) ([]uint64, error) {
		r, err := runWarpOps(dev)
		return r.votes, err
	})
}

// A lockstep launch with masked warp operations and reductions allocates
// nothing once the worker's coroutines exist.
func TestWarpLaunchAllocs(t *testing.T) {
	dev := gputest.DeviceOf(t, "cpu")
	in, fin := warpInputs()
	bin, err := buffer.FromSlice(dev, in)
	require.NoError(t, err)
	defer bin.Free()
	bfin, err := buffer.FromSlice(dev, fin)
	require.NoError(t, err)
	defer bfin.Free()
	out, err := buffer.New[int32](dev, warpN*faulty.WarpOuts)
	require.NoError(t, err)
	defer out.Free()
	fout, err := buffer.New[float32](dev, warpN*faulty.WarpFloatOuts)
	require.NoError(t, err)
	defer fout.Free()
	votes, err := buffer.New[uint64](dev, 2*warpN)
	require.NoError(t, err)
	defer votes.Free()
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	launch := func() {
		require.NoError(t, faulty.LaunchWarpOps(s, gpu.D1(2), gpu.D1(warpN/2), 0, bin, bfin, out, fout, votes))
		require.NoError(t, s.Synchronize())
	}
	for range 10 {
		launch()
	}
	testenv.SkipAllocsUnderRace(t)
	assert.Zero(t, testing.AllocsPerRun(20, launch), "LaunchWarpOps + Synchronize allocations")
}
