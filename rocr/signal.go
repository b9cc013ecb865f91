package rocr

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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

// signalGen numbers signals for HostVersion.
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
// ErrOutOfResources.
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
			return nil, nil, Errorf(hsa.StatusErrorOutOfResources, "signal create", "all %d signals are in use: destroy signals (events, streams) no longer needed", t.next)
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
// unknown or destroyed handle is an error wrapping ErrInvalidSignal.
func SignalFromHandle(h uint64) (*Signal, error) {
	if h == 0 {
		return nil, Errorf(hsa.StatusErrorInvalidSignal, "signal", "null signal handle")
	}
	if s := backendSignals.find(h); s != nil {
		return s, nil
	}
	if !signalTable.owns(uintptr(h)) {
		return nil, Errorf(hsa.StatusErrorInvalidSignal, "signal", "handle %#x is not a signal", h)
	}
	r := (*signalRecord)(hostmem.At(uintptr(h)))
	if atomic.LoadInt64(&r.kind) != signalMagic {
		return nil, Errorf(hsa.StatusErrorInvalidSignal, "signal", "handle %#x refers to a destroyed signal", h)
	}
	chunk := signalTable.chunks[r.index/tableChunk].Load()
	s := chunk[r.index%tableChunk].Load()
	if s == nil || s.destroyed.Load() {
		return nil, Errorf(hsa.StatusErrorInvalidSignal, "signal", "handle %#x refers to a destroyed signal", h)
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

// HostVersion counts the updates made to the signal through its methods
// (by the host or a software agent), not the writes a GPU makes to its
// memory. A driver that precomputes the values it has a GPU write can tell
// from it whether anyone else changed the signal since.
func (s *Signal) HostVersion() uint64 { return s.hb.Load() }

// MarkPolled says an agent updates the value in memory without notifying
// the host; waiters then poll instead of sleeping on a wake-up.
func (s *Signal) MarkPolled() {
	if !s.polled.Swap(true) {
		s.notify() // sleeping waiters switch to polling
	}
}

// Load reads the value.
func (s *Signal) Load(hsa.Order) int64 {
	if s.backend != nil {
		return s.backend.Load()
	}
	v := atomic.LoadInt64(&s.rec.value)
	s.hb.Load()
	return v
}

// Store writes the value and clears any recorded failure.
func (s *Signal) Store(v int64, _ hsa.Order) {
	if s.backend != nil {
		s.failure.Store(nil)
		s.backend.Store(v)
		return
	}
	s.lazy.mu.Lock()
	s.failure.Store(nil)
	s.lazy.by.Store(nil) // re-armed: no completer owns it yet
	s.lazy.arm.Add(1)
	s.noTS.Store(false)
	s.hb.Add(1)
	atomic.StoreInt64(&s.rec.value, v)
	s.lazy.mu.Unlock()
	s.notify()
}

// Add adds d and returns the new value.
func (s *Signal) Add(d int64, _ hsa.Order) int64 {
	if s.backend != nil {
		return s.backend.Add(d)
	}
	s.hb.Add(1)
	v := atomic.AddInt64(&s.rec.value, d)
	s.notify()
	return v
}

// Sub subtracts d and returns the new value.
func (s *Signal) Sub(d int64, o hsa.Order) int64 { return s.Add(-d, o) }

// And, Or and Xor apply the bitwise operation and return the new value.
func (s *Signal) And(m int64, o hsa.Order) int64 { return s.rmw(func(v int64) int64 { return v & m }) }

// Or applies v|m.
func (s *Signal) Or(m int64, o hsa.Order) int64 { return s.rmw(func(v int64) int64 { return v | m }) }

// Xor applies v^m.
func (s *Signal) Xor(m int64, o hsa.Order) int64 { return s.rmw(func(v int64) int64 { return v ^ m }) }

func (s *Signal) rmw(f func(int64) int64) int64 {
	for {
		old := s.Load(hsa.Relaxed)
		nv := f(old)
		if s.CAS(old, nv, hsa.AcqRel) == old {
			return nv
		}
	}
}

// Exchange stores v and returns the previous value.
func (s *Signal) Exchange(v int64, _ hsa.Order) int64 {
	if s.backend != nil {
		return s.backend.Exchange(v)
	}
	s.hb.Add(1)
	old := atomic.SwapInt64(&s.rec.value, v)
	s.notify()
	return old
}

// CAS stores new if the value equals old; it returns the value observed.
func (s *Signal) CAS(old, new int64, _ hsa.Order) int64 {
	if s.backend != nil {
		return s.backend.CAS(old, new)
	}
	s.hb.Add(1)
	for {
		if atomic.CompareAndSwapInt64(&s.rec.value, old, new) {
			s.notify()
			return old
		}
		if v := atomic.LoadInt64(&s.rec.value); v != old {
			return v
		}
	}
}

func (s *Signal) notify() {
	if s.waiters.Load() == 0 {
		return
	}
	s.wakeAll()
}

// wakeAll wakes every sleeper and forgets them: each registers again
// before it checks the value once more.
func (s *Signal) wakeAll() {
	s.mu.Lock()
	for i, w := range s.sleep {
		w.listed = false
		select {
		case w.wake <- struct{}{}:
		default: // already woken
		}
		s.sleep[i] = nil
	}
	s.sleep = s.sleep[:0]
	s.mu.Unlock()
}

// A sleeper is one waiter's wake-up: pooled, so a wait that sleeps
// allocates nothing (a channel closed and made again on every store was an
// allocation in every long Synchronize).
type sleeper struct {
	wake   chan struct{} // one slot: a wake-up is never lost, and never blocks the waker
	listed bool          // in its signal's sleep list; under the signal's mu
	timer  *time.Timer   // a polling wait's sleep; made on first use, stopped between uses
}

// sleepFor waits for a wake-up or d, whichever comes first. Since Go 1.23
// a stopped timer's channel holds no stale value, so Reset needs no drain.
func (w *sleeper) sleepFor(d time.Duration) {
	if w.timer == nil {
		w.timer = time.NewTimer(d)
	} else {
		w.timer.Reset(d)
	}
	select {
	case <-w.wake:
	case <-w.timer.C:
	}
	w.timer.Stop()
}

var sleepers = sync.Pool{New: func() any { return &sleeper{wake: make(chan struct{}, 1)} }}

// listen puts w in s's sleep list, where a store finds it, unless it is
// there already.
func (s *Signal) listen(w *sleeper) {
	s.mu.Lock()
	if !w.listed {
		w.listed = true
		s.sleep = append(s.sleep, w)
	}
	s.mu.Unlock()
}

// unlisten takes w out of s's sleep list and empties its wake-up, so the
// pool gets it back clean.
func (s *Signal) unlisten(w *sleeper) {
	s.mu.Lock()
	if w.listed {
		w.listed = false
		for i, o := range s.sleep {
			if o == w {
				last := len(s.sleep) - 1
				s.sleep[i] = s.sleep[last]
				s.sleep[last] = nil
				s.sleep = s.sleep[:last]
				break
			}
		}
	}
	s.mu.Unlock()
	select {
	case <-w.wake:
	default:
	}
}

// spin budgets before a waiter sleeps.
const (
	activeSpin  = 50 * time.Microsecond
	blockedSpin = 2 * time.Microsecond
	polledSpin  = time.Millisecond
	// maxPoll bounds the sleep between polls of a signal a GPU completes
	// without waking anyone: the most a waiter sees its completion late.
	maxPoll = 50 * time.Microsecond
)

// Wait blocks until the condition holds or the timeout passes (timeout <= 0
// waits forever) and returns the last value observed, as
// hsa_signal_wait_scacquire does. It never misses a store: a waiter
// registers before its final check, and every store with waiters wakes them.
func (s *Signal) Wait(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint) int64 {
	return s.wait(cond, cmp, timeout, hint, true)
}

// WaitNoYield is Wait whose spin never yields the processor: for
// goroutines locked to an OS thread (a GPU driver's queue processor), where
// runtime.Gosched costs a thread switch.
func (s *Signal) WaitNoYield(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint) int64 {
	return s.wait(cond, cmp, timeout, hint, false)
}

func (s *Signal) wait(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint, yield bool) int64 {
	if s.backend != nil {
		return s.backend.Wait(cond, cmp, timeout, hint)
	}
	v := atomic.LoadInt64(&s.rec.value)
	if cond.Holds(v, cmp) {
		s.hb.Load()
		return v
	}
	defer s.hb.Load()
	lazy := lazyWait{block: timeout <= 0 && hint == hsa.WaitActive}
	lazy.poll(s)
	start := time.Now()
	spin := blockedSpin
	if hint == hsa.WaitActive {
		spin = activeSpin
		if s.polled.Load() {
			// A GPU completes this signal without waking anyone: spinning
			// is the fast way to see it, as CUDA's spin-wait sync does.
			spin = polledSpin
		}
	}
	if timeout > 0 && spin > timeout {
		spin = timeout
	}
	for i := 0; ; i++ {
		v = atomic.LoadInt64(&s.rec.value)
		if cond.Holds(v, cmp) {
			return v
		}
		if i&15 == 15 {
			lazy.poll(s)
		}
		if i&63 == 63 {
			if time.Since(start) >= spin {
				break
			}
			if yield {
				runtime.Gosched()
			}
		}
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = start.Add(timeout)
	}
	s.waiters.Add(1)
	defer s.waiters.Add(-1)
	w := sleepers.Get().(*sleeper)
	defer func() {
		s.unlisten(w)
		sleepers.Put(w)
	}()
	poll := 20 * time.Microsecond
	for {
		// Listed before the value is read: a store after the read wakes w.
		s.listen(w)
		lazy.poll(s)
		v = atomic.LoadInt64(&s.rec.value)
		if cond.Holds(v, cmp) {
			return v
		}
		var wait time.Duration = -1
		if timeout > 0 {
			wait = time.Until(deadline)
			if wait <= 0 {
				return v
			}
		}
		if s.polled.Load() || s.destroyed.Load() {
			if wait < 0 || poll < wait {
				wait = poll
			}
			if poll < maxPoll {
				poll += poll / 2
			}
		}
		if wait < 0 {
			// MarkPolled wakes this wait too, so a signal that a GPU starts
			// completing while we sleep is then polled.
			<-w.wake
			continue
		}
		w.sleepFor(wait)
		if s.destroyed.Load() {
			return atomic.LoadInt64(&s.rec.value)
		}
	}
}

// WaitTimed is Wait that reports whether the condition held.
func (s *Signal) WaitTimed(cond hsa.Condition, cmp int64, timeout time.Duration, hint hsa.WaitHint) (int64, bool) {
	v := s.Wait(cond, cmp, timeout, hint)
	return v, cond.Holds(v, cmp)
}

// Fail records err as the failure of the work that completes this signal.
func (s *Signal) Fail(err error) {
	if err != nil {
		s.failure.Store(boxErr(err))
		if t := s.failTo.Load(); t != nil {
			t.Fail(err)
		}
	}
}

// boxErr keeps Fail's parameter on the stack on the success path.
func boxErr(err error) *error { return &err }

// Err is the failure recorded for the work that completed this signal.
func (s *Signal) Err() error {
	if p := s.failure.Load(); p != nil {
		return *p
	}
	if s.backend != nil {
		// A signal of another process that will never complete (its
		// exporter exited) fails its waiters.
		if f, ok := s.backend.(interface{ Failure() error }); ok {
			return f.Failure()
		}
	}
	return nil
}

// SetTimestamps records when the packet completing this signal started and
// ended, in Now's nanoseconds (hsa_amd_profiling_get_dispatch_time).
func (s *Signal) SetTimestamps(start, end uint64) {
	if s.rec != nil {
		atomic.StoreUint64(&s.rec.startTS, start)
		atomic.StoreUint64(&s.rec.endTS, end)
	}
}

// SkipTimestamps says that nobody will read the timestamps of the packet
// that completes the signal next (hipEventDisableTiming), so an agent that
// pays for them may skip them. Store resets it.
func (s *Signal) SkipTimestamps() { s.noTS.Store(true) }

// WantsTimestamps reports whether the packet completing the signal should
// record timestamps.
func (s *Signal) WantsTimestamps() bool { return !s.noTS.Load() }

// Timestamps returns the start and end times of the last packet that
// completed this signal with profiling.
func (s *Signal) Timestamps() (start, end uint64) {
	if tb, ok := s.backend.(interface{ Timestamps() (uint64, uint64) }); ok {
		return tb.Timestamps()
	}
	if s.rec == nil {
		return 0, 0
	}
	return atomic.LoadUint64(&s.rec.startTS), atomic.LoadUint64(&s.rec.endTS)
}

// Destroy releases the signal. Waiters are woken and return; later use of
// the handle in a packet is ErrInvalidSignal.
func (s *Signal) Destroy() error { return s.destroy(true) }

// destroy releases the signal; recycle puts its record back for reuse.
func (s *Signal) destroy(recycle bool) error {
	if s == nil || !s.destroyed.CompareAndSwap(false, true) {
		return Errorf(hsa.StatusErrorInvalidSignal, "signal destroy", "signal already destroyed")
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
