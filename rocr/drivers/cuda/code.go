package cuda

import (
	"github.com/hipgo/hipgo/rocr/spi"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// kernel is one loaded CUDA function; packets name it by handle.
type kernel struct {
	name       string
	fn         uintptr // CUfunction
	argEnd     uint32  // end of the last PTX parameter: the only size cuLaunchKernel accepts
	static     uint32  // static shared memory, bytes
	maxThreads uint32
	// cuFuncGetAttribute's NUM_REGS, PTX_VERSION, BINARY_VERSION and
	// CONST_SIZE_BYTES, for hipFuncGetAttributes.
	regs, ptx, binary, constSize int
	dynLimit                     atomic.Uint32   // dynamic shared memory the function is configured for
	buffers                      []spi.BufferArg // global-buffer arguments, for ownership checks
	dead                         atomic.Bool
}

// Kernel handles carry a tag so a cpu kernel object is not mistaken for one.
const (
	handleTag  = uint64(0xC0DA) << 48
	handleMask = uint64(0xFFFF) << 48
)

// kernels is the handle table: copy-on-write, read without locks per launch.
var kernels struct {
	mu   sync.Mutex
	list []*kernel
	snap atomic.Pointer[[]*kernel]
}

func addKernel(k *kernel) uint64 {
	kernels.mu.Lock()
	defer kernels.mu.Unlock()
	kernels.list = append(kernels.list, k)
	s := append([]*kernel(nil), kernels.list...)
	kernels.snap.Store(&s)
	return handleTag | uint64(len(s)-1)
}

func dropKernel(h uint64) {
	kernels.mu.Lock()
	defer kernels.mu.Unlock()
	if i := h &^ handleMask; int(i) < len(kernels.list) {
		kernels.list[i] = nil
		s := append([]*kernel(nil), kernels.list...)
		kernels.snap.Store(&s)
	}
}

func lookupKernel(h uint64) *kernel {
	if h&handleMask != handleTag {
		return nil
	}
	s := kernels.snap.Load()
	i := h &^ handleMask
	if s == nil || i >= uint64(len(*s)) {
		return nil
	}
	k := (*s)[i]
	if k == nil || k.dead.Load() {
		return nil
	}
	return k
}

// executable is a loaded PTX or cubin module.
type executable struct {
	dev     *device
	module  uintptr
	syms    []hsa.KernelSymbol
	handles []uint64
	once    sync.Once
}

func (e *executable) Kernels() []hsa.KernelSymbol { return e.syms }

func (e *executable) Destroy() error {
	err := hsa.Errorf(hsa.StatusErrorInvalidExecutable, "executable destroy", "already destroyed")
	e.once.Do(func() {
		for _, h := range e.handles {
			if k := lookupKernel(h); k != nil {
				k.dead.Store(true)
			}
			dropKernel(h)
		}
		e.dev.mu.Lock()
		delete(e.dev.exes, e)
		e.dev.mu.Unlock()
		err = e.dev.do("executable destroy", "cuModuleUnload", e.dev.api.cuModuleUnload, e.module)
	})
	return err
}

// Global finds a `__device__` or `__constant__` variable of the module
// (cuModuleGetGlobal): its device address and size.
func (e *executable) Global(name string) (uintptr, uint64, error) {
	if e.dev.api.cuModuleGetGlobal == 0 {
		return 0, 0, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "global", "the CUDA driver has no cuModuleGetGlobal_v2")
	}
	if strings.IndexByte(name, 0) >= 0 {
		return 0, 0, hsa.Errorf(hsa.StatusErrorInvalidArgument, "global", "%q: a name holds no NUL byte", name)
	}
	cname := append([]byte(name), 0)
	var addr uintptr
	var size uint64
	err := e.dev.with(func() error {
		r := res(purego.SyscallN(e.dev.api.cuModuleGetGlobal, uintptr(unsafe.Pointer(&addr)), uintptr(unsafe.Pointer(&size)), e.module, uintptr(unsafe.Pointer(&cname[0]))))
		if r == cudaNotFound {
			return hsa.Errorf(hsa.StatusErrorInvalidSymbolName, "global", "no variable %q in the module", name)
		}
		if r != cudaSuccess {
			return hsa.Errorf(r.status(), "global", "%q: cuModuleGetGlobal: %v", name, r)
		}
		return nil
	})
	return addr, size, err
}

const jitLogSize = 16 << 10

// Load JIT-compiles PTX for the device, or loads a cubin as it is, and
// resolves code.Kernels by name.
func (d *device) Load(code *hsa.Code) (spi.Executable, error) {
	e, err := d.load(code)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.exes[e] = struct{}{}
	d.mu.Unlock()
	return e, nil
}

func (d *device) load(code *hsa.Code) (*executable, error) {
	if code.Kind != hsa.CodePTX && code.Kind != hsa.CodeCubin {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorInvalidISA, "load", "%s: no binary for %s: the cuda agent loads PTX and cubins, not %s code for %q", code.Name, d.info.ISA, code.Kind, code.Target)
	}
	if len(code.Kernels) == 0 {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: no kernels listed", code.Name)
	}
	// The image and the JIT's option block live outside the Go heap: the
	// option values hold buffer addresses the driver writes to.
	n := uintptr(len(code.Data)) + 1
	scratch := 128 + 2*jitLogSize
	mem, err := spi.MapAnonymous(n + uintptr(scratch))
	if err != nil {
		return nil, err
	}
	defer spi.Unmap(mem, n+uintptr(scratch))
	copy(hostmem.Bytes(mem, n), code.Data)
	blk := alignUp(mem+n, 64)
	opts := (*[4]uint32)(hostmem.At(blk))
	vals := (*[4]uintptr)(hostmem.At(blk + 16))
	errLog, infoLog := blk+64, blk+64+jitLogSize
	*opts = [4]uint32{jitErrorLogBuffer, jitErrorLogBufferSize, jitInfoLogBuffer, jitInfoLogBufferSize}
	*vals = [4]uintptr{errLog, jitLogSize - 1, infoLog, jitLogSize - 1}
	e := &executable{dev: d}
	err = d.with(func() error {
		r := res(purego.SyscallN(d.api.cuModuleLoadDataEx, uintptr(unsafe.Pointer(&e.module)), mem, 4, blk, blk+16))
		if r != cudaSuccess {
			log := strings.TrimSpace(cString(errLog))
			if log == "" {
				log = strings.TrimSpace(cString(infoLog))
			}
			return hsa.Errorf(r.status(), "load", "%s for %s: cuModuleLoadDataEx: %v\nJIT log:\n%s", code.Name, d.info.ISA, r, log)
		}
		for _, ks := range code.Kernels {
			k, err := d.function(e.module, &ks)
			if err != nil {
				call(d.api.cuModuleUnload, e.module)
				for _, h := range e.handles {
					dropKernel(h)
				}
				return hsa.Errorf(hsa.StatusOf(err), "load", "%s: %w", code.Name, err)
			}
			ks.Object = addKernel(k)
			ks.GroupSegmentSize = k.static
			ks.MaxFlatWorkGroupSize = int(k.maxThreads)
			ks.Wavefront = d.info.Wavefront
			ks.Registers, ks.PTXVersion, ks.BinaryVersion, ks.ConstSize = uint32(k.regs), k.ptx, k.binary, k.constSize
			if ks.KernargSize == 0 {
				ks.KernargSize = k.argEnd
			}
			e.handles = append(e.handles, ks.Object)
			e.syms = append(e.syms, ks)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// function resolves one kernel and reads what launches need.
func (d *device) function(module uintptr, ks *hsa.KernelSymbol) (*kernel, error) {
	name := append([]byte(ks.Name), 0)
	k := &kernel{name: ks.Name}
	if r := res(purego.SyscallN(d.api.cuModuleGetFunction, uintptr(unsafe.Pointer(&k.fn)), module, uintptr(unsafe.Pointer(&name[0])))); r != cudaSuccess {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidSymbolName, "kernel", "%q: cuModuleGetFunction: %v", ks.Name, r)
	}
	attr := func(a int) uint32 {
		var v int32
		_, _, _ = purego.SyscallN(d.api.cuFuncGetAttribute, uintptr(unsafe.Pointer(&v)), uintptr(a), k.fn)
		return uint32(v)
	}
	k.static = attr(funcAttrSharedSizeBytes)
	k.maxThreads = attr(funcAttrMaxThreadsPerBlock)
	k.dynLimit.Store(attr(funcAttrMaxDynamicSharedMem))
	k.regs, k.ptx, k.binary = int(attr(funcAttrNumRegs)), int(attr(funcAttrPTXVersion)), int(attr(funcAttrBinaryVersion))
	k.constSize = int(attr(funcAttrConstSizeBytes))
	for _, a := range ks.Args {
		if a.Kind == hsa.ArgHidden {
			continue
		}
		k.argEnd = max(k.argEnd, a.Offset+a.Size)
		if a.Kind == hsa.ArgGlobalBuffer && a.Size == 8 {
			k.buffers = append(k.buffers, spi.BufferArg{Offset: uintptr(a.Offset)})
		}
	}
	return k, nil
}

func alignUp(x, a uintptr) uintptr { return (x + a - 1) &^ (a - 1) }

// stampPTX writes %globaltimer, shifted into clock.Now's clock, to a
// signal's start and end timestamp words (0 skips one).
const stampPTX = `.version 7.0
.target sm_50
.address_size 64
.visible .entry hipgo_stamp(.param .u64 p0, .param .u64 p1, .param .u64 p2)
{
	.reg .pred %p<3>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [p0];
	ld.param.u64 %rd2, [p1];
	ld.param.u64 %rd3, [p2];
	mov.u64 %rd4, %globaltimer;
	sub.u64 %rd5, %rd4, %rd3;
	setp.ne.u64 %p1, %rd1, 0;
	setp.ne.u64 %p2, %rd2, 0;
	@%p1 st.global.u64 [%rd1], %rd5;
	@%p2 st.global.u64 [%rd2], %rd5;
	membar.sys;
	ret;
}
`

func (d *device) loadStamp() error {
	code := &hsa.Code{Kind: hsa.CodePTX, Name: "hipgo_stamp", Target: "sm_50", Data: []byte(stampPTX), Kernels: []hsa.KernelSymbol{{
		Name: "hipgo_stamp",
		Args: []hsa.KernelArg{{Name: "start", Offset: 0, Size: 8}, {Name: "end", Offset: 8, Size: 8}, {Name: "offset", Offset: 16, Size: 8}},
	}}}
	e, err := d.load(code)
	if err != nil {
		return err
	}
	d.stamp = lookupKernel(e.syms[0].Object)
	d.stampExe = e
	return nil
}
