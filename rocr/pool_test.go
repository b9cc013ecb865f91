package rocr_test

import (
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// Coarse-grained memory belongs to one agent: a dispatch on another agent
// fails with hsa.ErrNotOwner naming the buffer, the owner and the offender,
// until Transfer moves it.
func TestOwnership(t *testing.T) {
	ags := cputest.Agents(t, 2)
	a0, a1 := ags[0], ags[1]
	const n = 256
	al := allocate(t, a0, hsa.FlagCoarseGrained, 4*n)
	al.SetLabel("buffer b0")
	if al.Owner() != a0 || al.Pool().Agent() != a0 {
		t.Fatalf("owner %v", al.Owner())
	}
	if err := al.CheckAccess(a0); err != nil {
		t.Fatal(err)
	}
	err := al.CheckAccess(a1)
	if !errors.Is(err, hsa.ErrNotOwner) {
		t.Fatalf("CheckAccess by another agent: %v", err)
	}
	args := fillArgs{rocr.Ptr[uint32](al.Base), n, 7}
	q1 := newQueue(t, a1, 4, nil)
	sig := newSignal(t, 1)
	launch(t, q1, kernelFill, &args, n, 64, sig)
	wait(t, sig, 10*time.Second)
	err = sig.Err()
	if !errors.Is(err, hsa.ErrNotOwner) {
		t.Fatalf("dispatch on a non-owner: %v", err)
	}
	for _, want := range []string{"buffer b0", a0.String(), a1.String(), "rocr_test_fill"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	data := unsafe.Slice((*uint32)(hostmem.At(al.Base)), n)
	if data[0] != 0 {
		t.Error("the failed dispatch wrote the buffer")
	}
	// Transfer fixes it, and takes the buffer away from the old owner.
	if err := al.Transfer(a1); err != nil {
		t.Fatal(err)
	}
	if al.Owner() != a1 {
		t.Fatal("Transfer did not change the owner")
	}
	q1b := newQueue(t, a1, 4, nil)
	sig.Store(1, hsa.Release)
	launch(t, q1b, kernelFill, &args, n, 64, sig)
	wait(t, sig, 10*time.Second)
	if sig.Err() != nil || data[0] != 7 || data[n-1] != 7 {
		t.Fatalf("after Transfer: %v, data %d %d", sig.Err(), data[0], data[n-1])
	}
	q0 := newQueue(t, a0, 4, nil)
	sig.Store(1, hsa.Release)
	launch(t, q0, kernelFill, &args, n, 64, sig)
	wait(t, sig, 10*time.Second)
	if !errors.Is(sig.Err(), hsa.ErrNotOwner) {
		t.Errorf("old owner after Transfer: %v", sig.Err())
	}
	// A kernel that runs past the end of its buffer fails, even where the
	// next buffer follows it directly; that buffer stays untouched.
	x := allocate(t, a1, hsa.FlagCoarseGrained, 4*n)
	y := allocate(t, a1, hsa.FlagCoarseGrained, 4*n)
	if y.Base != x.Base+4*n {
		t.Logf("allocations not adjacent: %#x %#x", x.Base, y.Base)
	}
	q1c := newQueue(t, a1, 4, nil)
	sig.Store(1, hsa.Release)
	launch(t, q1c, kernelFill, &fillArgs{rocr.Ptr[uint32](x.Base), 2 * n, 9}, 2*n, 64, sig)
	wait(t, sig, 10*time.Second)
	if err := sig.Err(); !errors.Is(err, hsa.ErrKernelFailed) || !strings.Contains(err.Error(), "outside") || strings.Count(err.Error(), "work-group") != 1 {
		t.Errorf("out-of-bounds dispatch: %v", err)
	}
	if yd := unsafe.Slice((*uint32)(hostmem.At(y.Base)), n); yd[0] == 9 {
		t.Error("an out-of-bounds write reached the next allocation")
	}
}

func TestFineGrainedAccess(t *testing.T) {
	ags := cputest.Agents(t, 2)
	fine := allocate(t, ags[0], hsa.FlagFineGrained, 1024)
	if err := fine.CheckAccess(ags[1]); err != nil {
		t.Errorf("fine-grained host memory, another agent: %v", err)
	}
	if err := fine.AllowAccess(ags...); err != nil {
		t.Errorf("AllowAccess: %v", err)
	}
	if err := fine.AllowAccess(nil); !errors.Is(err, hsa.ErrNoAgent) {
		t.Errorf("AllowAccess(nil): %v", err)
	}
	// A fine-grained buffer works in a dispatch on either agent.
	for i, a := range ags {
		q := newQueue(t, a, 4, nil)
		sig := newSignal(t, 1)
		launch(t, q, kernelFill, &fillArgs{rocr.Ptr[uint32](fine.Base), 256, uint32(i + 1)}, 256, 64, sig)
		wait(t, sig, 10*time.Second)
		if sig.Err() != nil || *(*uint32)(hostmem.At(fine.Base + 1020)) != uint32(i+1) {
			t.Errorf("agent %d: %v", i, sig.Err())
		}
	}
	coarse := allocate(t, ags[0], hsa.FlagCoarseGrained, 1024)
	if err := coarse.AllowAccess(ags[1]); !errors.Is(err, hsa.ErrInvalidArgument) {
		t.Errorf("AllowAccess on coarse-grained memory: %v", err)
	}
	if err := fine.Free(); err != nil {
		t.Fatal(err)
	}
	if err := fine.AllowAccess(ags[1]); !errors.Is(err, hsa.ErrInvalidAllocation) {
		t.Errorf("AllowAccess after Free: %v", err)
	}
	if err := fine.CheckAccess(ags[0]); !errors.Is(err, hsa.ErrInvalidAllocation) {
		t.Errorf("CheckAccess after Free: %v", err)
	}
	if err := fine.Transfer(ags[1]); !errors.Is(err, hsa.ErrInvalidAllocation) {
		t.Errorf("Transfer after Free: %v", err)
	}
}

func TestAllocateAndFree(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	p, _ := a.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	if _, err := p.Allocate(0); !errors.Is(err, hsa.ErrInvalidArgument) {
		t.Errorf("Allocate(0): %v", err)
	}
	al, err := p.Allocate(1000)
	if err != nil {
		t.Fatal(err)
	}
	if al.Size != 1000 || al.Base%256 != 0 || p.Used() != 1024 {
		t.Errorf("size %d base %#x used %d", al.Size, al.Base, p.Used())
	}
	if !strings.Contains(al.String(), "1000 bytes") {
		t.Errorf("String() = %q", al.String())
	}
	for _, addr := range []uintptr{al.Base, al.Base + 1, al.Base + 999} {
		if got := rocr.FindAllocation(addr); got != al {
			t.Errorf("FindAllocation(base+%d) = %v", addr-al.Base, got)
		}
	}
	if got := rocr.FindAllocation(al.Base - 1); got == al {
		t.Error("FindAllocation(base-1) found the allocation")
	}
	if got := rocr.FindAllocation(al.Base + 1024); got == al {
		t.Error("FindAllocation(base+cap) found the allocation")
	}
	if rocr.FindAllocation(0) != nil {
		t.Error("FindAllocation(0)")
	}
	if err := al.Free(); err != nil {
		t.Fatal(err)
	}
	if p.Used() != 0 {
		t.Errorf("used %d after Free", p.Used())
	}
	if got := rocr.FindAllocation(al.Base); got == al {
		t.Error("FindAllocation found a freed allocation")
	}
	if err := al.Free(); !errors.Is(err, hsa.ErrInvalidAllocation) || !strings.Contains(err.Error(), "already freed") {
		t.Errorf("double Free: %v", err)
	}
}

// Pool memory lives outside the Go heap: mapped pages whose addresses and
// contents the garbage collector leaves alone.
func TestPoolMemoryOutsideGoHeap(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	page := uintptr(os.Getpagesize())
	small := allocate(t, a, hsa.FlagCoarseGrained, 100)
	large := allocate(t, a, hsa.FlagCoarseGrained, 3<<20)
	fine := allocate(t, a, hsa.FlagFineGrained, 5<<20)
	if large.Base%page != 0 || fine.Base%page != 0 || small.Base%256 != 0 {
		t.Errorf("alignment: small %#x large %#x fine %#x", small.Base, large.Base, fine.Base)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	for _, al := range []*rocr.Allocation{small, large, fine} {
		if !mapped(string(maps), al.Base, al.Base+al.Size) {
			t.Errorf("%v is not inside one mapping", al)
		}
		b := hostmem.Bytes(al.Base, al.Size)
		for i := range b {
			b[i] = byte(i * 7)
		}
	}
	// Garbage that makes the collector run and reuse its heap.
	var keep [][]byte
	for i := 0; i < 100; i++ {
		keep = append(keep, make([]byte, 64<<10))
		if i%10 == 0 {
			keep = keep[:0]
			runtime.GC()
		}
	}
	runtime.GC()
	for _, al := range []*rocr.Allocation{small, large, fine} {
		b := hostmem.Bytes(al.Base, al.Size)
		for i := range b {
			if b[i] != byte(i*7) {
				t.Fatalf("%v changed at byte %d after GC", al, i)
			}
		}
	}
}

// mapped reports whether [lo, hi) lies inside one line of /proc/self/maps.
func mapped(maps string, lo, hi uintptr) bool {
	for _, line := range strings.Split(maps, "\n") {
		var a, b uintptr
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		r := strings.SplitN(f[0], "-", 2)
		if len(r) != 2 || parseHex(r[0], &a) != nil || parseHex(r[1], &b) != nil {
			continue
		}
		if lo >= a && hi <= b {
			return true
		}
	}
	return false
}

func parseHex(s string, v *uintptr) error {
	var x uintptr
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			x = x<<4 | uintptr(c-'0')
		case c >= 'a' && c <= 'f':
			x = x<<4 | uintptr(c-'a'+10)
		default:
			return errors.New("not hex")
		}
	}
	*v = x
	return nil
}

// A held allocation outlives a ShutDown that starts meanwhile until it is
// let go; a freed one, or one whose runtime is closing, cannot be held.
func TestAllocationHold(t *testing.T) {
	a := cputest.Agent(t)
	al := allocate(t, a, hsa.FlagFineGrained, 4096)
	other := allocate(t, a, hsa.FlagFineGrained, 64)
	if !al.Hold() {
		t.Fatal("a live allocation cannot be held")
	}
	done := make(chan error, 1)
	go func() { done <- rocr.ShutDown() }()
	select {
	case err := <-done:
		t.Fatalf("ShutDown returned (%v) while an allocation was held", err)
	case <-time.After(50 * time.Millisecond):
	}
	if al.Freed() {
		t.Fatal("a held allocation was freed")
	}
	if other.Hold() {
		t.Error("held while the runtime shuts down")
		other.Unhold()
	}
	al.Unhold()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !al.Freed() || al.Hold() {
		t.Errorf("after ShutDown: freed %v, and it could be held", al.Freed())
	}
	if err := rocr.Init(); err != nil { // for the cleanup's ShutDown
		t.Fatal(err)
	}
}
