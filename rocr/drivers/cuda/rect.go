package cuda

import (
	"github.com/hipgo/hipgo/rocr/spi"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
)

// CUmemorytype values of a CUDA_MEMCPY2D end.
const (
	memoryTypeHost    = 1 // pageable Go memory: srcHost/dstHost
	memoryTypeUnified = 4 // a unified address (device or mapped host pool): srcDevice/dstDevice
)

// memcpy2D is CUDA_MEMCPY2D (cuda.h, the _v2 layout of size_t fields; the
// enum fields are 4 bytes padded to 8).
type memcpy2D struct {
	srcXInBytes, srcY uint64
	srcMemoryType     uint32
	_                 uint32
	srcHost           uintptr
	srcDevice         uint64
	srcArray          uintptr
	srcPitch          uint64
	dstXInBytes, dstY uint64
	dstMemoryType     uint32
	_                 uint32
	dstHost           uintptr
	dstDevice         uint64
	dstArray          uintptr
	dstPitch          uint64
	widthInBytes      uint64
	height            uint64
}

// memcpy3D is CUDA_MEMCPY3D (cuda.h, the _v2 layout: size_t positions,
// pitches and heights, 4-byte enums padded to 8, 200 bytes).
type memcpy3D struct {
	srcXInBytes, srcY, srcZ, srcLOD uint64
	srcMemoryType                   uint32
	_                               uint32
	srcHost                         uintptr
	srcDevice                       uint64
	srcArray                        uintptr
	reserved0                       uintptr
	srcPitch, srcHeight             uint64
	dstXInBytes, dstY, dstZ, dstLOD uint64
	dstMemoryType                   uint32
	_                               uint32
	dstHost                         uintptr
	dstDevice                       uint64
	dstArray                        uintptr
	reserved1                       uintptr
	dstPitch, dstHeight             uint64
	widthInBytes, height, depth     uint64
}

// rect carries out an aql.AgentRect packet on the stream: one
// cuMemcpy2DAsync, cuMemcpy3DAsync or cuMemsetD2D8Async (per slice), or a
// row loop where libcuda lacks them. Pageable ends are staged or written before the call returns, as
// for cuMemcpyAsync, so the descriptor may go when it does.
func (e *executor) rect(r *spi.Rect) error {
	if r.Width == 0 || r.Height == 0 {
		return nil
	}
	if r.Fill {
		for z := uint64(0); z < max(r.Depth, 1); z++ {
			if err := e.fillRect(r.Slice(z)); err != nil {
				return err
			}
		}
		return nil
	}
	if r.Depth > 1 {
		return e.rect3D(r)
	}
	return e.rect2D(r)
}

// rectEnd is one end of a rectangle copy as CUDA_MEMCPY2D/3D name it: Go
// memory when host is set, else the unified address dev.
func rectEnd(dev uint64, host []byte) (memoryType uint32, device uint64, hostPtr uintptr) {
	if host != nil {
		return memoryTypeHost, dev, uintptr(unsafe.Pointer(unsafe.SliceData(host)))
	}
	return memoryTypeUnified, dev, 0
}

// rect2D is one cuMemcpy2DAsync, or a row loop where libcuda lacks it.
func (e *executor) rect2D(r *spi.Rect) error {
	d := memcpy2D{srcPitch: r.SrcPitch, dstPitch: r.DstPitch, widthInBytes: r.Width, height: r.Height}
	d.srcMemoryType, d.srcDevice, d.srcHost = rectEnd(r.Src, r.SrcHost)
	d.dstMemoryType, d.dstDevice, d.dstHost = rectEnd(r.Dst, r.DstHost)
	if e.api.cuMemcpy2DAsync != 0 {
		if r := res(purego.SyscallN(e.api.cuMemcpy2DAsync, uintptr(unsafe.Pointer(&d)), e.stream)); r != cudaSuccess {
			return cuErr("copy 2d", "cuMemcpy2DAsync", r)
		}
		return nil
	}
	src, dst := uintptr(d.srcDevice)+d.srcHost, uintptr(d.dstDevice)+d.dstHost
	for y := uintptr(0); y < uintptr(r.Height); y++ {
		if r := res(purego.SyscallN(e.api.cuMemcpyAsync, dst+y*uintptr(r.DstPitch), src+y*uintptr(r.SrcPitch), uintptr(r.Width), e.stream)); r != cudaSuccess {
			return cuErr("copy 2d", "cuMemcpyAsync", r)
		}
	}
	return nil
}

func (e *executor) fillRect(r *spi.Rect) error {
	if r.DstHost != nil {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, "memset 2d", "the destination must be device or pinned host memory")
	}
	if e.api.cuMemsetD2D8Async != 0 {
		if rc := e.sa.call(e.api.cuMemsetD2D8Async, uintptr(r.Dst), uintptr(r.DstPitch), uintptr(r.Value), uintptr(r.Width), uintptr(r.Height), e.stream); rc != cudaSuccess {
			return cuErr("memset 2d", "cuMemsetD2D8Async", rc)
		}
		return nil
	}
	for y := uint64(0); y < r.Height; y++ {
		if rc := e.sa.call(e.api.cuMemsetD8Async, uintptr(r.Dst+y*r.DstPitch), uintptr(r.Value), uintptr(r.Width), e.stream); rc != cudaSuccess {
			return cuErr("memset 2d", "cuMemsetD8Async", rc)
		}
	}
	return nil
}

// rect3D is one cuMemcpy3DAsync, or a 2-D copy per slice where libcuda
// lacks it.
func (e *executor) rect3D(r *spi.Rect) error {
	if e.api.cuMemcpy3DAsync == 0 {
		for z := uint64(0); z < r.Depth; z++ {
			if err := e.rect2D(r.Slice(z)); err != nil {
				return err
			}
		}
		return nil
	}
	d := memcpy3D{srcPitch: r.SrcPitch, srcHeight: r.SrcHeight, dstPitch: r.DstPitch, dstHeight: r.DstHeight,
		widthInBytes: r.Width, height: r.Height, depth: r.Depth}
	d.srcMemoryType, d.srcDevice, d.srcHost = rectEnd(r.Src, r.SrcHost)
	d.dstMemoryType, d.dstDevice, d.dstHost = rectEnd(r.Dst, r.DstHost)
	if rc := res(purego.SyscallN(e.api.cuMemcpy3DAsync, uintptr(unsafe.Pointer(&d)), e.stream)); rc != cudaSuccess {
		return cuErr("copy 3d", "cuMemcpy3DAsync", rc)
	}
	return nil
}
