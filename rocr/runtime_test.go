package rocr_test

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

func wantNotInit(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, hsa.ErrNotInitialized) || hsa.StatusOf(err) != 0x100B {
		t.Errorf("%s before Init: %v (status %#x), want ErrNotInitialized (0x100B)", what, err, uint32(hsa.StatusOf(err)))
	}
}

func TestCallsBeforeInit(t *testing.T) {
	_, err := rocr.Agents()
	wantNotInit(t, "Agents", err)
	_, err = rocr.DriverStatus()
	wantNotInit(t, "DriverStatus", err)
	_, err = rocr.NewSignal(0)
	wantNotInit(t, "NewSignal", err)
	wantNotInit(t, "ShutDown", rocr.ShutDown())
	var a *rocr.Agent
	_, err = a.CreateQueue(64, hsa.QueueMulti, nil)
	if err == nil {
		t.Error("CreateQueue on a nil agent succeeded")
	}
	var zero rocr.Agent
	_, err = zero.CreateQueue(64, hsa.QueueMulti, nil)
	wantNotInit(t, "CreateQueue", err)
	_, err = zero.Load(&hsa.Code{})
	wantNotInit(t, "Load", err)
	_, err = (&rocr.Pool{}).Allocate(64)
	if err == nil {
		t.Error("Allocate from a zero pool succeeded")
	}
	if err := (*rocr.Allocation)(nil).Free(); err == nil {
		t.Error("Free of a nil allocation succeeded")
	}
}

func TestInitReferenceCount(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	for i := 0; i < 3; i++ {
		if err := rocr.Init(); err != nil {
			t.Fatal(err)
		}
	}
	first, err := rocr.Agents()
	if err != nil || len(first) == 0 {
		t.Fatal(first, err)
	}
	for i := 0; i < 2; i++ {
		if err := rocr.ShutDown(); err != nil {
			t.Fatal(err)
		}
		ags, err := rocr.Agents()
		if err != nil || ags[0] != first[0] {
			t.Fatalf("after %d of 3 ShutDowns: %v, %v (want the same agents)", i+1, ags, err)
		}
	}
	if err := rocr.ShutDown(); err != nil {
		t.Fatal(err)
	}
	_, err = rocr.Agents()
	wantNotInit(t, "Agents after the last ShutDown", err)
	wantNotInit(t, "a fourth ShutDown", rocr.ShutDown())

	st := cputest.Agents(t, 1)
	if st[0] == first[0] {
		t.Error("a new Init returned the agents of the runtime that was shut down")
	}
	ds, err := rocr.DriverStatus()
	if err != nil || ds["cpu"] != nil {
		t.Errorf("DriverStatus: %v, %v", ds, err)
	}
	if !slices.Contains(rocr.Drivers(), "cpu") {
		t.Errorf("Drivers() = %v, want cpu", rocr.Drivers())
	}
}

func TestUseAfterShutDown(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	if err := rocr.Init(); err != nil {
		t.Fatal(err)
	}
	ags, _ := rocr.Agents()
	a := ags[0]
	q, err := a.CreateQueue(16, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := a.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	if err != nil {
		t.Fatal(err)
	}
	al, err := pool.Allocate(1024)
	if err != nil {
		t.Fatal(err)
	}
	if err := rocr.ShutDown(); err != nil {
		t.Fatal(err)
	}
	// ShutDown destroyed the queue and freed the memory.
	if !q.Destroyed() || !al.Freed() {
		t.Fatalf("after ShutDown: queue destroyed %v, allocation freed %v", q.Destroyed(), al.Freed())
	}
	if _, err := q.Reserve(); !errors.Is(err, hsa.ErrInvalidQueue) {
		t.Errorf("Reserve after ShutDown: %v", err)
	}
	if err := q.Destroy(); !errors.Is(err, hsa.ErrInvalidQueue) {
		t.Errorf("Destroy after ShutDown: %v", err)
	}
	if err := al.Free(); !errors.Is(err, hsa.ErrInvalidAllocation) {
		t.Errorf("Free after ShutDown: %v", err)
	}
	_, err = a.CreateQueue(16, hsa.QueueMulti, nil)
	wantNotInit(t, "CreateQueue after ShutDown", err)
	_, err = pool.Allocate(64)
	wantNotInit(t, "Allocate after ShutDown", err)
	_, err = a.Load(&hsa.Code{})
	wantNotInit(t, "Load after ShutDown", err)

	// An agent of an earlier runtime is not usable in a new one.
	cputest.Agents(t, 1)
	if _, err := a.CreateQueue(16, hsa.QueueMulti, nil); err == nil || !strings.Contains(err.Error(), "shut down") {
		t.Errorf("CreateQueue on a stale agent: %v", err)
	}
	if _, err := pool.Allocate(64); err == nil {
		t.Error("Allocate from a stale pool succeeded")
	}
	if err := al.Transfer(a); err == nil {
		t.Error("Transfer to a stale agent succeeded")
	}
}

func TestCPUAgentInfo(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	in := a.Info()
	check := func(what string, got, want any) {
		t.Helper()
		if got != want {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	check("Name", in.Name, "cpu0")
	check("Vendor", in.Vendor, "hipgo")
	check("Type", in.Type, hsa.DeviceCPU)
	check("Type.String", in.Type.String(), "CPU")
	check("ISA", in.ISA, "go")
	check("ISA()", a.ISA(), "go")
	check("Wavefront", in.Wavefront, 32) // kernel.CPUWarpSize, t.WarpSize() in a kernel
	check("ComputeUnits", in.ComputeUnits, runtime.GOMAXPROCS(0))
	check("MaxWorkGroupSize", in.MaxWorkGroupSize, 1024)
	check("MaxWorkGroupDim", in.MaxWorkGroupDim, [3]int{1024, 1024, 1024})
	check("QueueMinSize", in.QueueMinSize, uint32(2))
	check("GroupMemSize", in.GroupMemSize, 64<<10)
	check("Driver", in.Driver, "cpu")
	check("Index", a.Index(), 0)
	check("Profiling", in.Profiling, true)
	if in.QueueMaxSize < 1<<12 || in.MaxGridSize[0] < 1<<31 || in.TotalMemory == 0 || in.UUID == "" {
		t.Errorf("limits: queue max %d, grid %v, memory %d, uuid %q", in.QueueMaxSize, in.MaxGridSize, in.TotalMemory, in.UUID)
	}
	if !strings.Contains(a.String(), "cpu0") {
		t.Errorf("String() = %q", a.String())
	}

	type want struct {
		seg   hsa.Segment
		flags hsa.GlobalFlag
		alloc bool
	}
	wants := []want{
		{hsa.SegmentGlobal, hsa.FlagCoarseGrained, true},
		{hsa.SegmentGlobal, hsa.FlagFineGrained, true},
		{hsa.SegmentGlobal, hsa.FlagKernargInit | hsa.FlagFineGrained, true},
		{hsa.SegmentGroup, 0, false},
	}
	if len(a.Pools()) != len(wants) {
		t.Fatalf("%d pools, want %d", len(a.Pools()), len(wants))
	}
	for i, w := range wants {
		p := a.Pools()[i]
		pi := p.Info()
		if pi.Segment != w.seg || pi.Flags != w.flags || pi.AllocAllowed != w.alloc || p.Agent() != a {
			t.Errorf("pool %d: %+v, want %+v", i, pi, w)
		}
		if w.alloc && (pi.Granule != 256 || pi.Alignment != 256 || pi.Size == 0 || p.Limit() != pi.Size) {
			t.Errorf("pool %d: granule %d, alignment %d, size %d, limit %d", i, pi.Granule, pi.Alignment, pi.Size, p.Limit())
		}
		got, err := a.Pool(w.seg, w.flags)
		if err != nil || got.Info().Segment != w.seg || got.Info().Flags&w.flags != w.flags {
			t.Errorf("Pool(%v, %v) = %v, %v", w.seg, w.flags, got, err)
		}
	}
	if g := a.Pools()[3].Info(); g.Size != 64<<10 {
		t.Errorf("group segment size %d", g.Size)
	}
	if _, err := a.Pools()[3].Allocate(64); !errors.Is(err, hsa.ErrInvalidAllocation) {
		t.Errorf("Allocate from the group segment: %v", err)
	}
	if _, err := a.Pool(hsa.SegmentReadOnly, 0); !errors.Is(err, hsa.ErrNotSupported) {
		t.Errorf("Pool(readonly): %v", err)
	}
	if s := (hsa.FlagKernargInit | hsa.FlagFineGrained).String(); s != "KERNARG_INIT|FINE_GRAINED" {
		t.Errorf("flags string %q", s)
	}
}

func TestCPUAgentsFromEnv(t *testing.T) {
	ags := cputest.Agents(t, 3)
	if len(ags) != 3 {
		t.Fatalf("HIPGO_CPU_AGENTS=3 gave %d agents", len(ags))
	}
	uuids := map[string]bool{}
	for i, a := range ags {
		if a.Index() != i || a.Info().Name != fmt.Sprintf("cpu%d", i) {
			t.Errorf("agent %d: index %d name %s", i, a.Index(), a.Info().Name)
		}
		uuids[a.Info().UUID] = true
	}
	if len(uuids) != 3 {
		t.Errorf("UUIDs not distinct: %v", uuids)
	}
}

func TestCPUAgentsFromEnvInvalid(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	for _, v := range []string{"0", "x", "65", "-1"} {
		t.Setenv("HIPGO_CPU_AGENTS", v)
		err := rocr.Init()
		if err == nil {
			rocr.ShutDown()
			t.Errorf("HIPGO_CPU_AGENTS=%s: Init succeeded", v)
			continue
		}
		if !errors.Is(err, hsa.ErrNoAgent) || !strings.Contains(err.Error(), "HIPGO_CPU_AGENTS") {
			t.Errorf("HIPGO_CPU_AGENTS=%s: %v", v, err)
		}
		_, err = rocr.Agents()
		wantNotInit(t, "Agents after a failed Init", err)
	}
	t.Setenv("HIPGO_CPU_AGENTS", "1")
	t.Setenv("HIPGO_DRIVER", "nosuch")
	if err := rocr.Init(); !errors.Is(err, hsa.ErrNotSupported) {
		t.Errorf("HIPGO_DRIVER=nosuch: %v", err)
		if err == nil {
			rocr.ShutDown()
		}
	}
}

// ROCR_VISIBLE_DEVICES applies to GPU agents; the cpu agents stay.
func TestVisibleDevicesLeavesCPUAgents(t *testing.T) {
	t.Setenv("ROCR_VISIBLE_DEVICES", "")
	if ags := cputest.Agents(t, 2); len(ags) != 2 {
		t.Errorf("%d agents with ROCR_VISIBLE_DEVICES empty", len(ags))
	}
}

func TestMaxHeapSize(t *testing.T) {
	t.Setenv("GPU_MAX_HEAP_SIZE", "1")
	a := cputest.Agents(t, 1)[0]
	coarse, _ := a.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	fine, _ := a.Pool(hsa.SegmentGlobal, hsa.FlagFineGrained)
	if want := coarse.Info().Size / 100; coarse.Limit() != want {
		t.Fatalf("limit %d, want 1%% of %d", coarse.Limit(), coarse.Info().Size)
	}
	if fine.Limit() != fine.Info().Size {
		t.Errorf("GPU_MAX_HEAP_SIZE capped the fine-grained pool: %d", fine.Limit())
	}
	if _, err := coarse.Allocate(coarse.Limit() + 1); !errors.Is(err, hsa.ErrOutOfResources) || hsa.StatusOf(err) != hsa.StatusErrorOutOfResources {
		t.Errorf("allocate past the limit: %v", err)
	}
	half := coarse.Limit()/2 + 4096
	al, err := coarse.Allocate(half)
	if err != nil {
		t.Fatal(err)
	}
	if coarse.Used() < half {
		t.Errorf("Used %d after allocating %d", coarse.Used(), half)
	}
	if _, err := coarse.Allocate(half); !errors.Is(err, hsa.ErrOutOfResources) {
		t.Errorf("second allocation past the limit: %v", err)
	}
	if err := al.Free(); err != nil {
		t.Fatal(err)
	}
	if coarse.Used() != 0 {
		t.Errorf("Used %d after Free", coarse.Used())
	}
	al, err = coarse.Allocate(half)
	if err != nil {
		t.Fatalf("allocation after Free: %v", err)
	}
	al.Free()
}

func TestMaxHeapSizeInvalid(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", "cpu")
	for _, v := range []string{"abc", "0", "150"} {
		t.Setenv("GPU_MAX_HEAP_SIZE", v)
		err := rocr.Init()
		if err == nil {
			rocr.ShutDown()
			t.Errorf("GPU_MAX_HEAP_SIZE=%s: Init succeeded", v)
		} else if !strings.Contains(err.Error(), "GPU_MAX_HEAP_SIZE") {
			t.Errorf("GPU_MAX_HEAP_SIZE=%s: %v", v, err)
		}
	}
}
