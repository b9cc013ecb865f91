package rocm

import (
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// CopyRectAsync implements spi.RectCopier with one
// hsa_amd_memory_async_copy_rect on the GPU's SDMA engine. ROCR takes
// 4-byte aligned bases, pitches and slices, 32-bit extents and at least
// one end in device memory; other copies are ErrNotSupported, and the
// runtime copies them row by row.
func (a *agent) CopyRectAsync(r *spi.Rect, deps []spi.Signal, done spi.Signal) error {
	const op = "copy rect"
	if !a.rt.alive.Load() {
		return hsa.Errorf(hsa.StatusErrorNotInitialized, op, "the rocm driver is closed")
	}
	if err := r.Check(); err != nil {
		return err
	}
	if r.Fill || r.DstHost != nil || r.SrcHost != nil {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "a rectangular copy takes two pool ends")
	}
	depth := max(r.Depth, 1)
	dstRows, srcRows := max(r.DstHeight, r.Height), max(r.SrcHeight, r.Height)
	dst := pitchedPtr{uintptr(r.Dst), r.DstPitch, r.DstPitch * dstRows}
	src := pitchedPtr{uintptr(r.Src), r.SrcPitch, r.SrcPitch * srcRows}
	if (uint64(dst.base)|dst.pitch|dst.slice|uint64(src.base)|src.pitch|src.slice)&3 != 0 ||
		r.Width > 1<<32-1 || r.Height > 1<<32-1 || depth > 1<<32-1 {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "ends or extents outside what the copy engine takes")
	}
	_, dstHost, err := a.endpoint(op, "destination", dst.base, r.DstExtent())
	if err != nil {
		return err
	}
	_, srcHost, err := a.endpoint(op, "source", src.base, r.SrcExtent())
	if err != nil {
		return err
	}
	var dir uint32
	switch {
	case dstHost && srcHost:
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "both ends are host memory")
	case srcHost:
		dir = copyHostToDevice
	case dstHost:
		dir = copyDeviceToHost
	default:
		dir = copyDeviceToDevice
	}
	hdeps, err := rocmSignals(op, deps)
	if err != nil {
		return err
	}
	dh, finish, err := a.completion(op, done)
	if err != nil {
		return err
	}
	defer finish(false)
	rng := dim3{uint32(r.Width), uint32(r.Height), uint32(depth)}
	if s := a.rt.api.MemoryAsyncCopyRect(dst, src, rng, a.h, dir, hdeps, dh); s != hsaSuccess {
		// A limit of the engine (no SDMA, extents) or an old ROCR: the
		// rows go one by one, and report any fault of the memory itself.
		return hsa.Newf(hsa.ErrNotSupported, hsa.Status(s), op, "hsa_amd_memory_async_copy_rect of %d x %d x %d bytes %#x -> %#x: %s",
			r.Width, r.Height, depth, src.base, dst.base, a.rt.api.StatusString(s))
	}
	finish(true)
	return nil
}
