package core

import (
	"reflect"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/internal/live"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// InitShareable allocates n elements of T on dev into m from the agent's
// IPC pool: device memory like InitMem's, whose handle ExportIPC gives.
func InitShareable[T any](m *Mem, dev *gpu.Device, n int) error {
	const op = "ipc malloc"
	return initMem[T](m, dev, n, op, false, func() (*rocr.Pool, error) { return dev.Agent().IPCPool() })
}

// ExportIPC is the handle of shareable memory (hipIpcGetMemHandle).
func (m *Mem) ExportIPC() (rocr.IPCHandle, error) {
	const op = "ipc get mem handle"
	if err := m.Check(op); err != nil {
		return rocr.IPCHandle{}, err
	}
	if m.parent != nil {
		return rocr.IPCHandle{}, gpu.Errorf(gpu.ErrInvalidValue, op, "%s: share the buffer, and the offset with it", m)
	}
	if m.empty {
		return rocr.IPCHandle{}, gpu.Errorf(gpu.ErrInvalidValue, op, "%s has no memory to share", m)
	}
	h, err := m.alloc.ExportIPC()
	return h, errs.Wrap(op, err)
}

// InitOpened makes m the memory another process shared as h, as elements
// of T, mapped for dev (hipIpcOpenMemHandle). Its size must be a whole
// number of T. Free unmaps it here (hipIpcCloseMemHandle).
func InitOpened[T any](m *Mem, dev *gpu.Device, h rocr.IPCHandle) error {
	const op = "ipc open mem handle"
	if err := dev.Valid(); err != nil {
		return errs.Wrap(op, err)
	}
	gen := Gen(dev)
	elem := reflect.TypeFor[T]()
	es, err := checkCount(op, elem, 1)
	if err != nil {
		return err
	}
	if size := h.Size(); size%uint64(es) != 0 {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "handle of %d bytes: not a whole number of %s (%d bytes)", size, elem, es)
	}
	al, err := dev.Agent().OpenIPC(h)
	if err != nil {
		return errs.Wrap(op, err)
	}
	m.alloc, m.elem, m.esize, m.n = al, elem, es, int(al.Size)/es
	m.home, m.gen = dev, gen
	m.deps = &deps{}
	m.opened = true
	m.dev.Store(dev)
	al.SetLabel("opened " + m.String())
	live.AddWeak(Scope(dev), m)
	lab := m.label()
	lab.kind = "opened IPC buffer"
	m.armBackstop(lab) // unmaps it, as Free does
	return nil
}

// NewSharedFence wraps a signal other processes share (an IPC event's),
// held once by the caller. It never returns to the pool: when its last
// holder releases it, the signal is destroyed.
func NewSharedFence(sig *rocr.Signal) *Fence {
	f := &Fence{sig: sig, shared: true}
	f.refs.Store(1)
	return f
}

// RecordShared records an IPC event whose signal is shared's: a BARRIER_AND
// that completes shared's signal, then one that completes a fence of this
// stream, which it returns retained (the stream's own record of the
// point). A capture cannot record one: its replay would complete another
// process's signal out of any order that process sees.
func (s *Stream) RecordShared(op string, shared *Fence) (*Fence, error) {
	if err := s.Lock(op); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	if s.captureOf() != nil {
		return nil, gpu.Errorf(gpu.ErrStreamCaptureUnsupported, op, "an interprocess event cannot be recorded in a capture")
	}
	f, err := s.newFence(op)
	if err != nil {
		return nil, err
	}
	f.Signal().SkipTimestamps()
	// One count per record in flight, in any process: a second record
	// before the first completes keeps the event pending until both have.
	sig := shared.Signal()
	sig.Add(1, hsa.Release)
	var p aql.BarrierAnd
	p.CompletionSignal = sig.Handle()
	e := s.Push()
	shared.Retain()
	e.deps[0], e.ndeps = shared, 1 // held until the packet is reaped
	if err := s.Submit(unsafe.Pointer(&p), BarrierHeader, e); err != nil {
		sig.Sub(1, hsa.Release) // never published: no packet will complete it
		s.fences.Release(f)
		return nil, err
	}
	var p2 aql.BarrierAnd
	p2.CompletionSignal = f.Signal().Handle()
	e2 := s.Push()
	e2.fence = f
	if err := s.Submit(unsafe.Pointer(&p2), BarrierHeader, e2); err != nil {
		return nil, err
	}
	f.Retain()
	return f, nil
}
