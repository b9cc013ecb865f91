package core

import (
	"fmt"
	"reflect"
	"runtime"
	"sync"

	"github.com/hipgo/hipgo/gpu/internal/live"
	"github.com/hipgo/hipgo/rocr"
)

// The leak backstop: memory that becomes unreachable without Free is
// released by a cleanup (runtime.AddCleanup) once the work it recorded
// completes, counted (Backstops) and, on a test's device, reported by
// gputest. The cleanup's argument holds what the release needs (the
// allocation, the dependency state, a description) and nothing that
// points back to the Mem, or the Mem would never be unreachable.

// memLeak is what the backstop of one Mem holds.
type memLeak struct {
	al   *rocr.Allocation
	deps *deps     // the Mem's own: the work that still uses the memory
	key  any       // the Mem's key in the live registry (a weak pointer)
	desc *memLabel // "buffer of 4 int32 (16 bytes)", made when reported
	// pool: the pool the memory returns to, as a block of class; nil
	// for memory of no pool.
	pool  *MemPool
	class uint64
}

// armBackstop registers m's backstop; m was just allocated (not pool
// memory, not empty, not a view).
// lab describes m in the leak report.
func (m *Mem) armBackstop(lab *memLabel) {
	l := &memLeak{al: m.alloc, deps: m.deps, key: live.Key(m), desc: lab}
	m.backstop = runtime.AddCleanup(m, releaseLeak, l)
}

// memLabel describes a Mem in the words of errors and leak reports,
// formatted only when one is made: a fmt.Sprintf on every allocation
// was a fifth of its cost. It holds nothing that points to the Mem.
type memLabel struct {
	kind string
	base uintptr
	n    int
	elem reflect.Type
	size int
}

// label is m's, as Mem.String words an allocated buffer.
func (m *Mem) label() *memLabel {
	l := &memLabel{kind: m.kindName(), n: m.n, elem: m.elem, size: m.Size()}
	if m.alloc != nil {
		l.base = m.alloc.Base
	}
	return l
}

// kindName is the word for m's kind of memory in errors and reports.
func (m *Mem) kindName() string {
	switch {
	case m.managed:
		return "managed buffer"
	case m.host:
		return "host buffer"
	}
	return "buffer"
}

// String is the allocation's label: "buffer 0x7f.. of 4 int32".
func (l *memLabel) String() string {
	return fmt.Sprintf("%s %#x of %d %s", l.kind, l.base, l.n, l.elem)
}

// leak is the leak report's words: "buffer of 4 int32 (16 bytes)".
func (l *memLabel) leak() string {
	return fmt.Sprintf("%s of %d %s (%d bytes)", l.kind, l.n, l.elem, l.size)
}

// armPoolBackstop registers the backstop of m, memory of class c just
// allocated from a pool: dropped unfreed, it returns to the pool after
// the work it recorded, as a free on the host would.
func (m *Mem) armPoolBackstop(c uint64) {
	lab := m.label()
	lab.kind = "pool buffer"
	l := &memLeak{al: m.alloc, deps: m.deps, key: live.Key(m), pool: m.pool, class: c, desc: lab}
	m.backstop = runtime.AddCleanup(m, releaseLeak, l)
}

// backstops counts the releases waiting for work. A WaitGroup would do,
// but its Add may not race a Wait that a test makes while cleanups run.
var backstops struct {
	mu      sync.Mutex
	pending int
	idle    sync.Cond
}

func init() { backstops.idle.L = &backstops.mu }

// goBackstop runs release on a goroutine of its own, counted for
// WaitBackstops.
func goBackstop(release func()) {
	backstops.mu.Lock()
	backstops.pending++
	backstops.mu.Unlock()
	go func() {
		defer func() {
			backstops.mu.Lock()
			if backstops.pending--; backstops.pending == 0 {
				backstops.idle.Broadcast()
			}
			backstops.mu.Unlock()
		}()
		release()
	}()
}

// Backstops is the number of objects dropped unfreed and released by the
// backstop since the process started.
func Backstops() int64 { return live.Collections() }

// WaitBackstops waits for the backstop releases that wait for work.
func WaitBackstops() {
	backstops.mu.Lock()
	for backstops.pending > 0 {
		backstops.idle.Wait()
	}
	backstops.mu.Unlock()
}

// releaseLeak is the backstop of a Mem that became unreachable unfreed:
// nothing can use it any more, so its dependency state is the cleanup's
// alone. The memory is freed after the work it recorded; a release that
// would wait runs on a goroutine of its own, so that cleanups queued
// behind it are not held up.
func releaseLeak(l *memLeak) {
	fs := l.deps.take(nil)
	pending := false
	for _, f := range fs {
		if !f.Done() {
			pending = true
			break
		}
	}
	if !pending {
		l.release(fs)
		return
	}
	goBackstop(func() { l.release(fs) })
}

// release waits for fs, drops them and frees the memory (pool memory
// returns to its pool), unless Shutdown or a Device.Reset freed it
// already. As Free does, it frees memory of a device released since (a
// test's view): the allocation is the agent's.
func (l *memLeak) release(fs []*Fence) {
	for _, f := range fs {
		_ = f.Wait(0)
		f.Release()
	}
	switch {
	case l.pool != nil:
		l.pool.giveBack(l.al, l.class, nil, 0, true) // after its users: any stream may have it
	case !l.al.Freed():
		_ = l.al.Free()
	}
	live.Collected(l.key, l.desc.leak())
}

// Uses is the dependency state of a Mem, apart from the Mem: a backstop
// may hold it without keeping the Mem alive (a module's variable, whose
// Global points back to its module).
type Uses struct{ d *deps }

// Uses is m's dependency state.
func (m *Mem) Uses() Uses {
	r := m.root()
	r.mu.Lock()
	defer r.mu.Unlock()
	return Uses{r.depsOf()}
}

// Wait waits for the work the state recorded and drops it; the Mem it
// belongs to is unreachable, so nothing records more.
func (u Uses) Wait() {
	for _, f := range u.d.take(nil) {
		_ = f.Wait(0)
		f.Release()
	}
}

// GoBackstop runs release on a goroutine of its own, counted for
// WaitBackstops: a backstop that waits for work must not hold up the
// cleanups queued behind it.
func GoBackstop(release func()) { goBackstop(release) }
