package rocr

import (
	"github.com/hipgo/hipgo/internal/hostref"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Hooks for rocr_test.

// CheckRange is the range check drivers make through spi.Host.
func CheckRange(a *Agent, addr, size uintptr) (*Allocation, error) { return checkRange(a, addr, size) }

// SignalSlabs is the number of mapped signal slabs.
func SignalSlabs() int {
	signalTable.mu.Lock()
	defer signalTable.mu.Unlock()
	return len(signalTable.slabs)
}

// SetSignalCapacity lowers the signal table's capacity to the signals
// created so far plus n slabs' worth, and returns a func that restores it.
func SetSignalCapacity(slabs int) (restore func()) {
	signalTable.mu.Lock()
	defer signalTable.mu.Unlock()
	old := signalCapacity
	signalCapacity = signalTable.next + uint64(slabs*signalsPerSlab)
	return func() {
		signalTable.mu.Lock()
		defer signalTable.mu.Unlock()
		signalCapacity = old
	}
}

// TraceBuffered is the number of trace events the active tracer holds in
// memory.
func TraceBuffered() int {
	t := tracer.Load()
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.events)
}

// SetInline makes q offer its packets to ie for running inline, as a
// driver's InlineExecutor is offered them, and returns a func that undoes it.
func SetInline(q *Queue, ie spi.InlineExecutor) (restore func()) {
	q.execMu.Lock()
	old := q.inline
	q.inline = ie
	q.execMu.Unlock()
	return func() {
		q.execMu.Lock()
		q.inline = old
		q.execMu.Unlock()
	}
}

// SetCreateQueueHook makes CreateQueue call h once the queue runs, before
// the runtime tracks it, and returns a func that removes it.
func SetCreateQueueHook(h func()) (restore func()) {
	createQueueHook.Store(&h)
	return func() { createQueueHook.Store(nil) }
}

// KernargsFreed reports whether q's kernarg area was given back.
func KernargsFreed(q *Queue) bool { return q.kaAlloc != nil && q.kaAlloc.Freed() }

// RectRegistered reports whether a 2-D copy's descriptor is still held
// under id.
func RectRegistered(id uint64) bool {
	return hostref.RectHeld(id)
}
