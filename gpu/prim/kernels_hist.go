package prim

import "github.com/hipgo/hipgo/rocr/kernel"

// histogramEven counts samples into len(hist) even bins over [lower,
// upper): an integer sample x lands in bin (x-lower)*bins/(upper-lower)
// in exact int64 arithmetic (lowerI and widthI, upper-lower), a float one
// in bin (x-lower)*scale in float64 (scale = bins/(upper-lower)); samples
// outside the range, and NaNs, count nowhere. Where integer bins are
// 2^shift wide (shift >= 0: 256 bins over bytes have width 1) the bin is
// (x-lower)>>shift, with no division. Each block counts into local
// (shared memory) first and adds its counts to hist with atomics; hist
// starts at zero.
func histogramEven[T number](t kernel.Thread, samples []T, hist []uint32, isFloat bool, lowerF, upperF, scale float64, lowerI, widthI int64, shift, span int, local []uint32) {
	nb := len(hist)
	bd, tid := t.BlockDim().X, t.ThreadIdx().X
	for i := tid; i < nb; i += bd {
		local[i] = 0
	}
	t.SyncThreads()
	n := len(samples)
	lo, hi, step := t.GlobalX(), n, bd*t.GridDim().X
	if span > 0 {
		lo = min(t.GlobalX()*span, n)
		hi = min(lo+span, n)
		step = 1
	}
	if shift >= 0 && !isFloat {
		histShift(t, samples, local, lowerI, widthI, shift, lo, hi, span)
	} else {
		for i := lo; i < hi; i += step {
			b := -1
			if isFloat {
				if f := float64(samples[i]); f >= lowerF && f < upperF {
					b = min(int((f-lowerF)*scale), nb-1)
				}
			} else {
				if d := int64(samples[i]) - lowerI; d >= 0 && d < widthI {
					b = int(d * int64(nb) / widthI)
				}
			}
			if b < 0 {
				continue
			}
			if bd == 1 {
				local[b]++
			} else {
				kernel.AtomicAdd(&local[b], 1)
			}
		}
	}
	t.SyncThreads()
	for i := tid; i < nb; i += bd {
		if c := local[i]; c != 0 {
			kernel.AtomicAdd(&hist[i], c)
		}
	}
}

// histShift counts work-item t's integer samples into bins 2^shift wide:
// sample x is in bin (x-lowerI)>>shift where 0 <= x-lowerI < widthI. On
// a GPU's shape (span 0) it reads eight samples per turn, striped over
// the block, before it counts them; on the cpu agent's the span [lo, hi).
func histShift[T number](t kernel.Thread, samples []T, local []uint32, lowerI, widthI int64, shift, lo, hi, span int) {
	w := uint64(widthI)
	if span > 0 {
		for i := lo; i < hi; i++ {
			if d := uint64(int64(samples[i]) - lowerI); d < w {
				local[d>>shift]++
			}
		}
		return
	}
	n := len(samples)
	bd := t.BlockDim().X
	i := t.BlockIdx().X*8*bd + t.ThreadIdx().X
	stride := 8 * bd * t.GridDim().X
	for ; i+7*bd < n; i += stride {
		x := [8]T{samples[i], samples[i+bd], samples[i+2*bd], samples[i+3*bd], samples[i+4*bd], samples[i+5*bd], samples[i+6*bd], samples[i+7*bd]}
		for k := 0; k < 8; k++ {
			if d := uint64(int64(x[k]) - lowerI); d < w {
				kernel.AtomicAdd(&local[d>>shift], 1)
			}
		}
	}
	for ; i < n; i += bd {
		if d := uint64(int64(samples[i]) - lowerI); d < w {
			kernel.AtomicAdd(&local[d>>shift], 1)
		}
	}
}
