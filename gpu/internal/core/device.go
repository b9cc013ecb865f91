package core

import (
	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/devhook"
)

// Register adds s to what dev.Synchronize waits for.
func Register(dev *gpu.Device, s devhook.Synchronizer) { devhook.H.Register(dev, s) }

// Unregister removes s.
func Unregister(dev *gpu.Device, s devhook.Synchronizer) { devhook.H.Unregister(dev, s) }

// DeviceValue returns a per-device value, creating it with mk on first
// use; close, if not nil, runs when the device is released (Shutdown, the
// end of a test's view).
func DeviceValue(dev *gpu.Device, key any, mk func() (any, func() error, error)) (any, error) {
	return devhook.H.Value(dev, key, mk)
}

// LookupValue returns dev's value for key if DeviceValue made one.
func LookupValue(dev *gpu.Device, key any) (any, bool) { return devhook.H.Lookup(dev, key) }
