package rocr

import (
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// signalRecord is the 64-byte signal in mapped memory that a packet's
// signal handle points at. Its layout follows amd_signal_t where that
// matters (kind at 0, value at 8, start and end timestamps at 32 and 40), so
// an agent that reads signals from memory finds the value where ROCR puts it.
type signalRecord struct {
	kind    int64 // signalMagic while alive
	value   int64
	index   uint64 // position in the signal table
	_       uint64
	startTS uint64
	endTS   uint64
	_       [2]uint64
}

const (
	signalMagic     = 0x6869706753696721 // "hipgSig!"
	signalSlabBytes = 64 << 10
	signalsPerSlab  = signalSlabBytes / int(unsafe.Sizeof(signalRecord{}))
	tableChunk      = 4096
	tableChunks     = 4096
)

// Signal is an HSA signal: a 64-bit value that agents and the host update
// and wait on. Every operation is safe from many goroutines; a waiter never
// misses a store.
type Signal struct {
	rec     *signalRecord
	backend spi.SignalBackend
	handle  uint64

	waiters atomic.Int32
	mu      sync.Mutex
	sleep   []*sleeper // waiters asleep on the signal; each store with waiters wakes them
	// polled marks signals that an agent writes without telling the host
	// (a GPU's memory write); waiters poll them instead of sleeping.
	polled atomic.Bool
	// failTo also receives this signal's failures: an inner signal of
	// work that a packet's completion signal stands for.
	failTo atomic.Pointer[Signal]
	// failure is the error of the packet that completed this signal, if it
	// failed; barriers that depend on the signal see it.
	failure   atomic.Pointer[error]
	destroyed atomic.Bool
	// lazy names the executor that completes the signal on the host once
	// its progress counter passes (Defer).
	lazy lazyState
	// noTS: the packet completing the signal need not record timestamps
	// (an event created without timing).
	noTS atomic.Bool
	// hb mirrors every update in Go memory: the race detector does not see
	// atomics on mapped memory, and this gives it the happens-before edge
	// that the signal value gives the program.
	hb atomic.Uint64
}

type signalTableT struct {
	mu     sync.Mutex
	chunks [tableChunks]atomic.Pointer[[tableChunk]atomic.Pointer[Signal]]
	free   []*signalRecord
	next   uint64
	slabs  []uintptr
	// slabSnap is a copy of slabs for lock-free lookups.
	slabSnap atomic.Pointer[[]uintptr]
}

var signalTable signalTableT

// signalCapacity is how many signal records the table can index; tests
// lower it.
var signalCapacity uint64 = tableChunk * tableChunks

// owns reports whether a is the address of a record in a signal slab.
func (t *signalTableT) owns(a uintptr) bool {
	p := t.slabSnap.Load()
	if p == nil {
		return false
	}
	for _, b := range *p {
		if a >= b && a < b+signalSlabBytes && (a-b)%unsafe.Sizeof(signalRecord{}) == 0 {
			return true
		}
	}
	return false
}

type backendRegistry struct{ m sync.Map }

func (r *backendRegistry) find(h uint64) *Signal {
	if v, ok := r.m.Load(h); ok {
		return v.(*Signal)
	}
	return nil
}
func (r *backendRegistry) remove(h uint64) { r.m.Delete(h) }

var backendSignals backendRegistry

// signalGen starts each signal's hb count apart from every other signal's.
var signalGen atomic.Uint64

// slabHooks are called with every signal slab, existing and new, so drivers
// can make signal memory visible to their devices.
var slabHooks []func(base, size uintptr) error

// onSignalMemory registers f to be called with each signal slab's address
// range: at once for existing slabs and later for new ones.
func onSignalMemory(f func(base, size uintptr) error) error {
	signalTable.mu.Lock()
	defer signalTable.mu.Unlock()
	for _, s := range signalTable.slabs {
		if err := f(s, signalSlabBytes); err != nil {
			return err
		}
	}
	slabHooks = append(slabHooks, f)
	return nil
}

// NewSignal creates a signal with an initial value. When every signal the
// table can index (16M) is live, it returns an error wrapping
// hsa.ErrOutOfResources.
func NewSignal(initial int64) (*Signal, error) {
	if err := checkInit("signal create"); err != nil {
		return nil, err
	}
	return newSignal(initial)
}

func newSignal(initial int64) (*Signal, error) {
	r, chunk, err := signalTable.take()
	if err != nil {
		return nil, err
	}
	s := initSignal(r, initial)
	chunk[r.index%tableChunk].Store(s)
	return s, nil
}

// take pops a free record, mapping a new slab when none is left, and
// returns it with the table chunk that indexes it.
func (t *signalTableT) take() (*signalRecord, *[tableChunk]atomic.Pointer[Signal], error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.free) == 0 {
		if t.next+uint64(signalsPerSlab) > signalCapacity {
			return nil, nil, hsa.Errorf(hsa.StatusErrorOutOfResources, "signal create", "all %d signals are in use: destroy signals (events, streams) no longer needed", t.next)
		}
		base, err := spi.MapAnonymous(signalSlabBytes)
		if err != nil {
			return nil, nil, err
		}
		for _, h := range slabHooks {
			if err := h(base, signalSlabBytes); err != nil {
				_ = spi.Unmap(base, signalSlabBytes)
				return nil, nil, err
			}
		}
		t.slabs = append(t.slabs, base)
		snap := append([]uintptr(nil), t.slabs...)
		t.slabSnap.Store(&snap)
		for i := signalsPerSlab - 1; i >= 0; i-- {
			r := (*signalRecord)(hostmem.At(base + uintptr(i)*unsafe.Sizeof(signalRecord{})))
			r.index = t.next
			t.next++
			t.free = append(t.free, r)
		}
	}
	r := t.free[len(t.free)-1]
	chunk := t.chunks[r.index/tableChunk].Load()
	if chunk == nil {
		chunk = new([tableChunk]atomic.Pointer[Signal])
		t.chunks[r.index/tableChunk].Store(chunk)
	}
	t.free = t.free[:len(t.free)-1]
	return r, chunk, nil
}

// initSignal makes a live signal of record r.
func initSignal(r *signalRecord, initial int64) *Signal {
	s := &Signal{rec: r, handle: uint64(uintptr(unsafe.Pointer(r)))}
	// Each signal's versions start in a range of their own, so a new
	// signal on a reused record never looks like its predecessor.
	s.hb.Store(signalGen.Add(1) << 32)
	atomic.StoreInt64(&r.value, initial)
	r.startTS, r.endTS = 0, 0
	atomic.StoreInt64(&r.kind, signalMagic)
	return s
}

// localIndex marks a record outside the table: a soft queue's doorbell.
const localIndex = ^uint64(0)

// newDoorbell makes a soft queue's doorbell. Its record lives in Go memory,
// outside the table and unknown to SignalFromHandle: a producer that rings
// a destroyed queue's doorbell late writes into memory nobody else uses,
// and the garbage collector frees it, so doorbells need no table slot that
// could never be recycled.
func newDoorbell(initial int64) *Signal {
	return initSignal(&signalRecord{index: localIndex}, initial)
}

// newSignalWithBackend wraps a driver's signal.
func newSignalWithBackend(b spi.SignalBackend) *Signal {
	s := &Signal{backend: b, handle: b.Handle()}
	backendSignals.m.Store(s.handle, s)
	return s
}

// SignalFromHandle finds the signal a packet's handle refers to. A zero,
// unknown or destroyed handle is an error wrapping hsa.ErrInvalidSignal.
func SignalFromHandle(h uint64) (*Signal, error) {
	if h == 0 {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidSignal, "signal", "null signal handle")
	}
	if s := backendSignals.find(h); s != nil {
		return s, nil
	}
	if !signalTable.owns(uintptr(h)) {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidSignal, "signal", "handle %#x is not a signal", h)
	}
	r := (*signalRecord)(hostmem.At(uintptr(h)))
	if atomic.LoadInt64(&r.kind) != signalMagic {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidSignal, "signal", "handle %#x refers to a destroyed signal", h)
	}
	chunk := signalTable.chunks[r.index/tableChunk].Load()
	s := chunk[r.index%tableChunk].Load()
	if s == nil || s.destroyed.Load() {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidSignal, "signal", "handle %#x refers to a destroyed signal", h)
	}
	return s, nil
}

// Handle is the value packets carry (hsa_signal_t.handle).
func (s *Signal) Handle() uint64 { return s.handle }

// Addr is the address of the signal's 64-bit value for agents that update
// it with memory operations (0 for backend signals).
func (s *Signal) Addr() uintptr {
	if s.rec == nil {
		return 0
	}
	return uintptr(unsafe.Pointer(&s.rec.value))
}

// Destroy releases the signal. Waiters are woken and return; later use of
// the handle in a packet is hsa.ErrInvalidSignal.
func (s *Signal) Destroy() error { return s.destroy(true) }

// destroy releases the signal; recycle puts its record back for reuse.
func (s *Signal) destroy(recycle bool) error {
	if s == nil || !s.destroyed.CompareAndSwap(false, true) {
		return hsa.Errorf(hsa.StatusErrorInvalidSignal, "signal destroy", "signal already destroyed")
	}
	if s.backend != nil {
		backendSignals.remove(s.handle)
		return s.backend.Destroy()
	}
	s.wakeAll()
	r := s.rec
	atomic.StoreInt64(&r.kind, 0)
	if r.index == localIndex {
		return nil
	}
	signalTable.chunks[r.index/tableChunk].Load()[r.index%tableChunk].Store(nil)
	if !recycle {
		return nil
	}
	signalTable.mu.Lock()
	signalTable.free = append(signalTable.free, r)
	signalTable.mu.Unlock()
	return nil
}

// Destroyed reports whether Destroy was called.
func (s *Signal) Destroyed() bool { return s.destroyed.Load() }
