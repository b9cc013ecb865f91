package conformancetest

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/collective"
	"github.com/hipgo/hipgo/gpu/graph"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/rtc"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Every exported call that takes a *gpu.Device answers a nil device with
// hipErrorInvalidDevice, as HIP answers a device ordinal out of range
// (hip-tests catch/unit/device/hipGetDeviceProperties.cc:
// Unit_hipGetDeviceProperties_NegTst, hipDeviceGetAttribute.cc:
// Unit_hipDeviceGetAttribute_NegTst, memory/hipMemPoolApi.cc ... "invalid
// device"). Calls without an error result answer a zero value, never a panic.
// (Managed.Advise and stream.Prefetch take a nil device as the host, as
// HIP's hipCpuDeviceId: they are not in the table.)
func TestNilDevice(t *testing.T) {
	dev := device(t) // the runtime is open: nil is the only thing wrong
	var nilDev *gpu.Device
	calls := []struct {
		name string
		call func() error
	}{
		{"gpu.Device.Valid", func() error { return nilDev.Valid() }},
		{"gpu.PropertiesOf", func() error { _, err := gpu.PropertiesOf(nilDev); return err }},
		{"gpu.Device.Attribute", func() error { _, err := nilDev.Attribute(gpu.AttrWarpSize); return err }},
		{"gpu.Device.MemInfo", func() error { _, _, err := nilDev.MemInfo(); return err }},
		{"gpu.Device.Synchronize", func() error { return nilDev.Synchronize() }},
		{"gpu.Device.SynchronizeContext", func() error { return nilDev.SynchronizeContext(t.Context()) }},
		{"gpu.Device.Reset", func() error { return nilDev.Reset() }},
		{"gpu.Device.EnablePeerAccess", func() error { return nilDev.EnablePeerAccess(dev) }},
		{"gpu.Device.EnablePeerAccess(nil)", func() error { return dev.EnablePeerAccess(nil) }},
		{"gpu.Device.DisablePeerAccess", func() error { return nilDev.DisablePeerAccess(dev) }},
		{"gpu.CanAccessPeer", func() error { _, err := gpu.CanAccessPeer(nilDev, dev); return err }},
		{"gpu.CanAccessPeer(dev, nil)", func() error { _, err := gpu.CanAccessPeer(dev, nil); return err }},
		{"buffer.New", func() error { _, err := buffer.New[int32](nilDev, 4); return err }},
		{"buffer.FromSlice", func() error { _, err := buffer.FromSlice(nilDev, []int32{1}); return err }},
		{"buffer.NewHost", func() error { _, err := buffer.NewHost[int32](nilDev, 4); return err }},
		{"buffer.NewManaged", func() error { _, err := buffer.NewManaged[int32](nilDev, 4); return err }},
		{"buffer.NewPitched", func() error { _, err := buffer.NewPitched[int32](nilDev, 4, 4); return err }},
		{"buffer.NewPitched3D", func() error {
			_, err := buffer.NewPitched3D[int32](nilDev, buffer.Extent{Width: 4, Height: 4, Depth: 4})
			return err
		}},
		{"buffer.NewShareable", func() error { _, err := buffer.NewShareable[int32](nilDev, 4); return err }},
		{"buffer.OpenIPC", func() error { _, err := buffer.OpenIPC[int32](nilDev, gpu.IPCHandle{}); return err }},
		{"buffer.DefaultMemPool", func() error { _, err := buffer.DefaultMemPool(nilDev); return err }},
		{"buffer.NewMemPool", func() error { _, err := buffer.NewMemPool(nilDev); return err }},
		{"buffer.Buffer.Transfer", func() error { return newBuffer[int32](t, dev, 4).Transfer(nilDev) }},
		{"stream.New", func() error { _, err := stream.New(nilDev); return err }},
		{"stream.NewWithFlags", func() error { _, err := stream.NewWithFlags(nilDev, stream.Default, 0); return err }},
		{"stream.DefaultStream", func() error { _, err := stream.DefaultStream(nilDev); return err }},
		{"stream.Legacy", func() error { _, err := stream.Legacy(nilDev); return err }},
		{"stream.NewEvent", func() error { _, err := stream.NewEvent(nilDev, stream.EventDefault); return err }},
		{"stream.OpenIPCEvent", func() error { _, err := stream.OpenIPCEvent(nilDev, gpu.IPCHandle{}); return err }},
		{"module.Load", func() error { _, err := module.Load(nilDev, kernelSet); return err }},
		{"module.LoadFile", func() error { _, err := module.LoadFile(nilDev, "kernels.hsaco"); return err }},
		{"module.LoadFS", func() error { _, err := module.LoadFS(nilDev, nil, "kernels.hsaco"); return err }},
		{"module.Shared", func() error {
			_, err := module.Shared(nilDev, t, func(*gpu.Device) (*module.Module, int, error) { return nil, 0, nil })
			return err
		}},
		{"gokernel.Library.Load", func() error { _, err := goKernels.Load(nilDev); return err }},
		{"graph.Graph.Instantiate", func() error { _, err := graph.New().Instantiate(nilDev); return err }},
		{"graph.AddMemAlloc", func() error { _, _, err := graph.AddMemAlloc[int32](graph.New(), nilDev, 4); return err }},
		{"rtc.Compile", func() error { _, err := rtc.Compile(nilDev, "", rtc.Options{}); return err }},
		{"rtc.CompileContext", func() error { _, err := rtc.CompileContext(t.Context(), nilDev, "", rtc.Options{}); return err }},
		{"collective.NewID", func() error { _, err := collective.NewID(nilDev); return err }},
		{"collective.NewRank", func() error { _, err := collective.NewRank(nilDev, collective.ID{}, 0, 1); return err }},
		{"collective.Join", func() error { _, err := collective.Join(nilDev, new(bytes.Buffer), 0, 1); return err }},
		{"collective.NewAll", func() error { _, err := collective.NewAll(nilDev); return err }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			var err error
			assert.NotPanics(t, func() { err = c.call() })
			assert.Equal(t, gpu.ErrInvalidDevice, code(err), "%v", err)
		})
	}
	t.Run("no error result", func(t *testing.T) {
		assert.NotPanics(t, func() {
			assert.Equal(t, gpu.Properties{}, nilDev.Properties())
			least, greatest := nilDev.StreamPriorityRange()
			assert.Equal(t, [2]int{0, 0}, [2]int{least, greatest})
			assert.Nil(t, nilDev.Agent())
			assert.Equal(t, -1, nilDev.Ordinal())
			assert.Empty(t, nilDev.Target())
			assert.Equal(t, "device <nil>", nilDev.String())
			assert.False(t, nilDev.PeerAccessEnabled(dev))
			assert.False(t, dev.PeerAccessEnabled(nil))
		})
	})
}
