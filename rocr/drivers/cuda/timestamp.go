package cuda

import (
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
)

// calibrate measures the offset between the GPU's %globaltimer and
// clock.Now, so GPU-written timestamps read in rocr's clock. Each sample
// is a stamp between two host readings, and its error is at most half
// their distance: it takes three, and more until one is within
// calibrateTight, up to calibrateSamples. Three samples on a loaded host
// once all took 20 ms, which put the timestamps 10 ms off.
func (e *executor) calibrate() error {
	best, off := ^uint64(0), uint64(0)
	e.tsOff = 0
	for i := 0; i < calibrateSamples && (i < 3 || best > calibrateTight); i++ {
		e.progress.Store(0, hsa.Release)
		t0 := clock.Now()
		if err := e.stamp(e.progress.Addr(), 0); err != nil {
			return err
		}
		if r := e.sa.call(e.api.cuStreamSynchronize, e.stream); r != cudaSuccess {
			return cuErr("queue create", "cuStreamSynchronize", r)
		}
		t1 := clock.Now()
		if g := uint64(e.progress.Load(hsa.Acquire)); t1-t0 < best && g != 0 {
			best = t1 - t0
			off = g - (t0+t1)/2
		}
	}
	e.tsOff = off
	e.progress.Store(0, hsa.Release)
	return nil
}

const (
	calibrateSamples = 32
	calibrateTight   = 50_000 // ns between the host readings around a stamp
)

// stamp launches the timestamp kernel writing to start and end (host
// addresses in signal memory; 0 skips).
func (e *executor) stamp(start, end uintptr) error {
	k := e.dev.stamp
	args := (*[3]uint64)(hostmem.At(e.scratch + offStampArgs))
	args[0], args[1], args[2] = uint64(devAddr(start)), uint64(devAddr(end)), e.tsOff
	if start != 0 && args[0] == 0 || end != 0 && args[1] == 0 {
		return nil
	}
	if r := e.sa.call(e.api.cuLaunchKernel, k.fn, 1, 1, 1, 1, 1, 1, 0, e.stream, 0, e.scratch+offStampExtra); r != cudaSuccess {
		return cuErr("timestamp", "cuLaunchKernel", r)
	}
	return nil
}

// stampAround launches the timestamp kernel before (end=false) or after
// a profiled packet.
func (e *executor) stampAround(h uint64, end bool) error {
	if !e.profile || h == 0 {
		return nil
	}
	s, err := e.signal(h)
	if err != nil || s.Addr() == 0 {
		return nil
	}
	if end {
		return e.stamp(0, s.Addr()+32)
	}
	return e.stamp(s.Addr()+24, 0)
}
