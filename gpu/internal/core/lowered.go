package core

import (
	"os"
	"sync/atomic"

	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Lowered is an executable graph recorded by the device's driver as one
// replayable unit (a CUDA graph on cuda): a launch is one aql.AgentNative
// packet whose call replays it on the stream's native stream.
type Lowered struct {
	ch   spi.Chain
	refs atomic.Int64 // one for the graph, one per queued launch
	run  hostref.NativeFunc
}

// Release drops the graph's reference: the recording is closed once the
// launches queued before it ran.
func (l *Lowered) Release() {
	if l.refs.Add(-1) == 0 {
		_ = l.ch.Close()
	}
}

// lowerOff reports whether HIPGO_CUDA_GRAPHS=0 asks for packet replay on
// every driver.
func lowerOff() bool { return os.Getenv("HIPGO_CUDA_GRAPHS") == "0" }

// LowerGraph records pkts with rec (the agent's rocr.Agent.RecordChain)
// where the graph is kernels only; otherwise, or if rec refuses (a driver
// that records no chains), it returns nil and the graph is replayed packet
// by packet (Stream.Replay), which is correct everywhere.
func LowerGraph(rec spi.ChainRecorder, pkts []GraphPacket) *Lowered {
	if rec == nil || len(pkts) == 0 || lowerOff() {
		return nil
	}
	ks := make([]spi.ChainKernel, len(pkts))
	for i := range pkts {
		p := &pkts[i]
		if p.Agent {
			return nil // copies, fills and host nodes stay queue packets
		}
		d := &p.Dispatch
		if d.Cooperative || d.Cluster != ([3]uint32{}) {
			return nil // a chain launches plain kernels
		}
		ks[i] = spi.ChainKernel{
			Object:       d.Object,
			Grid:         d.Grid,
			Block:        [3]uint32{uint32(d.Block[0]), uint32(d.Block[1]), uint32(d.Block[2])},
			GroupSegment: d.GroupSegment,
			Kernarg:      p.Kernarg[:d.KernargSize],
		}
	}
	ch, err := rec.RecordChain(ks)
	if err != nil {
		return nil
	}
	l := &Lowered{ch: ch}
	l.refs.Store(1)
	l.run = func(stream uintptr) error {
		defer l.Release()
		return l.ch.Launch(stream)
	}
	return l
}

// LaunchLowered queues one replay of l on s after the earlier users of the
// graph's buffers.
func (s *Stream) LaunchLowered(op string, l *Lowered, uses []MemUse) error {
	if err := s.Refuse(op); err != nil {
		return err
	}
	l.refs.Add(1)
	id := hostref.RegisterNative(l.run)
	if err := s.Agent(op, aql.NativeWork{ID: id, Flags: aql.NativeQueuesOnly}.Call(), 0, uses...); err != nil {
		if _, ok := hostref.TakeNative(id); ok {
			l.Release()
		}
		return err
	}
	return nil
}
