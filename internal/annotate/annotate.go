package annotate

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/ebitengine/purego"
)

const (
	unknown int32 = iota
	off
	on
)

var state atomic.Int32

// On reports whether a profiler is attached, loading it at the first call.
func On() bool {
	s := state.Load()
	return s == on || s == unknown && load()
}

var (
	loadMu  sync.Mutex
	loadErr error
)

func load() bool {
	loadMu.Lock()
	defer loadMu.Unlock()
	if s := state.Load(); s != unknown {
		return s == on
	}
	err1 := nvtx.open()
	err2 := roctx.open()
	loadErr = firstErr(err1, err2)
	if r := report.Load(); loadErr != nil && r != nil {
		(*r)(loadErr)
	}
	if nvtx.ok || roctx.ok {
		state.Store(on)
		return true
	}
	state.Store(off)
	return false
}

// Reset forgets what the first use found, so that the next one reads the
// environment again: for tests, between operations, with no range open.
func Reset() {
	loadMu.Lock()
	defer loadMu.Unlock()
	state.Store(unknown)
	nvtx.reset()
	roctx = roctxClient{}
	loadErr = nil
}

var report atomic.Pointer[func(error)]

// SetReport makes f receive the error of a profiler that asked for ranges
// and could not be attached, once, at the first use.
func SetReport(f func(error)) { report.Store(&f) }

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Err is why a profiler that asked for ranges is not attached; nil when
// none asked or it attached.
func Err() error {
	On()
	loadMu.Lock()
	defer loadMu.Unlock()
	return loadErr
}

// Push opens a thread range named name, locking the goroutine to its
// thread until Pop. Call it only where On is true.
func Push(name string) {
	runtime.LockOSThread()
	p := cname(name)
	nvtx.call(nvtxRangePushA, p)
	roctx.call(roctx.push, p)
	runtime.KeepAlive(p)
}

// Pop closes the innermost range Push opened and unlocks the thread.
func Pop() {
	nvtx.call(nvtxRangePop, nil)
	roctx.call(roctx.pop, nil)
	runtime.UnlockOSThread()
}

// ID is a process range of each API.
type ID struct{ nvtx, roctx uint64 }

// Start opens a process range named name, which Stop closes from any
// thread. Call it only where On is true.
func Start(name string) ID {
	p := cname(name)
	id := ID{nvtx: nvtx.call(nvtxRangeStartA, p), roctx: roctx.call(roctx.start, p)}
	runtime.KeepAlive(p)
	return id
}

// Stop closes a range Start opened.
func Stop(id ID) {
	nvtx.callID(nvtxRangeEnd, id.nvtx)
	roctx.callID(roctx.stop, id.roctx)
}

// Mark records an instant event named name. Call it only where On is
// true.
func Mark(name string) {
	p := cname(name)
	nvtx.call(nvtxMarkA, p)
	roctx.call(roctx.mark, p)
	runtime.KeepAlive(p)
}

// callC calls fn with one argument; fn 0 is a call the tool does not take.
// SyscallN's variadic arguments escape, so a call with a literal argument
// list allocates it; a pooled one does not.
func callC(fn uintptr, arg uintptr) uint64 {
	if fn == 0 {
		return 0
	}
	a := argPool.Get().(*[1]uintptr)
	a[0] = arg
	r, _, _ := purego.SyscallN(fn, a[:]...)
	argPool.Put(a)
	return uint64(r)
}

var argPool = sync.Pool{New: func() any { return new([1]uintptr) }}

// The names the ranges take, NUL-terminated once and kept: the gpu
// packages' operations and kernels, and the user's, up to maxNames; past
// that a name is copied per call.
var names struct {
	mu sync.Mutex
	m  atomic.Pointer[map[string]*byte]
}

const maxNames = 4096

func cname(s string) *byte {
	if m := names.m.Load(); m != nil {
		if p, ok := (*m)[s]; ok {
			return p
		}
	}
	b := make([]byte, len(s)+1)
	copy(b, s)
	names.mu.Lock()
	defer names.mu.Unlock()
	old := names.m.Load()
	if old != nil && len(*old) >= maxNames {
		return &b[0]
	}
	m := make(map[string]*byte, 1+lenOf(old))
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	m[s] = &b[0]
	names.m.Store(&m)
	return &b[0]
}

func lenOf(m *map[string]*byte) int {
	if m == nil {
		return 0
	}
	return len(*m)
}

func ptr(p *byte) uintptr { return uintptr(unsafe.Pointer(p)) }
