package cpu_test

import (
	"bytes"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

func submitAgent(t testing.TB, q *rocr.Queue, call aql.AgentCall, sig *rocr.Signal) {
	t.Helper()
	p := call.Packet(0)
	if sig != nil {
		p.CompletionSignal = sig.Handle()
	}
	if _, err := q.Submit(unsafe.Pointer(&p), aql.MakeHeader(aql.TypeAgentDispatch, true, aql.ScopeSystem, aql.ScopeSystem)); err != nil {
		t.Fatal(err)
	}
}

// runAgent runs one agent-dispatch packet on a fresh queue and returns its
// error (a failed packet stops its queue).
func runAgent(t testing.TB, a *rocr.Agent, call aql.AgentCall) error {
	t.Helper()
	q, err := a.CreateQueue(4, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Destroy()
	sig, _ := rocr.NewSignal(1)
	defer sig.Destroy()
	submitAgent(t, q, call, sig)
	if v, ok := sig.WaitTimed(hsa.CondEQ, 0, 10*time.Second, hsa.WaitBlocked); !ok {
		t.Fatalf("agent dispatch %#x: signal %d", call.Func, v)
	}
	if (sig.Err() == nil) != (q.Err() == nil) {
		t.Errorf("signal error %v, queue error %v", sig.Err(), q.Err())
	}
	return sig.Err()
}

func TestAgentCopyFillCallback(t *testing.T) {
	ag := setup(t)
	const n = 1024
	src, dst := alloc(t, ag, hsa.FlagCoarseGrained, n), alloc(t, ag, hsa.FlagFineGrained, n)
	s, d := hostmem.Bytes(src.Base, n), hostmem.Bytes(dst.Base, n)
	for i := range s {
		s[i] = byte(i)
	}
	q, err := ag.CreateQueue(8, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Destroy()
	sig, _ := rocr.NewSignal(0)
	defer sig.Destroy()
	step := func(call aql.AgentCall) {
		t.Helper()
		sig.Store(1, hsa.Release)
		submitAgent(t, q, call, sig)
		if _, ok := sig.WaitTimed(hsa.CondEQ, 0, 10*time.Second, hsa.WaitBlocked); !ok || sig.Err() != nil {
			t.Fatalf("agent dispatch %#x %v: %v", call.Func, call.Arg, sig.Err())
		}
	}
	// Device to device.
	step(aql.CopyWork{Dst: uint64(dst.Base), Src: uint64(src.Base), Bytes: n}.Call())
	if !bytes.Equal(s, d) {
		t.Fatal("copy")
	}
	// Host to device and device to host.
	host := bytes.Repeat([]byte{0xab}, 100)
	id := hostref.PinHost(host)
	step(aql.CopyWork{Dst: uint64(dst.Base) + 10, Src: id, Bytes: 100, Flags: aql.CopySrcHost}.Call())
	hostref.UnpinHost(id)
	if d[9] != 9 || d[10] != 0xab || d[109] != 0xab || d[110] != 110 {
		t.Fatalf("host to device: % x", d[8:112])
	}
	out := make([]byte, 16)
	id = hostref.PinHost(out)
	step(aql.CopyWork{Dst: id, Src: uint64(src.Base) + 16, Bytes: 16, Flags: aql.CopyDstHost}.Call())
	hostref.UnpinHost(id)
	if out[0] != 16 || out[15] != 31 {
		t.Fatalf("device to host: % x", out)
	}
	// Fills of every element size.
	copy(d, s)
	for _, es := range []uint64{1, 2, 4, 8} {
		step(aql.FillWork{Dst: uint64(dst.Base), Pattern: 0x0102030405060708, Count: 64 / es, ElemSize: es}.Call())
		for i := 0; i < 64; i++ {
			if want := byte(uint64(0x0102030405060708) >> (8 * (uint64(i) % es))); d[i] != want {
				t.Fatalf("fill %d: byte %d = %#x, want %#x", es, i, d[i], want)
			}
		}
		if d[64] != 64 {
			t.Fatalf("fill %d wrote past its end", es)
		}
		copy(d, s)
	}
	// Zero-length copy and fill do nothing.
	step(aql.CopyWork{}.Call())
	step(aql.FillWork{ElemSize: 1}.Call())
	// Callbacks run in order with the queue's other packets.
	var ran atomic.Int32
	step(aql.CallbackWork{ID: hostref.RegisterCallback(func() error { ran.Add(1); return nil })}.Call())
	if ran.Load() != 1 {
		t.Fatal("callback did not run")
	}
	// A native call has no stream here: it runs as host work with stream 0.
	stream := uintptr(1)
	step(aql.NativeWork{ID: hostref.RegisterNative(func(s uintptr) error { stream = s; return nil })}.Call())
	if stream != 0 {
		t.Fatalf("native call ran with stream %#x, want 0", stream)
	}
}

func TestAgentDispatchErrors(t *testing.T) {
	ag := setup(t)
	const n = 256
	buf := alloc(t, ag, hsa.FlagCoarseGrained, n)
	next := alloc(t, ag, hsa.FlagCoarseGrained, n)
	b, nb := hostmem.Bytes(buf.Base, n), hostmem.Bytes(next.Base, n)
	for i := range nb {
		nb[i] = 0x5a
	}
	short := make([]byte, 8)
	shortID := hostref.PinHost(short)
	defer hostref.UnpinHost(shortID)
	boom := errors.New("boom")
	for _, tc := range []struct {
		name string
		call aql.AgentCall
		is   error
		msg  string
	}{
		{"copy past the end", aql.CopyWork{Dst: uint64(buf.Base), Src: uint64(buf.Base), Bytes: n + 1}.Call(), hsa.ErrInvalidArgument, "past the end"},
		{"copy into the next buffer", aql.CopyWork{Dst: uint64(buf.Base) + n - 8, Src: uint64(buf.Base), Bytes: 16}.Call(), hsa.ErrInvalidArgument, "destination"},
		{"copy from nowhere", aql.CopyWork{Dst: uint64(buf.Base), Src: 0x1000, Bytes: 8}.Call(), hsa.ErrInvalidAllocation, "source"},
		{"copy to null", aql.CopyWork{Src: uint64(buf.Base), Bytes: 8}.Call(), hsa.ErrInvalidArgument, "null"},
		{"copy overflow", aql.CopyWork{Dst: uint64(buf.Base), Src: uint64(buf.Base), Bytes: ^uint64(0) - 4}.Call(), hsa.ErrInvalidArgument, "overflows"},
		{"copy from an unpinned host id", aql.CopyWork{Dst: uint64(buf.Base), Src: 1 << 40, Bytes: 8, Flags: aql.CopySrcHost}.Call(), hsa.ErrInvalidArgument, "not pinned"},
		{"copy past a host buffer", aql.CopyWork{Dst: shortID, Src: uint64(buf.Base), Bytes: 16, Flags: aql.CopyDstHost}.Call(), hsa.ErrInvalidArgument, "shorter"},
		{"fill past the end", aql.FillWork{Dst: uint64(buf.Base), Pattern: 1, Count: n/4 + 1, ElemSize: 4}.Call(), hsa.ErrInvalidArgument, "past the end"},
		{"fill element size 3", aql.FillWork{Dst: uint64(buf.Base), Pattern: 1, Count: 1, ElemSize: 3}.Call(), hsa.ErrInvalidArgument, "element size"},
		{"fill overflow", aql.FillWork{Dst: uint64(buf.Base), Pattern: 1, Count: 1 << 62, ElemSize: 8}.Call(), hsa.ErrInvalidArgument, "overflow"},
		{"unknown callback", aql.CallbackWork{ID: 1 << 50}.Call(), hsa.ErrInvalidArgument, "no callback"},
		{"callback error", aql.CallbackWork{ID: hostref.RegisterCallback(func() error { return boom })}.Call(), boom, "boom"},
		{"callback panic", aql.CallbackWork{ID: hostref.RegisterCallback(func() error { panic("bang") })}.Call(), hsa.ErrKernelFailed, "bang"},
		{"unknown native call", aql.NativeWork{ID: 1 << 50}.Call(), hsa.ErrInvalidArgument, "no native call"},
		{"native call error", aql.NativeWork{ID: hostref.RegisterNative(func(uintptr) error { return boom })}.Call(), boom, "boom"},
		{"native call panic", aql.NativeWork{ID: hostref.RegisterNative(func(uintptr) error { panic("bang") })}.Call(), hsa.ErrKernelFailed, "bang"},
		{"unknown function", aql.AgentCall{Func: 0x8fff}, hsa.ErrInvalidPacket, "0x8fff"},
	} {
		err := runAgent(t, ag, tc.call)
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	for i := range b {
		if b[i] != 0 {
			t.Fatalf("a failed packet wrote byte %d", i)
		}
	}
	for i := range nb {
		if nb[i] != 0x5a {
			t.Fatalf("a failed packet wrote byte %d of the next buffer", i)
		}
	}
	if short[0] != 0 {
		t.Fatal("a failed copy wrote the host buffer")
	}
}

// Copies and fills obey ownership as dispatches do.
func TestAgentCopyOwnership(t *testing.T) {
	ags := cputest.Agents(t, 2)
	ag, other := ags[0], ags[1]
	buf := alloc(t, ag, hsa.FlagCoarseGrained, 64)
	buf.SetLabel("buffer c")
	fine := alloc(t, ag, hsa.FlagFineGrained, 64)
	err := runAgent(t, other, aql.CopyWork{Dst: uint64(fine.Base), Src: uint64(buf.Base), Bytes: 64}.Call())
	if !errors.Is(err, hsa.ErrNotOwner) || !strings.Contains(err.Error(), "buffer c") || !strings.Contains(err.Error(), other.String()) {
		t.Errorf("copy from another agent's memory: %v", err)
	}
	if err := runAgent(t, other, aql.FillWork{Dst: uint64(buf.Base), Count: 64, ElemSize: 1}.Call()); !errors.Is(err, hsa.ErrNotOwner) {
		t.Errorf("fill of another agent's memory: %v", err)
	}
	if err := buf.Transfer(other); err != nil {
		t.Fatal(err)
	}
	if err := runAgent(t, other, aql.CopyWork{Dst: uint64(fine.Base), Src: uint64(buf.Base), Bytes: 64}.Call()); err != nil {
		t.Errorf("after Transfer: %v", err)
	}
}

// A grid whose work-group count overflows is refused, not run for ever.
func TestDispatchHugeGrid(t *testing.T) {
	ag := setup(t)
	q, err := ag.CreateQueue(4, hsa.QueueMulti, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Destroy()
	sig, _ := rocr.NewSignal(1)
	defer sig.Destroy()
	id, _ := q.Reserve()
	// The body only: the header stays INVALID until Publish.
	body := aql.KernelDispatch{WorkgroupSizeX: 1, WorkgroupSizeY: 1, WorkgroupSizeZ: 1, GridSizeX: 1<<32 - 1, GridSizeY: 1<<32 - 1, GridSizeZ: 1<<32 - 1,
		KernelObject: cputest.Empty.Symbol().Object, CompletionSignal: sig.Handle()}
	copy(unsafe.Slice((*byte)(unsafe.Add(q.Slot(id), 4)), aql.PacketSize-4), unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&body), 4)), aql.PacketSize-4))
	q.Publish(id, aql.MakeHeader(aql.TypeKernelDispatch, true, 0, 0), 3)
	if _, ok := sig.WaitTimed(hsa.CondEQ, 0, 10*time.Second, hsa.WaitBlocked); !ok {
		t.Fatal("huge grid still running")
	}
	if err := sig.Err(); !errors.Is(err, hsa.ErrInvalidArgument) {
		t.Errorf("huge grid: %v", err)
	}
}
