package core

import (
	"encoding/binary"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/internal/annotate"
	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/spi"
)

// GraphPacket is one packet of an instantiated graph, laid out once and
// written into a queue at each replay.
type GraphPacket struct {
	Agent    bool // an AGENT_DISPATCH (Call) rather than a kernel dispatch
	Dispatch Dispatch
	Kernarg  []byte // the kernel's kernarg image, Dispatch.KernargSize bytes
	Call     aql.AgentCall
	Host     func() error // an AgentCallback's function, registered per replay
	Name     string
}

// KernelNode is a kernel launch checked and encoded for a graph by
// gpu/module: the packet's sizes, its kernarg image, the buffers it uses,
// and Live, which says whether the kernel can still run (its module
// loaded). Nodes with the same LiveKey (the kernel) share one Live, which
// a replay asks once.
type KernelNode struct {
	Dispatch Dispatch
	Kernarg  []byte
	Uses     []MemUse
	Name     string
	Live     func() error
	LiveKey  any
}

// Replay writes a graph's packets into the stream's queue after the
// barriers its buffers' earlier users need, reserving the slots of each
// run of packets at once and ringing the doorbell once per run (one run
// unless the graph outgrows half the queue). Every packet carries the
// barrier bit, so the queue runs them in the order given, which is a
// topological order of the graph. uses are the graph's buffers, each
// once, with the strongest access any node makes; the graph's last packet
// becomes their last user.
func (s *Stream) Replay(op string, pkts []GraphPacket, uses []MemUse) error {
	if annotate.On() {
		annotate.Push(op)
		defer annotate.Pop()
	}
	if err := s.Lock(op); err != nil {
		return err
	}
	defer s.unlock()
	if err := s.Refuse(op); err != nil {
		return err // graphs inside graphs are not captured
	}
	if len(pkts) == 0 {
		return nil
	}
	if !s.q.BatchesAgentWork() {
		for i := range pkts {
			if pkts[i].Agent {
				return gpu.Errorf(gpu.ErrNotSupported, op, "node %s: copies, fills and host functions in graphs need a queue that runs agent packets", pkts[i].Name)
			}
		}
	}
	var printf uint64
	for i := range pkts {
		if pkts[i].Dispatch.Printf != 0 && !pkts[i].Agent {
			var err error
			if printf, err = s.printfAddr(op); err != nil {
				return err
			}
			break
		}
	}
	f, err := s.orderedFence(op, uses)
	if err != nil {
		return err
	}
	run := max(int(s.q.Size()/2), 1)
	var words [256]uint32
	run = min(run, len(words))
	for start := 0; start < len(pkts); start += run {
		k := min(run, len(pkts)-start)
		end := f
		if start+k < len(pkts) {
			// Each run ends in a fenced packet, so the stream's ring of
			// in-flight entries can always be reaped.
			if end, err = s.newFence(op); err != nil {
				f.Cancel()
				s.fences.Release(f)
				return err
			}
		}
		for i := 0; i < k-1; i++ {
			s.Push()
		}
		e := s.Push()
		err := s.takeAreas(pkts[start:start+k], k)
		var id uint64
		if err == nil {
			id, err = s.q.ReserveN(uint32(k))
		}
		if err != nil {
			for i := 0; i < k; i++ {
				s.Drop(s.at(s.head + s.count - 1))
			}
			if end != f {
				end.Cancel()
				s.fences.Release(end)
			}
			f.Cancel()
			s.fences.Release(f)
			return s.queueErr(op, err)
		}
		for i := 0; i < k; i++ {
			var sig uint64
			if i == k-1 {
				sig = end.Signal().Handle()
				e.fence = end
			}
			words[i] = s.writePacket(id+uint64(i), &pkts[start+i], sig, s.pushed(k-i), printf)
		}
		s.q.PublishN(id, words[:k])
	}
	s.SetTail(f)
	s.reap(false)
	return nil
}

// pushed is the entry pushed n pushes ago (1: the last).
func (s *Stream) pushed(n int) *entry { return s.at(s.head + s.count - n) }

// takeAreas gives each of the k packets just pushed for pkts whose
// kernarg image is larger than a queue slot a kernarg area, held by its
// entry.
func (s *Stream) takeAreas(pkts []GraphPacket, k int) error {
	for i := range pkts {
		if p := &pkts[i]; !p.Agent && p.Dispatch.KernargSize > spi.KernargSlotSize {
			a, err := s.takeArea(p.Dispatch.KernargSize)
			if err != nil {
				return err
			}
			s.pushed(k - i).area = a
		}
	}
	return nil
}

// writePacket writes p's body into slot id and its kernarg image into the
// slot's kernarg area, or into e's own area where it has one, with the
// stream's printf buffer where the kernel takes one, and returns its
// header word.
func (s *Stream) writePacket(id uint64, p *GraphPacket, sig uint64, e *entry, printf uint64) uint32 {
	dst := s.q.Slot(id)
	if p.Agent {
		call := p.Call
		if p.Host != nil {
			call = aql.CallbackWork{ID: hostref.RegisterCallback(p.Host)}.Call()
		}
		a := call.Packet(sig)
		copyBody(dst, unsafe.Pointer(&a))
		return uint32(AgentHeader) | uint32(call.Func)<<16 // the type shares the header word
	}
	d := &p.Dispatch
	ka := s.q.Kernarg(id)
	if e.area.addr != 0 {
		ka = e.area.addr
	}
	var k aql.KernelDispatch
	d.fill(&k, uint64(ka), sig)
	if d.KernargSize > 0 {
		img := hostmem.Bytes(ka, uintptr(d.KernargSize))
		copy(img, p.Kernarg[:d.KernargSize])
		if at := int(d.Printf) - 1; at >= 0 && at+8 <= len(img) {
			binary.LittleEndian.PutUint64(img[at:], printf)
		}
	}
	copyBody(dst, unsafe.Pointer(&k))
	return uint32(dispatchHeader) | uint32(d.Dims)<<16
}

// copyBody copies a packet's bytes 4..63; the header word is published
// last.
func copyBody(dst, src unsafe.Pointer) {
	*(*[aql.PacketSize - 4]byte)(unsafe.Add(dst, 4)) = *(*[aql.PacketSize - 4]byte)(unsafe.Add(src, 4))
}
