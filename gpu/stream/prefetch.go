package stream

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/hostwork"
)

// Prefetch queues the migration of managed memory m to dev's memory (dev
// nil: the host's) on s (hipMemPrefetchAsync), after the work that writes
// m. It moves the memory, never changes it: work after it on s finds m
// where it is used, without page faults. On cuda it is cuMemPrefetchAsync
// on the stream; the cpu agent, whose memory is the host's, has nothing to
// move and only orders the packet.
func Prefetch[T any](s *Stream, m *buffer.Managed[T], dev *gpu.Device) error {
	const op = "mem prefetch async"
	if err := s.core().Check(op); err != nil {
		return err
	}
	mem, _ := core.MemOf(m)
	if mem == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "nil buffer")
	}
	if err := mem.Check(op); err != nil {
		return err
	}
	to, err := core.TargetAgent(op, dev)
	if err != nil {
		return err
	}
	if mem.Len() > 0 { // empty: nothing to move
		agent := s.Device().Agent()
		addr, size := uint64(mem.Addr()), uint64(mem.Size())
		if err := hostwork.Launch(s.core(), &hostwork.Work{Op: op, Reads: []*core.Mem{mem},
			Native: func(stream uintptr) error { return agent.Prefetch(addr, size, to, stream) }}); err != nil {
			return err
		}
	}
	mem.RecordPrefetch(dev) // hipMemRangeAttributeLastPrefetchLocation
	return nil
}
