package buffer_test

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
	"github.com/hipgo/hipgo/gpu/stream"
)

// block holds s busy until the returned func is called.
func block(t *testing.T, s *stream.Stream) (release func()) {
	ch := make(chan struct{})
	require.NoError(t, s.LaunchHostFunc(func() error { <-ch; return nil }))
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	t.Cleanup(release)
	return release
}

// Memory freed on a stream is reused by that stream at once, by another
// stream only after an ordering with the free (an event) or once the free
// has completed.
func TestAsyncReuse(t *testing.T) {
	dev := setup(t)
	s1, err := stream.New(dev)
	require.NoError(t, err)
	defer s1.Destroy()
	s2, err := stream.New(dev)
	require.NoError(t, err)
	defer s2.Destroy()
	// Freed blocks stay in the pool across the synchronizations below (a
	// threshold of 0 would return them at each).
	pool, err := buffer.DefaultMemPool(dev)
	require.NoError(t, err)
	pool.SetReleaseThreshold(1 << 30)
	defer pool.SetReleaseThreshold(0)

	release := block(t, s1)
	defer release() // before the deferred Destroys, which wait for s1's work
	a, err := buffer.NewAsync[float32](s1, 1024)
	require.NoError(t, err)
	addr := a.Ptr()
	require.NoError(t, a.FreeAsync(s1))
	b, err := buffer.NewAsync[float32](s1, 1000) // same size class
	require.NoError(t, err)
	assert.Equal(t, addr, b.Ptr(), "same stream: reused before the free ran")
	require.NoError(t, b.FreeAsync(s1))

	c, err := buffer.NewAsync[float32](s2, 1024)
	require.NoError(t, err)
	assert.NotEqual(t, addr, c.Ptr(), "another stream, no ordering, free pending: fresh memory")

	ev, err := stream.NewEvent(dev, 0)
	require.NoError(t, err)
	defer ev.Destroy()
	require.NoError(t, s1.Record(ev))
	require.NoError(t, s2.WaitEvent(ev))
	d, err := buffer.NewAsync[float32](s2, 1024)
	require.NoError(t, err)
	assert.Equal(t, addr, d.Ptr(), "another stream ordered after the free by an event")
	release()

	// The reused memory holds what s2 writes after s1's work.
	require.NoError(t, stream.CopyToDevice(s2, d, 0, []float32{1, 2, 3}))
	out := make([]float32, 3)
	require.NoError(t, stream.CopyToHost(s2, out, d, 0))
	require.NoError(t, s2.Synchronize())
	assert.Equal(t, []float32{1, 2, 3}, out)
	require.NoError(t, c.FreeAsync(s2))
	require.NoError(t, d.FreeAsync(s2))
	require.NoError(t, s2.Synchronize())

	// Once the free completed, AllowOpportunistic lets any stream have it.
	p, err := buffer.DefaultMemPool(dev)
	require.NoError(t, err)
	assert.Equal(t, buffer.ReuseFollowEventDependencies|buffer.ReuseAllowOpportunistic|buffer.ReuseAllowInternalDependencies, p.Reuse())
	e, err := buffer.NewAsync[float32](s1, 1024)
	require.NoError(t, err)
	assert.Contains(t, []uintptr{uintptr(addr), uintptr(c.Ptr())}, uintptr(e.Ptr()))
	require.NoError(t, e.FreeAsync(s1))
	require.NoError(t, s1.Synchronize())

	// Without it, a completed free on another stream is not reused.
	p.SetReuse(0)
	defer p.SetReuse(buffer.ReuseFollowEventDependencies | buffer.ReuseAllowOpportunistic)
	f, err := buffer.NewAsync[float32](s2, 1024)
	require.NoError(t, err)
	assert.NotEqual(t, e.Ptr(), f.Ptr())
	require.NoError(t, f.FreeAsync(s2))
}

// A free waits for the buffer's users on other streams: memory a slow
// stream still reads is not handed to the freeing stream's next
// allocation before that read ends.
func TestFreeAsyncWaitsForOtherStreams(t *testing.T) {
	dev := setup(t)
	s1, err := stream.New(dev)
	require.NoError(t, err)
	defer s1.Destroy()
	s2, err := stream.New(dev)
	require.NoError(t, err)
	defer s2.Destroy()
	a, err := buffer.NewAsync[int32](s1, 256)
	require.NoError(t, err)
	want := make([]int32, 256)
	for i := range want {
		want[i] = int32(i)
	}
	require.NoError(t, stream.CopyToDevice(s1, a, 0, want))
	release := block(t, s2)
	defer release()
	got := make([]int32, 256)
	require.NoError(t, stream.CopyToHost(s2, got, a, 0)) // waits behind the blocked host func
	require.NoError(t, a.FreeAsync(s1))
	b, err := buffer.NewAsync[int32](s1, 256)
	require.NoError(t, err)
	require.NoError(t, stream.Fill(s1, b, int32(-1))) // must wait for s2's read
	time.Sleep(10 * time.Millisecond)
	release()
	require.NoError(t, s2.Synchronize())
	require.NoError(t, s1.Synchronize())
	assert.Equal(t, want, got)
	require.NoError(t, b.FreeAsync(s1))
}

func TestMemPoolStats(t *testing.T) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	p, err := buffer.NewMemPool(dev)
	require.NoError(t, err)
	a, err := buffer.NewFromPoolAsync[byte](p, s, 4096)
	require.NoError(t, err)
	b, err := buffer.NewFromPoolAsync[byte](p, s, 3000) // a 4 KiB class
	require.NoError(t, err)
	assert.Equal(t, buffer.PoolStats{Used: 8192, UsedHigh: 8192, Reserved: 8192, ReservedHigh: 8192}, p.Stats())
	require.NoError(t, a.FreeAsync(s))
	assert.Equal(t, buffer.PoolStats{Used: 4096, UsedHigh: 8192, Reserved: 8192, ReservedHigh: 8192}, p.Stats())
	require.NoError(t, b.Free()) // a synchronous free returns pooled memory too
	p.ResetHighWater()
	assert.Equal(t, buffer.PoolStats{Used: 0, UsedHigh: 0, Reserved: 8192, ReservedHigh: 8192}, p.Stats())

	p.SetReleaseThreshold(4096)
	assert.Equal(t, uint64(4096), p.ReleaseThreshold())
	require.NoError(t, dev.Synchronize()) // trims to the threshold
	assert.Equal(t, uint64(4096), p.Stats().Reserved)
	p.Trim(0)
	assert.Equal(t, uint64(0), p.Stats().Reserved)
	assert.Equal(t, dev, p.Device())
}

func TestAsyncErrors(t *testing.T) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	_, err = buffer.NewAsync[float32](s, -1)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, err = buffer.NewAsync[float32](nil, 4)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	var nilStream *stream.Stream
	_, err = buffer.NewAsync[float32](nilStream, 4)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle)
	_, err = buffer.NewAsync[float32](foreignStream{dev}, 4)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle, "a Stream that is no *stream.Stream")
	_, err = buffer.NewFromPoolAsync[float32](nil, s, 4)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	_, err = buffer.NewAsync[string](s, 4)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)

	a, err := buffer.NewAsync[float32](s, 4)
	require.NoError(t, err)
	require.NoError(t, a.FreeAsync(s))
	assert.ErrorIs(t, a.FreeAsync(s), gpu.ErrInvalidValue, "second free")
	assert.ErrorIs(t, a.Free(), gpu.ErrInvalidValue, "free after free async")
	var nb *buffer.Buffer[float32]
	assert.ErrorIs(t, nb.FreeAsync(s), gpu.ErrInvalidValue)

	plain, err := buffer.New[float32](dev, 4)
	require.NoError(t, err)
	require.NoError(t, plain.FreeAsync(s), "memory of no pool is freed now")

	b, err := buffer.NewAsync[float32](s, 4)
	require.NoError(t, err)
	require.NoError(t, s.Destroy())
	_, err = buffer.NewAsync[float32](s, 4)
	assert.ErrorIs(t, err, gpu.ErrInvalidHandle, "destroyed stream")
	assert.ErrorIs(t, b.FreeAsync(s), gpu.ErrInvalidHandle, "destroyed stream")
}

// FreeAsync on a stream that cannot take work frees nothing and says so:
// the buffer stays usable, and a later Free releases it.
func TestFreeAsyncOnDeadStream(t *testing.T) {
	dev := setup(t)
	boom := errors.New("boom")
	for _, c := range []struct {
		name string
		kill func(s *stream.Stream) error
		is   error
	}{
		{"destroyed", func(s *stream.Stream) error { return s.Destroy() }, gpu.ErrInvalidHandle},
		{"failed", func(s *stream.Stream) error {
			if err := s.LaunchHostFunc(func() error { return boom }); err != nil {
				return err
			}
			_ = s.Synchronize() // reports the failure once; the stream stays failed
			return nil
		}, boom},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := stream.New(dev)
			require.NoError(t, err)
			defer s.Destroy()
			b, err := buffer.NewAsync[float32](s, 4)
			require.NoError(t, err)
			plain, err := buffer.New[float32](dev, 4)
			require.NoError(t, err)
			require.NoError(t, s.Synchronize())
			require.NoError(t, c.kill(s))

			for _, x := range []*buffer.Buffer[float32]{b, plain} {
				err = x.FreeAsync(s)
				require.Error(t, err)
				assert.ErrorIs(t, err, c.is)
				assert.ErrorContains(t, err, "not freed")
				assert.NoError(t, x.CopyFrom([]float32{1, 2, 3, 4}), "the buffer is still live")
				assert.NoError(t, x.Free(), "a later Free releases it")
			}
		})
	}
}

// Allocations and frees on many streams race; each buffer holds its own
// data.
func TestAsyncRaces(t *testing.T) {
	dev := setup(t)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := stream.New(dev)
			if !assert.NoError(t, err) {
				return
			}
			defer s.Destroy()
			for i := range 50 {
				b, err := buffer.NewAsync[int32](s, 64+i%3*100)
				if !assert.NoError(t, err) {
					return
				}
				assert.NoError(t, stream.Fill(s, b, int32(g*1000+i)))
				out := make([]int32, b.Len())
				assert.NoError(t, stream.CopyToHost(s, out, b, 0))
				assert.NoError(t, b.FreeAsync(s))
				assert.NoError(t, s.Synchronize())
				for _, v := range out {
					if v != int32(g*1000+i) {
						t.Errorf("goroutine %d round %d: read %d", g, i, v)
						break
					}
				}
			}
		}()
	}
	wg.Wait()
}

// 4 KiB stream-ordered allocate + free beside buffer.New + Free.
func BenchmarkAlloc4K(b *testing.B) {
	b.Setenv("HIPGO_DRIVER", "cpu") // benchmarks/'s BenchmarkAllocAsync4K runs on any device
	defer gpu.Shutdown()
	dev, err := gpu.Default()
	require.NoError(b, err)
	s, err := stream.New(dev)
	require.NoError(b, err)
	defer s.Destroy()
	b.Run("NewAsync+FreeAsync", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			x, err := buffer.NewAsync[byte](s, 4096)
			if err != nil {
				b.Fatal(err)
			}
			if err := x.FreeAsync(s); err != nil {
				b.Fatal(err)
			}
		}
		_ = s.Synchronize()
	})
	newFree := func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			x, err := buffer.New[byte](dev, 4096)
			if err != nil {
				b.Fatal(err)
			}
			if err := x.Free(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("New+Free", newFree)
	// The same with 10k and 200k buffers live (the cpu agent's target:
	// at most 2 µs at 200k), beside the Go heap's 4 KiB make.
	var live []*buffer.Buffer[byte]
	defer func() {
		for _, x := range live {
			_ = x.Free()
		}
	}()
	for _, n := range []int{10000, 200000} {
		if testing.Short() && n > 10000 {
			break
		}
		for len(live) < n {
			x, err := buffer.New[byte](dev, 64)
			require.NoError(b, err)
			live = append(live, x)
		}
		b.Run(fmt.Sprintf("New+Free/%dlive", n), newFree)
	}
	b.Run("goheap", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			heapSink = make([]byte, 4096)
		}
	})
}

// heapSink keeps BenchmarkAlloc4K's Go heap peer from being optimized away.
var heapSink []byte

// A zero-size element type is refused alike by every allocation, with a
// message that names the type.
func TestZeroSizeElement(t *testing.T) {
	dev := setup(t)
	s, err := stream.New(dev)
	require.NoError(t, err)
	defer s.Destroy()
	allocs := map[string]func() error{
		"New":        func() error { _, err := buffer.New[struct{}](dev, 4); return err },
		"NewHost":    func() error { _, err := buffer.NewHost[struct{}](dev, 4); return err },
		"NewManaged": func() error { _, err := buffer.NewManaged[[0]float32](dev, 4); return err },
		"NewAsync":   func() error { _, err := buffer.NewAsync[struct{}](s, 4); return err },
		"NewPitched": func() error { _, err := buffer.NewPitched[struct{}](dev, 4, 4); return err },
	}
	for name, alloc := range allocs {
		err := alloc()
		require.Error(t, err, name)
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
		if name != "NewPitched" {
			assert.ErrorContains(t, err, "has size 0", name)
			assert.NotContains(t, err.Error(), "INVALID_ARGUMENT", name)
		}
	}
}

// foreignStream has a Stream's methods but is no *stream.Stream.
type foreignStream struct{ dev *gpu.Device }

func (f foreignStream) Device() *gpu.Device { return f.dev }
func (foreignStream) Synchronize() error    { return nil }
