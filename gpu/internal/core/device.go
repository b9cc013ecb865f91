package core

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/devstate"
	"github.com/hipgo/hipgo/gpu/internal/live"
)

// Register adds s to what dev.Synchronize waits for.
func Register(dev *gpu.Device, s devstate.Synchronizer) { devstate.Register(devstate.Of(dev), s) }

// Unregister removes s.
func Unregister(dev *gpu.Device, s devstate.Synchronizer) { devstate.Unregister(devstate.Of(dev), s) }

// DeviceValue returns a per-device value, creating it with mk on first
// use; close, if not nil, runs when the device is released (Shutdown, the
// end of a test's view).
func DeviceValue(dev *gpu.Device, key any, mk func() (any, func() error, error)) (any, error) {
	return devstate.Value(devstate.Of(dev), key, mk)
}

// LoadOrStoreValue returns dev's value for key, storing v if it has
// none; it takes no lock, so a DeviceValue's mk may call it.
func LoadOrStoreValue(dev *gpu.Device, key, v any) any {
	return devstate.LoadOrStore(devstate.Of(dev), key, v)
}

// LookupValue returns dev's value for key if DeviceValue made one.
func LookupValue(dev *gpu.Device, key any) (any, bool) { return devstate.Lookup(devstate.Of(dev), key) }

// Gen is dev's reset count, which an object records when it is made.
func Gen(dev *gpu.Device) uint64 {
	if dev == nil {
		return 0
	}
	return devstate.Generation(devstate.Of(dev))
}

// Valid is dev.Valid for an object made on dev at generation gen: after
// a Device.Reset the object is invalid, the device is not.
func Valid(dev *gpu.Device, gen uint64) error {
	if err := dev.Valid(); err != nil {
		return err
	}
	if err := dev.Agent().Lost(); err != nil {
		return &gpu.Error{Code: gpu.CodeOf(err), Err: err}
	}
	// Reset makes the count odd while it runs: what is made meanwhile
	// is invalid too.
	if gen%2 == 1 {
		return gpu.Errorf(gpu.ErrContextIsDestroyed, "device", "%s was being reset when this object was made", dev)
	}
	if Gen(dev) != gen {
		return gpu.Errorf(gpu.ErrContextIsDestroyed, "device", "%s was reset since this object was made", dev)
	}
	return nil
}

// Root is the device a test's view views, or dev itself.
func Root(dev *gpu.Device) *gpu.Device { return devstate.Device(devstate.Root(devstate.Of(dev))) }

// Scope is the live scope of dev: what is made on it when dev is a test's
// view (gpu/gputest), nil for any other device.
func Scope(dev *gpu.Device) *live.Scope { return devstate.Scope(devstate.Of(dev)) }
