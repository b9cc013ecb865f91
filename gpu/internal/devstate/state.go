// Package devstate is the bookkeeping of a device that package gpu and
// the packages above it share: the streams Device.Synchronize waits for,
// the per-device values those packages keep (the default stream, the copy
// engine, loaded kernels), the reset count and, for a test's view, the
// device it views. gpu.Device embeds a State, and Of finds it from the
// device, typed, with no hook to install. State has no exported methods:
// embedding would make them the Device's.
package devstate

import (
	"errors"
	"sync"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu/internal/live"
)

// Synchronizer is what Device.Synchronize waits for: the streams of the
// device register themselves.
type Synchronizer interface {
	Synchronize() error
}

// Tracked is a Synchronizer that its maker records with the live
// registry itself, weakly (a stream): Register does not record it, and
// Unregister forgets LiveKey.
type Tracked interface {
	Synchronizer
	LiveKey() any
}

// State is the bookkeeping of a device of type D, which embeds it.
type State[D any] struct {
	dev    *D
	parent *State[D]     // a test's view: the state of the device it views
	scope  *live.Scope   // a test's view: what is made on it; nil otherwise
	views  *Views[D]     // how to open and close a test's view of the device
	gen    atomic.Uint64 // resets, counted on the root's state

	mu      sync.Mutex
	syncers map[Synchronizer]struct{}

	values sync.Map   // key → *value
	vmu    sync.Mutex // serializes Value's constructors
}

type value struct {
	v     any
	close func() error
}

// stateAny is how Of finds the state from the device that embeds it. The
// interface it satisfies (holder) is not generic, so the assertion to it
// is cached at its call site; the assertion from any to *State[D] that
// follows compares one type word. An assertion to an interface whose
// method returns *State[D] would look the pair up in the runtime's itab
// table on every call (about 60 ns of a launch on the cpu agent).
func (st *State[D]) stateAny() any { return st }

// holder is a device type that embeds a State.
type holder interface{ stateAny() any }

// Views are how package gpu opens a test's view of a device (gpu/gputest)
// and releases one: a device on the same agent with its own streams and
// values, whose objects are recorded in a live scope of their own.
type Views[D any] struct {
	Open  func(dev *D, name string) (*D, error)
	Close func(view *D) error
}

// Init makes st the state of dev, which embeds it, with views to open
// test views of it. A view's state is made by InitView.
func Init[D any](st *State[D], dev *D, views *Views[D]) {
	st.dev, st.views = dev, views
	st.syncers = map[Synchronizer]struct{}{}
}

// InitView makes st the state of view, a test's view named name of the
// device whose state is parent (or of the device that one views).
func InitView[D any](st *State[D], view *D, parent *State[D], name string) {
	Init(st, view, parent.views)
	st.parent = Root(parent)
	st.scope = live.NewScope(name)
}

// OpenView opens a test's view named name of dev, whose state is st.
func OpenView[D any](st *State[D], dev *D, name string) (*D, error) {
	if st == nil || st.views == nil {
		return nil, errNoViews
	}
	return st.views.Open(dev, name)
}

var errNoViews = errors.New("devstate: a nil device, or one that has no test views")

// CloseView releases a view from OpenView: its own default stream, copy
// queue and per-device values. It does not release what its scope still
// lists.
func CloseView[D any](st *State[D], view *D) error {
	if st == nil || st.views == nil {
		return errNoViews
	}
	return st.views.Close(view)
}

// Scope is the live scope of st's device: nil unless it is a test's view.
func Scope[D any](st *State[D]) *live.Scope {
	if st == nil {
		return nil
	}
	return st.scope
}

// Of is the state dev embeds; nil for a nil device.
func Of[D any](dev *D) *State[D] {
	if dev == nil {
		return nil
	}
	return any(dev).(holder).stateAny().(*State[D])
}

// Device is the device whose state st is.
func Device[D any](st *State[D]) *D { return st.dev }

// Root is the state of the device a test's view views, or st.
func Root[D any](st *State[D]) *State[D] {
	if st.parent != nil {
		return st.parent
	}
	return st
}

// Register adds s to what the device's Synchronize waits for, and records
// it with the live registry unless it is Tracked.
func Register[D any](st *State[D], s Synchronizer) {
	st.mu.Lock()
	st.syncers[s] = struct{}{}
	st.mu.Unlock()
	if _, ok := s.(Tracked); !ok {
		live.Add(st.scope, s)
	}
}

// Unregister removes s.
func Unregister[D any](st *State[D], s Synchronizer) {
	st.mu.Lock()
	delete(st.syncers, s)
	st.mu.Unlock()
	live.Remove(liveKey(s))
}

// liveKey is s's key in the live registry.
func liveKey(s Synchronizer) any {
	if t, ok := s.(Tracked); ok {
		return t.LiveKey()
	}
	return s
}

// Syncers are the registered streams, in no order.
func Syncers[D any](st *State[D]) []Synchronizer {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]Synchronizer, 0, len(st.syncers))
	for s := range st.syncers {
		out = append(out, s)
	}
	return out
}

// Release unregisters every stream and returns them: a reset destroyed
// their queues.
func Release[D any](st *State[D]) []Synchronizer {
	st.mu.Lock()
	out := make([]Synchronizer, 0, len(st.syncers))
	for s := range st.syncers {
		out = append(out, s)
		delete(st.syncers, s)
	}
	st.mu.Unlock()
	for _, s := range out {
		live.Remove(liveKey(s))
	}
	return out
}

// Value returns the device's value for key, creating it with mk on first
// use; close, if not nil, runs when the device is released (Shutdown,
// Reset, the end of a test's view).
func Value[D any](st *State[D], key any, mk func() (any, func() error, error)) (any, error) {
	if v, ok := st.values.Load(key); ok {
		return v.(*value).v, nil
	}
	st.vmu.Lock()
	defer st.vmu.Unlock()
	if v, ok := st.values.Load(key); ok {
		return v.(*value).v, nil
	}
	v, c, err := mk()
	if err != nil {
		return nil, err
	}
	st.values.Store(key, &value{v: v, close: c})
	return v, nil
}

// Lookup is Value's fast path, with no constructor to build: the value
// for key if Value made one.
func Lookup[D any](st *State[D], key any) (any, bool) {
	if v, ok := st.values.Load(key); ok {
		return v.(*value).v, true
	}
	return nil, false
}

// LoadOrStore is Value for a value that needs no close and may be made
// twice: it takes no lock, so a Value's mk may call it.
func LoadOrStore[D any](st *State[D], key, v any) (actual any) {
	a, _ := st.values.LoadOrStore(key, &value{v: v})
	return a.(*value).v
}

// Closers are the close functions of the device's values.
func Closers[D any](st *State[D]) []func() error {
	var out []func() error
	st.values.Range(func(_, v any) bool {
		if c := v.(*value).close; c != nil {
			out = append(out, c)
		}
		return true
	})
	return out
}

// Clear closes every value and forgets it, so that each is made again on
// first use; what closing says is dropped (a reset destroyed the queues
// and code already).
func Clear[D any](st *State[D]) {
	st.vmu.Lock()
	defer st.vmu.Unlock()
	st.values.Range(func(k, v any) bool {
		if c := v.(*value).close; c != nil {
			_ = c()
		}
		st.values.Delete(k)
		return true
	})
}

// Generation is the device's reset count, which an object records when it
// is made: it is odd while a reset runs. A test's view counts its root's.
func Generation[D any](st *State[D]) uint64 { return Root(st).gen.Load() }

// CountReset counts a reset of st's root in: call it when the reset starts
// and its result when it ends.
func CountReset[D any](st *State[D]) (ended func()) {
	r := Root(st)
	r.gen.Add(1)
	return func() { r.gen.Add(1) }
}
