package rocm

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/vendorlib"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// LibraryEnv names the environment variable holding the path of
// libhsa-runtime64.so.1 to use instead of searching for it (the older
// HIPGO_ROCM_LIB is read too).
var LibraryEnv = vendorlib.ROCm.Env

// LibraryName is the ROCR library the driver opens.
var LibraryName = vendorlib.ROCm.Name

// libraryPaths lists where the library is looked for, in order: the
// override, else the dynamic linker's search path, $ROCM_PATH/lib,
// /opt/rocm/lib (internal/vendorlib).
func libraryPaths() []string { return vendorlib.ROCm.Candidates(vendorlib.OS) }

// lib is hsaAPI over libhsa-runtime64 through purego. Every call is one
// purego.SyscallN; pointers passed to C point at Go memory that lives for
// the call (SyscallN keeps it alive and in place) or at mapped memory.
type lib struct {
	path string
	fn   struct {
		init, shutDown, statusString, systemGetInfo                                             uintptr
		iterateAgents, agentGetInfo, agentIterateISAs, isaGetInfoAlt                            uintptr
		iteratePools, poolGetInfo, agentPoolGetInfo, poolAllocate, poolFree, allowAccess        uintptr
		signalCreate, signalDestroy, signalLoad, signalStore, signalAdd, signalCAS, signalXchg  uintptr
		signalWait                                                                              uintptr
		queueCreate, queueDestroy, profilerEnable, asyncCopyEnable, dispatchTime, asyncCopyTime uintptr
		asyncCopy, memoryFill                                                                   uintptr
		readerCreate, readerDestroy, exeCreate, exeLoad, exeFreeze, exeSymbol, symbolInfo       uintptr
		exeDestroy                                                                              uintptr
		svmSet, svmPrefetch, copyRect                                                           uintptr // optional
		ipcCreate, ipcAttach, ipcDetach, amdSignalCreate, ipcSignalCreate, ipcSignalAttach      uintptr // optional
	}
}

// symbols pairs each C function with its slot in lib.fn.
func (l *lib) symbols() []struct {
	name string
	p    *uintptr
} {
	f := &l.fn
	return []struct {
		name string
		p    *uintptr
	}{
		{"hsa_init", &f.init}, {"hsa_shut_down", &f.shutDown}, {"hsa_status_string", &f.statusString},
		{"hsa_system_get_info", &f.systemGetInfo},
		{"hsa_iterate_agents", &f.iterateAgents}, {"hsa_agent_get_info", &f.agentGetInfo},
		{"hsa_agent_iterate_isas", &f.agentIterateISAs}, {"hsa_isa_get_info_alt", &f.isaGetInfoAlt},
		{"hsa_amd_agent_iterate_memory_pools", &f.iteratePools}, {"hsa_amd_memory_pool_get_info", &f.poolGetInfo},
		{"hsa_amd_agent_memory_pool_get_info", &f.agentPoolGetInfo},
		{"hsa_amd_memory_pool_allocate", &f.poolAllocate}, {"hsa_amd_memory_pool_free", &f.poolFree},
		{"hsa_amd_agents_allow_access", &f.allowAccess},
		{"hsa_signal_create", &f.signalCreate}, {"hsa_signal_destroy", &f.signalDestroy},
		{"hsa_signal_load_scacquire", &f.signalLoad}, {"hsa_signal_store_screlease", &f.signalStore},
		{"hsa_signal_add_scacq_screl", &f.signalAdd}, {"hsa_signal_cas_scacq_screl", &f.signalCAS},
		{"hsa_signal_exchange_scacq_screl", &f.signalXchg}, {"hsa_signal_wait_scacquire", &f.signalWait},
		{"hsa_queue_create", &f.queueCreate}, {"hsa_queue_destroy", &f.queueDestroy},
		{"hsa_amd_profiling_set_profiler_enabled", &f.profilerEnable},
		{"hsa_amd_profiling_async_copy_enable", &f.asyncCopyEnable},
		{"hsa_amd_profiling_get_dispatch_time", &f.dispatchTime},
		{"hsa_amd_profiling_get_async_copy_time", &f.asyncCopyTime},
		{"hsa_amd_memory_async_copy", &f.asyncCopy}, {"hsa_amd_memory_fill", &f.memoryFill},
		{"hsa_code_object_reader_create_from_memory", &f.readerCreate},
		{"hsa_code_object_reader_destroy", &f.readerDestroy},
		{"hsa_executable_create_alt", &f.exeCreate}, {"hsa_executable_load_agent_code_object", &f.exeLoad},
		{"hsa_executable_freeze", &f.exeFreeze}, {"hsa_executable_get_symbol_by_name", &f.exeSymbol},
		{"hsa_executable_symbol_get_info", &f.symbolInfo}, {"hsa_executable_destroy", &f.exeDestroy},
	}
}

var loaded struct {
	sync.Mutex
	l *lib
}

// openLibrary loads ROCR once per process and resolves every function the
// driver calls. The library stays mapped: unloading ROCR runs its static
// destructors, which is not safe after a failed hsa_init.
func openLibrary() (hsaAPI, error) {
	loaded.Lock()
	defer loaded.Unlock()
	if loaded.l != nil {
		return loaded.l, nil
	}
	l, err := loadLibrary(libraryPaths())
	if err != nil {
		return nil, err
	}
	loaded.l = l
	return l, nil
}

// loadLibrary opens the first of paths that loads.
func loadLibrary(paths []string) (*lib, error) {
	h, err := vendorlib.ROCm.OpenFrom(paths)
	if err != nil {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "dlopen", "ROCm runtime not found: %v", err)
	}
	l := &lib{path: h.Path}
	for _, s := range l.symbols() {
		p := h.Sym(s.name)
		if p == 0 {
			return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorNotSupported, "dlopen",
				"%s lacks %s (a ROCm older than 5.0?)", l.path, s.name)
		}
		*s.p = p
	}
	// Shared virtual memory came later than the rest (ROCm 5.x, HMM).
	l.fn.svmSet = h.Sym("hsa_amd_svm_attributes_set")
	l.fn.svmPrefetch = h.Sym("hsa_amd_svm_prefetch_async")
	l.fn.copyRect = h.Sym("hsa_amd_memory_async_copy_rect")
	for _, o := range l.optional() {
		*o.p = h.Sym(o.name)
	}
	return l, nil
}

// The C callbacks, created once per process: purego callbacks are a
// limited resource that is never released.
var (
	cbOnce sync.Once
	// iterCB serves hsa_iterate_agents, hsa_agent_iterate_isas and
	// hsa_amd_agent_iterate_memory_pools: each passes one 8-byte handle
	// and the data pointer, which carries an iteration id.
	iterCB uintptr
	// queueCB is hsa_queue_create's error callback.
	queueCB uintptr
)

var iterations struct {
	m    sync.Map // uintptr -> func(uint64) hsaStatus
	next atomic.Uintptr
}

func callbacks() {
	cbOnce.Do(func() {
		iterCB = purego.NewCallback(func(h uint64, data uintptr) uintptr {
			f, ok := iterations.m.Load(data)
			if !ok {
				return uintptr(hsa.StatusErrorInvalidArgument)
			}
			return uintptr(f.(func(uint64) hsaStatus)(h))
		})
		queueCB = purego.NewCallback(func(st uint32, q, data uintptr) {
			queueError(hsaStatus(st), q, data)
		})
	})
}

// iterate runs the C iteration fn(args..., callback, data) with f as its
// callback.
func iterate[H ~uint64](fn uintptr, f func(H) hsaStatus, args ...uintptr) hsaStatus {
	callbacks()
	id := iterations.next.Add(1)
	iterations.m.Store(id, func(h uint64) hsaStatus { return f(H(h)) })
	defer iterations.m.Delete(id)
	r, _, _ := purego.SyscallN(fn, append(args, iterCB, id)...)
	return st(r)
}

func st(r uintptr) hsaStatus { return hsaStatus(uint32(r)) }

func b2u(b bool) uintptr {
	if b {
		return 1
	}
	return 0
}

// goString copies a NUL-terminated C string.
func goString(p uintptr) string {
	if p == 0 {
		return ""
	}
	n := 0
	for *(*byte)(hostmem.At(p + uintptr(n))) != 0 {
		n++
	}
	return string(unsafe.Slice((*byte)(hostmem.At(p)), n))
}

func cString(s string) []byte { return append([]byte(s), 0) }

func (l *lib) Init() hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.init)
	return st(r)
}

func (l *lib) ShutDown() hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.shutDown)
	return st(r)
}

func (l *lib) StatusString(s hsaStatus) string {
	var p uintptr
	r, _, _ := purego.SyscallN(l.fn.statusString, uintptr(s), uintptr(unsafe.Pointer(&p)))
	if st(r) != hsaSuccess || p == 0 {
		return hsa.Status(s).Name()
	}
	return goString(p)
}

func (l *lib) SystemGetInfo(attr uint32, out unsafe.Pointer) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.systemGetInfo, uintptr(attr), uintptr(out))
	return st(r)
}

func (l *lib) IterateAgents(f func(agentH) hsaStatus) hsaStatus {
	return iterate(l.fn.iterateAgents, f)
}

func (l *lib) AgentGetInfo(a agentH, attr uint32, out unsafe.Pointer) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.agentGetInfo, uintptr(a), uintptr(attr), uintptr(out))
	return st(r)
}

func (l *lib) AgentIterateISAs(a agentH, f func(isaH) hsaStatus) hsaStatus {
	return iterate(l.fn.agentIterateISAs, f, uintptr(a))
}

func (l *lib) ISAGetInfo(i isaH, attr uint32, out unsafe.Pointer) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.isaGetInfoAlt, uintptr(i), uintptr(attr), uintptr(out))
	return st(r)
}

func (l *lib) AgentIteratePools(a agentH, f func(poolH) hsaStatus) hsaStatus {
	return iterate(l.fn.iteratePools, f, uintptr(a))
}

func (l *lib) PoolGetInfo(p poolH, attr uint32, out unsafe.Pointer) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.poolGetInfo, uintptr(p), uintptr(attr), uintptr(out))
	return st(r)
}

func (l *lib) AgentPoolGetInfo(a agentH, p poolH, attr uint32, out unsafe.Pointer) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.agentPoolGetInfo, uintptr(a), uintptr(p), uintptr(attr), uintptr(out))
	return st(r)
}

func (l *lib) PoolAllocate(p poolH, size uint64) (uintptr, hsaStatus) {
	var ptr uintptr
	r, _, _ := purego.SyscallN(l.fn.poolAllocate, uintptr(p), uintptr(size), 0, uintptr(unsafe.Pointer(&ptr)))
	return ptr, st(r)
}

func (l *lib) PoolFree(ptr uintptr) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.poolFree, ptr)
	return st(r)
}

func (l *lib) AllowAccess(agents []agentH, ptr uintptr) hsaStatus {
	if len(agents) == 0 {
		return hsaSuccess
	}
	r, _, _ := purego.SyscallN(l.fn.allowAccess, uintptr(len(agents)), uintptr(unsafe.Pointer(&agents[0])), 0, ptr)
	return st(r)
}

func (l *lib) SignalCreate(initial int64) (signalH, hsaStatus) {
	var s signalH
	// No consumers listed: every agent, the host included, may wait on it.
	r, _, _ := purego.SyscallN(l.fn.signalCreate, uintptr(initial), 0, 0, uintptr(unsafe.Pointer(&s)))
	return s, st(r)
}

func (l *lib) SignalDestroy(s signalH) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.signalDestroy, uintptr(s))
	return st(r)
}

func (l *lib) SignalLoad(s signalH) int64 {
	r, _, _ := purego.SyscallN(l.fn.signalLoad, uintptr(s))
	return int64(r)
}

func (l *lib) SignalStore(s signalH, v int64) {
	purego.SyscallN(l.fn.signalStore, uintptr(s), uintptr(v))
}

func (l *lib) SignalAdd(s signalH, v int64) {
	purego.SyscallN(l.fn.signalAdd, uintptr(s), uintptr(v))
}

func (l *lib) SignalCAS(s signalH, old, v int64) int64 {
	r, _, _ := purego.SyscallN(l.fn.signalCAS, uintptr(s), uintptr(old), uintptr(v))
	return int64(r)
}

func (l *lib) SignalExchange(s signalH, v int64) int64 {
	r, _, _ := purego.SyscallN(l.fn.signalXchg, uintptr(s), uintptr(v))
	return int64(r)
}

func (l *lib) SignalWait(s signalH, cond uint32, cmp int64, ticks uint64, hint uint32) int64 {
	r, _, _ := purego.SyscallN(l.fn.signalWait, uintptr(s), uintptr(cond), uintptr(cmp), uintptr(ticks), uintptr(hint))
	return int64(r)
}

func (l *lib) QueueCreate(a agentH, size, typ uint32, data uintptr) (uintptr, hsaStatus) {
	callbacks()
	var q uintptr
	r, _, _ := purego.SyscallN(l.fn.queueCreate, uintptr(a), uintptr(size), uintptr(typ), queueCB, data,
		uintptr(segmentSizeAny), uintptr(segmentSizeAny), uintptr(unsafe.Pointer(&q)))
	return q, st(r)
}

func (l *lib) QueueDestroy(q uintptr) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.queueDestroy, q)
	return st(r)
}

func (l *lib) ProfilingSetProfilerEnabled(q uintptr, enable bool) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.profilerEnable, q, b2u(enable))
	return st(r)
}

func (l *lib) ProfilingAsyncCopyEnable(enable bool) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.asyncCopyEnable, b2u(enable))
	return st(r)
}

// profTime is hsa_amd_profiling_dispatch_time_t and
// hsa_amd_profiling_async_copy_time_t.
type profTime struct{ start, end uint64 }

func (l *lib) ProfilingGetDispatchTime(a agentH, s signalH) (uint64, uint64, hsaStatus) {
	var t profTime
	r, _, _ := purego.SyscallN(l.fn.dispatchTime, uintptr(a), uintptr(s), uintptr(unsafe.Pointer(&t)))
	return t.start, t.end, st(r)
}

func (l *lib) ProfilingGetAsyncCopyTime(s signalH) (uint64, uint64, hsaStatus) {
	var t profTime
	r, _, _ := purego.SyscallN(l.fn.asyncCopyTime, uintptr(s), uintptr(unsafe.Pointer(&t)))
	return t.start, t.end, st(r)
}

func (l *lib) MemoryAsyncCopy(dst uintptr, dstAgent agentH, src uintptr, srcAgent agentH, size uint64, deps []signalH, done signalH) hsaStatus {
	var dp uintptr
	if len(deps) > 0 {
		dp = uintptr(unsafe.Pointer(&deps[0]))
	}
	r, _, _ := purego.SyscallN(l.fn.asyncCopy, dst, uintptr(dstAgent), src, uintptr(srcAgent), uintptr(size),
		uintptr(len(deps)), dp, uintptr(done))
	return st(r)
}

func (l *lib) MemoryFill(ptr uintptr, value uint32, count uint64) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.memoryFill, ptr, uintptr(value), uintptr(count))
	return st(r)
}

func (l *lib) MemoryAsyncCopyRect(dst, src pitchedPtr, rng dim3, copyAgent agentH, dir uint32, deps []signalH, done signalH) hsaStatus {
	if l.fn.copyRect == 0 {
		return hsaStatus(hsa.StatusErrorNotSupported)
	}
	var off dim3
	var dp uintptr
	if len(deps) > 0 {
		dp = uintptr(unsafe.Pointer(&deps[0]))
	}
	r, _, _ := purego.SyscallN(l.fn.copyRect, uintptr(unsafe.Pointer(&dst)), uintptr(unsafe.Pointer(&off)),
		uintptr(unsafe.Pointer(&src)), uintptr(unsafe.Pointer(&off)), uintptr(unsafe.Pointer(&rng)),
		uintptr(copyAgent), uintptr(dir), uintptr(len(deps)), dp, uintptr(done))
	return st(r)
}

func (l *lib) SVMAttributesSet(ptr uintptr, size uint64, attrs []svmAttribute) hsaStatus {
	if l.fn.svmSet == 0 || len(attrs) == 0 {
		return hsaStatus(hsa.StatusErrorNotSupported)
	}
	r, _, _ := purego.SyscallN(l.fn.svmSet, ptr, uintptr(size), uintptr(unsafe.Pointer(&attrs[0])), uintptr(len(attrs)))
	return st(r)
}

func (l *lib) SVMPrefetchAsync(ptr uintptr, size uint64, a agentH, deps []signalH, done signalH) hsaStatus {
	if l.fn.svmPrefetch == 0 {
		return hsaStatus(hsa.StatusErrorNotSupported)
	}
	var dp uintptr
	if len(deps) > 0 {
		dp = uintptr(unsafe.Pointer(&deps[0]))
	}
	r, _, _ := purego.SyscallN(l.fn.svmPrefetch, ptr, uintptr(size), uintptr(a), uintptr(len(deps)), dp, uintptr(done))
	return st(r)
}

func (l *lib) CodeObjectReaderCreateFromMemory(ptr uintptr, size uint64) (readerH, hsaStatus) {
	var rd readerH
	r, _, _ := purego.SyscallN(l.fn.readerCreate, ptr, uintptr(size), uintptr(unsafe.Pointer(&rd)))
	return rd, st(r)
}

func (l *lib) CodeObjectReaderDestroy(rd readerH) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.readerDestroy, uintptr(rd))
	return st(r)
}

func (l *lib) ExecutableCreateAlt(profile, rounding uint32) (exeH, hsaStatus) {
	var e exeH
	r, _, _ := purego.SyscallN(l.fn.exeCreate, uintptr(profile), uintptr(rounding), 0, uintptr(unsafe.Pointer(&e)))
	return e, st(r)
}

func (l *lib) ExecutableLoadAgentCodeObject(e exeH, a agentH, rd readerH) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.exeLoad, uintptr(e), uintptr(a), uintptr(rd), 0, 0)
	return st(r)
}

func (l *lib) ExecutableFreeze(e exeH) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.exeFreeze, uintptr(e), 0)
	return st(r)
}

func (l *lib) ExecutableGetSymbolByName(e exeH, name string, a agentH) (symbolH, hsaStatus) {
	var s symbolH
	cname := cString(name)
	r, _, _ := purego.SyscallN(l.fn.exeSymbol, uintptr(e), uintptr(unsafe.Pointer(&cname[0])),
		uintptr(unsafe.Pointer(&a)), uintptr(unsafe.Pointer(&s)))
	return s, st(r)
}

func (l *lib) ExecutableSymbolGetInfo(s symbolH, attr uint32, out unsafe.Pointer) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.symbolInfo, uintptr(s), uintptr(attr), uintptr(out))
	return st(r)
}

func (l *lib) ExecutableDestroy(e exeH) hsaStatus {
	r, _, _ := purego.SyscallN(l.fn.exeDestroy, uintptr(e))
	return st(r)
}
