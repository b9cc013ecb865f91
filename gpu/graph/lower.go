package graph

import (
	"os"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/spi"
)

// lowered is an executable graph recorded by the device's driver as one
// replayable unit (a CUDA graph on cuda): a launch is one aql.AgentNative
// packet whose call replays it on the stream's native stream.
type lowered struct {
	ch   spi.Chain
	refs atomic.Int64 // one for the Exec, one per queued launch
	run  hostref.NativeFunc
}

func (l *lowered) release() {
	if l.refs.Add(-1) == 0 {
		_ = l.ch.Close()
	}
}

// recorderOf is the device driver's chain recorder; tests replace it.
var recorderOf = func(dev *gpu.Device) (spi.ChainRecorder, bool) {
	r, ok := dev.Agent().Driver().(spi.ChainRecorder)
	return r, ok
}

// lowerOff reports whether HIPGO_CUDA_GRAPHS=0 asks for packet replay on
// every driver.
func lowerOff() bool { return os.Getenv("HIPGO_CUDA_GRAPHS") == "0" }

// lower records pkts with the device's driver where it can record chains
// and the graph is kernels only; otherwise (or if the driver refuses) the
// graph is replayed packet by packet, which is correct everywhere.
func lower(dev *gpu.Device, pkts []core.GraphPacket) *lowered {
	rec, ok := recorderOf(dev)
	if !ok || len(pkts) == 0 || lowerOff() {
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
	l := &lowered{ch: ch}
	l.refs.Store(1)
	l.run = func(stream uintptr) error {
		defer l.release()
		return l.ch.Launch(stream)
	}
	return l
}

// launchLowered queues one replay of l on s after the earlier users of the
// graph's buffers.
func launchLowered(op string, s *core.Stream, l *lowered, uses []core.MemUse) error {
	if err := s.Refuse(op); err != nil {
		return err
	}
	l.refs.Add(1)
	id := hostref.RegisterNative(l.run)
	if err := s.Agent(op, aql.NativeWork{ID: id, Flags: aql.NativeQueuesOnly}.Call(), 0, uses...); err != nil {
		if _, ok := hostref.TakeNative(id); ok {
			l.release()
		}
		return err
	}
	return nil
}
