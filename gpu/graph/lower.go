package graph

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/rocr/spi"
)

// lowered is an executable graph recorded by the device's driver as one
// replayable unit (core.LowerGraph, which decides and falls back).
type lowered struct{ *core.Lowered }

func (l *lowered) release() { l.Release() }

// recorderOf is what records the device's chains: its agent, which asks
// its driver (rocr.Agent.RecordChain); tests replace it.
var recorderOf = func(dev *gpu.Device) (spi.ChainRecorder, bool) { return dev.Agent(), true }

// lower records pkts where the device's driver can record chains and the
// graph is kernels only; nil: the graph is replayed packet by packet.
func lower(dev *gpu.Device, pkts []core.GraphPacket) *lowered {
	rec, ok := recorderOf(dev)
	if !ok {
		return nil
	}
	if l := core.LowerGraph(rec, pkts); l != nil {
		return &lowered{l}
	}
	return nil
}

// launchLowered queues one replay of l on s after the earlier users of the
// graph's buffers.
func launchLowered(op string, s *core.Stream, l *lowered, uses []core.MemUse) error {
	return s.LaunchLowered(op, l.Lowered, uses)
}
