package rocm

import (
	"testing"
	"time"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// TestDevice runs on a machine with an AMD GPU and ROCm: a hardware queue,
// a barrier-AND packet completed by the GPU's command processor with a
// ROCR signal and timestamps, and copies and fills through the copy
// engines. It skips elsewhere; HIPGO_REQUIRE=rocm makes a missing GPU a
// failure. Nothing here has run on AMD hardware yet (see doc.go).
func TestDevice(t *testing.T) {
	t.Setenv("HIPGO_DRIVER", Name)
	if err := rocr.Init(); err != nil {
		testenv.Requiref(t, "rocm", "no AMD GPU: %v", err)
	}
	defer rocr.ShutDown()
	as, err := rocr.Agents()
	if err != nil {
		t.Fatal(err)
	}
	for _, ag := range as {
		in := ag.Info()
		t.Logf("%s: %s %s, %d CUs, wave%d, %d MiB, LDS %d KiB, PCI %04x:%02x:%02x, %s", ag, in.ProductName, in.ISA,
			in.ComputeUnits, in.Wavefront, in.TotalMemory>>20, in.GroupMemSize>>10, in.PCIDomain, in.PCIBus, in.PCIDevice, in.UUID)
		if in.Type != hsa.DeviceGPU || in.ISA == "" || in.Wavefront == 0 || in.ComputeUnits == 0 || in.TotalMemory == 0 {
			t.Errorf("%s: incomplete info %+v", ag, in)
		}
		t.Run(in.Name, func(t *testing.T) { deviceSmoke(t, ag) })
	}
}

func deviceSmoke(t *testing.T, ag *rocr.Agent) {
	sf := ag.Driver().(*agent)
	newSig := func(v int64) *rocr.Signal {
		b, err := sf.NewSignal(v)
		if err != nil {
			t.Fatal(err)
		}
		s := rocr.Host().SignalWithBackend(b).(*rocr.Signal)
		t.Cleanup(func() { _ = s.Destroy() })
		return s
	}
	q, err := ag.CreateQueue(max(256, ag.Info().QueueMinSize), hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Destroy()
	dep, done := newSig(1), newSig(1)
	id, err := q.Reserve()
	if err != nil {
		t.Fatal(err)
	}
	b := (*aql.BarrierAnd)(q.Slot(id))
	*b = aql.BarrierAnd{}
	b.DepSignal[0] = dep.Handle()
	b.CompletionSignal = done.Handle()
	q.Publish(id, aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem), 0)
	if _, ok := done.WaitTimed(hsa.CondEQ, 0, 50*time.Millisecond, hsa.WaitBlocked); ok {
		t.Fatal("barrier completed before its dependency")
	}
	dep.Store(0, hsa.Release)
	if _, ok := done.WaitTimed(hsa.CondEQ, 0, 10*time.Second, hsa.WaitBlocked); !ok {
		t.Fatal("the GPU did not complete the barrier-AND packet")
	}
	if s, e := done.Timestamps(); e < s || e == 0 {
		t.Errorf("timestamps %d..%d", s, e)
	}
	if err := q.Err(); err != nil {
		t.Fatal(err)
	}

	const n = 1 << 20
	devPool, _ := ag.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	hostPool, _ := ag.Pool(hsa.SegmentGlobal, hsa.FlagFineGrained)
	dev, err := devPool.Allocate(n)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Free()
	host, err := hostPool.Allocate(n)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Free()
	src := hostmem.Bytes(host.Base, n)
	for i := range src {
		src[i] = byte(i * 13)
	}
	cdone := newSig(1)
	if err := sf.CopyAsync(dev.Base, host.Base, n, []spi.Signal{done}, cdone); err != nil {
		t.Fatal(err)
	}
	cdone.Wait(hsa.CondEQ, 0, 0, hsa.WaitBlocked)
	if err := sf.FillAsync(dev.Base+8, 0x5a, 16, 1, nil, nil); err != nil {
		t.Fatal(err)
	}
	clear(src)
	if err := sf.CopyAsync(host.Base, dev.Base, n, nil, nil); err != nil {
		t.Fatal(err)
	}
	for i := range src {
		want := byte(i * 13)
		if i >= 8 && i < 24 {
			want = 0x5a
		}
		if src[i] != want {
			t.Fatalf("byte %d after the round trip: %#x, want %#x", i, src[i], want)
		}
	}
}
