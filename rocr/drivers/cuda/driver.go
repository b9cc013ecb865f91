package cuda

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/rocr"
)

// Priority orders the driver before cpu (0) and after rocm (30).
const Priority = 20

func init() { rocr.Register(&driver{}) }

type driver struct {
	api  *api
	devs []*device
}

func (*driver) Name() string  { return "cuda" }
func (*driver) Priority() int { return Priority }

// live is the open driver, for the signal-memory hook (rocr keeps hooks for
// the life of the process, so one hook is installed and follows this).
var live struct {
	mu    sync.Mutex
	d     *driver
	hook  sync.Once
	slabs []slab // registered signal slabs
	snap  []slab // copy for lock-free lookups on the launch path
}

type slab struct{ host, dev, size uintptr }

func (d *driver) Open() ([]rocr.AgentDriver, error) {
	a, err := load()
	if err != nil {
		return nil, err
	}
	d.api = a
	if r := call(a.cuInit, 0); r != cudaSuccess {
		return nil, rocr.Newf(rocr.ErrNotSupported, rocr.StatusErrorNotSupported, "open", "no NVIDIA GPU: cuInit: %v", r)
	}
	var n, ver int32
	if r := res(purego.SyscallN(a.cuDeviceGetCount, uintptr(unsafe.Pointer(&n)))); r != cudaSuccess || n == 0 {
		return nil, rocr.Newf(rocr.ErrNotSupported, rocr.StatusErrorNotSupported, "open", "no NVIDIA GPU: cuDeviceGetCount: %d devices (%v)", n, r)
	}
	_, _, _ = purego.SyscallN(a.cuDriverGetVersion, uintptr(unsafe.Pointer(&ver)))
	var out []rocr.AgentDriver
	d.devs = nil
	for i := 0; i < int(n); i++ {
		dev, err := newDevice(a, i, ver)
		if err != nil {
			d.release()
			return nil, err
		}
		d.devs = append(d.devs, dev)
		out = append(out, dev)
	}
	live.mu.Lock()
	live.d = d
	old := append([]slab(nil), live.slabs...)
	live.slabs, live.snap = nil, nil
	live.mu.Unlock()
	// Slabs registered by an earlier Init were unregistered at its Close.
	for _, s := range old {
		if err := registerSlab(s.host, s.size); err != nil {
			d.release()
			return nil, err
		}
	}
	var herr error
	live.hook.Do(func() { herr = rocr.OnSignalMemory(registerSlab) })
	if herr != nil {
		d.release()
		return nil, herr
	}
	return out, nil
}

// registerSlab makes a signal slab visible to every device (page-locked,
// device-mapped, portable), so GPUs write and wait on signal values.
func registerSlab(base, size uintptr) error {
	live.mu.Lock()
	defer live.mu.Unlock()
	d := live.d
	if d == nil {
		live.slabs = append(live.slabs, slab{host: base, size: size})
		return nil
	}
	dev0 := d.devs[0]
	var dptr uintptr
	err := dev0.with(func() error {
		if r := call(d.api.cuMemHostRegister, base, size, memHostRegisterPortable|memHostRegisterDevMap); r != cudaSuccess {
			return cuErr("signal memory", "cuMemHostRegister", r)
		}
		if r := res(purego.SyscallN(d.api.cuMemHostGetDevicePointer, uintptr(unsafe.Pointer(&dptr)), base, 0)); r != cudaSuccess {
			call(d.api.cuMemHostUnregister, base)
			return cuErr("signal memory", "cuMemHostGetDevicePointer", r)
		}
		return nil
	})
	if err != nil {
		return err
	}
	live.slabs = append(live.slabs, slab{host: base, dev: dptr, size: size})
	live.snap = append([]slab(nil), live.slabs...)
	return nil
}

// devAddr translates a host address in a signal slab to the device address
// a GPU uses for it; 0 when the address is in no registered slab.
func devAddr(host uintptr) uintptr {
	for _, s := range live.snap {
		if host >= s.host && host < s.host+s.size && s.dev != 0 {
			return s.dev + (host - s.host)
		}
	}
	return 0
}

// Close releases the contexts after every agent was closed.
func (d *driver) Close() error {
	live.mu.Lock()
	var errs []error
	if live.d == d && len(d.devs) > 0 {
		for i := range live.slabs {
			s := &live.slabs[i]
			if s.dev != 0 {
				if err := d.devs[0].with(func() error {
					if r := call(d.api.cuMemHostUnregister, s.host); r != cudaSuccess {
						return cuErr("close", "cuMemHostUnregister", r)
					}
					return nil
				}); err != nil {
					errs = append(errs, err)
				}
				s.dev = 0
			}
		}
		live.snap = nil
		live.d = nil
	}
	live.mu.Unlock()
	errs = append(errs, d.release())
	return errors.Join(errs...)
}

func (d *driver) release() error {
	var errs []error
	for _, dev := range d.devs {
		if dev.ctx != 0 {
			if r := call(d.api.cuDevicePrimaryCtxRelease, dev.ordinal); r != cudaSuccess {
				errs = append(errs, cuErr("close", "cuDevicePrimaryCtxRelease", r))
			}
			dev.ctx = 0
		}
	}
	d.devs = nil
	return errors.Join(errs...)
}

// device is one CUDA device: an agent.
type device struct {
	api      *api
	ordinal  uintptr // CUdevice
	ctx      uintptr // primary context
	info     rocr.AgentInfo
	pools    []rocr.PoolDriver
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
		return nil, rocr.Newf(rocr.ErrNotSupported, rocr.StatusErrorNotSupported, "cuda", "device %d lacks unified addressing or mapped host memory", i)
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
	d.info = rocr.AgentInfo{
		Name:             n,
		Vendor:           "NVIDIA",
		ProductName:      n,
		Type:             rocr.DeviceGPU,
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
	}
	// HSA grids count work-items: the limit is blocks times block size.
	for k := 0; k < 3; k++ {
		d.info.MaxGridSize[k] = uint64(attr(attrMaxGridDimX+k)) * uint64(d.info.MaxWorkGroupDim[k])
	}
	d.info.MaxGrid = d.info.MaxGridSize[0]
	if r := res(purego.SyscallN(a.cuDevicePrimaryCtxRetain, uintptr(unsafe.Pointer(&d.ctx)), d.ordinal)); r != cudaSuccess {
		return nil, rocr.Newf(rocr.ErrNotSupported, rocr.StatusErrorNotSupported, "cuda", "device %d: cuDevicePrimaryCtxRetain: %v", i, r)
	}
	d.pools = []rocr.PoolDriver{
		&devicePool{dev: d, info: rocr.PoolInfo{Segment: rocr.SegmentGlobal, Flags: rocr.FlagCoarseGrained, Size: total, Granule: 256, Alignment: 256, AllocAllowed: true}},
		&hostPool{dev: d, info: rocr.PoolInfo{Segment: rocr.SegmentGlobal, Flags: rocr.FlagFineGrained, Size: total, Granule: 4096, Alignment: 4096, AllocAllowed: true, AccessibleByAll: true, Host: true}},
		&kernargPool{info: rocr.PoolInfo{Segment: rocr.SegmentGlobal, Flags: rocr.FlagKernargInit | rocr.FlagFineGrained, Size: total, Granule: 4096, Alignment: 4096, AllocAllowed: true, AccessibleByAll: true, Host: true}},
		&groupPool{info: rocr.PoolInfo{Segment: rocr.SegmentGroup, Size: uint64(optin)}},
	}
	if err := d.loadStamp(); err != nil {
		call(a.cuDevicePrimaryCtxRelease, d.ordinal)
		d.ctx = 0
		return nil, err
	}
	return d, nil
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

func (d *device) Info() rocr.AgentInfo     { return d.info }
func (d *device) Pools() []rocr.PoolDriver { return d.pools }
func (d *device) String() string           { return fmt.Sprintf("cuda device %d (%s)", d.ordinal, d.info.Name) }

// Close unloads the modules still loaded; the context goes at driver Close.
func (d *device) Close() error {
	d.mu.Lock()
	exes := make([]*executable, 0, len(d.exes))
	for e := range d.exes {
		exes = append(exes, e)
	}
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

var _ rocr.VisibleFilter = (*device)(nil)
