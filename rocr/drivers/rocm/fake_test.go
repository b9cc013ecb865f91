package rocm

import (
	"bytes"
	"fmt"
	"github.com/hipgo/hipgo/rocr/spi"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// fakeHSA is a fake of ROCR's function table: agents, pools, signals and
// queues live in Go and mapped memory, and a fake command processor runs
// the packets rocr writes into the ring.
type fakeHSA struct {
	mu         sync.Mutex
	initStatus hsaStatus
	freq       uint64
	calls      []string
	agents     []*fakeAgent
	pools      map[poolH]*fakePool
	next       uint64

	signals  sync.Map // signalH -> *int64
	nsignals atomic.Int64
	times    map[signalH][2]uint64 // dispatch timestamps in ticks
	spurious atomic.Int32          // waits that return early

	allocs  map[uintptr]uint64 // live allocations and their sizes
	allowed map[uintptr][]agentH

	queues map[uintptr]*fakeQueue

	readers map[readerH][]byte
	exes    map[exeH]bool // frozen
	symbols map[string]fakeSymbol
	syms    map[symbolH]fakeSymbol

	stores map[signalH][]int64 // host stores, by signal

	copies []fakeCopy
	fills  []fakeFill
	fail   map[string]hsaStatus // method -> status to return

	// Shared virtual memory: noSVM turns it off; svmDefault is
	// HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT; svm and prefetches
	// record the calls.
	noSVM, svmDefault bool
	svm               []fakeSVM
	prefetches        []fakeSVM

	rects []fakeRect // hsa_amd_memory_async_copy_rect calls

	// kernels stand for the code of kernel objects: the command
	// processor runs one on each dispatch of its object (AddKernel).
	kernels map[uint64]func(p *aql.KernelDispatch)
}

type fakeRect struct {
	dst, src pitchedPtr
	rng      dim3
	dir      uint32
	agent    agentH
}

// fakeSVM is one hsa_amd_svm_attributes_set or prefetch call.
type fakeSVM struct {
	ptr   uintptr
	size  uint64
	attrs []svmAttribute
	to    agentH
}

type fakeAgent struct {
	h       agentH
	dev     uint32
	feature uint32
	u32     map[uint32]uint32
	str     map[uint32]string
	isas    []string
	pools   []poolH
	access  map[poolH]uint32 // this agent's access to other agents' pools
}

type fakePool struct {
	h                poolH
	seg, flags       uint32
	size             uint64
	allowed, all     bool
	granule, alignOf uint64
}

type fakeSymbol struct {
	obj                          uint64
	kaSize, kaAlign, group, priv uint32
	// A variable's kind (HSA_SYMBOL_KIND_VARIABLE is 0), address and size.
	kind uint32
	addr uint64
	size uint32
}

type fakeCopy struct {
	dst, src           uintptr
	dstAgent, srcAgent agentH
	n                  uint64
	deps               []signalH
	done               signalH
}

type fakeFill struct {
	ptr   uintptr
	value uint32
	count uint64
}

type fakeQueue struct {
	f       *fakeHSA
	agent   agentH
	amd     uintptr // amd_queue_t
	ring    uintptr
	size    uint32
	typ     uint32
	key     uintptr
	profile atomic.Bool
	stop    chan struct{}
	done    chan struct{}
	packets [][aql.PacketSize]byte // what the command processor read
	pmu     sync.Mutex
}

const fakeStatusText = "HSA_STATUS_FAKE: the fake says no"

func (f *fakeHSA) h() uint64 { f.next += 0x100; return f.next }

// newFake builds a machine with one CPU agent and one GPU, as ROCR 5.x
// lists them, plus an agent that is neither (filtered out).
func newFake() *fakeHSA {
	f := &fakeHSA{
		freq:    100_000_000, // 100 MHz, as ROCR reports on many systems
		pools:   map[poolH]*fakePool{},
		times:   map[signalH][2]uint64{},
		stores:  map[signalH][]int64{},
		allocs:  map[uintptr]uint64{},
		allowed: map[uintptr][]agentH{},
		queues:  map[uintptr]*fakeQueue{},
		readers: map[readerH][]byte{},
		exes:    map[exeH]bool{},
		symbols: map[string]fakeSymbol{},
		syms:    map[symbolH]fakeSymbol{},
		fail:    map[string]hsaStatus{},
		kernels: map[uint64]func(*aql.KernelDispatch){},
		next:    0x1000,
	}
	pool := func(seg, flags uint32, size uint64, allowed, all bool) poolH {
		p := &fakePool{h: poolH(f.h()), seg: seg, flags: flags, size: size, allowed: allowed, all: all, granule: 4096, alignOf: 4096}
		f.pools[p.h] = p
		return p.h
	}
	cpu := &fakeAgent{h: agentH(f.h()), dev: 0, u32: map[uint32]uint32{}, str: map[uint32]string{agentName: "AMD EPYC 7763"}}
	cpu.pools = []poolH{
		pool(0, 2, 512<<30, true, true),  // fine-grained system
		pool(0, 3, 512<<30, true, true),  // kernarg, fine-grained
		pool(0, 4, 512<<30, true, false), // coarse-grained system
	}
	gpu := &fakeAgent{h: agentH(f.h()), dev: 1, feature: 1,
		u32: map[uint32]uint32{
			agentWavefrontSize: 64, agentWGMaxSize: 1024, agentGridMaxSize: 0xffffffff,
			agentQueuesMax: 128, agentQueueMinSize: 64, agentQueueMaxSize: 131072, agentNode: 1,
			amdComputeUnitCount: 104, amdMaxClockMHz: 1700, amdBDFID: 0x2f<<8 | 3<<3, amdMemoryWidth: 4096,
			amdMemoryMaxMHz: 1600, amdDomain: 2,
		},
		str:  map[uint32]string{agentName: "gfx90a", agentVendor: "AMD", amdProductName: "AMD Instinct MI210", amdUUID: "GPU-0123456789abcdef"},
		isas: []string{"amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "amdgcn-amd-amdhsa--gfx90a"},
	}
	gpu.pools = []poolH{
		pool(0, 4, 64<<30, true, false), // coarse-grained VRAM
		pool(0, 2, 64<<30, true, false), // fine-grained VRAM: not offered
		pool(3, 0, 64<<10, false, false),
	}
	gpu.access = map[poolH]uint32{cpu.pools[0]: accessDisallowDefault, cpu.pools[1]: accessDisallowDefault, cpu.pools[2]: accessDisallowDefault}
	dsp := &fakeAgent{h: agentH(f.h()), dev: 2, u32: map[uint32]uint32{}, str: map[uint32]string{}}
	f.agents = []*fakeAgent{cpu, gpu, dsp}
	return f
}

func (f *fakeHSA) log(format string, args ...any) {
	f.mu.Lock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeHSA) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeHSA) failing(name string) (hsaStatus, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.fail[name]
	return s, ok
}

func (f *fakeHSA) agent(h agentH) *fakeAgent {
	for _, a := range f.agents {
		if a.h == h {
			return a
		}
	}
	return nil
}

func (f *fakeHSA) Init() hsaStatus {
	f.log("init")
	if f.initStatus != hsaSuccess {
		return f.initStatus
	}
	return hsaSuccess
}

func (f *fakeHSA) ShutDown() hsaStatus { f.log("shut_down"); return hsaSuccess }

func (f *fakeHSA) StatusString(s hsaStatus) string {
	f.log("status_string")
	if s == f.initStatus {
		return fakeStatusText
	}
	return fmt.Sprintf("HSA_STATUS(%#x): fake text", uint32(s))
}

func (f *fakeHSA) SystemGetInfo(attr uint32, out unsafe.Pointer) hsaStatus {
	f.log("system_get_info %d", attr)
	switch attr {
	case sysVersionMajor, sysVersionMinor:
		*(*uint16)(out) = 1
	case sysTimestampFrequency:
		*(*uint64)(out) = f.freq
	case sysSVMSupported:
		*(*bool)(out) = !f.noSVM
	case sysSVMAccessDefault:
		*(*bool)(out) = f.svmDefault
	default:
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	return hsaSuccess
}

func (f *fakeHSA) IterateAgents(fn func(agentH) hsaStatus) hsaStatus {
	f.log("iterate_agents")
	for _, a := range f.agents {
		if s := fn(a.h); s != hsaSuccess {
			return s
		}
	}
	return hsaSuccess
}

func (f *fakeHSA) AgentGetInfo(h agentH, attr uint32, out unsafe.Pointer) hsaStatus {
	a := f.agent(h)
	if a == nil {
		return hsaStatus(hsa.StatusErrorInvalidAgent)
	}
	switch attr {
	case agentDevice:
		*(*uint32)(out) = a.dev
	case agentFeature:
		*(*uint32)(out) = a.feature
	case agentName, agentVendor, amdProductName, amdUUID:
		n := 64
		if attr == amdUUID {
			n = 21
		}
		b := unsafe.Slice((*byte)(out), n)
		clear(b)
		copy(b[:n-1], a.str[attr])
	case agentWGMaxDim:
		*(*[3]uint16)(out) = [3]uint16{1024, 1024, 1024}
	case agentGridMaxDim:
		*(*[3]uint32)(out) = [3]uint32{0xffffffff, 0xffffffff, 0xffffffff}
	case agentCacheSize:
		*(*[4]uint32)(out) = [4]uint32{16 << 10, 8 << 20, 0, 0}
	default:
		v, ok := a.u32[attr]
		if !ok {
			return hsaStatus(hsa.StatusErrorInvalidArgument)
		}
		*(*uint32)(out) = v
	}
	return hsaSuccess
}

func (f *fakeHSA) AgentIterateISAs(h agentH, fn func(isaH) hsaStatus) hsaStatus {
	a := f.agent(h)
	for i := range a.isas {
		if s := fn(isaH(uint64(h)<<8 | uint64(i))); s != hsaSuccess {
			return s
		}
	}
	return hsaSuccess
}

func (f *fakeHSA) ISAGetInfo(i isaH, attr uint32, out unsafe.Pointer) hsaStatus {
	name := f.agent(agentH(i >> 8)).isas[i&0xff]
	switch attr {
	case isaNameLength:
		*(*uint32)(out) = uint32(len(name) + 1) // ROCR counts the NUL
	case isaName:
		b := unsafe.Slice((*byte)(out), len(name)+1)
		copy(b, name)
		b[len(name)] = 0
	default:
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	return hsaSuccess
}

func (f *fakeHSA) AgentIteratePools(h agentH, fn func(poolH) hsaStatus) hsaStatus {
	for _, p := range f.agent(h).pools {
		if s := fn(p); s != hsaSuccess {
			return s
		}
	}
	return hsaSuccess
}

func (f *fakeHSA) PoolGetInfo(h poolH, attr uint32, out unsafe.Pointer) hsaStatus {
	p := f.pools[h]
	switch attr {
	case poolSegment:
		*(*uint32)(out) = p.seg
	case poolGlobalFlags:
		if p.seg != 0 {
			return hsaStatus(hsa.StatusErrorInvalidArgument)
		}
		*(*uint32)(out) = p.flags
	case poolSize:
		*(*uint64)(out) = p.size
	case poolAllocAllowed:
		*(*bool)(out) = p.allowed
	case poolAllocGranule:
		*(*uint64)(out) = p.granule
	case poolAllocAlignment:
		*(*uint64)(out) = p.alignOf
	case poolAccessibleByAll:
		*(*bool)(out) = p.all
	default:
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	return hsaSuccess
}

func (f *fakeHSA) AgentPoolGetInfo(a agentH, p poolH, attr uint32, out unsafe.Pointer) hsaStatus {
	if attr != agentPoolAccess {
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	ag := f.agent(a)
	for _, own := range ag.pools {
		if own == p {
			*(*uint32)(out) = accessAllowedDefault
			return hsaSuccess
		}
	}
	*(*uint32)(out) = ag.access[p]
	return hsaSuccess
}

func (f *fakeHSA) PoolAllocate(p poolH, size uint64) (uintptr, hsaStatus) {
	if s, ok := f.failing("PoolAllocate"); ok {
		return 0, s
	}
	if !f.pools[p].allowed {
		return 0, hsaStatus(hsa.StatusErrorInvalidAllocation)
	}
	ptr, err := spi.MapAnonymous(uintptr(size))
	if err != nil {
		return 0, hsaStatus(hsa.StatusErrorOutOfResources)
	}
	f.mu.Lock()
	f.allocs[ptr] = size
	f.mu.Unlock()
	f.log("pool_allocate %#x %d", uint64(p), size)
	return ptr, hsaSuccess
}

func (f *fakeHSA) PoolFree(ptr uintptr) hsaStatus {
	f.mu.Lock()
	size, ok := f.allocs[ptr]
	delete(f.allocs, ptr)
	delete(f.allowed, ptr)
	f.mu.Unlock()
	if !ok {
		return hsaStatus(hsa.StatusErrorInvalidAllocation)
	}
	f.log("pool_free")
	_ = spi.Unmap(ptr, uintptr(size))
	return hsaSuccess
}

func (f *fakeHSA) AllowAccess(agents []agentH, ptr uintptr) hsaStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.allocs[ptr]; !ok {
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	f.allowed[ptr] = append(f.allowed[ptr], agents...)
	return hsaSuccess
}

func (f *fakeHSA) value(s signalH) *int64 {
	v, ok := f.signals.Load(s)
	if !ok {
		panic(fmt.Sprintf("fake: signal %#x does not exist", uint64(s)))
	}
	return v.(*int64)
}

func (f *fakeHSA) SignalCreate(initial int64) (signalH, hsaStatus) {
	if s, ok := f.failing("SignalCreate"); ok {
		return 0, s
	}
	f.mu.Lock()
	h := signalH(f.h())
	f.mu.Unlock()
	v := initial
	f.signals.Store(h, &v)
	f.nsignals.Add(1)
	return h, hsaSuccess
}

func (f *fakeHSA) SignalDestroy(s signalH) hsaStatus {
	if _, ok := f.signals.LoadAndDelete(s); !ok {
		return hsaStatus(hsa.StatusErrorInvalidSignal)
	}
	f.nsignals.Add(-1)
	return hsaSuccess
}

func (f *fakeHSA) SignalLoad(s signalH) int64     { return atomic.LoadInt64(f.value(s)) }
func (f *fakeHSA) SignalStore(s signalH, v int64) { f.store(s, v) }
func (f *fakeHSA) SignalAdd(s signalH, v int64)   { atomic.AddInt64(f.value(s), v) }
func (f *fakeHSA) SignalCAS(s signalH, old, v int64) int64 {
	p := f.value(s)
	for {
		if atomic.CompareAndSwapInt64(p, old, v) {
			return old
		}
		if cur := atomic.LoadInt64(p); cur != old {
			return cur
		}
	}
}
func (f *fakeHSA) SignalExchange(s signalH, v int64) int64 { return atomic.SwapInt64(f.value(s), v) }

// store records every host store (doorbells included).
func (f *fakeHSA) store(s signalH, v int64) {
	f.mu.Lock()
	f.stores[s] = append(f.stores[s], v)
	f.mu.Unlock()
	atomic.StoreInt64(f.value(s), v)
}

func (f *fakeHSA) storesTo(s uint64) []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.stores[signalH(s)]...)
}

func (f *fakeHSA) SignalWait(s signalH, cond uint32, cmp int64, ticks uint64, hint uint32) int64 {
	p := f.value(s)
	if f.spurious.Load() > 0 {
		f.spurious.Add(-1)
		return atomic.LoadInt64(p)
	}
	var deadline time.Time
	if ticks != waitForeverTicks {
		deadline = time.Now().Add(time.Duration(ticks * 1e9 / f.freq))
	}
	for {
		v := atomic.LoadInt64(p)
		if hsa.Condition(cond).Holds(v, cmp) || (!deadline.IsZero() && time.Now().After(deadline)) {
			return v
		}
		time.Sleep(20 * time.Microsecond)
	}
}

func (f *fakeHSA) QueueCreate(a agentH, size, typ uint32, key uintptr) (uintptr, hsaStatus) {
	if s, ok := f.failing("QueueCreate"); ok {
		return 0, s
	}
	amd, err := spi.MapAnonymous(amdQueueBytes)
	if err != nil {
		return 0, hsaStatus(hsa.StatusErrorOutOfResources)
	}
	ring, err := spi.MapAnonymous(uintptr(size) * aql.PacketSize)
	if err != nil {
		return 0, hsaStatus(hsa.StatusErrorOutOfResources)
	}
	for i := uint32(0); i < size; i++ {
		*(*uint16)(hostmem.At(ring + uintptr(i)*aql.PacketSize)) = uint16(aql.TypeInvalid)
	}
	db, _ := f.SignalCreate(0)
	f.mu.Lock()
	id := f.h()
	f.mu.Unlock()
	*(*uint32)(hostmem.At(amd)) = typ
	*(*uint64)(hostmem.At(amd + hsaQueueBase)) = uint64(ring)
	*(*uint64)(hostmem.At(amd + hsaQueueDoorbell)) = uint64(db)
	*(*uint32)(hostmem.At(amd + hsaQueueSize)) = size
	*(*uint64)(hostmem.At(amd + hsaQueueID)) = id
	q := &fakeQueue{f: f, agent: a, amd: amd, ring: ring, size: size, typ: typ, key: key, stop: make(chan struct{}), done: make(chan struct{})}
	f.mu.Lock()
	f.queues[amd] = q
	f.mu.Unlock()
	f.log("queue_create %d %d", size, typ)
	go q.process()
	return amd, hsaSuccess
}

func (f *fakeHSA) QueueDestroy(amd uintptr) hsaStatus {
	f.mu.Lock()
	q, ok := f.queues[amd]
	delete(f.queues, amd)
	f.mu.Unlock()
	if !ok {
		return hsaStatus(hsa.StatusErrorInvalidQueue)
	}
	close(q.stop)
	<-q.done
	db := signalH(*(*uint64)(hostmem.At(amd + hsaQueueDoorbell)))
	f.SignalDestroy(db)
	_ = spi.Unmap(q.ring, uintptr(q.size)*aql.PacketSize)
	_ = spi.Unmap(amd, amdQueueBytes)
	f.log("queue_destroy")
	return hsaSuccess
}

func (f *fakeHSA) queue(amd uintptr) *fakeQueue {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queues[amd]
}

// process is the fake command processor: it waits for the doorbell, takes
// published packets in order, completes barriers and dispatches, and
// advances read_dispatch_id, as a GPU's CP does.
func (q *fakeQueue) process() {
	defer close(q.done)
	read := (*uint64)(hostmem.At(q.amd + amdQueueReadDispatchID))
	for {
		select {
		case <-q.stop:
			return
		default:
		}
		id := atomic.LoadUint64(read)
		slot := hostmem.At(q.ring + uintptr(id%uint64(q.size))*aql.PacketSize)
		h := aql.Header(atomic.LoadUint32((*uint32)(slot)))
		if h.Type() == aql.TypeInvalid {
			time.Sleep(10 * time.Microsecond)
			continue
		}
		pkt := *(*[aql.PacketSize]byte)(slot)
		q.pmu.Lock()
		q.packets = append(q.packets, pkt)
		q.pmu.Unlock()
		done := *(*uint64)(unsafe.Add(slot, 56))
		if h.Type() == aql.TypeKernelDispatch {
			p := (*aql.KernelDispatch)(unsafe.Pointer(&pkt))
			q.f.mu.Lock()
			run := q.f.kernels[p.KernelObject]
			q.f.mu.Unlock()
			if run != nil {
				run(p)
			}
		}
		if h.Type() == aql.TypeBarrierAnd {
			b := (*aql.BarrierAnd)(slot)
			for _, d := range b.DepSignal {
				if d != 0 {
					for atomic.LoadInt64(q.f.value(signalH(d))) != 0 {
						// hsa_queue_destroy does not wait for a barrier to
						// resolve: a destroyed queue's CP stops where it is.
						select {
						case <-q.stop:
							return
						default:
						}
						time.Sleep(10 * time.Microsecond)
					}
				}
			}
		}
		if done != 0 {
			if q.profile.Load() {
				q.f.mu.Lock()
				q.f.times[signalH(done)] = [2]uint64{1000 + id*100, 1500 + id*100}
				q.f.mu.Unlock()
			}
			atomic.AddInt64(q.f.value(signalH(done)), -1)
		}
		atomic.StoreUint32((*uint32)(slot), uint32(aql.TypeInvalid))
		atomic.StoreUint64(read, id+1)
	}
}

func (f *fakeHSA) ProfilingSetProfilerEnabled(amd uintptr, enable bool) hsaStatus {
	q := f.queue(amd)
	if q == nil {
		return hsaStatus(hsa.StatusErrorInvalidQueue)
	}
	q.profile.Store(enable)
	return hsaSuccess
}

func (f *fakeHSA) ProfilingAsyncCopyEnable(bool) hsaStatus {
	f.log("async_copy_enable")
	return hsaSuccess
}

func (f *fakeHSA) ProfilingGetDispatchTime(a agentH, s signalH) (uint64, uint64, hsaStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.times[s]
	if !ok {
		return 0, 0, hsaStatus(hsa.StatusErrorInvalidSignal)
	}
	return t[0], t[1], hsaSuccess
}

func (f *fakeHSA) ProfilingGetAsyncCopyTime(s signalH) (uint64, uint64, hsaStatus) {
	return 0, 0, hsaStatus(hsa.StatusErrorInvalidSignal)
}

func (f *fakeHSA) MemoryAsyncCopy(dst uintptr, dstAgent agentH, src uintptr, srcAgent agentH, size uint64, deps []signalH, done signalH) hsaStatus {
	if s, ok := f.failing("MemoryAsyncCopy"); ok {
		return s
	}
	f.mu.Lock()
	f.copies = append(f.copies, fakeCopy{dst, src, dstAgent, srcAgent, size, append([]signalH(nil), deps...), done})
	f.mu.Unlock()
	deps = append([]signalH(nil), deps...)
	go func() {
		for _, d := range deps {
			for atomic.LoadInt64(f.value(d)) != 0 {
				time.Sleep(10 * time.Microsecond)
			}
		}
		copy(hostmem.Bytes(dst, uintptr(size)), hostmem.Bytes(src, uintptr(size)))
		atomic.AddInt64(f.value(done), -1)
	}()
	return hsaSuccess
}

func (f *fakeHSA) MemoryFill(ptr uintptr, value uint32, count uint64) hsaStatus {
	if ptr%4 != 0 {
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	f.mu.Lock()
	f.fills = append(f.fills, fakeFill{ptr, value, count})
	f.mu.Unlock()
	w := unsafe.Slice((*uint32)(hostmem.At(ptr)), count)
	for i := range w {
		w[i] = value
	}
	return hsaSuccess
}

// MemoryAsyncCopyRect copies like SDMA: 4-byte aligned ends, a GPU copy
// agent, never host to host.
func (f *fakeHSA) MemoryAsyncCopyRect(dst, src pitchedPtr, rng dim3, copyAgent agentH, dir uint32, deps []signalH, done signalH) hsaStatus {
	if s, ok := f.failing("copy_rect"); ok {
		return s
	}
	if (uint64(dst.base)|dst.pitch|dst.slice|uint64(src.base)|src.pitch|src.slice)&3 != 0 || dir == 0 || dir > 3 {
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	if a := f.agent(copyAgent); a == nil || a.dev != 1 {
		return hsaStatus(hsa.StatusErrorInvalidAgent)
	}
	f.mu.Lock()
	f.rects = append(f.rects, fakeRect{dst, src, rng, dir, copyAgent})
	f.mu.Unlock()
	deps = append([]signalH(nil), deps...)
	go func() {
		for _, d := range deps {
			for atomic.LoadInt64(f.value(d)) != 0 {
				time.Sleep(10 * time.Microsecond)
			}
		}
		for z := uint64(0); z < uint64(rng.z); z++ {
			for y := uint64(0); y < uint64(rng.y); y++ {
				copy(hostmem.Bytes(dst.base+uintptr(z*dst.slice+y*dst.pitch), uintptr(rng.x)),
					hostmem.Bytes(src.base+uintptr(z*src.slice+y*src.pitch), uintptr(rng.x)))
			}
		}
		atomic.AddInt64(f.value(done), -1)
	}()
	return hsaSuccess
}

func (f *fakeHSA) SVMAttributesSet(ptr uintptr, size uint64, attrs []svmAttribute) hsaStatus {
	if s, ok := f.failing("svm_attributes_set"); ok {
		return s
	}
	if f.noSVM || ptr%4096 != 0 || len(attrs) == 0 {
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	f.mu.Lock()
	f.svm = append(f.svm, fakeSVM{ptr: ptr, size: size, attrs: append([]svmAttribute(nil), attrs...)})
	f.mu.Unlock()
	return hsaSuccess
}

func (f *fakeHSA) SVMPrefetchAsync(ptr uintptr, size uint64, a agentH, deps []signalH, done signalH) hsaStatus {
	if f.noSVM || f.agent(a) == nil {
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	f.mu.Lock()
	f.prefetches = append(f.prefetches, fakeSVM{ptr: ptr, size: size, to: a})
	f.mu.Unlock()
	go atomic.AddInt64(f.value(done), -1)
	return hsaSuccess
}

func (f *fakeHSA) CodeObjectReaderCreateFromMemory(ptr uintptr, size uint64) (readerH, hsaStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := readerH(f.h())
	// ROCR keeps the pointer; the fake keeps a view to check it stays valid.
	f.readers[r] = hostmem.Bytes(ptr, uintptr(size))
	return r, hsaSuccess
}

func (f *fakeHSA) CodeObjectReaderDestroy(r readerH) hsaStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.readers, r)
	f.calls = append(f.calls, "reader_destroy")
	return hsaSuccess
}

func (f *fakeHSA) ExecutableCreateAlt(profile, rounding uint32) (exeH, hsaStatus) {
	f.log("executable_create_alt %d %d", profile, rounding)
	f.mu.Lock()
	defer f.mu.Unlock()
	e := exeH(f.h())
	f.exes[e] = false
	return e, hsaSuccess
}

func (f *fakeHSA) ExecutableLoadAgentCodeObject(e exeH, a agentH, r readerH) hsaStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.readers[r]
	if !ok || f.agent(a) == nil {
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	if !bytes.HasPrefix(b, []byte("\x7fELF")) {
		return hsaStatus(hsa.StatusErrorInvalidCodeObject)
	}
	return hsaSuccess
}

func (f *fakeHSA) ExecutableFreeze(e exeH) hsaStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.exes[e] = true
	return hsaSuccess
}

func (f *fakeHSA) ExecutableGetSymbolByName(e exeH, name string, a agentH) (symbolH, hsaStatus) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.exes[e] {
		return 0, hsaStatus(hsa.StatusErrorInvalidExecutable)
	}
	sym, ok := f.symbols[name]
	if !ok {
		return 0, hsaStatus(hsa.StatusErrorInvalidSymbolName)
	}
	h := symbolH(f.h())
	f.syms[h] = sym
	return h, hsaSuccess
}

func (f *fakeHSA) ExecutableSymbolGetInfo(s symbolH, attr uint32, out unsafe.Pointer) hsaStatus {
	f.mu.Lock()
	sym, ok := f.syms[s]
	f.mu.Unlock()
	if !ok {
		return hsaStatus(hsa.StatusErrorInvalidExecutableSymbol)
	}
	switch attr {
	case symKernelObject:
		*(*uint64)(out) = sym.obj
	case symKernargSize:
		*(*uint32)(out) = sym.kaSize
	case symKernargAlign:
		*(*uint32)(out) = sym.kaAlign
	case symGroupSize:
		*(*uint32)(out) = sym.group
	case symPrivateSize:
		*(*uint32)(out) = sym.priv
	case symType:
		*(*uint32)(out) = sym.kind
	case symVariableAddr:
		*(*uint64)(out) = sym.addr
	case symVariableSize:
		*(*uint32)(out) = sym.size
	default:
		return hsaStatus(hsa.StatusErrorInvalidArgument)
	}
	return hsaSuccess
}

func (f *fakeHSA) ExecutableDestroy(e exeH) hsaStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.exes[e]; !ok {
		return hsaStatus(hsa.StatusErrorInvalidExecutable)
	}
	delete(f.exes, e)
	f.calls = append(f.calls, "executable_destroy")
	return hsaSuccess
}

var _ hsaAPI = (*fakeHSA)(nil)
var _ hsaAPI = (*lib)(nil)
