package annotate

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/internal/vendorlib"
)

// The client side of NVTX3's injection protocol (nvtxDetail/nvtxTypes.h
// and nvtxImpl.h of NVIDIA's NVTX headers). The tool's
// InitializeInjectionNvtx2(getExportTable) returns nonzero on success;
// getExportTable(id) gives the callbacks table, whose
// GetModuleFunctionTable(module, &table, &size) gives, per module, an
// array of size+1 pointers to the client's function-pointer slots (entry
// 0 and entry size are null). The tool writes its functions into the
// slots it implements; a slot left 0 is a call the tool does not take.
const (
	nvtxVersion = 3 // NVTX_VERSION

	etidCallbacks   = 1 // NVTX_ETID_CALLBACKS
	etidVersionInfo = 3 // NVTX_ETID_VERSIONINFO

	moduleCore = 1 // NVTX_CB_MODULE_CORE; CUDA 2, OPENCL 3, CUDART 4, CORE2 5, SYNC 6
	moduleEnd  = 7 // NVTX_CB_MODULE_SIZE

	// NVTX_CBID_CORE_*: the core module's slots this package calls.
	nvtxMarkA       = 2
	nvtxRangeStartA = 5
	nvtxRangeEnd    = 7
	nvtxRangePushA  = 9
	nvtxRangePop    = 11
)

// moduleSlots is NVTX_CBID_<module>_SIZE for each module: the tables of
// every module exist, as a tool may ask for each, though only the core
// module's slots are called.
var moduleSlots = [moduleEnd]int{0, 16, 9, 15, 7, 16, 7}

const maxSlots = 16

type nvtxClient struct {
	ok bool
	// slots are the function pointers the tool writes; tables[m] points
	// at module m's slots. Package variables: the tool keeps these
	// addresses.
	slots  [moduleEnd][maxSlots]uintptr
	tables [moduleEnd][maxSlots + 1]uintptr

	callbacks   struct{ size, getModuleFunctionTable uintptr }
	versionInfo struct {
		size            uintptr
		version         uint32
		reserved        uint32
		setInjectionVer uintptr
	}
	toolVersion atomic.Uint32 // what the tool said, if it did

	cbOnce         sync.Once // callbacks are made once per process
	getExportTable uintptr
}

// reset detaches the tool (Reset).
func (c *nvtxClient) reset() {
	c.ok = false
	for m := range c.slots {
		for i := range c.slots[m] {
			atomic.StoreUintptr(&c.slots[m][i], 0)
		}
	}
}

var nvtx nvtxClient

// open attaches the tool NVTX_INJECTION64_PATH names, if any.
func (c *nvtxClient) open() error {
	p, _, ok := vendorlib.NVTXInjection.Override(vendorlib.OS)
	if !ok {
		return nil
	}
	h, err := vendorlib.NVTXInjection.OpenFrom([]string{p})
	if err != nil {
		return err
	}
	initFn := h.Sym("InitializeInjectionNvtx2")
	for m := 1; m < moduleEnd; m++ {
		for i := 1; i < moduleSlots[m]; i++ {
			c.tables[m][i] = uintptr(unsafe.Pointer(&c.slots[m][i]))
		}
	}
	c.cbOnce.Do(func() {
		c.callbacks.size = unsafe.Sizeof(c.callbacks)
		c.callbacks.getModuleFunctionTable = purego.NewCallback(nvtxGetModuleFunctionTable)
		c.versionInfo.size = unsafe.Sizeof(c.versionInfo)
		c.versionInfo.version = nvtxVersion
		c.versionInfo.setInjectionVer = purego.NewCallback(nvtxSetInjectionVersion)
		c.getExportTable = purego.NewCallback(nvtxGetExportTable)
	})
	if r, _, _ := purego.SyscallN(initFn, c.getExportTable); int32(r) == 0 {
		return fmt.Errorf("nvtx: %s: InitializeInjectionNvtx2 failed", h.Path)
	}
	c.ok = true
	return nil
}

func nvtxGetExportTable(id uintptr) uintptr {
	switch uint32(id) {
	case etidCallbacks:
		return uintptr(unsafe.Pointer(&nvtx.callbacks))
	case etidVersionInfo:
		return uintptr(unsafe.Pointer(&nvtx.versionInfo))
	}
	return 0
}

func nvtxGetModuleFunctionTable(module uintptr, table *uintptr, size *uint32) uintptr {
	m := uint32(module)
	if m == 0 || m >= moduleEnd {
		return 0
	}
	if table != nil {
		*table = uintptr(unsafe.Pointer(&nvtx.tables[m][0]))
	}
	if size != nil {
		*size = uint32(moduleSlots[m])
	}
	return 1
}

func nvtxSetInjectionVersion(v uintptr) { nvtx.toolVersion.Store(uint32(v)) }

// slot is the tool's function for a core slot, 0 if it has none.
func (c *nvtxClient) slot(i int) uintptr {
	return atomic.LoadUintptr(&c.slots[moduleCore][i])
}

func (c *nvtxClient) call(i int, p *byte) uint64 {
	if !c.ok {
		return 0
	}
	return callC(c.slot(i), ptr(p))
}

func (c *nvtxClient) callID(i int, id uint64) {
	if c.ok {
		callC(c.slot(i), uintptr(id))
	}
}
