package prim

import (
	"math"
	"math/bits"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Sample is a sample type of HistogramEven.
type Sample interface {
	uint8 | uint16 | int32 | uint32 | float32 | float64
}

// maxSharedBins is the most bins a block counts in shared memory (16 KiB).
const maxSharedBins = 4096

// histPerSM is the blocks per multiprocessor of a GPU histogram's
// one-wave grid, as its kernels' launch bounds promise.
const histPerSM = 4

// sampleRange is the least integer sample of type T and one past the
// greatest: the levels of integer samples lie within it.
func sampleRange[T Sample]() (lo, hi float64) {
	switch any(*new(T)).(type) {
	case uint8:
		return 0, 1 << 8
	case uint16:
		return 0, 1 << 16
	case int32:
		return -1 << 31, 1 << 31
	case uint32:
		return 0, 1 << 32
	}
	return math.Inf(-1), math.Inf(1)
}

// HistogramEven queues hist[b] = how many samples fall in bin b of
// hist.Len() even bins over [lower, upper)
// (cub::DeviceHistogram::HistogramEven with hist.Len()+1 levels): sample x
// is in bin (x-lower)*bins/(upper-lower), computed exactly for integer
// samples (lower and upper must then be integers within the sample
// type's range, upper at most its greatest value plus one) and in
// float64 for floats; samples outside [lower, upper) and NaNs are not
// counted. Integer bins of a power-of-two width take a fast path (no
// division). hist is overwritten. At most 4096 bins. 256 bins over bytes are
// HistogramEven(s, bytes, hist, 0, 256) with a hist of 256.
func HistogramEven[T Sample](s *stream.Stream, samples buffer.Array[T], hist buffer.Array[uint32], lower, upper float64) error {
	const name = "prim histogram"
	if err := checkStream(name, s); err != nil {
		return err
	}
	if err := checkIn(name, "samples", samples); err != nil {
		return err
	}
	if err := checkOut(name, "hist", hist, 1); err != nil {
		return err
	}
	nb := hist.Len()
	if nb > maxSharedBins {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "%d bins, at most %d", nb, maxSharedBins)
	}
	if !(lower < upper) || math.IsInf(lower, 0) || math.IsInf(upper, 0) {
		return gpu.Errorf(gpu.ErrInvalidValue, name, "levels [%v, %v): want finite lower < upper", lower, upper)
	}
	var zero T
	isFloat := false
	switch any(zero).(type) {
	case float32, float64:
		isFloat = true
	}
	shift := -1
	if !isFloat {
		if lower != math.Trunc(lower) || upper != math.Trunc(upper) {
			return gpu.Errorf(gpu.ErrInvalidValue, name, "levels [%v, %v) of integer samples: want integers", lower, upper)
		}
		if lo, hi := sampleRange[T](); lower < lo || upper > hi {
			return gpu.Errorf(gpu.ErrInvalidValue, name, "levels [%v, %v) overflow %T samples: want levels in [%v, %v]", lower, upper, zero, lo, hi)
		}
		// Bins 2^shift wide count without a division.
		if w := int64(upper - lower); w%int64(nb) == 0 {
			if q := w / int64(nb); q&(q-1) == 0 {
				shift = bits.TrailingZeros64(uint64(q))
			}
		}
	}
	scale := float64(nb) / (upper - lower)
	if err := s.Memset(hist, 0); err != nil {
		return err
	}
	n := samples.Len()
	if n == 0 {
		return nil
	}
	g := shapeOf(s)
	grid, block, span := 0, blockSize, 0
	if g.cpu {
		grid, span = g.split(n, 1<<15)
		block = 1
	} else {
		// One wave, each block at least four turns of eight samples per
		// work-item (fewer blocks add fewer counts to hist).
		grid = max(1, min(ceilDiv(n, blockSize*32), g.wave(histPerSM)))
	}
	return histogramFor[T]()(s, gpu.D1(uint32(grid)), gpu.D1(uint32(block)), 4*nb, samples, hist,
		isFloat, lower, upper, scale, int64(lower), int64(upper-lower), shift, span)
}
