// Package devhook is what package gpu lends the packages above it and
// nothing else: the streams a Device synchronizes and the per-device
// values (default stream, copy engine, loaded kernel library) that those
// packages keep. Devices travel as any because this package is below gpu;
// gpu/internal/core wraps the hooks with typed functions.
package devhook

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

// Hooks are installed by package gpu from init.
type Hooks struct {
	Register   func(dev any, s Synchronizer)
	Unregister func(dev any, s Synchronizer)
	Value      func(dev any, key any, mk func() (any, func() error, error)) (any, error)
	Lookup     func(dev any, key any) (any, bool) // Value's fast path: no closure to build
	// LoadOrStore is Value for a value that needs no close and may be
	// made twice: it never blocks, so it may be called from a Value's mk.
	LoadOrStore func(dev any, key, v any) (actual any)
	// Generation counts the device's resets: an object records it when
	// made and is invalid once it changed.
	Generation func(dev any) uint64
	// Root is the device a test's view views, or dev itself.
	Root func(dev any) any
}

// H holds the installed hooks.
var H Hooks
