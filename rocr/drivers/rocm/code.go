package rocm

import (
	"github.com/hipgo/hipgo/rocr/spi"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// executable is a frozen ROCR executable with one agent code object.
type executable struct {
	ag     *agent
	exe    exeH
	reader readerH
	image  uintptr // the code object, mapped outside the Go heap: ROCR keeps pointing at it
	size   uintptr
	syms   []hsa.KernelSymbol
}

// Load loads an AMDGPU code object: hsa_code_object_reader_create_from_memory,
// hsa_executable_create_alt (full profile, default rounding, as HIP does),
// hsa_executable_load_agent_code_object, hsa_executable_freeze, then each
// kernel the code describes is found by its "NAME.kd" symbol and its
// kernel object, kernarg, group and private segment sizes read.
func (a *agent) Load(code *hsa.Code) (spi.Executable, error) {
	if code.Kind != hsa.CodeAMDGPU {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorInvalidISA, "load", "%s: %s runs AMDGPU code objects, not %s code for %s", code.Name, a.info.Name, code.Kind, code.Target)
	}
	if len(code.Data) == 0 {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: empty code object", code.Name)
	}
	if !a.rt.alive.Load() {
		return nil, hsa.Errorf(hsa.StatusErrorNotInitialized, "load", "the rocm driver is closed")
	}
	api := a.rt.api
	e := &executable{ag: a, size: uintptr(len(code.Data))}
	var err error
	if e.image, err = spi.MapAnonymous(e.size); err != nil {
		return nil, err
	}
	copy(hostmem.Bytes(e.image, e.size), code.Data)
	fail := func(s hsaStatus, format string, args ...any) (spi.Executable, error) {
		err := a.rt.fail(s, "load", format, args...)
		e.release()
		return nil, err
	}
	var s hsaStatus
	if e.reader, s = api.CodeObjectReaderCreateFromMemory(e.image, uint64(e.size)); s != hsaSuccess {
		return fail(s, "%s: hsa_code_object_reader_create_from_memory", code.Name)
	}
	if e.exe, s = api.ExecutableCreateAlt(profileFull, roundingDefault); s != hsaSuccess {
		return fail(s, "%s: hsa_executable_create_alt", code.Name)
	}
	if s = api.ExecutableLoadAgentCodeObject(e.exe, a.h, e.reader); s != hsaSuccess {
		return fail(s, "%s (target %q) onto %s (%s)", code.Name, code.Target, a.info.Name, a.info.ISA)
	}
	if s = api.ExecutableFreeze(e.exe); s != hsaSuccess {
		return fail(s, "%s: hsa_executable_freeze", code.Name)
	}
	for _, k := range code.Kernels {
		sym, s := api.ExecutableGetSymbolByName(e.exe, k.Name+".kd", a.h)
		if s != hsaSuccess {
			return fail(s, "%s: kernel %q: no symbol %q", code.Name, k.Name, k.Name+".kd")
		}
		var obj uint64
		var kaSize, kaAlign, group, private uint32
		if s = api.ExecutableSymbolGetInfo(sym, symKernelObject, unsafe.Pointer(&obj)); s != hsaSuccess || obj == 0 {
			if s == hsaSuccess {
				s = hsaStatus(hsa.StatusErrorInvalidExecutableSymbol)
			}
			return fail(s, "%s: kernel %q: kernel object", code.Name, k.Name)
		}
		api.ExecutableSymbolGetInfo(sym, symKernargSize, unsafe.Pointer(&kaSize))
		api.ExecutableSymbolGetInfo(sym, symKernargAlign, unsafe.Pointer(&kaAlign))
		api.ExecutableSymbolGetInfo(sym, symGroupSize, unsafe.Pointer(&group))
		api.ExecutableSymbolGetInfo(sym, symPrivateSize, unsafe.Pointer(&private))
		k.Object = obj
		// The loaded kernel descriptor is the authority; metadata fills gaps.
		if kaSize != 0 {
			k.KernargSize = kaSize
		}
		if kaAlign != 0 {
			k.KernargAlign = kaAlign
		}
		k.GroupSegmentSize, k.PrivateSegmentSize = group, private
		e.syms = append(e.syms, k)
	}
	a.mu.Lock()
	a.exes[e] = struct{}{}
	a.mu.Unlock()
	return e, nil
}

func (e *executable) Kernels() []hsa.KernelSymbol { return e.syms }

// Global finds a `__device__` or `__constant__` variable of the code
// object (hsa_executable_get_symbol_by_name, then the symbol's variable
// address and size), as hipModuleGetGlobal does.
func (e *executable) Global(name string) (uintptr, uint64, error) {
	a := e.ag
	a.mu.Lock()
	_, live := a.exes[e]
	a.mu.Unlock()
	if !live || !a.rt.alive.Load() {
		return 0, 0, hsa.Errorf(hsa.StatusErrorInvalidExecutable, "global", "%q: the executable was destroyed", name)
	}
	api := a.rt.api
	sym, s := api.ExecutableGetSymbolByName(e.exe, name, a.h)
	if s != hsaSuccess {
		return 0, 0, hsa.Errorf(hsa.StatusErrorInvalidSymbolName, "global", "no variable %q in the code object", name)
	}
	var kind uint32
	var addr uint64
	var size uint32
	if s = api.ExecutableSymbolGetInfo(sym, symType, unsafe.Pointer(&kind)); s != hsaSuccess {
		return 0, 0, a.rt.fail(s, "global", "%q: symbol kind", name)
	}
	if kind != symKindVariable {
		return 0, 0, hsa.Errorf(hsa.StatusErrorInvalidSymbolName, "global", "%q is not a variable (symbol kind %d)", name, kind)
	}
	if s = api.ExecutableSymbolGetInfo(sym, symVariableAddr, unsafe.Pointer(&addr)); s != hsaSuccess {
		return 0, 0, a.rt.fail(s, "global", "%q: variable address", name)
	}
	if s = api.ExecutableSymbolGetInfo(sym, symVariableSize, unsafe.Pointer(&size)); s != hsaSuccess {
		return 0, 0, a.rt.fail(s, "global", "%q: variable size", name)
	}
	return uintptr(addr), uint64(size), nil
}

// Destroy is hsa_executable_destroy and hsa_code_object_reader_destroy.
func (e *executable) Destroy() error {
	a := e.ag
	a.mu.Lock()
	_, live := a.exes[e]
	delete(a.exes, e)
	a.mu.Unlock()
	if !live {
		return hsa.Errorf(hsa.StatusErrorInvalidExecutable, "executable destroy", "executable already destroyed")
	}
	var err error
	if a.rt.alive.Load() {
		if s := a.rt.api.ExecutableDestroy(e.exe); s != hsaSuccess {
			err = a.rt.fail(s, "executable destroy", "hsa_executable_destroy")
		}
		e.exe = 0
	}
	e.release()
	return err
}

func (e *executable) release() {
	api := e.ag.rt.api
	if e.ag.rt.alive.Load() {
		if e.exe != 0 {
			api.ExecutableDestroy(e.exe)
		}
		if e.reader != 0 {
			api.CodeObjectReaderDestroy(e.reader)
		}
	}
	e.exe, e.reader = 0, 0
	if e.image != 0 {
		_ = spi.Unmap(e.image, e.size)
		e.image = 0
	}
}
