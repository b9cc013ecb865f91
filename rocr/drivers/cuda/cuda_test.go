package cuda_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/kernels"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	_ "github.com/hipgo/hipgo/rocr/drivers/cuda"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/internal/clock"
)

// setup opens the runtime with only the cuda driver and returns its first
// agent, skipping (or failing under HIPGO_REQUIRE=cuda) without a GPU.
func setup(tb testing.TB) *rocr.Agent { return setupFault(tb, false) }

// setupFault is setup for a test that breaks the context on purpose: the
// frees at ShutDown then fail, and that is expected.
func setupFault(tb testing.TB, faulting bool) *rocr.Agent {
	tb.Helper()
	tb.Setenv("HIPGO_DRIVER", "cuda")
	if err := rocr.Init(); err != nil {
		if errors.Is(err, hsa.ErrNotSupported) || errors.Is(err, hsa.ErrNoAgent) {
			testenv.Requiref(tb, "cuda", "no cuda agent: %v", err)
		}
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := rocr.ShutDown(); err != nil {
			if faulting {
				tb.Logf("shut down after the fault: %v", err)
			} else {
				tb.Error(err)
			}
		}
	})
	ags, err := rocr.Agents()
	if err != nil {
		tb.Fatal(err)
	}
	return ags[0]
}

func alloc(tb testing.TB, a *rocr.Agent, flags hsa.GlobalFlag, n uint64) *rocr.Allocation {
	tb.Helper()
	p, err := a.Pool(hsa.SegmentGlobal, flags)
	if err != nil {
		tb.Fatal(err)
	}
	al, err := p.Allocate(n)
	if err != nil {
		tb.Fatal(err)
	}
	return al
}

func queue(tb testing.TB, a *rocr.Agent, size uint32) *rocr.Queue {
	tb.Helper()
	q, err := a.CreateQueue(size, hsa.QueueMulti, nil)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = q.Destroy() })
	return q
}

func signal(tb testing.TB, v int64) *rocr.Signal {
	tb.Helper()
	s, err := rocr.NewSignal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func handle(s *rocr.Signal) uint64 {
	if s == nil {
		return 0
	}
	return s.Handle()
}

// wait waits for s to reach 0 and returns its failure.
func wait(tb testing.TB, s *rocr.Signal) error {
	tb.Helper()
	if v, ok := s.WaitTimed(hsa.CondEQ, 0, 20*time.Second, hsa.WaitActive); !ok {
		tb.Fatalf("signal still %d after 20s", v)
	}
	return s.Err()
}

func dispatch(q *rocr.Queue, k *hsa.KernelSymbol, args []byte, grid, block uint32, sig *rocr.Signal) {
	id, _ := q.Reserve()
	ka := q.Kernarg(id)
	copy(hostmem.Bytes(ka, uintptr(len(args))), args)
	p := (*aql.KernelDispatch)(q.Slot(id))
	p.WorkgroupSizeX, p.WorkgroupSizeY, p.WorkgroupSizeZ = uint16(block), 1, 1
	p.GridSizeX, p.GridSizeY, p.GridSizeZ = grid, 1, 1
	p.KernelObject = k.Object
	p.KernargAddress = uint64(ka)
	p.GroupSegmentSize, p.PrivateSegmentSize = k.GroupSegmentSize, 0
	p.CompletionSignal = handle(sig)
	q.Publish(id, aql.MakeHeader(aql.TypeKernelDispatch, true, aql.ScopeSystem, aql.ScopeSystem), 1)
}

func agentPacket(q *rocr.Queue, call aql.AgentCall, sig *rocr.Signal) {
	id, _ := q.Reserve()
	p := (*aql.AgentDispatch)(q.Slot(id)) // the header stays INVALID until Publish
	p.Type = call.Func
	p.ReturnAddress = 0
	p.Arg = call.Arg
	p.CompletionSignal = handle(sig)
	// The function code shares the header's word: Publish stores it.
	q.Publish(id, aql.MakeHeader(aql.TypeAgentDispatch, true, aql.ScopeSystem, aql.ScopeSystem), call.Func)
}

func barrier(q *rocr.Queue, deps []*rocr.Signal, sig *rocr.Signal) {
	id, _ := q.Reserve()
	p := (*aql.BarrierAnd)(q.Slot(id))
	p.DepSignal = [5]uint64{}
	for i, d := range deps {
		p.DepSignal[i] = handle(d)
	}
	p.CompletionSignal = handle(sig)
	q.Publish(id, aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem), 0)
}

// copyHost runs one aql.AgentCopy between pool memory and a Go slice.
func copyHost(tb testing.TB, q *rocr.Queue, dst, src uint64, n uint64, b []byte, toHost bool) {
	tb.Helper()
	id := hostref.PinHost(b)
	defer hostref.UnpinHost(id)
	s := signal(tb, 1)
	defer s.Destroy()
	if toHost {
		agentPacket(q, aql.CopyWork{Dst: id, Src: src, Bytes: n, Flags: aql.CopyDstHost}.Call(), s)
	} else {
		agentPacket(q, aql.CopyWork{Dst: dst, Src: id, Bytes: n, Flags: aql.CopySrcHost}.Call(), s)
	}
	if err := wait(tb, s); err != nil {
		tb.Fatal(err)
	}
}

func f32bytes(v []float32) []byte { return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v)) }

// library loads the kernel library's PTX for the agent.
func library(tb testing.TB, a *rocr.Agent) (empty, vadd *hsa.KernelSymbol) {
	tb.Helper()
	ptx := kernels.PTXsm90
	if a.ISA() < "sm_90" {
		ptx = kernels.PTXsm80
	}
	code := &hsa.Code{Kind: hsa.CodePTX, Name: "kernels.ptx", Target: a.ISA(), Data: []byte(ptx), Kernels: []hsa.KernelSymbol{
		{Name: "empty"},
		{Name: "vector_add", Args: []hsa.KernelArg{
			{Name: "a", Offset: 0, Size: 8, Kind: hsa.ArgGlobalBuffer},
			{Name: "b", Offset: 8, Size: 8, Kind: hsa.ArgGlobalBuffer},
			{Name: "c", Offset: 16, Size: 8, Kind: hsa.ArgGlobalBuffer},
			{Name: "n", Offset: 24, Size: 4},
		}},
	}}
	exe, err := a.Load(code)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = exe.Destroy() })
	e, err := rocr.FindKernel(exe, "empty")
	if err != nil {
		tb.Fatal(err)
	}
	v, err := rocr.FindKernel(exe, "vector_add")
	if err != nil {
		tb.Fatal(err)
	}
	return e, v
}

type vaddArgs struct {
	A, B, C uint64
	N       int32
	_       int32
}

func (a *vaddArgs) bytes() []byte { return unsafe.Slice((*byte)(unsafe.Pointer(a)), 28) }

func TestAgentProperties(t *testing.T) {
	a := setup(t)
	info := a.Info()
	t.Logf("%+v", info)
	if info.Type != hsa.DeviceGPU || info.Driver != "cuda" || info.Vendor != "NVIDIA" {
		t.Errorf("type %v driver %q vendor %q", info.Type, info.Driver, info.Vendor)
	}
	if !strings.HasPrefix(info.ISA, "sm_") || info.ISA != "sm_"+string(rune('0'+info.ComputeMajor))+string(rune('0'+info.ComputeMinor)) {
		t.Errorf("ISA %q for compute capability %d.%d", info.ISA, info.ComputeMajor, info.ComputeMinor)
	}
	if info.Wavefront != 32 || info.ComputeUnits <= 0 || info.MaxWorkGroupSize < 1024 || info.MaxWorkGroupDim[0] < 1024 {
		t.Errorf("warp %d SMs %d max block %d dims %v", info.Wavefront, info.ComputeUnits, info.MaxWorkGroupSize, info.MaxWorkGroupDim)
	}
	if info.GroupMemSize < 48<<10 || info.MaxDynamicGroup < info.GroupMemSize || info.L2CacheSize <= 0 || info.TotalMemory < 1<<30 {
		t.Errorf("shared %d optin %d L2 %d memory %d", info.GroupMemSize, info.MaxDynamicGroup, info.L2CacheSize, info.TotalMemory)
	}
	if len(info.UUID) != len("GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx") || !strings.HasPrefix(info.UUID, "GPU-") {
		t.Errorf("UUID %q", info.UUID)
	}
	if info.ClockMHz <= 0 || info.MemoryBusWidth <= 0 || info.MaxGridSize[0] < 1<<31 || !info.Profiling {
		t.Errorf("clock %d bus %d grid %v profiling %v", info.ClockMHz, info.MemoryBusWidth, info.MaxGridSize, info.Profiling)
	}
	for _, f := range []hsa.GlobalFlag{hsa.FlagCoarseGrained, hsa.FlagFineGrained, hsa.FlagKernargInit} {
		if _, err := a.Pool(hsa.SegmentGlobal, f); err != nil {
			t.Error(err)
		}
	}
}

// TestCompletionWrite checks the GPU-written completion signal, with the
// batched write and with two single writes.
func TestCompletionWrite(t *testing.T) {
	for _, mode := range []string{"batch", "nobatch"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "batch" {
				t.Setenv("HIPGO_CUDA_BATCH", "1")
			} else {
				t.Setenv("HIPGO_CUDA_BATCH", "0")
			}
			a := setup(t)
			empty, _ := library(t, a)
			q := queue(t, a, 64)
			s := signal(t, 1)
			dispatch(q, empty, nil, 1, 1, s)
			if v, ok := s.WaitTimed(hsa.CondEQ, 0, 3*time.Second, hsa.WaitActive); !ok {
				t.Fatalf("signal %d after 3s (queue error %v)", v, q.Err())
			}
			// Eight completions of one signal in flight at once.
			s.Store(8, hsa.Release)
			for i := 0; i < 8; i++ {
				dispatch(q, empty, nil, 1, 1, s)
			}
			if v, ok := s.WaitTimed(hsa.CondEQ, 0, 3*time.Second, hsa.WaitActive); !ok {
				t.Fatalf("counted signal %d after 3s", v)
			}
			time.Sleep(time.Millisecond)
			if v := s.Load(hsa.Acquire); v != 0 {
				t.Fatalf("counted signal went on to %d", v)
			}
		})
	}
}

func TestCopiesAndFills(t *testing.T) {
	a := setup(t)
	q := queue(t, a, 64)
	const n = 1 << 20
	dev := alloc(t, a, hsa.FlagCoarseGrained, n)
	pinned := alloc(t, a, hsa.FlagFineGrained, n)
	in := make([]byte, n)
	for i := range in {
		in[i] = byte(i * 7)
	}
	copyHost(t, q, uint64(dev.Base), 0, n, in, false)
	// device -> pinned -> Go slice.
	s := signal(t, 1)
	agentPacket(q, aql.CopyWork{Dst: uint64(pinned.Base), Src: uint64(dev.Base), Bytes: n}.Call(), s)
	if err := wait(t, s); err != nil {
		t.Fatal(err)
	}
	if got := hostmem.Bytes(pinned.Base, n); string(got) != string(in) {
		t.Fatal("pinned copy differs")
	}
	out := make([]byte, n)
	copyHost(t, q, 0, uint64(dev.Base), n, out, true)
	if string(out) != string(in) {
		t.Fatal("round trip through device memory differs")
	}
	for _, c := range []struct {
		es      uint64
		pattern uint64
	}{{1, 0xab}, {2, 0xbeef}, {4, 0xdeadbeef}, {8, 0x0123456789abcdef}, {8, 0x5555555555555555}} {
		prev := append([]byte(nil), out...) // the device's bytes before this fill
		s.Store(1, hsa.Release)
		count := uint64(n/c.es - 3)
		agentPacket(q, aql.FillWork{Dst: uint64(dev.Base), Pattern: c.pattern, Count: count, ElemSize: c.es}.Call(), s)
		if err := wait(t, s); err != nil {
			t.Fatalf("fill %d: %v", c.es, err)
		}
		copyHost(t, q, 0, uint64(dev.Base), n, out, true)
		for i := uint64(0); i < count*c.es; i++ {
			if want := byte(c.pattern >> (8 * (i % c.es))); out[i] != want {
				t.Fatalf("fill of %d-byte elements: byte %d = %#x, want %#x", c.es, i, out[i], want)
			}
		}
		if out[count*c.es] != prev[count*c.es] {
			t.Fatalf("fill of %d-byte elements wrote past its end", c.es)
		}
	}
	// A copy past an allocation's end fails the packet, not the process.
	s.Store(1, hsa.Release)
	agentPacket(q, aql.CopyWork{Dst: uint64(pinned.Base), Src: uint64(dev.Base), Bytes: 2 * n}.Call(), s)
	if err := wait(t, s); err == nil || q.Err() == nil {
		t.Fatalf("overlong copy: signal error %v, queue error %v", err, q.Err())
	} else {
		t.Log(err)
	}
}

func TestVectorAdd(t *testing.T) {
	a := setup(t)
	_, vadd := library(t, a)
	if vadd.GroupSegmentSize != 0 || vadd.MaxFlatWorkGroupSize < 256 || vadd.Object == 0 {
		t.Fatalf("symbol %+v", vadd)
	}
	q := queue(t, a, 64)
	const n = 1<<20 + 1000
	A, B, C := alloc(t, a, hsa.FlagCoarseGrained, 4*n), alloc(t, a, hsa.FlagCoarseGrained, 4*n), alloc(t, a, hsa.FlagCoarseGrained, 4*n)
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(i), float32(2*i)+0.5
	}
	copyHost(t, q, uint64(A.Base), 0, 4*n, f32bytes(x), false)
	copyHost(t, q, uint64(B.Base), 0, 4*n, f32bytes(y), false)
	s := signal(t, 1)
	args := vaddArgs{A: uint64(A.Base), B: uint64(B.Base), C: uint64(C.Base), N: n}
	grid := uint32((n + 255) / 256 * 256)
	dispatch(q, vadd, args.bytes(), grid, 256, s)
	if err := wait(t, s); err != nil {
		t.Fatal(err)
	}
	z := make([]float32, n)
	copyHost(t, q, 0, uint64(C.Base), 4*n, f32bytes(z), true)
	for i := range z {
		if z[i] != x[i]+y[i] {
			t.Fatalf("c[%d] = %v, want %v", i, z[i], x[i]+y[i])
		}
	}
	// One signal decremented by several dispatches of one queue, in flight
	// together, and re-armed and reused after each wait.
	s.Store(8, hsa.Release)
	for i := 0; i < 8; i++ {
		dispatch(q, vadd, args.bytes(), grid, 256, s)
	}
	if err := wait(t, s); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100; i++ {
		s.Store(1, hsa.Release)
		dispatch(q, vadd, args.bytes(), grid, 256, s)
		if err := wait(t, s); err != nil {
			t.Fatal(err)
		}
	}
	// A grid that is not whole blocks fails clearly.
	s.Store(1, hsa.Release)
	dispatch(q, vadd, args.bytes(), grid+1, 256, s)
	if err := wait(t, s); err == nil || !strings.Contains(err.Error(), "whole number") {
		t.Fatalf("partial block: %v", err)
	}
}

func TestBarrierAcrossQueues(t *testing.T) {
	a := setup(t)
	_, vadd := library(t, a)
	q1, q2 := queue(t, a, 64), queue(t, a, 64)
	const n = 1 << 24
	A, B, C := alloc(t, a, hsa.FlagCoarseGrained, 4*n), alloc(t, a, hsa.FlagCoarseGrained, 4*n), alloc(t, a, hsa.FlagCoarseGrained, 4*n)
	one := math.Float32bits(1)
	for _, al := range []*rocr.Allocation{A, B} {
		agentPacket(q1, aql.FillWork{Dst: uint64(al.Base), Pattern: uint64(one), Count: n, ElemSize: 4}.Call(), nil)
	}
	agentPacket(q1, aql.FillWork{Dst: uint64(C.Base), Count: n, ElemSize: 4}.Call(), nil)
	s1, s2 := signal(t, 1), signal(t, 1)
	args := vaddArgs{A: uint64(A.Base), B: uint64(B.Base), C: uint64(C.Base), N: n}
	// q2 must not copy c before q1's kernel wrote it.
	hostSig := signal(t, 1)
	barrier(q2, []*rocr.Signal{hostSig}, nil)
	barrier(q2, []*rocr.Signal{s1}, nil)
	z := make([]float32, n)
	id := hostref.PinHost(f32bytes(z))
	defer hostref.UnpinHost(id)
	agentPacket(q2, aql.CopyWork{Dst: id, Src: uint64(C.Base), Bytes: 4 * n, Flags: aql.CopyDstHost}.Call(), s2)
	dispatch(q1, vadd, args.bytes(), n, 256, s1)
	if err := wait(t, s1); err != nil {
		t.Fatal(err)
	}
	// q2 still waits on the GPU for a signal the host completes.
	time.Sleep(20 * time.Millisecond)
	if v := s2.Load(hsa.Acquire); v != 1 {
		t.Fatalf("q2 ran past a barrier on an incomplete signal (s2=%d)", v)
	}
	hostSig.Store(0, hsa.Release)
	if err := wait(t, s2); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 4097 {
		if z[i] != 2 {
			t.Fatalf("c[%d] = %v after the barrier, want 2", i, z[i])
		}
	}
}

func TestEventTimestamps(t *testing.T) {
	a := setup(t)
	_, vadd := library(t, a)
	q := queue(t, a, 64)
	const n = 1 << 24
	A, B, C := alloc(t, a, hsa.FlagCoarseGrained, 4*n), alloc(t, a, hsa.FlagCoarseGrained, 4*n), alloc(t, a, hsa.FlagCoarseGrained, 4*n)
	e1, e2 := signal(t, 1), signal(t, 1)
	args := vaddArgs{A: uint64(A.Base), B: uint64(B.Base), C: uint64(C.Base), N: n}
	before := clock.Now()
	barrier(q, nil, e1)
	for i := 0; i < 10; i++ {
		dispatch(q, vadd, args.bytes(), n, 256, nil)
	}
	barrier(q, nil, e2)
	if err := wait(t, e2); err != nil {
		t.Fatal(err)
	}
	after := clock.Now()
	s1, _ := e1.Timestamps()
	s2, _ := e2.Timestamps()
	t.Logf("10 vector_add of 2^24: %v between events (host window %v)", time.Duration(s2-s1), time.Duration(after-before))
	if s1 == 0 || s2 <= s1 || s2-s1 > after-before {
		t.Fatalf("event timestamps %d, %d outside the host window [%d, %d]", s1, s2, before, after)
	}
	// Calibrated into rocr's clock to within a few hundred microseconds.
	if s1+500_000 < before || s2 > after+500_000 {
		t.Errorf("timestamps %d..%d not in clock.Now's clock (host %d..%d)", s1, s2, before, after)
	}
}

func TestHostCallback(t *testing.T) {
	a := setup(t)
	q := queue(t, a, 64)
	dev := alloc(t, a, hsa.FlagCoarseGrained, 1<<20)
	pinned := alloc(t, a, hsa.FlagFineGrained, 1<<20)
	agentPacket(q, aql.FillWork{Dst: uint64(dev.Base), Pattern: 0x7f, Count: 1 << 20, ElemSize: 1}.Call(), nil)
	agentPacket(q, aql.CopyWork{Dst: uint64(pinned.Base), Src: uint64(dev.Base), Bytes: 1 << 20}.Call(), nil)
	var saw byte
	id := hostref.RegisterCallback(func() error { saw = hostmem.Bytes(pinned.Base, 1<<20)[1<<20-1]; return nil })
	s := signal(t, 1)
	agentPacket(q, aql.CallbackWork{ID: id}.Call(), s)
	if err := wait(t, s); err != nil {
		t.Fatal(err)
	}
	if saw != 0x7f {
		t.Fatalf("callback ran before the copy ahead of it: saw %#x", saw)
	}
}

func TestLoadErrors(t *testing.T) {
	a := setup(t)
	bad := &hsa.Code{Kind: hsa.CodePTX, Name: "bad.ptx", Target: a.ISA(), Data: []byte(".version 7.8\n.target sm_90\n.address_size 64\n.visible .entry broken()\n{\n\tmov.u32 %r1, 1;\n\tret;\n}\n"), Kernels: []hsa.KernelSymbol{{Name: "broken"}}}
	_, err := a.Load(bad)
	if err == nil || !errors.Is(err, hsa.ErrInvalidCodeObject) || !strings.Contains(err.Error(), "JIT log:\n") || !strings.Contains(strings.SplitN(err.Error(), "JIT log:\n", 2)[1], "error") {
		t.Fatalf("bad PTX: %v", err)
	}
	t.Log(err)
	_, err = a.Load(&hsa.Code{Kind: hsa.CodeAMDGPU, Name: "k.hsaco", Target: "gfx90a"})
	if !errors.Is(err, hsa.ErrNotSupported) {
		t.Fatalf("AMDGPU code: %v", err)
	}
	_, err = a.Load(&hsa.Code{Kind: hsa.CodePTX, Name: "k.ptx", Data: []byte(kernels.PTXsm80), Kernels: []hsa.KernelSymbol{{Name: "no_such_kernel"}}})
	if !errors.Is(err, hsa.ErrInvalidArgument) {
		t.Fatalf("missing kernel: %v", err)
	}
}
