package module_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// An Unload after Shutdown releases what the driver kept (the cpu driver
// keeps the code) or says the runtime took it (ErrContextIsDestroyed, as
// for a module of a reset device: the cuda driver destroys the code at
// Shutdown); never the driver's "already destroyed".
func TestUnloadAfterShutdown(t *testing.T) {
	dev, err := gpu.Default()
	require.NoError(t, err)
	m, err := loadForShutdown(t, dev)
	require.NoError(t, err)
	require.NoError(t, gpu.Shutdown())
	if err := m.Unload(); err != nil {
		assert.ErrorIs(t, err, gpu.ErrContextIsDestroyed)
	}
	assert.Error(t, m.Unload(), "a second unload")
}

// A per-device value of a test's view whose release unloads a module (as
// gpu/gokernel's libraries do) closes with the view without an error after
// the runtime was shut down: Shutdown released the module. Only a driver
// that destroys the code at Shutdown (cuda) makes that Unload
// ErrContextIsDestroyed, which closeView must drop; on the cpu agent the
// Unload is nil, and this checks that the release runs.
func TestViewClosesAfterShutdown(t *testing.T) {
	type key struct{}
	released := false
	t.Run("view", func(t *testing.T) {
		view := gputest.Device(t)
		_, err := core.DeviceValue(view, key{}, func() (any, func() error, error) {
			m, err := loadForShutdown(t, view)
			return m, func() error { released = true; return m.Unload() }, err
		})
		require.NoError(t, err)
		require.NoError(t, gpu.Shutdown())
	})
	assert.True(t, released, "the view's value was released")
}

// loadForShutdown loads code the device runs: nvcc's PTX fixture on an
// NVIDIA device (a Go kernel set has no code for it), a Go kernel set
// elsewhere.
func loadForShutdown(t *testing.T, dev *gpu.Device) (*module.Module, error) {
	t.Helper()
	if strings.HasPrefix(dev.Target(), "sm_") {
		needNV(t)
		return module.LoadFile(dev, filepath.Join(nvDir(), "k.ptx"))
	}
	return module.Load(dev, kernel.NewSet("pair", pairAxpy))
}
