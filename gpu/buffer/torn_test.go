package buffer_test

import (
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
	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// setAll writes v to x[0:n], element by element from work-group 0, so a
// read that overlaps it sees some old and some new elements.
type setAllArgs struct {
	X rocr.Ptr[int32]
	N int32
	V int32
}

var setAll = kernel.Define("buffer_test_set_all", func(g *kernel.Block, a *setAllArgs) {
	if g.BlockIdx() != (kernel.Dim{}) {
		return
	}
	x := a.X.Slice(g, 0, int(a.N))
	for i := range x {
		x[i] = a.V
	}
})

var tornSet = kernel.NewSet("buffer-test-torn", setAll)

// uniform reports the first element of got that differs from got[0].
func uniform(got []int32) (int, bool) {
	for i, v := range got {
		if v != got[0] {
			return i, false
		}
	}
	return 0, true
}

// A synchronous read on one goroutine is ordered with the kernels another
// goroutine launches on a stream: every snapshot is one launch's result,
// never half of one and half of the next. The synchronous write is
// ordered the same way: a kernel launched after it starts after it.
func TestSyncCopyOrderedWithOtherGoroutinesKernels(t *testing.T) {
	dev := setup(t)
	const n = 1 << 16
	s := must[*stream.Stream](t)(stream.New(dev))
	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, n))
	m := must[*module.Module](t)(module.Load(dev, tornSet))
	f := m.MustFunction("buffer_test_set_all")

	const launches = 400
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for v := int32(1); v <= launches; v++ {
			if err := f.Launch(s, gpu.D1(1), gpu.D1(1), 0, b, int32(n), v); err != nil {
				t.Error(err)
				return
			}
			if v%8 == 0 { // a few launches ahead at a time: the reads interleave with all of them
				if err := s.Synchronize(); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	torn := 0
	snaps := 0
	// Until a snapshot shows the last launch's value: the reads overlap
	// the kernels all along.
	for i := 0; i < 100000; i++ {
		got, err := b.ToSlice()
		require.NoError(t, err)
		snaps++
		if at, ok := uniform(got); !ok {
			torn++
			t.Logf("snapshot %d torn: element 0 is %d, element %d is %d", i, got[0], at, got[at])
		}
		part := make([]int32, n/2)
		require.NoError(t, b.Sub(n/4, n/2).CopyTo(part))
		if at, ok := uniform(part); !ok {
			torn++
			t.Logf("view snapshot %d torn: element 0 is %d, element %d is %d", i, part[0], at, part[at])
		}
		if got[n-1] == launches {
			break
		}
	}
	wg.Wait()
	require.NoError(t, s.Synchronize())
	assert.Zero(t, torn, "of %d snapshots, %d torn", snaps, torn)
	got := must[[]int32](t)(b.ToSlice())
	assert.Equal(t, int32(launches), got[0])
	assert.Equal(t, int32(launches), got[n-1])
}

// A synchronous fill on one goroutine and kernels on another: each
// kernel's result and the fill's are whole, in some order, and the
// buffer ends with the last one's.
func TestSyncFillOrderedWithOtherGoroutinesKernels(t *testing.T) {
	dev := setup(t)
	const n = 1 << 16
	s := must[*stream.Stream](t)(stream.New(dev))
	b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, n))
	m := must[*module.Module](t)(module.Load(dev, tornSet))
	f := m.MustFunction("buffer_test_set_all")

	const launches = 400
	var launched atomic.Bool
	go func() {
		defer launched.Store(true)
		for v := int32(1); v <= launches; v++ {
			if err := f.Launch(s, gpu.D1(1), gpu.D1(1), 0, b, int32(n), v); err != nil {
				t.Error(err)
				return
			}
			if v%8 == 0 { // a few launches ahead at a time: the reads interleave with all of them
				if err := s.Synchronize(); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	torn := 0
	for i := 0; i < 100000; i++ {
		require.NoError(t, b.Fill(-1))
		got, err := b.ToSlice()
		require.NoError(t, err)
		if _, ok := uniform(got); !ok {
			torn++
		}
		if launched.Load() && s.Query() == nil { // every kernel ran
			break
		}
	}
	require.NoError(t, s.Synchronize())
	assert.Zero(t, torn)
	require.NoError(t, b.Fill(-2))
	require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(1), 0, b, int32(n), int32(9)))
	require.NoError(t, s.Synchronize())
	got := must[[]int32](t)(b.ToSlice())
	assert.Equal(t, int32(9), got[n-1])
}

// BenchmarkCopyToSmall is the one-goroutine synchronous read of 256
// bytes: what taking part in the dependency tracking costs it.
func BenchmarkCopyToSmall(b *testing.B) {
	dev := cputest.Device(b)
	buf, err := buffer.New[int32](dev, 64)
	require.NoError(b, err)
	dst := make([]int32, 64)
	b.ReportAllocs()
	for b.Loop() {
		if err := buf.CopyTo(dst); err != nil {
			b.Fatal(err)
		}
	}
}

// Synchronous copies and fills on several goroutines race kernels on a
// stream, Free, the stream's Destroy and gpu.Shutdown: each returns (nil
// or an error), none hangs or crashes, and a host fence left by one that
// gave up holds nobody.
func TestSyncCopiesRaceFreeDestroyShutdown(t *testing.T) {
	dev := setup(t)
	m := must[*module.Module](t)(module.Load(dev, tornSet))
	f := m.MustFunction("buffer_test_set_all")
	const n = 1 << 12
	for round := range 6 {
		s := must[*stream.Stream](t)(stream.New(dev))
		b := must[*buffer.Buffer[int32]](t)(buffer.New[int32](dev, n))
		var wg sync.WaitGroup
		for g := range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 30 {
					switch g {
					case 0:
						_ = f.Launch(s, gpu.D1(1), gpu.D1(1), 0, b, int32(n), int32(i))
					case 1:
						_, _ = b.ToSlice()
					case 2:
						_ = b.Fill(int32(-i))
					case 3:
						_ = b.Sub(8, 64).CopyFrom(make([]int32, 64))
					case 4:
						if i == 10 {
							switch round % 3 {
							case 0:
								_ = b.Free()
							case 1:
								_ = s.Destroy()
							case 2:
								_ = gpu.Shutdown()
							}
						}
					}
				}
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("round %d: synchronous copies racing Free, Destroy or Shutdown did not return", round)
		}
		if round%3 == 2 {
			dev = setup(t)
			m = must[*module.Module](t)(module.Load(dev, tornSet))
			f = m.MustFunction("buffer_test_set_all")
		}
	}
}
