package buffer_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/module"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/testenv"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// gatedAdd waits until the test opens its gate (giving up after 10 s, so
// that a test which never opens it fails instead of hanging), then adds 1
// to x[0:n]: a writer pending for exactly as long as the test says.
var addGate atomic.Pointer[chan struct{}]

var gatedAdd = kernel.Define("buffer_test_gated_add", func(g *kernel.Block, a *addOneArgs) {
	if g.BlockIdx() != (kernel.Dim{}) {
		return
	}
	select {
	case <-*addGate.Load():
	case <-time.After(10 * time.Second):
	}
	x := a.X.Slice(g, 0, int(a.N))
	for i := range x {
		x[i]++
	}
})

// launchGated launches gatedAdd over b on s behind a closed gate and
// returns the call that opens it; the test's end opens it too.
func launchGated(t *testing.T, dev *gpu.Device, s *stream.Stream, b buffer.Object, n int) (open func()) {
	t.Helper()
	ch := make(chan struct{})
	addGate.Store(&ch)
	var once sync.Once
	open = func() { once.Do(func() { close(ch) }) }
	t.Cleanup(open)
	m := must[*module.Module](t)(module.Load(dev, kernelSet))
	require.NoError(t, m.MustFunction("buffer_test_gated_add").Launch(s, gpu.D1(1), gpu.D1(1), 0, b, int32(n)))
	return open
}

// A copy behind a gated kernel gives up at its context's deadline without
// touching the destination, and the kernel's work is still the buffer's:
// the next copy waits for it and sees its result.
func TestCopyContextGivesUpBeforeTheCopy(t *testing.T) {
	dev := setup(t)
	const n = 4096
	s := must[*stream.Stream](t)(stream.New(dev))
	defer s.Destroy()
	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, n))
	require.NoError(t, b.Fill(41))
	open := launchGated(t, dev, s, b, n)

	dst := make([]int32, n)
	for i := range dst {
		dst[i] = -7
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	deadline, _ := ctx.Deadline()
	err := b.CopyToContext(ctx, dst)
	returned := time.Now()
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, gpu.ErrNotReady)
	assert.Contains(t, err.Error(), "nothing was copied")
	assert.False(t, returned.Before(deadline), "returned before the deadline")
	assert.Less(t, returned.Sub(deadline), 5*time.Second, "waited for the kernel")
	for i, v := range dst {
		if v != -7 {
			t.Fatalf("dst[%d] = %d: a copy that gave up wrote its destination", i, v)
		}
	}

	// Into the device: the buffer keeps what it had, and the kernel then
	// adds to that.
	src := make([]int32, n)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()
	assert.ErrorIs(t, b.CopyFromContext(ctx2, src), context.DeadlineExceeded)
	sub := b.Sub(1, 8)
	assert.ErrorIs(t, sub.CopyToContext(ctx2, dst[:8]), context.DeadlineExceeded)
	assert.Equal(t, int32(-7), dst[0])

	// A context done before the call gives up at once, even with nothing
	// pending in its way.
	c := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 4))
	done, cancelDone := context.WithCancel(context.Background())
	cancelDone()
	assert.ErrorIs(t, c.CopyFromContext(done, []int32{1, 2, 3, 4}), context.Canceled)
	got, err := c.ToSliceContext(done)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, got)

	open()
	require.NoError(t, b.CopyTo(dst))
	assert.Equal(t, int32(42), dst[0], "the gated kernel ran after the abandoned copies")
	assert.Equal(t, int32(42), dst[n-1])
	require.NoError(t, s.Synchronize())
	require.NoError(t, b.Free())
	require.NoError(t, c.Free())
}

// A context that is not done copies as the plain call does, both ways,
// waiting for the pending kernel first.
func TestCopyContextCopies(t *testing.T) {
	dev := setup(t)
	const n = 1000
	s := must[*stream.Stream](t)(stream.New(dev))
	defer s.Destroy()
	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, n))
	src := make([]int32, n)
	for i := range src {
		src[i] = int32(i)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, b.CopyFromContext(ctx, src))
	open := launchGated(t, dev, s, b, n)
	go func() {
		time.Sleep(20 * time.Millisecond)
		open()
	}()
	dst := make([]int32, n)
	require.NoError(t, b.CopyToContext(ctx, dst), "waits for the kernel, then copies")
	for i := range dst {
		if dst[i] != int32(i)+1 {
			t.Fatalf("dst[%d] = %d, want %d", i, dst[i], i+1)
		}
	}
	require.NoError(t, b.CopyFromAtContext(ctx, 10, []int32{-1, -2}))
	part := make([]int32, 3)
	require.NoError(t, b.CopyToAtContext(ctx, 9, part))
	assert.Equal(t, []int32{10, -1, -2}, part)
	out, err := b.ToSliceContext(context.Background())
	require.NoError(t, err)
	assert.Equal(t, int32(-2), out[11])

	v := b.Sub(100, 4)
	require.NoError(t, v.CopyFromContext(ctx, []int32{7, 8, 9, 10}))
	require.NoError(t, v.CopyToAtContext(ctx, 2, part[:2]))
	assert.Equal(t, []int32{9, 10}, part[:2])
	require.NoError(t, v.CopyFromAtContext(ctx, 3, []int32{11}))
	four := make([]int32, 4)
	require.NoError(t, v.CopyToContext(ctx, four))
	assert.Equal(t, []int32{7, 8, 9, 11}, four)
	//lint:ignore SA1012 a nil context waits as context.Background does
	require.NoError(t, b.CopyToContext(nil, dst))

	// Bad input fails as the plain call does.
	assert.ErrorIs(t, b.CopyToAtContext(ctx, n, make([]int32, 1)), gpu.ErrInvalidValue)
	var nilBuf *buffer.Buffer[int32]
	assert.ErrorIs(t, nilBuf.CopyFromContext(ctx, src), gpu.ErrInvalidValue)
	require.NoError(t, s.Synchronize())
	require.NoError(t, b.Free())
	assert.ErrorIs(t, b.CopyToContext(ctx, dst), gpu.ErrInvalidValue, "after Free")
}

// Context copies waiting behind a gated kernel race Free, the kernel's
// gate and each other: each copies, gives up, or fails with
// ErrInvalidValue once the buffer is freed; none hangs or crashes.
func TestCopyContextRacesFree(t *testing.T) {
	dev := setup(t)
	const n = 256
	for range 10 {
		s := must[*stream.Stream](t)(stream.New(dev))
		b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, n))
		open := launchGated(t, dev, s, b, n)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), time.Duration(g)*3*time.Millisecond)
				defer cancel()
				buf := make([]int32, n)
				var err error
				if g%2 == 0 {
					err = b.CopyToContext(ctx, buf)
				} else {
					err = b.CopyFromContext(ctx, buf)
				}
				if err != nil {
					assert.True(t, errors.Is(err, gpu.ErrNotReady) || errors.Is(err, gpu.ErrInvalidValue), "%v", err)
				}
			}()
		}
		wg.Add(2)
		go func() { defer wg.Done(); time.Sleep(5 * time.Millisecond); open() }()
		go func() {
			defer wg.Done()
			time.Sleep(4 * time.Millisecond)
			assert.NoError(t, b.Free())
		}()
		wg.Wait()
		require.NoError(t, s.Synchronize())
		require.NoError(t, s.Destroy())
	}
}

// The synchronous copies allocate nothing, with or without a context
// (a context that can be done included), when nothing is pending.
func TestCopyAllocs(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	dev := setup(t)
	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, 1024))
	defer b.Free()
	s := make([]int32, 1024)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for name, f := range map[string]func() error{
		"CopyFrom":        func() error { return b.CopyFrom(s) },
		"CopyTo":          func() error { return b.CopyTo(s) },
		"CopyFromContext": func() error { return b.CopyFromContext(ctx, s) },
		"CopyToContext":   func() error { return b.CopyToContext(ctx, s) },
	} {
		require.NoError(t, f(), name)
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = f() }), name)
	}
}
