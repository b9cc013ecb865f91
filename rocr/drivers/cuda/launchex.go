package cuda

import (
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// CUlaunchAttributeID values, and the function attribute that lets a
// kernel run in clusters past the portable size.
const (
	launchAttrCooperative                 = 2 // CU_LAUNCH_ATTRIBUTE_COOPERATIVE
	launchAttrClusterDimension            = 4 // CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
	funcAttrNonPortableClusterSizeAllowed = 14
	attrClusterLaunch                     = 120 // CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH
	portableClusterSize                   = 8
)

// launchAttribute is CUlaunchAttribute: a 4-byte id padded to 8, then the
// 64-byte CUlaunchAttributeValue union (value.cooperative is its first
// int, value.clusterDim its first three unsigned ints).
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

// launchEx launches k through cuLaunchKernelEx with the cooperative
// attribute (every block resident at once) and/or the cluster dimension
// attribute (cluster non-zero), passing the kernarg image through extra as
// cuLaunchKernel does (cuLaunchCooperativeKernel takes no extra). The
// config and attributes live in the executor's scratch page, so a launch
// allocates nothing. The driver answers a grid too large to be
// co-resident with CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE and a cluster
// it cannot run with CUDA_ERROR_INVALID_CLUSTER_SIZE; the API checked
// both before.
func (e *executor) launchEx(k *kernel, grid, block [3]uint32, dyn uint32, extra uintptr, coop bool, cluster [3]uint32) error {
	what := "cooperative"
	if cluster != ([3]uint32{}) {
		what = fmt.Sprintf("cluster %v", cluster)
	}
	if e.api.cuLaunchKernelEx == 0 {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "dispatch", "kernel %s: a %s launch needs cuLaunchKernelEx (CUDA 12 or later)", k.name, what)
	}
	attrs := (*[2]launchAttribute)(hostmem.At(e.scratch + offLaunchAttrs))
	n := 0
	if coop {
		attrs[n] = launchAttribute{id: launchAttrCooperative}
		*(*int32)(unsafe.Pointer(&attrs[n].value[0])) = 1
		n++
	}
	if cluster != ([3]uint32{}) {
		attrs[n] = launchAttribute{id: launchAttrClusterDimension}
		*(*[3]uint32)(unsafe.Pointer(&attrs[n].value[0])) = cluster
		n++
	}
	*(*launchConfig)(hostmem.At(e.scratch + offLaunchConfig)) = launchConfig{gridDimX: grid[0], gridDimY: grid[1], gridDimZ: grid[2],
		blockDimX: block[0], blockDimY: block[1], blockDimZ: block[2], sharedMemBytes: dyn,
		hStream: e.stream, attrs: e.scratch + offLaunchAttrs, numAttrs: uint32(n)}
	if r := e.sa.call(e.api.cuLaunchKernelEx, e.scratch+offLaunchConfig, k.fn, 0, extra); r != cudaSuccess {
		return cuErr("dispatch", fmt.Sprintf("kernel %s grid %v block %v shared %d: %s cuLaunchKernelEx", k.name, grid, block, dyn, what), r)
	}
	return nil
}

// clusterSize is the agent's portable cluster size: 8 on compute
// capability 9.0 and later where the device says it launches clusters and
// the driver has cuLaunchKernelEx; 0 otherwise.
func clusterSize(a *api, major int, attr func(int) int) int {
	if major < 9 || a.cuLaunchKernelEx == 0 || attr(attrClusterLaunch) == 0 {
		return 0
	}
	return portableClusterSize
}

// AllowNonPortableClusters implements spi.Clusters with
// cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED).
func (d *device) AllowNonPortableClusters(ks *hsa.KernelSymbol, allow bool) error {
	const op = "cluster size"
	k := lookupKernel(ks.Object)
	if k == nil {
		return hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "kernel %s is not loaded on %s", ks.Name, d)
	}
	if d.api.cuFuncSetAttribute == 0 {
		return hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "libcuda lacks cuFuncSetAttribute")
	}
	v := uintptr(0)
	if allow {
		v = 1
	}
	return d.do(op, fmt.Sprintf("kernel %s: cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED, %d)", k.name, v), d.api.cuFuncSetAttribute, k.fn, funcAttrNonPortableClusterSizeAllowed, v)
}

// MaxPotentialClusterSize implements spi.Clusters with
// cuOccupancyMaxPotentialClusterSize.
func (d *device) MaxPotentialClusterSize(ks *hsa.KernelSymbol, grid, group [3]uint32, dynGroupMem int) (int, error) {
	const op = "cluster size"
	k := lookupKernel(ks.Object)
	if k == nil {
		return 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, op, "kernel %s is not loaded on %s", ks.Name, d)
	}
	if d.api.cuOccupancyMaxPotentialClusterSize == 0 {
		return 0, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, op, "libcuda lacks cuOccupancyMaxPotentialClusterSize")
	}
	cfg := launchConfig{gridDimX: grid[0], gridDimY: grid[1], gridDimZ: grid[2],
		blockDimX: group[0], blockDimY: group[1], blockDimZ: group[2], sharedMemBytes: uint32(dynGroupMem)}
	var n int32
	err := d.with(func() error {
		// The pointers go straight to the call, which keeps them valid.
		if r := res(purego.SyscallN(d.api.cuOccupancyMaxPotentialClusterSize, uintptr(unsafe.Pointer(&n)), k.fn, uintptr(unsafe.Pointer(&cfg)))); r != cudaSuccess {
			return hsa.Errorf(r.status(), op, "kernel %s grid %v block %v shared %d: cuOccupancyMaxPotentialClusterSize: %v", k.name, grid, group, dynGroupMem, r)
		}
		return nil
	})
	return int(n), err
}

var _ spi.Clusters = (*device)(nil)
