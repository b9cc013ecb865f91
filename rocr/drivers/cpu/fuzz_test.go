package cpu_test

import (
	"encoding/binary"
	"errors"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

type fuzzArgs struct {
	A rocr.Ptr[uint32]
	N int32
}

var fuzzKernel = kernel.Define("cpu_fuzz_fill", func(g *kernel.Block, a *fuzzArgs) {
	lo, hi := g.Span(0, int(a.N))
	s := a.A.Slice(g, lo, hi)
	for i := range s {
		s[i] = uint32(lo + i)
	}
})

// Fuzz input: byte 0 holds flags that swap random fields for real objects,
// so the fuzzer reaches past the first check; then up to 4 packets of 64
// bytes.
const (
	fuzzRealKernel  = 1 << iota // KERNEL_DISPATCH: a real kernel object, grid clipped small
	fuzzKernargSlot             // kernarg address: the queue's kernarg slot, holding the packet's random bytes
	fuzzKernargBuf              // kernarg address: the kernarg slot, holding a real buffer and a random count
	fuzzRealSignal              // completion signal: a real signal, which must complete
	fuzzRealAddress             // AGENT_DISPATCH: Arg[0] and Arg[1] inside a real buffer, at random offsets
)

// FuzzProcessor writes random packets into a queue: whatever they hold, the
// process does not crash, every packet's real completion signal completes,
// a packet after them runs or fails cleanly, and a failed queue reports a
// status.
func FuzzProcessor(f *testing.F) {
	f.Setenv("HIPGO_DRIVER", "cpu")
	f.Setenv("HIPGO_CPU_AGENTS", "1")
	if err := rocr.Init(); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { rocr.ShutDown() })
	ags, _ := rocr.Agents()
	ag := ags[0]
	pool, _ := ag.Pool(hsa.SegmentGlobal, hsa.FlagCoarseGrained)
	buf, err := pool.Allocate(1024)
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		flags := data[0]
		data = data[1:]
		q, err := ag.CreateQueue(4, hsa.QueueMulti, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer q.Destroy()
		var sigs []*rocr.Signal
		defer func() {
			for _, s := range sigs {
				s.Destroy()
			}
		}()
		for n := 0; n < 4 && len(data) > 0; n++ {
			var pk [aql.PacketSize]byte
			data = data[copy(pk[:], data):]
			h := aql.Header(binary.LittleEndian.Uint16(pk[0:]))
			if h.Type() == aql.TypeInvalid {
				h |= 0xff // publishing INVALID means "not ready": the queue would wait for ever, by design
			}
			id, err := q.Reserve()
			if err != nil {
				t.Fatal(err)
			}
			switch h.Type() {
			case aql.TypeKernelDispatch:
				p := (*aql.KernelDispatch)(unsafe.Pointer(&pk))
				if flags&fuzzRealKernel != 0 {
					p.KernelObject = fuzzKernel.Symbol().Object
					p.GridSizeX, p.GridSizeY, p.GridSizeZ = p.GridSizeX%64, p.GridSizeY%8, p.GridSizeZ%8
				}
				ka := q.Kernarg(id)
				switch {
				case flags&fuzzKernargBuf != 0:
					*(*fuzzArgs)(hostmem.At(ka)) = fuzzArgs{rocr.Ptr[uint32](buf.Base), int32(binary.LittleEndian.Uint32(pk[60:]))}
					p.KernargAddress = uint64(ka)
				case flags&fuzzKernargSlot != 0:
					copyOut(ka, pk[:])
					p.KernargAddress = uint64(ka)
				}
			case aql.TypeAgentDispatch:
				p := (*aql.AgentDispatch)(unsafe.Pointer(&pk))
				if flags&fuzzRealAddress != 0 {
					p.Arg[0] = uint64(buf.Base) + p.Arg[0]%2048
					p.Arg[1] = uint64(buf.Base) + p.Arg[1]%2048
					p.Arg[2] %= 2048
				}
			}
			if flags&fuzzRealSignal != 0 {
				s, err := rocr.NewSignal(1)
				if err != nil {
					t.Fatal(err)
				}
				sigs = append(sigs, s)
				binary.LittleEndian.PutUint64(pk[56:], s.Handle())
			}
			copyOut(uintptr(q.Slot(id))+4, pk[4:])
			q.Publish(id, h, binary.LittleEndian.Uint16(pk[2:]))
		}
		fin, err := rocr.NewSignal(1)
		if err != nil {
			t.Fatal(err)
		}
		sigs = append(sigs, fin)
		var b aql.BarrierAnd
		b.CompletionSignal = fin.Handle()
		if _, err := q.Submit(unsafe.Pointer(&b), aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem)); err != nil {
			t.Fatal(err)
		}
		if v, ok := fin.WaitTimed(hsa.CondEQ, 0, 20*time.Second, hsa.WaitBlocked); !ok {
			t.Fatalf("queue stuck: final signal %d, queue error %v", v, q.Err())
		}
		for i, s := range sigs {
			if v := s.Load(hsa.Acquire); v != 0 {
				t.Errorf("packet %d's signal is %d after the queue moved past it", i, v)
			}
		}
		if err := q.Err(); err != nil {
			var re *hsa.Error
			if !errors.As(err, &re) || re.Status == hsa.StatusSuccess {
				t.Errorf("queue error without a status: %v", err)
			}
			if fin.Err() == nil {
				t.Errorf("the queue failed (%v) but the packet after the failure succeeded", err)
			}
		}
	})
}

// copyOut copies b to mapped memory at addr. (Inlined, a copy from a local
// array to an address made from an integer crashed go1.26.8's compiler:
// "disjointTypes: one of arguments is not a pointer".)
//
//go:noinline
func copyOut(addr uintptr, b []byte) { copy(hostmem.Bytes(addr, uintptr(len(b))), b) }
