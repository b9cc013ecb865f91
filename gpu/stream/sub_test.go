package stream_test

import (
	gosync "sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/stream"
)

// Work on disjoint views of one buffer, on different streams, does not
// wait: b's write of the second half completes while a's gated write of
// the first half is still pending. A view that overlaps waits.
func TestSubDisjointRunConcurrently(t *testing.T) {
	e := setup(t)
	a, b, c := e.stream(), e.stream(), e.stream()
	const n = 16
	x := newBuf(t, e.dev, n)
	defer x.Free()
	lo, hi := x.Sub(0, n/2), x.Sub(n/2, n/2)
	open := closeGate(t)
	e.launch(a, "stream_test_gated_write", lo, int32(1), int32(n/2))
	src := newBuf(t, e.dev, n/2)
	defer src.Free()
	require.NoError(t, src.Fill(2))
	e.launch(b, "stream_test_copy", hi, src, int32(n/2)) // a kernel writes hi
	require.NoError(t, stream.Fill(b, hi.Sub(n/2-1, 1), int32(2)))
	sync(t, b) // would hang (10 s, then fail below) if b waited for a
	require.ErrorIs(t, a.Query(), gpu.ErrNotReady, "a's gated kernel must still be pending")

	// An overlapping view, [n/2-1, n/2+1), waits for both.
	mid := x.Sub(n/2-1, 2)
	require.NoError(t, stream.Fill(c, mid, int32(7)))
	assert.ErrorIs(t, c.Query(), gpu.ErrNotReady, "the overlapping fill did not wait for a's pending write")
	open()
	sync(t, c)
	sync(t, a)
	got, err := x.ToSlice()
	require.NoError(t, err)
	want := []int32{1, 1, 1, 1, 1, 1, 1, 7, 7, 2, 2, 2, 2, 2, 2, 2}
	assert.Equal(t, want, got)
}

// A whole-buffer use after range uses waits for all of them, and reads of
// overlapping views share.
func TestSubWholeWaitsForParts(t *testing.T) {
	e := setup(t)
	a, b, c := e.stream(), e.stream(), e.stream()
	const n = 8
	x, y := newBuf(t, e.dev, n), newBuf(t, e.dev, n)
	defer x.Free()
	defer y.Free()
	require.NoError(t, x.Fill(5))
	open := closeGate(t)
	// a writes x's first half (gated); b reads the second half into y.
	e.launch(a, "stream_test_gated_write", x.Sub(0, 4), int32(3), int32(4))
	e.launch(b, "stream_test_copy", y.Sub(4, 4), x.Sub(4, 4), int32(4))
	sync(t, b)
	// c copies all of x: it must wait for a.
	z := newBuf(t, e.dev, n)
	defer z.Free()
	e.launch(c, "stream_test_copy", z, x, int32(n))
	assert.ErrorIs(t, c.Query(), gpu.ErrNotReady, "the whole-buffer read did not wait for a's range write")
	open()
	sync(t, c)
	got, err := z.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int32{3, 3, 3, 3, 5, 5, 5, 5}, got)
}

// Many disjoint ranges stay correct past the limit on tracked ranges (maxParts).
func TestSubManyRanges(t *testing.T) {
	e := setup(t)
	ss := []*stream.Stream{e.stream(), e.stream(), e.stream()}
	const n = 300
	x := newBuf(t, e.dev, n)
	defer x.Free()
	require.NoError(t, x.Fill(0))
	for i := range n {
		require.NoError(t, stream.Fill(ss[i%3], x.Sub(i, 1), int32(i)))
	}
	// A second round reads each element's neighbour: each waits for the
	// fill that wrote it, on another stream.
	y := newBuf(t, e.dev, n)
	defer y.Free()
	for i := range n - 1 {
		e.launch(ss[(i+1)%3], "stream_test_copy", y.Sub(i, 1), x.Sub(i+1, 1), int32(1))
	}
	for _, s := range ss {
		sync(t, s)
	}
	got, err := y.ToSlice()
	require.NoError(t, err)
	for i := range n - 1 {
		require.Equal(t, int32(i+1), got[i], "y[%d]", i)
	}
}

func TestSubChecks(t *testing.T) {
	e := setup(t)
	const n = 16
	x := newBuf(t, e.dev, n)
	host := make([]int32, n)
	for i := range host {
		host[i] = int32(i)
	}
	require.NoError(t, x.CopyFrom(host))
	v := x.Sub(4, 8)
	require.NoError(t, v.Err())
	assert.Equal(t, 8, v.Len())
	assert.Equal(t, 32, v.Bytes())
	assert.Equal(t, uintptr(x.Ptr())+16, uintptr(v.Ptr()), "d_data + 4")
	assert.Same(t, e.dev, v.Device())
	got, err := v.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, host[4:12], got)
	w := v.Sub(2, 3)
	got, err = w.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, host[6:9], got, "a view of a view is of the same buffer")
	require.NoError(t, w.Fill(-1))
	require.NoError(t, v.CopyFromAt(7, []int32{-2}))
	all, err := x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 1, 2, 3, 4, 5, -1, -1, -1, 9, 10, -2, 12, 13, 14, 15}, all)

	// Bounds are the view's.
	assert.ErrorIs(t, v.CopyFrom(make([]int32, 9)), gpu.ErrInvalidValue)
	assert.ErrorIs(t, v.CopyToAt(5, make([]int32, 4)), gpu.ErrInvalidValue)
	s := e.stream()
	assert.Error(t, stream.CopyToDevice(s, v, 0, make([]int32, 9)))
	assert.Error(t, s.Copy(x, 0, v, 1, 8), "the copy runs past the view")

	// A range outside the buffer is a view whose every use fails.
	for _, bad := range []*buffer.Sub[int32]{x.Sub(-1, 2), x.Sub(10, 7), x.Sub(0, -1), v.Sub(4, 5)} {
		assert.ErrorIs(t, bad.Err(), gpu.ErrInvalidValue, "%s", bad)
		assert.ErrorIs(t, bad.CopyFrom([]int32{1}), gpu.ErrInvalidValue)
		assert.Error(t, stream.Fill(s, bad, int32(1)))
		assert.Error(t, e.tryLaunch(s, "stream_test_copy", bad, x, int32(1)))
	}
	empty := x.Sub(16, 0)
	require.NoError(t, empty.Err())
	assert.Zero(t, empty.Len())
	require.NoError(t, empty.CopyFrom(nil))
	var nilB *buffer.Buffer[int32]
	assert.Error(t, nilB.Sub(0, 1).Err())
	sync(t, s)

	// A view fails as its buffer does once that is freed.
	require.NoError(t, x.Free())
	assert.ErrorIs(t, v.CopyFrom([]int32{1}), gpu.ErrInvalidValue)
	assert.ErrorContains(t, v.CopyFrom([]int32{1}), "freed")
	assert.Error(t, e.tryLaunch(s, "stream_test_copy", v, v, int32(1)))
}

// HIPGO_CHECK_DEPS reasons in ranges: streams working on disjoint views
// of one buffer need no event; an overlapping view without one is
// reported.
func TestCheckDepsRanges(t *testing.T) {
	t.Setenv("HIPGO_CHECK_DEPS", "1")
	e := setup(t)
	const n = 16
	a, b := e.stream(), e.stream()
	x, y := newBuf(t, e.dev, n), newBuf(t, e.dev, n)
	defer x.Free()
	defer y.Free()
	e.launch(a, "stream_test_slow_write", x.Sub(0, 8), int32(1), int32(50), int32(8))
	require.NoError(t, e.tryLaunch(b, "stream_test_copy", y, x.Sub(8, 8), int32(8)), "disjoint views are no dependency")
	err := e.tryLaunch(b, "stream_test_copy", y, x.Sub(7, 2), int32(2))
	require.Error(t, err)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "no event")
	assert.ErrorContains(t, err, "view of elements [7, 9)")
	sync(t, a)
	sync(t, b)
}

// Views made, copied to, filled and launched on race their buffer's Free:
// each use works or fails with an error, and nothing panics or hangs.
func TestSubRacesFree(t *testing.T) {
	e := setup(t)
	const n = 64
	for range 20 {
		x := newBuf(t, e.dev, n)
		ss := []*stream.Stream{e.stream(), e.stream(), e.stream()}
		var wg gosync.WaitGroup
		for w, s := range ss {
			wg.Add(1)
			go func() {
				defer wg.Done()
				v := x.Sub(w*16, 16)
				_ = v.CopyFrom(make([]int32, 16))
				_ = stream.Fill(s, v, int32(w))
				_ = e.tryLaunch(s, "stream_test_copy", v, x.Sub(48, 16), int32(16))
				_, _ = v.Sub(2, 4).ToSlice()
			}()
		}
		err := x.Free()
		wg.Wait()
		require.NoError(t, err)
		for _, s := range ss {
			_ = s.Synchronize()
			require.NoError(t, s.Destroy())
		}
	}
}
