package reliability_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/reliability"
	"github.com/hipgo/hipgo/internal/rocrhook"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// TestDeviceReset: Device.Reset cancels the device's work in flight, frees
// its memory, and makes every buffer, stream, event and module made before
// it fail with ErrContextIsDestroyed; the same *gpu.Device then runs new
// work correctly, and nothing leaks.
func TestDeviceReset(t *testing.T) {
	f := open(t, 2)
	dev := f.dev
	b := fromSlice(t, dev, iota32(64, 1))
	h := newHost[int32](t, dev, 1)
	s := f.stream(dev)
	ev := f.event(dev)
	def, err := stream.DefaultStream(dev)
	require.NoError(t, err)
	other := fromSlice(t, f.devs[1], iota32(8, 1)) // another device: untouched
	// A runaway kernel: the reset cancels it.
	require.NoError(t, f.fn["reliability_spin"].Launch(s, gpu.D1(1), gpu.D1(1), 0, h, int32(-1)))
	require.NoError(t, s.Record(ev))
	before := rocrhook.LiveAllocations()
	require.NoError(t, reliability.Guard(t, 10*time.Second, dev.Reset))
	after := rocrhook.LiveAllocations() // the other device's
	assert.Less(t, after, before, "the reset freed the device's memory")

	gone := func(what string, err error) {
		t.Helper()
		assert.ErrorIs(t, err, gpu.ErrContextIsDestroyed, what)
		if err != nil {
			assert.Contains(t, err.Error(), "reset", what)
		}
	}
	_, err = b.ToSlice()
	gone("copy from an old buffer", err)
	gone("fill of an old buffer", b.Fill(1))
	gone("synchronize an old stream", s.Synchronize())
	gone("launch on an old stream", f.fn["reliability_axpb"].Launch(s, gpu.D1(1), gpu.D1(64), 0, b, uint32(1), uint32(1), int32(64)))
	gone("old event", ev.Synchronize())
	gone("old default stream", def.Synchronize())
	ns := f.stream(dev)
	gone("launch of an old module", f.fn["reliability_panic"].Launch(ns, gpu.D1(1), gpu.D1(1), 0, int32(0)))
	gone("record of an old event", ns.Record(ev))
	got, err := other.ToSlice()
	require.NoError(t, err, "another device's buffer")
	assert.Equal(t, iota32(8, 1), got)

	// New work on the same device.
	m, err := module.Load(dev, testLib)
	require.NoError(t, err)
	nb := fromSlice(t, dev, iota32(64, 1))
	require.NoError(t, m.MustFunction("reliability_axpb").Launch(ns, gpu.D1(1), gpu.D1(64), 0, nb, uint32(3), uint32(1), int32(64)))
	require.NoError(t, ns.Synchronize())
	got, err = nb.ToSlice()
	require.NoError(t, err)
	for i, v := range got {
		assert.Equal(t, uint32(i+1)*3+1, v, "x[%d]", i)
	}
	nd, err := stream.DefaultStream(dev)
	require.NoError(t, err)
	require.NoError(t, nb.Fill(2))
	require.NoError(t, nd.Synchronize(), "the new default stream")
	require.NoError(t, dev.Synchronize())

	// Releasing what was made before says it is gone, and frees nothing twice.
	gone("free an old buffer", b.Free())
	gone("free an old host buffer", h.Free())
	gone("destroy an old stream", s.Destroy())
	gone("unload an old module", f.mod.Unload())
	require.NoError(t, nb.Free())
	require.NoError(t, ns.Destroy())
	require.NoError(t, m.Unload())
	require.NoError(t, other.Free())
	// What is left is the device's own (default stream, copy queue); a
	// second reset takes it too.
	require.NoError(t, dev.Reset())
	assert.Equal(t, after-1, rocrhook.LiveAllocations(), "all but the other device's buffer, which is freed now")
}

// TestDeviceResetRacing: resets racing with allocation, launches, copies
// and stream creation on other goroutines never crash or corrupt: every
// call returns nil or ErrContextIsDestroyed, and once everything is freed
// no allocation is left.
func TestDeviceResetRacing(t *testing.T) {
	f := open(t, 1)
	dev := f.dev
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var unexpected []error
	check := func(err error) {
		if err != nil && !errors.Is(err, gpu.ErrContextIsDestroyed) {
			mu.Lock()
			unexpected = append(unexpected, err)
			mu.Unlock()
		}
	}
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				b, err := buffer.FromSlice(dev, iota32(256, 1))
				check(err)
				s, err := stream.New(dev)
				check(err)
				m, err := module.Load(dev, testLib)
				check(err)
				if b != nil && s != nil && m != nil {
					check(m.MustFunction("reliability_axpb").Launch(s, gpu.D1(4), gpu.D1(64), 0, b, uint32(2), uint32(1), int32(256)))
					check(stream.Fill(s, b, uint32(7)))
					check(s.Synchronize())
					_, err := b.ToSlice()
					check(err)
				}
				if b != nil {
					check(b.Free())
				}
				if s != nil {
					check(s.Destroy())
				}
				if m != nil {
					check(m.Unload())
				}
			}
		}()
	}
	err := reliability.Guard(t, 30*time.Second, func() error {
		for i := 0; i < 20; i++ {
			time.Sleep(2 * time.Millisecond)
			if err := dev.Reset(); err != nil {
				return err
			}
		}
		return nil
	})
	close(stop)
	wg.Wait()
	require.NoError(t, err)
	assert.Empty(t, unexpected)
	require.NoError(t, dev.Reset())
	assert.Equal(t, 0, rocrhook.LiveAllocations())
	// The fixture's module went with the reset: load the kernels again.
	f.mod, err = module.Load(dev, testLib)
	require.NoError(t, err)
	for _, k := range testSet.Kernels {
		f.fn[k.Name()] = f.mod.MustFunction(k.Name())
	}
	f.healthy()
}

// loseK fails the way a GPU kernel fault fails a CUDA context: its error
// wraps hsa.ErrDeviceLost.
var loseK = kernel.Define("reliability_lose", func(g *kernel.Block, a *selfArgs) {
	panic(fmt.Errorf("simulated context loss: %w", hsa.ErrDeviceLost))
})

// TestDeviceLost: after a failure that loses the device, every later call
// on it fails naming the failure, its kernel and queue, and Reset as the
// way out; Reset recovers the device.
func TestDeviceLost(t *testing.T) {
	f := open(t, 1)
	dev := f.dev
	m, err := module.Load(dev, kernel.NewSet("reliability_lose", loseK))
	require.NoError(t, err)
	s := f.stream(dev)
	b := fromSlice(t, dev, iota32(4, 1))
	require.NoError(t, m.MustFunction("reliability_lose").Launch(s, gpu.D1(1), gpu.D1(1), 0, int32(0)))
	assert.Error(t, s.Synchronize())
	lost := func(what string, err error) {
		t.Helper()
		require.Error(t, err, what)
		assert.ErrorIs(t, err, hsa.ErrDeviceLost, what)
		for _, w := range []string{"reliability_lose", "on queue", "Reset"} {
			assert.Contains(t, err.Error(), w, what)
		}
	}
	_, err = buffer.New[uint32](dev, 4)
	lost("malloc", err)
	_, err = stream.New(dev)
	lost("stream create", err)
	_, err = module.Load(dev, testLib)
	lost("module load", err)
	_, err = b.ToSlice()
	lost("copy", err)
	require.NoError(t, dev.Reset())
	f.mod, err = module.Load(dev, testLib)
	require.NoError(t, err)
	for _, k := range testSet.Kernels {
		f.fn[k.Name()] = f.mod.MustFunction(k.Name())
	}
	f.healthy()
}

// TestDeviceResetPooledMemory: memory from a stream-ordered pool made
// before a reset is gone like any buffer; the default pool is made again
// and serves new streams.
func TestDeviceResetPooledMemory(t *testing.T) {
	f := open(t, 1)
	dev := f.dev
	s := f.stream(dev)
	a, err := buffer.NewAsync[uint32](s, 256)
	require.NoError(t, err)
	require.NoError(t, stream.Fill(s, a, uint32(3)))
	require.NoError(t, s.Synchronize())
	require.NoError(t, reliability.Guard(t, 10*time.Second, dev.Reset))

	_, err = a.ToSlice()
	assert.ErrorIs(t, err, gpu.ErrContextIsDestroyed, "copy from pooled memory made before the reset")
	assert.ErrorIs(t, a.FreeAsync(s), gpu.ErrContextIsDestroyed, "free on an old stream")
	ns := f.stream(dev)
	b, err := buffer.NewAsync[uint32](ns, 256)
	require.NoError(t, err, "the default pool is made again")
	require.NoError(t, stream.Fill(ns, b, uint32(5)))
	got := make([]uint32, 256)
	require.NoError(t, stream.CopyToHost(ns, got, b, 0))
	require.NoError(t, ns.Synchronize())
	assert.Equal(t, uint32(5), got[255])
	require.NoError(t, b.FreeAsync(ns))
	require.NoError(t, ns.Synchronize())
	require.NoError(t, dev.Reset())
	assert.Equal(t, 0, rocrhook.LiveAllocations())
	f.mod, err = module.Load(dev, testLib)
	require.NoError(t, err)
	for _, k := range testSet.Kernels {
		f.fn[k.Name()] = f.mod.MustFunction(k.Name())
	}
	f.healthy()
}

// A reset frees the device's host memory while a stream of another
// device still has a fill of it queued: the fill must not land in a new
// allocation that got the same memory, and the reset does not wait for
// that stream (whose host function here waits for the reset).
func TestDeviceResetMemoryOtherDeviceStillUses(t *testing.T) {
	f := open(t, 2)
	dev, other := f.devs[0], f.devs[1]
	for _, kind := range []string{"host", "transferred"} {
		var obj buffer.Object
		if kind == "host" {
			obj = newHost[float32](t, dev, 1024)
		} else {
			b := newBuf[float32](t, dev, 1024)
			require.NoError(t, b.Transfer(other))
			obj = b
		}
		s := f.stream(other)
		gate := make(chan struct{})
		require.NoError(t, s.LaunchHostFunc(func() error { <-gate; return nil }))
		require.NoError(t, stream.Fill(s, obj, float32(7)), kind)
		require.NoError(t, reliability.Guard(t, 10*time.Second, dev.Reset), kind)

		fresh := newHost[float32](t, dev, 1024)
		clear(fresh.Slice())
		close(gate)
		err := s.Synchronize()
		require.Error(t, err, "%s: the fill of memory the reset freed", kind)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, kind)
		assert.Equal(t, make([]float32, 1024), fresh.Slice(), "%s: a new allocation got the old memory's fill", kind)
		require.NoError(t, fresh.Free())
	}
}
