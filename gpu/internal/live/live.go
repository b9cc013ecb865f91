package live

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Scope is the set of objects of one tracked device.
type Scope struct {
	name string
}

// NewScope returns an empty scope; name says whose it is in reports.
func NewScope(name string) *Scope { return &Scope{name: name} }

// Name is the name the scope was made with.
func (s *Scope) Name() string { return s.name }

// Entry is one live object.
type Entry struct {
	Obj   any    // *buffer.Mem, *stream.Stream, *stream.Event, *module.Module
	Seq   uint64 // creation order
	scope *Scope
	pcs   [16]uintptr
	npc   int
}

// Frames are the call stack that made the object, innermost first.
func (e *Entry) Frames() *runtime.Frames { return runtime.CallersFrames(e.pcs[:e.npc]) }

var reg struct {
	mu      sync.Mutex
	objs    map[any]*Entry
	seq     uint64
	tracked atomic.Int64 // len(objs), read without the lock
}

// Hooks are what package gpu lends the registry and gputest: the scope of
// a device (nil for an untracked one), a tracked view of a device, and
// the release of a view. Devices are passed as any because this package
// cannot import gpu.
type Hooks struct {
	ScopeOf func(dev any) *Scope
	Open    func(dev any, name string) (view any, err error)
	Close   func(view any) error
}

var hooks Hooks

// Install sets the hooks; package gpu calls it from init.
func Install(h Hooks) { hooks = h }

// Open returns a tracked view of dev: a device on the same agent whose
// objects are recorded in a scope of their own.
func Open(dev any, name string) (any, error) { return hooks.Open(dev, name) }

// Close releases a view from Open: its own default stream, copy queue and
// per-device values. It does not release what Live still lists.
func Close(view any) error { return hooks.Close(view) }

// ScopeOf is the scope of dev, nil when dev is not tracked.
func ScopeOf(dev any) *Scope {
	if hooks.ScopeOf == nil {
		return nil
	}
	return hooks.ScopeOf(dev)
}

// Add records obj as made on dev, if dev is tracked, with the stack of
// its caller.
func Add(dev, obj any) {
	s := ScopeOf(dev)
	if s == nil {
		return
	}
	e := &Entry{Obj: obj, scope: s}
	e.npc = runtime.Callers(2, e.pcs[:])
	reg.mu.Lock()
	if reg.objs == nil {
		reg.objs = map[any]*Entry{}
	}
	reg.seq++
	e.Seq = reg.seq
	reg.objs[obj] = e
	reg.tracked.Store(int64(len(reg.objs)))
	reg.mu.Unlock()
}

// Remove forgets obj: it was released.
func Remove(obj any) {
	if reg.tracked.Load() == 0 {
		return
	}
	reg.mu.Lock()
	delete(reg.objs, obj)
	reg.tracked.Store(int64(len(reg.objs)))
	reg.mu.Unlock()
}

// Live lists the objects of s not yet released, oldest first.
func (s *Scope) Live() []*Entry {
	reg.mu.Lock()
	var out []*Entry
	for _, e := range reg.objs {
		if e.scope == s {
			out = append(out, e)
		}
	}
	reg.mu.Unlock()
	slices.SortFunc(out, func(a, b *Entry) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}
