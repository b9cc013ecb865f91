package rocm

import (
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// The optional interfaces the gpu layer finds on a rocm agent (see doc.go).
type (
	signalFactory interface {
		NewSignal(initial int64) (spi.SignalBackend, error)
	}
	copier interface {
		CopyAsync(dst, src uintptr, n uint64, deps []spi.Signal, done spi.Signal) error
		FillAsync(dst uintptr, pattern, count uint64, elemSize int, deps []spi.Signal, done spi.Signal) error
	}
	errorBinder interface {
		BindQueueErrors(id uint64, fail func(error))
	}
)

var (
	_ spi.HardwareQueues = (*agent)(nil)
	_ signalFactory      = (*agent)(nil)
	_ copier             = (*agent)(nil)
	_ errorBinder        = (*agent)(nil)
)

// openFake opens a driver over f, outside rocr.
func openFake(t *testing.T, f *fakeHSA) (*driver, []spi.AgentDriver, error) {
	t.Helper()
	d := &driver{open: func() (hsaAPI, error) { return f, nil }}
	ads, err := d.Open(rocr.Host())
	if err == nil {
		t.Cleanup(func() { _ = d.Close() })
	}
	return d, ads, err
}

// initFake runs rocr.Init with only this driver, over f, and returns the
// GPU agent.
func initFake(t *testing.T, f *fakeHSA) *rocr.Agent {
	t.Helper()
	old := theDriver.open
	theDriver.open = func() (hsaAPI, error) { return f, nil }
	t.Setenv("HIPGO_DRIVER", Name)
	if err := rocr.Init(); err != nil {
		theDriver.open = old
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := rocr.ShutDown(); err != nil {
			t.Error(err)
		}
		theDriver.open = old
	})
	as, err := rocr.Agents()
	if err != nil || len(as) != 1 {
		t.Fatalf("agents %v, %v: want one rocm GPU", as, err)
	}
	return as[0]
}

func TestOpenAgentsAndPools(t *testing.T) {
	f := newFake()
	_, ads, err := openFake(t, f)
	if err != nil {
		t.Fatal(err)
	}
	if len(ads) != 1 {
		t.Fatalf("%d agents, want the one GPU (the CPU and DSP agents are not ours)", len(ads))
	}
	in := ads[0].Info()
	want := hsa.AgentInfo{
		Name: "gfx90a", Vendor: "AMD", ProductName: "AMD Instinct MI210", Type: hsa.DeviceGPU,
		ISA: "gfx90a:sramecc+:xnack-", Wavefront: 64, ComputeUnits: 104, MaxWorkGroupSize: 1024,
		MaxWorkGroupDim: [3]int{1024, 1024, 1024}, MaxGridSize: [3]uint64{0xffffffff, 0xffffffff, 0xffffffff},
		MaxGrid: 0xffffffff, QueueMinSize: 64, QueueMaxSize: 131072, QueuesMax: 128,
		GroupMemSize: 64 << 10, MaxDynamicGroup: 64 << 10, TotalMemory: 64 << 30, ClockMHz: 1700,
		MemoryClockMHz: 1600, MemoryBusWidth: 4096, L2CacheSize: 8 << 20, PCIDomain: 2, PCIBus: 0x2f,
		PCIDevice: 3, UUID: "GPU-0123456789abcdef", Node: 1, ComputeMajor: 9, ComputeMinor: 0,
		DriverVersion: "ROCR, HSA 1.1", Profiling: true,
		// The fake answers neither MAX_WAVES_PER_CU nor COOPERATIVE_QUEUES.
		GroupMemPerCU: 64 << 10, RegsPerBlock: 64 << 10, TotalConstMem: 1<<31 - 1, MemPitch: 1<<31 - 1,
		AsyncEngines: 2, ConcurrentKernels: true, ManagedMemory: true,
	}
	if in != want {
		t.Errorf("info\n got %+v\nwant %+v", in, want)
	}
	cpu, gpu := f.agents[0], f.agents[1]
	pools := ads[0].Pools()
	type pw struct {
		h     poolH
		seg   hsa.Segment
		flags hsa.GlobalFlag
		host  bool
		allow []agentH
	}
	wantPools := []pw{
		{gpu.pools[0], hsa.SegmentGlobal, hsa.FlagCoarseGrained, false, nil},
		{cpu.pools[0], hsa.SegmentGlobal, hsa.FlagFineGrained, true, []agentH{gpu.h}},
		{cpu.pools[1], hsa.SegmentGlobal, hsa.FlagFineGrained | hsa.FlagKernargInit, true, []agentH{gpu.h}},
		{gpu.pools[2], hsa.SegmentGroup, 0, false, nil},
	}
	if len(pools) != len(wantPools) {
		t.Fatalf("%d pools, want %d", len(pools), len(wantPools))
	}
	for i, w := range wantPools {
		p := pools[i].(*pool)
		pi := p.Info()
		if p.h != w.h || pi.Segment != w.seg || pi.Flags != w.flags || pi.Host != w.host || !slices.Equal(p.allow, w.allow) {
			t.Errorf("pool %d: %#x %+v allow %v; want %+v", i, uint64(p.h), pi, p.allow, w)
		}
	}
	if a := ads[0].(*agent); a.cpu != cpu.h || a.host != pools[1] {
		t.Errorf("host side: cpu %#x, want %#x", uint64(a.cpu), uint64(cpu.h))
	}
	if !slices.Contains(f.callLog(), "async_copy_enable") {
		t.Error("copy profiling not enabled")
	}
}

func TestOpenPoolVariants(t *testing.T) {
	t.Run("combined fine and kernarg pool", func(t *testing.T) {
		f := newFake()
		cpu := f.agents[0]
		cpu.pools = cpu.pools[1:] // only FINE|KERNARG and COARSE remain
		_, ads, err := openFake(t, f)
		if err != nil {
			t.Fatal(err)
		}
		pools := ads[0].Pools()
		if len(pools) != 3 || pools[1].(*pool).h != cpu.pools[0] {
			t.Fatalf("pools %v: want device, the one system pool for host and kernargs, group", pools)
		}
	})
	t.Run("system pools the GPU may not access", func(t *testing.T) {
		f := newFake()
		gpu := f.agents[1]
		for p := range gpu.access {
			gpu.access[p] = accessNeverAllowed
		}
		_, _, err := openFake(t, f)
		if !errors.Is(err, hsa.ErrNotSupported) || !strings.Contains(err.Error(), "fine-grained and kernarg") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("accessible by default needs no allow_access", func(t *testing.T) {
		f := newFake()
		gpu := f.agents[1]
		for p := range gpu.access {
			gpu.access[p] = accessAllowedDefault
		}
		_, ads, err := openFake(t, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ads[0].Pools() {
			if len(p.(*pool).allow) != 0 {
				t.Errorf("pool %+v: allow %v", p.Info(), p.(*pool).allow)
			}
		}
	})
	t.Run("no GPU", func(t *testing.T) {
		f := newFake()
		f.agents[1].feature = 0 // a GPU without kernel dispatch
		_, _, err := openFake(t, f)
		if !errors.Is(err, hsa.ErrNoAgent) || !strings.Contains(err.Error(), "no AMD agent") {
			t.Fatalf("err = %v", err)
		}
		if c := f.callLog(); c[len(c)-1] != "shut_down" {
			t.Errorf("hsa_shut_down not called after finding no GPU: %v", c)
		}
	})
}

func TestOpenInitFailure(t *testing.T) {
	f := newFake()
	f.initStatus = hsaStatus(hsa.StatusErrorOutOfResources)
	_, _, err := openFake(t, f)
	if !errors.Is(err, hsa.ErrNoAgent) {
		t.Fatalf("err = %v, want ErrNoAgent", err)
	}
	if !strings.Contains(err.Error(), "no AMD agent: "+fakeStatusText) {
		t.Errorf("err = %q: want ROCR's status text", err)
	}
	if hsa.StatusOf(err) != hsa.StatusErrorOutOfResources {
		t.Errorf("status %v", hsa.StatusOf(err))
	}
	if c := f.callLog(); !slices.Equal(c, []string{"init", "status_string"}) {
		t.Errorf("calls after a failed hsa_init: %v; want only hsa_status_string", c)
	}
}

func TestQueuePackets(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	gpu := f.agents[1]
	q, err := ag.CreateQueue(64, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := ag.Driver().(*agent)
	hq := a.queues[q.ID()]
	if hq == nil {
		t.Fatalf("queue id %d is not the HSA queue id", q.ID())
	}
	fq := f.queue(hq.q)
	if fq.size != 64 || fq.typ != uint32(hsa.QueueMulti) || !fq.profile.Load() || fq.key != hq.key {
		t.Fatalf("fake queue %+v", fq)
	}
	// Kernargs: a slot per packet in the kernarg pool, visible to the GPU.
	ka := rocr.FindAllocation(q.Kernarg(0))
	if ka == nil || ka.Pool().Info().Flags&hsa.FlagKernargInit == 0 || rocr.FindAllocation(q.Kernarg(63)) != ka {
		t.Fatalf("kernargs %#x not in one kernarg pool allocation (%v)", q.Kernarg(0), ka)
	}
	f.mu.Lock()
	allowed := f.allowed[ka.Base]
	f.mu.Unlock()
	if !slices.Equal(allowed, []agentH{gpu.h}) {
		t.Errorf("kernarg allocation allowed to %v, want the GPU", allowed)
	}

	sf := ag.Driver().(signalFactory)
	newSig := func(v int64) *rocr.Signal {
		b, err := sf.NewSignal(v)
		if err != nil {
			t.Fatal(err)
		}
		s := rocr.Host().SignalWithBackend(b).(*rocr.Signal)
		t.Cleanup(func() { _ = s.Destroy() })
		return s
	}
	done, dep, done2 := newSig(1), newSig(1), newSig(1)

	// A kernel dispatch, written by rocr into the fake ring.
	id, err := q.Reserve()
	if err != nil {
		t.Fatal(err)
	}
	p := (*aql.KernelDispatch)(q.Slot(id))
	p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ = 256, 1, 1
	p.GridSizeX, p.GridSizeY, p.GridSizeZ = 1<<20, 1, 1
	p.KernelObject = 0x7f00_dead_0000
	p.KernargAddress = uint64(q.Kernarg(id))
	*(*uint64)(hostmem.At(q.Kernarg(id))) = 0x1234
	p.CompletionSignal = done.Handle()
	q.Publish(id, aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem), 1)
	if v := done.Wait(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked); v != 0 {
		t.Fatalf("completion signal %d after the fake GPU ran the packet", v)
	}

	// A barrier-AND on a ROCR signal the host completes later.
	id2, _ := q.Reserve()
	b := (*aql.BarrierAnd)(q.Slot(id2))
	b.DepSignal[0] = dep.Handle()
	b.CompletionSignal = done2.Handle()
	q.Publish(id2, aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem), 0)
	if v, ok := done2.WaitTimed(hsa.CondEQ, 0, 20*time.Millisecond, hsa.WaitBlocked); ok {
		t.Fatalf("barrier completed (%d) before its dependency", v)
	}
	dep.Store(0, hsa.Release)
	if v := done2.Wait(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked); v != 0 {
		t.Fatalf("barrier completion %d", v)
	}

	fq.pmu.Lock()
	pkts := slices.Clone(fq.packets)
	fq.pmu.Unlock()
	if len(pkts) != 2 {
		t.Fatalf("the fake GPU read %d packets", len(pkts))
	}
	kd := (*aql.KernelDispatch)(unsafe.Pointer(&pkts[0]))
	if kd.Header.Type() != aql.TypeKernelDispatch || !kd.Header.Barrier() || kd.Header.Acquire() != aql.ScopeSystem ||
		kd.Setup != 1 || kd.GridSizeX != 1<<20 || kd.WorkgroupSizeX != 256 || kd.KernelObject != 0x7f00_dead_0000 ||
		kd.KernargAddress != uint64(q.Kernarg(0)) || kd.CompletionSignal != done.Handle() {
		t.Errorf("dispatch in the ring: %v", kd)
	}
	if ba := (*aql.BarrierAnd)(unsafe.Pointer(&pkts[1])); ba.Header.Type() != aql.TypeBarrierAnd || ba.DepSignal[0] != dep.Handle() {
		t.Errorf("barrier in the ring: %v", ba)
	}
	// Indexes are amd_queue_t's dispatch ids; the doorbell got each packet id.
	if w, r := *(*uint64)(hostmem.At(hq.q + amdQueueWriteDispatchID)), q.LoadReadIndex(); w != 2 || r != 2 || q.LoadWriteIndex() != 2 {
		t.Errorf("write_dispatch_id %d read_dispatch_id %d", w, r)
	}
	if st := f.storesTo(q.Doorbell().Handle()); !slices.Equal(st, []int64{0, 1}) {
		t.Errorf("doorbell stores %v, want [0 1]", st)
	}
	// Timestamps: ticks at 100 MHz become nanoseconds.
	if s, e := done.Timestamps(); s != 10_000 || e != 15_000 {
		t.Errorf("timestamps %d..%d ns, want 10000..15000", s, e)
	}

	bell := q.Doorbell().Handle()
	if err := q.Destroy(); err != nil {
		t.Fatal(err)
	}
	if f.queue(hq.q) != nil || a.queues[q.ID()] != nil {
		t.Error("queue not destroyed in ROCR")
	}
	if _, err := rocr.SignalFromHandle(bell); err == nil {
		t.Error("doorbell still registered after destroy")
	}
}

func TestQueueErrors(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	a := ag.Driver().(*agent)
	bind := ag.Driver().(errorBinder)
	q, err := ag.CreateQueue(64, hsa.QueueSingle, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Destroy()
	got := make(chan error, 2)
	bind.BindQueueErrors(q.ID(), func(err error) { got <- err })
	hq := a.queues[q.ID()]
	// ROCR calls back on its own thread with the queue and our data.
	queueError(hsaStatus(hsa.StatusErrorException), hq.q, hq.key)
	queueError(hsaStatus(hsa.StatusErrorMemoryFault), hq.q, hq.key)
	select {
	case err := <-got:
		if !errors.Is(err, hsa.ErrKernelFailed) || hsa.StatusOf(err) != hsa.StatusErrorException || !strings.Contains(err.Error(), "fake text") {
			t.Errorf("queue error %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("queue error not delivered")
	}
	select {
	case err := <-got:
		t.Errorf("second error delivered: %v", err)
	case <-time.After(20 * time.Millisecond):
	}

	// rocr binds every hardware queue at creation: the error becomes the
	// queue's sticky error.
	q2, err := ag.CreateQueue(64, hsa.QueueSingle, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Destroy()
	hq2 := a.queues[q2.ID()]
	queueError(hsaStatus(hsa.StatusErrorInvalidPacketFormat), hq2.q, hq2.key)
	deadline := time.Now().Add(5 * time.Second)
	for q2.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !errors.Is(q2.Err(), hsa.ErrInvalidPacket) {
		t.Errorf("queue error %v", q2.Err())
	}
	// Unknown data (a destroyed queue) is ignored.
	queueError(hsaStatus(hsa.StatusErrorException), 0, 1<<40)
}

func TestQueueCreateFails(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	f.mu.Lock()
	f.fail["QueueCreate"] = hsaStatus(hsa.StatusErrorOutOfResources)
	f.mu.Unlock()
	_, err := ag.CreateQueue(64, hsa.QueueMulti, nil)
	if !errors.Is(err, hsa.ErrOutOfResources) || !strings.Contains(err.Error(), "hsa_queue_create") {
		t.Fatalf("err = %v", err)
	}
	n := 0
	hwQueues.m.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Errorf("%d queues left registered", n)
	}
}

func TestLoad(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	f.symbols["vector_add.kd"] = fakeSymbol{obj: 0x7f12_3456_0000, kaSize: 280, kaAlign: 8, group: 256, priv: 16}
	elf := []byte("\x7fELF\x02\x01\x01\x40 a code object")
	args := []hsa.KernelArg{{Name: "a", Offset: 0, Size: 8, Kind: hsa.ArgGlobalBuffer}}
	code := &hsa.Code{Kind: hsa.CodeAMDGPU, Name: "va.co", Target: "gfx90a", Data: slices.Clone(elf),
		Kernels: []hsa.KernelSymbol{{Name: "vector_add", KernargSize: 24, KernargAlign: 8, Args: args}}}
	exe, err := ag.Load(code)
	if err != nil {
		t.Fatal(err)
	}
	k, err := rocr.FindKernel(exe, "vector_add")
	if err != nil {
		t.Fatal(err)
	}
	if k.Object != 0x7f12_3456_0000 || k.KernargSize != 280 || k.KernargAlign != 8 || k.GroupSegmentSize != 256 || k.PrivateSegmentSize != 16 || len(k.Args) != 1 {
		t.Errorf("kernel %+v", k)
	}
	if code.Kernels[0].Object != 0 {
		t.Error("Load changed the caller's Code")
	}
	if !slices.Contains(f.callLog(), "executable_create_alt 1 0") {
		t.Errorf("executable not created with HSA_PROFILE_FULL and default rounding: %v", f.callLog())
	}
	// ROCR keeps pointing at the image: it is a copy outside the Go heap.
	var img []byte
	f.mu.Lock()
	for _, b := range f.readers {
		img = b
	}
	f.mu.Unlock()
	clear(code.Data)
	if string(img) != string(elf) {
		t.Errorf("reader sees %q", img)
	}
	if err := exe.Destroy(); err != nil {
		t.Fatal(err)
	}
	if err := exe.Destroy(); err == nil {
		t.Error("second Destroy succeeded")
	}
	f.mu.Lock()
	left := len(f.exes) + len(f.readers)
	f.mu.Unlock()
	if left != 0 {
		t.Errorf("%d executables or readers left", left)
	}

	for _, tc := range []struct {
		name string
		code *hsa.Code
		is   error
		text string
	}{
		{"missing kernel", &hsa.Code{Kind: hsa.CodeAMDGPU, Name: "x.co", Data: elf, Kernels: []hsa.KernelSymbol{{Name: "nope"}}}, hsa.ErrInvalidArgument, `"nope.kd"`},
		{"not an ELF", &hsa.Code{Kind: hsa.CodeAMDGPU, Name: "x.co", Target: "gfx90a", Data: []byte("junk")}, hsa.ErrInvalidCodeObject, "onto gfx90a"},
		{"PTX", &hsa.Code{Kind: hsa.CodePTX, Name: "x.ptx", Target: "sm_90", Data: []byte(".version")}, hsa.ErrNotSupported, "not ptx code"},
		{"empty", &hsa.Code{Kind: hsa.CodeAMDGPU, Name: "x.co"}, hsa.ErrInvalidCodeObject, "empty"},
	} {
		_, err := ag.Load(tc.code)
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
	f.mu.Lock()
	left = len(f.exes) + len(f.readers)
	f.mu.Unlock()
	if left != 0 {
		t.Errorf("failed loads left %d executables or readers", left)
	}
}

func TestCopyAndFill(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	cpu, gpu := f.agents[0], f.agents[1]
	cp := ag.Driver().(copier)
	sf := ag.Driver().(signalFactory)
	newSig := func(v int64) *rocr.Signal {
		b, err := sf.NewSignal(v)
		if err != nil {
			t.Fatal(err)
		}
		s := rocr.Host().SignalWithBackend(b).(*rocr.Signal)
		t.Cleanup(func() { _ = s.Destroy() })
		return s
	}
	alloc := func(flags hsa.GlobalFlag, n uint64) *rocr.Allocation {
		p, err := ag.Pool(hsa.SegmentGlobal, flags)
		if err != nil {
			t.Fatal(err)
		}
		al, err := p.Allocate(n)
		if err != nil {
			t.Fatal(err)
		}
		return al
	}
	dev, host, back := alloc(hsa.FlagCoarseGrained, 4096), alloc(hsa.FlagFineGrained, 4096), alloc(hsa.FlagFineGrained, 4096)
	if !host.Pool().Info().Host || dev.Pool().Info().Host {
		t.Fatal("hipHostMalloc must come from the system pool, hipMalloc from the device pool")
	}
	f.mu.Lock()
	hostAllowed := f.allowed[host.Base]
	f.mu.Unlock()
	if !slices.Equal(hostAllowed, []agentH{gpu.h}) {
		t.Errorf("host allocation allowed to %v", hostAllowed)
	}
	src := hostmem.Bytes(host.Base, 4096)
	for i := range src {
		src[i] = byte(i * 7)
	}

	dep, done := newSig(1), newSig(1)
	if err := cp.CopyAsync(dev.Base, host.Base, 4096, []spi.Signal{dep}, done); err != nil {
		t.Fatal(err)
	}
	if _, ok := done.WaitTimed(hsa.CondEQ, 0, 20*time.Millisecond, hsa.WaitBlocked); ok {
		t.Fatal("copy ran before its dependency")
	}
	dep.Store(0, hsa.Release)
	done.Wait(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked)
	f.mu.Lock()
	c := f.copies[0]
	f.mu.Unlock()
	if c.dstAgent != gpu.h || c.srcAgent != cpu.h || c.n != 4096 || !slices.Equal(c.deps, []signalH{signalH(dep.Handle())}) || c.done != signalH(done.Handle()) {
		t.Errorf("copy %+v", c)
	}
	// Synchronous (no done signal) device to host.
	if err := cp.CopyAsync(back.Base, dev.Base, 4096, nil, nil); err != nil {
		t.Fatal(err)
	}
	if string(hostmem.Bytes(back.Base, 4096)) != string(src) {
		t.Error("round trip through device memory changed the bytes")
	}
	if n := f.nsignals.Load(); n != 2 {
		t.Errorf("%d ROCR signals alive, want dep and done: the synchronous copy's signal leaked", n)
	}

	soft, err := rocr.NewSignal(0)
	if err != nil {
		t.Fatal(err)
	}
	defer soft.Destroy()
	goMem := make([]byte, 64)
	for _, tc := range []struct {
		name     string
		dst, src uintptr
		n        uint64
		deps     []spi.Signal
		is       error
	}{
		{"soft signal", dev.Base, host.Base, 64, []spi.Signal{soft}, hsa.ErrInvalidSignal},
		{"Go memory", uintptr(unsafe.Pointer(&goMem[0])), host.Base, 64, nil, hsa.ErrInvalidAllocation},
		{"past the end", dev.Base + 4000, host.Base, 200, nil, hsa.ErrInvalidArgument},
	} {
		if err := cp.CopyAsync(tc.dst, tc.src, tc.n, tc.deps, nil); !errors.Is(err, tc.is) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}

	// Fills: a byte pattern on aligned device memory is hsa_amd_memory_fill.
	fdone := newSig(1)
	if err := cp.FillAsync(dev.Base, 0xab, 4096, 1, nil, fdone); err != nil {
		t.Fatal(err)
	}
	fdone.Wait(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked)
	f.mu.Lock()
	fl := f.fills
	f.mu.Unlock()
	if len(fl) != 1 || fl[0] != (fakeFill{dev.Base, 0xabababab, 1024}) {
		t.Errorf("fills %+v", fl)
	}
	// An unaligned 8-byte pattern is staged through host memory.
	ncopies := len(f.copies)
	if err := cp.FillAsync(dev.Base+4, 0x1122334455667788, 3, 8, nil, nil); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	staged := f.copies[ncopies:]
	f.mu.Unlock()
	if len(staged) != 1 || staged[0].dst != dev.Base+4 || staged[0].n != 24 || staged[0].srcAgent != cpu.h {
		t.Errorf("staged fill copies %+v", staged)
	}
	b := hostmem.Bytes(dev.Base, 32)
	if b[3] != 0xab || b[4] != 0x88 || b[11] != 0x11 || b[27] != 0x11 || b[28] != 0xab {
		t.Errorf("device bytes after fills % x", b)
	}
	// Host memory is written by the host, after the dependencies.
	hdep, hdone := newSig(1), newSig(1)
	if err := cp.FillAsync(host.Base, 0xbeef, 10, 2, []spi.Signal{hdep}, hdone); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	if src[0] != 0 || hdone.Load(hsa.Acquire) != 1 {
		t.Fatal("host fill ran before its dependency")
	}
	hdep.Fail(errors.New("upstream kernel failed"))
	hdep.Store(0, hsa.Release) // Store clears the failure: a successful dependency
	hdone.Wait(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked)
	if src[0] != 0xef || src[1] != 0xbe || src[19] != 0xbe || src[20] != byte(20*7) || hdone.Err() != nil {
		t.Errorf("host fill: % x (err %v)", src[:24], hdone.Err())
	}
	if err := cp.FillAsync(dev.Base, 0, 1, 3, nil, nil); !errors.Is(err, hsa.ErrInvalidArgument) {
		t.Errorf("element size 3: %v", err)
	}
}

func TestFillPropagatesDependencyFailure(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	cp := ag.Driver().(copier)
	p, _ := ag.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	dev, err := p.Allocate(256)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ag.Driver().(signalFactory).NewSignal(0)
	dep := rocr.Host().SignalWithBackend(b).(*rocr.Signal)
	defer dep.Destroy()
	b2, _ := ag.Driver().(signalFactory).NewSignal(1)
	done := rocr.Host().SignalWithBackend(b2).(*rocr.Signal)
	defer done.Destroy()
	boom := errors.New("upstream kernel failed")
	dep.Fail(boom)
	if err := cp.FillAsync(dev.Base, 1, 64, 4, []spi.Signal{dep}, done); err != nil {
		t.Fatal(err)
	}
	done.Wait(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked)
	if !errors.Is(done.Err(), boom) {
		t.Errorf("done.Err() = %v", done.Err())
	}
	if len(f.fills) != 0 {
		t.Error("fill ran although its dependency failed")
	}
}

func TestSignalBackend(t *testing.T) {
	f := newFake()
	_, ads, err := openFake(t, f)
	if err != nil {
		t.Fatal(err)
	}
	a := ads[0].(*agent)
	b, err := a.NewSignal(5)
	if err != nil {
		t.Fatal(err)
	}
	s := b.(*signal)
	if _, ok := signals.find(s.Handle()); !ok {
		t.Fatal("signal not registered")
	}
	if v := s.Add(3); v != 8 {
		t.Errorf("Add returned %d, want the new value 8", v)
	}
	if v := s.Add(-8); v != 0 || s.Load() != 0 {
		t.Errorf("Add(-8) = %d", v)
	}
	if old := s.Exchange(4); old != 0 || s.CAS(4, 9) != 4 || s.CAS(4, 1) != 9 {
		t.Error("exchange/cas")
	}
	// Timed wait returns the value at the deadline.
	start := time.Now()
	if v := s.Wait(hsa.CondEQ, 0, 30*time.Millisecond, hsa.WaitBlocked); v != 9 || time.Since(start) < 30*time.Millisecond {
		t.Errorf("timed wait returned %d after %v", v, time.Since(start))
	}
	// Spurious returns from ROCR are waited through.
	f.spurious.Store(3)
	var woke atomic.Bool
	go func() {
		time.Sleep(20 * time.Millisecond)
		woke.Store(true)
		s.Store(0)
	}()
	if v := s.Wait(hsa.CondEQ, 0, 0, hsa.WaitActive); v != 0 || !woke.Load() {
		t.Errorf("wait forever returned %d early", v)
	}
	if err := s.Destroy(); err != nil {
		t.Fatal(err)
	}
	if _, ok := signals.find(s.Handle()); ok {
		t.Error("destroyed signal still registered")
	}
	// After hsa_shut_down the handles dangle: nothing reaches ROCR.
	b2, _ := a.NewSignal(7)
	s2 := b2.(*signal)
	a.rt.alive.Store(false)
	if s2.Load() != 0 || s2.Add(1) != 0 || s2.Wait(hsa.CondEQ, 1, 0, 0) != 0 || s2.Destroy() != nil {
		t.Error("signal operations after close")
	}
	if _, err := a.NewSignal(0); !errors.Is(err, hsa.ErrNotInitialized) {
		t.Errorf("NewSignal after close: %v", err)
	}
	a.rt.alive.Store(true)
	if f.nsignals.Load() != 1 {
		t.Errorf("%d signals alive, want the one left to hsa_shut_down", f.nsignals.Load())
	}
}

func TestShutDownReleasesEverything(t *testing.T) {
	f := newFake()
	old := theDriver.open
	defer func() { theDriver.open = old }()
	theDriver.open = func() (hsaAPI, error) { return f, nil }
	t.Setenv("HIPGO_DRIVER", Name)
	if err := rocr.Init(); err != nil {
		t.Fatal(err)
	}
	as, _ := rocr.Agents()
	ag := as[0]
	if _, err := ag.CreateQueue(128, hsa.QueueMulti, nil); err != nil {
		t.Fatal(err)
	}
	p, _ := ag.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	if _, err := p.Allocate(1 << 20); err != nil {
		t.Fatal(err)
	}
	f.symbols["k.kd"] = fakeSymbol{obj: 1}
	if _, err := ag.Load(&hsa.Code{Kind: hsa.CodeAMDGPU, Name: "k", Data: []byte("\x7fELF"), Kernels: []hsa.KernelSymbol{{Name: "k"}}}); err != nil {
		t.Fatal(err)
	}
	if err := rocr.ShutDown(); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queues) != 0 || len(f.allocs) != 0 || len(f.exes) != 0 || len(f.readers) != 0 {
		t.Errorf("left after ShutDown: %d queues, %d allocations, %d executables, %d readers", len(f.queues), len(f.allocs), len(f.exes), len(f.readers))
	}
	if f.calls[len(f.calls)-1] != "shut_down" {
		t.Errorf("last call %q, want hsa_shut_down", f.calls[len(f.calls)-1])
	}
	if theDriver.rt != nil {
		t.Error("driver still open")
	}
}

func TestHelpers(t *testing.T) {
	for name, want := range map[string][2]int{"gfx90a": {9, 0}, "gfx1030": {10, 3}, "gfx942": {9, 4}, "gfx1100": {11, 0}, "gfx803": {8, 0}, "cpu": {0, 0}, "gfx": {0, 0}} {
		if maj, mnr := gfxVersion(name); maj != want[0] || mnr != want[1] {
			t.Errorf("gfxVersion(%q) = %d, %d; want %v", name, maj, mnr, want)
		}
	}
	if ticksNanos(100, 100_000_000) != 1000 || ticksNanos(3, 1e9) != 3 || ticksNanos(1<<62, 25_000_000) != ^uint64(0) {
		t.Error("ticksNanos")
	}
	// 2^60 ticks at 3 GHz do not overflow the multiplication.
	if got := ticksNanos(1<<60, 3e9); got != (1<<60)/3 {
		t.Errorf("ticksNanos(2^60, 3GHz) = %d", got)
	}
	if durationTicks(time.Millisecond, 100_000_000) != 100_000 || durationTicks(1, 1000) != 1 {
		t.Error("durationTicks")
	}
	for _, tc := range []struct {
		p    uint64
		size int
		w    uint32
		ok   bool
	}{{0xab, 1, 0xabababab, true}, {0x1234, 2, 0x12341234, true}, {0xdeadbeef, 4, 0xdeadbeef, true}, {0x1111111111111111, 8, 0x11111111, true}, {0x1122334455667788, 8, 0, false}} {
		if w, ok := word32(tc.p, tc.size); ok != tc.ok || (ok && w != tc.w) {
			t.Errorf("word32(%#x, %d) = %#x, %v", tc.p, tc.size, w, ok)
		}
	}
}

func TestRegistered(t *testing.T) {
	ds := rocr.Drivers()
	i, j := slices.Index(ds, "rocm"), slices.Index(ds, "cpu")
	if i < 0 || j < 0 || i > j {
		t.Errorf("drivers %v: rocm must open before cpu", ds)
	}
}
