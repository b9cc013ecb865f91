package cuda

import (
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// device is one CUDA device: an agent.
type device struct {
	api      *api
	ordinal  uintptr // CUdevice
	ctx      uintptr // primary context
	info     hsa.AgentInfo
	pools    []spi.PoolDriver
	stamp    *kernel // the timestamp kernel, loaded at Open
	stampExe *executable

	mu   sync.Mutex
	exes map[*executable]struct{}
}

func newDevice(a *api, i int, ver int32) (*device, error) {
	var cu int32
	if r := res(purego.SyscallN(a.cuDeviceGet, uintptr(unsafe.Pointer(&cu)), uintptr(i))); r != cudaSuccess {
		return nil, cuErr("cuda", "cuDeviceGet", r)
	}
	d := &device{api: a, ordinal: uintptr(cu), exes: map[*executable]struct{}{}}
	attr := func(at int) int {
		var v int32
		_, _, _ = purego.SyscallN(a.cuDeviceGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(at), d.ordinal)
		return int(v)
	}
	if attr(attrUnifiedAddressing) == 0 || attr(attrCanMapHostMemory) == 0 {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "cuda", "device %d lacks unified addressing or mapped host memory", i)
	}
	var name [256]byte
	_, _, _ = purego.SyscallN(a.cuDeviceGetName, uintptr(unsafe.Pointer(&name[0])), uintptr(len(name)-1), d.ordinal)
	var total uint64
	_, _, _ = purego.SyscallN(a.cuDeviceTotalMem, uintptr(unsafe.Pointer(&total)), d.ordinal)
	var u [16]byte
	_, _, _ = purego.SyscallN(a.cuDeviceGetUuid, uintptr(unsafe.Pointer(&u[0])), d.ordinal)
	major, minor := attr(attrComputeCapabilityMajor), attr(attrComputeCapabilityMinor)
	optin := attr(attrMaxSharedPerBlockOptin)
	if optin == 0 {
		optin = attr(attrMaxSharedPerBlock)
	}
	n := cString(uintptr(unsafe.Pointer(&name[0])))
	d.info = hsa.AgentInfo{
		Name:             n,
		Vendor:           "NVIDIA",
		ProductName:      n,
		Type:             hsa.DeviceGPU,
		ISA:              fmt.Sprintf("sm_%d%d", major, minor),
		Wavefront:        attr(attrWarpSize),
		ComputeUnits:     attr(attrMultiprocessorCount),
		MaxWorkGroupSize: attr(attrMaxThreadsPerBlock),
		MaxWorkGroupDim:  [3]int{attr(attrMaxBlockDimX), attr(attrMaxBlockDimX + 1), attr(attrMaxBlockDimX + 2)},
		QueueMinSize:     64,
		QueueMaxSize:     1 << 16,
		QueuesMax:        1024,
		GroupMemSize:     attr(attrMaxSharedPerBlock),
		MaxDynamicGroup:  optin,
		TotalMemory:      total,
		ClockMHz:         attr(attrClockRate) / 1000,
		MemoryClockMHz:   attr(attrMemoryClockRate) / 1000,
		MemoryBusWidth:   attr(attrGlobalMemoryBusWidth),
		L2CacheSize:      attr(attrL2CacheSize),
		PCIDomain:        attr(attrPCIDomainID),
		PCIBus:           attr(attrPCIBusID),
		PCIDevice:        attr(attrPCIDeviceID),
		UUID:             fmt.Sprintf("GPU-%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16]),
		Node:             i,
		ComputeMajor:     major,
		ComputeMinor:     minor,
		DriverVersion:    fmt.Sprintf("%d.%d", ver/1000, ver%1000/10),
		Profiling:        true,
		MaxKernargSize:   maxKernarg(ver, major),
		MaxClusterSize:   clusterSize(a, major, attr),

		MaxThreadsPerCU:         attr(attrMaxThreadsPerSM),
		MaxBlocksPerCU:          attr(attrMaxBlocksPerSM),
		GroupMemPerCU:           attr(attrMaxSharedPerSM),
		RegsPerBlock:            attr(attrMaxRegistersPerBlock),
		RegsPerCU:               attr(attrMaxRegistersPerSM),
		TotalConstMem:           attr(attrTotalConstantMemory),
		MemPitch:                attr(attrMaxPitch),
		AsyncEngines:            attr(attrAsyncEngineCount),
		Cooperative:             attr(attrCooperativeLaunch) != 0,
		ConcurrentKernels:       attr(attrConcurrentKernels) != 0,
		ManagedMemory:           attr(attrManagedMemory) != 0,
		ConcurrentManagedAccess: attr(attrConcurrentManagedAccess) != 0,
		Integrated:              attr(attrIntegrated) != 0,
		ECC:                     attr(attrECCEnabled) != 0,
	}
	// HSA grids count work-items: the limit is blocks times block size.
	for k := 0; k < 3; k++ {
		d.info.MaxGridBlocks[k] = uint64(attr(attrMaxGridDimX + k))
		d.info.MaxGridSize[k] = d.info.MaxGridBlocks[k] * uint64(d.info.MaxWorkGroupDim[k])
	}
	d.info.MaxGrid = d.info.MaxGridSize[0]
	if r := res(purego.SyscallN(a.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&d.ctx)), d.ordinal)); r != cudaSuccess {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "cuda", "device %d: cuDevicePrimaryCtxRetain: %v", i, r)
	}
	d.pools = []spi.PoolDriver{
		&devicePool{pool{dev: d, info: hsa.PoolInfo{Segment: hsa.SegmentGlobal, Flags: hsa.FlagCoarseGrained, Size: total, Granule: 256, Alignment: 256, AllocAllowed: true}}},
		&hostPool{pool{dev: d, info: hsa.PoolInfo{Segment: hsa.SegmentGlobal, Flags: hsa.FlagFineGrained, Size: total, Granule: 4096, Alignment: 4096, AllocAllowed: true, AccessibleByAll: true, Host: true}}},
		&kernargPool{info: hsa.PoolInfo{Segment: hsa.SegmentGlobal, Flags: hsa.FlagKernargInit | hsa.FlagFineGrained, Size: total, Granule: 4096, Alignment: 4096, AllocAllowed: true, AccessibleByAll: true, Host: true}},
		&groupPool{info: hsa.PoolInfo{Segment: hsa.SegmentGroup, Size: uint64(optin)}},
	}
	if err := d.loadStamp(); err != nil {
		call(a.cuDevicePrimaryCtxRelease, d.ordinal)
		d.ctx = 0
		return nil, err
	}
	return d, nil
}

// maxKernarg is the kernel parameter limit of a device of compute
// capability major under a driver of version ver (cuDriverGetVersion's
// 1000*major + 10*minor): 32,764 bytes from CUDA 12.1 on Volta and later,
// 4 KB before.
func maxKernarg(ver int32, major int) int {
	if ver >= 12010 && major >= 7 {
		return 32764
	}
	return spi.KernargSlotSize
}

// with runs f on a locked OS thread with the device's context pushed, and
// restores the thread's previous context after (the caller may be a queue
// processor whose thread holds another device's context).
func (d *device) with(f func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if r := call(d.api.cuCtxPushCurrent, d.ctx); r != cudaSuccess {
		return cuErr("cuda", "cuCtxPushCurrent", r)
	}
	err := f()
	var old uintptr
	_, _, _ = purego.SyscallN(d.api.cuCtxPopCurrent, uintptr(unsafe.Pointer(&old)))
	return err
}

// RunWithContext implements spi.ContextRunner. The primary context is
// retained for f, so that it outlives a driver Close that f races with.
func (d *device) RunWithContext(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		// The thread is never unlocked: it ends with this goroutine, with
		// whatever devices f's library made current on it.
		runtime.LockOSThread()
		var c uintptr
		if r := res(purego.SyscallN(d.api.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&c)), d.ordinal)); r != cudaSuccess {
			errc <- cuErr("cuda", fmt.Sprintf("cuDevicePrimaryCtxRetain(%d)", d.ordinal), r)
			return
		}
		defer call(d.api.cuDevicePrimaryCtxRelease, d.ordinal)
		if r := call(d.api.cuCtxSetCurrent, c); r != cudaSuccess {
			errc <- cuErr("cuda", "cuCtxSetCurrent", r)
			return
		}
		errc <- f()
	}()
	return <-errc
}

// do makes the C call fn(args...) with the device's context current; a
// failure is op's error naming the function.
func (d *device) do(op, name string, fn uintptr, args ...uintptr) error {
	return d.with(func() error {
		if r := call(fn, args...); r != cudaSuccess {
			return cuErr(op, name, r)
		}
		return nil
	})
}

func (d *device) Info() hsa.AgentInfo     { return d.info }
func (d *device) Pools() []spi.PoolDriver { return d.pools }
func (d *device) String() string          { return fmt.Sprintf("cuda device %d (%s)", d.ordinal, d.info.Name) }

// Close unloads the modules still loaded; the context goes at driver Close.
func (d *device) Close() error {
	d.mu.Lock()
	exes := slices.Collect(maps.Keys(d.exes))
	d.mu.Unlock()
	var errs []error
	for _, e := range exes {
		if err := e.Destroy(); err != nil {
			errs = append(errs, err)
		}
	}
	if d.stampExe != nil {
		errs = append(errs, d.stampExe.Destroy())
		d.stampExe, d.stamp = nil, nil
	}
	return errors.Join(errs...)
}

// AppliesVisible: libcuda applies CUDA_VISIBLE_DEVICES itself, so hipgo
// does not apply the same list again to the devices it reports.
func (d *device) AppliesVisible(env string) bool { return env == "CUDA_VISIBLE_DEVICES" }

var (
	_ spi.VisibleFilter = (*device)(nil)
	_ spi.ContextRunner = (*device)(nil)
)
