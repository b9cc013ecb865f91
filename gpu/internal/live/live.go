package live

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"weak"
)

// Scope is the set of objects of one tracked device.
type Scope struct {
	name string
	// collected: objects the garbage collector's backstop released
	// unfreed (Collected), under reg.mu.
	collected []*Entry
}

// NewScope returns an empty scope; name says whose it is in reports.
func NewScope(name string) *Scope { return &Scope{name: name} }

// Name is the name the scope was made with.
func (s *Scope) Name() string { return s.name }

// Entry is one live object.
type Entry struct {
	obj   any        // held strongly (Add)
	ref   func() any // held weakly (AddWeak): nil once collected
	Seq   uint64     // creation order
	Desc  string     // what the backstop released, for a collected object
	scope *Scope
	pcs   [16]uintptr
	npc   int
}

// Obj is the object: a *core.Mem, *core.Stream, *stream.Event or
// *module.Module; nil for one held weakly that the garbage collector
// took.
func (e *Entry) Obj() any {
	if e.ref != nil {
		return e.ref()
	}
	return e.obj
}

// Frames are the call stack that made the object, innermost first.
func (e *Entry) Frames() *runtime.Frames { return runtime.CallersFrames(e.pcs[:e.npc]) }

var reg struct {
	mu      sync.Mutex
	objs    map[any]*Entry
	seq     uint64
	tracked atomic.Int64 // len(objs), read without the lock
}

// Add records obj in s, the scope of the device it was made on, with the
// stack of its caller; s nil (an untracked device) records nothing.
func Add(s *Scope, obj any) {
	if s == nil {
		return
	}
	e := &Entry{obj: obj, scope: s}
	e.npc = runtime.Callers(2, e.pcs[:])
	add(obj, e)
}

// AddWeak is Add for an object the registry must not keep alive, so that
// the garbage collector's backstop (runtime.AddCleanup) can release it:
// the entry holds a weak pointer, which is also its key (Key).
func AddWeak[T any](s *Scope, obj *T) { addWeak(s, obj, false) }

// AddHeld is AddWeak for an object that has no backstop: the entry holds
// it as Add does, and its key is the weak pointer RemoveWeak forgets.
func AddHeld[T any](s *Scope, obj *T) { addWeak(s, obj, true) }

func addWeak[T any](s *Scope, obj *T, held bool) {
	if s == nil {
		return
	}
	w := weak.Make(obj)
	if held {
		e := &Entry{obj: obj, scope: s}
		e.npc = runtime.Callers(3, e.pcs[:])
		add(w, e)
		return
	}
	e := &Entry{ref: func() any {
		if p := w.Value(); p != nil {
			return p
		}
		return nil
	}, scope: s}
	e.npc = runtime.Callers(3, e.pcs[:])
	add(w, e)
}

// Key is the registry's key for obj, added with AddWeak: a weak pointer,
// which a backstop may keep without keeping obj alive.
func Key[T any](obj *T) any { return weak.Make(obj) }

// RemoveWeak forgets obj, added with AddWeak: it was released.
func RemoveWeak[T any](obj *T) {
	if reg.tracked.Load() == 0 {
		return
	}
	Remove(weak.Make(obj))
}

// Collected records that the backstop released the object of key (Key),
// described by desc, which its program never freed: its scope lists it
// in Collected, and Collections counts it.
func Collected(key any, desc string) {
	collections.Add(1)
	if reg.tracked.Load() == 0 {
		return
	}
	reg.mu.Lock()
	if e, ok := reg.objs[key]; ok {
		delete(reg.objs, key)
		reg.tracked.Store(int64(len(reg.objs)))
		e.Desc = desc
		e.scope.collected = append(e.scope.collected, e)
	}
	reg.mu.Unlock()
}

var collections atomic.Int64

// Collections is the number of objects the backstop released unfreed in
// this process.
func Collections() int64 { return collections.Load() }

// Collected lists the objects of s that the backstop released unfreed,
// in the order it released them.
func (s *Scope) Collected() []*Entry {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	return slices.Clone(s.collected)
}

func add(key any, e *Entry) {
	reg.mu.Lock()
	if reg.objs == nil {
		reg.objs = map[any]*Entry{}
	}
	reg.seq++
	e.Seq = reg.seq
	reg.objs[key] = e
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
