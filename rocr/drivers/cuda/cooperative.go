package cuda

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr"
)

// launchAttrCooperative is CU_LAUNCH_ATTRIBUTE_COOPERATIVE.
const launchAttrCooperative = 2

// launchAttribute is CUlaunchAttribute: a 4-byte id padded to 8, then the
// 64-byte CUlaunchAttributeValue union (value.cooperative is its first int).
type launchAttribute struct {
	id    uint32
	_     uint32
	value [64]byte
}

// launchConfig is CUlaunchConfig: seven unsigned ints, the stream at 32,
// the attribute array at 40 and its length at 48.
type launchConfig struct {
	gridDimX, gridDimY, gridDimZ    uint32
	blockDimX, blockDimY, blockDimZ uint32
	sharedMemBytes                  uint32
	_                               uint32
	hStream                         uintptr
	attrs                           uintptr
	numAttrs                        uint32
	_                               uint32
}

// coopLaunch is what one cooperative launch hands to libcuda, on the Go
// heap (where nothing moves) for the length of the call.
type coopLaunch struct {
	cfg  launchConfig
	attr launchAttribute
}

// launchCooperative launches k with every block resident at once, through
// cuLaunchKernelEx and the cooperative attribute, which passes the kernarg
// image through extra as cuLaunchKernel does (cuLaunchCooperativeKernel
// takes no extra). The driver answers a grid too large to be co-resident
// with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE; the API checked before.
func (e *executor) launchCooperative(k *kernel, grid, block [3]uint32, dyn uint32, extra uintptr) error {
	if e.api.cuLaunchKernelEx == 0 {
		return rocr.Newf(rocr.ErrNotSupported, rocr.StatusErrorNotSupported, "dispatch", "kernel %s: a cooperative launch needs cuLaunchKernelEx (CUDA 12 or later)", k.name)
	}
	l := new(coopLaunch)
	l.cfg = launchConfig{gridDimX: grid[0], gridDimY: grid[1], gridDimZ: grid[2],
		blockDimX: block[0], blockDimY: block[1], blockDimZ: block[2], sharedMemBytes: dyn,
		hStream: e.stream, attrs: uintptr(unsafe.Pointer(&l.attr)), numAttrs: 1}
	l.attr.id = launchAttrCooperative
	*(*int32)(unsafe.Pointer(&l.attr.value[0])) = 1
	r := res(purego.SyscallN(e.api.cuLaunchKernelEx, uintptr(unsafe.Pointer(&l.cfg)), k.fn, 0, extra))
	runtime.KeepAlive(l)
	if r != cudaSuccess {
		return cuErr("dispatch", fmt.Sprintf("kernel %s grid %v block %v shared %d: cooperative cuLaunchKernelEx", k.name, grid, block, dyn), r)
	}
	return nil
}
