package stream_test

import (
	"errors"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/gputest"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowRead sleeps, then copies src[0:n] to dst: it only reads src.
type slowReadArgs struct {
	Dst rocr.Ptr[int32]
	Src rocr.ConstPtr[int32]
	Ms  int32
	N   int32
}

var slowReadK = kernel.Define("stream_test_slow_read", func(g *kernel.Block, a *slowReadArgs) {
	time.Sleep(time.Duration(a.Ms) * time.Millisecond)
	copy(a.Dst.Slice(g, 0, int(a.N)), a.Src.Slice(g, 0, int(a.N)))
})

// packets is how many packets launching on s submits.
func packets(t *testing.T, s *stream.Stream, launch func()) uint64 {
	t.Helper()
	w := written(s)
	launch()
	return written(s) - w
}

// Every pair of accesses on two streams: readers share, writers wait.
func TestReadWriteDependencies(t *testing.T) {
	e := setup(t)
	a, b := e.stream(), e.stream()
	const n = 64
	x, ya, yb := newBuf(t, e.dev, n), newBuf(t, e.dev, n), newBuf(t, e.dev, n)
	require.NoError(t, x.Fill(5))

	// RAR: two readers on two streams run concurrently, no barrier.
	e.launch(a, "stream_test_slow_read", ya, x, int32(50), int32(n))
	assert.EqualValues(t, 1, packets(t, b, func() { e.launch(b, "stream_test_slow_read", yb, x, int32(50), int32(n)) }), "RAR inserted a barrier")
	// A copy from x reads it too.
	host := make([]int32, n)
	assert.EqualValues(t, 1, packets(t, b, func() { require.NoError(t, stream.CopyToHost(b, host, x, 0)) }), "a copy's source is a read")

	// WAR: a writer on b waits for the reader on a.
	e.launch(a, "stream_test_slow_read", ya, x, int32(50), int32(n))
	assert.EqualValues(t, 2, packets(t, b, func() { e.launch(b, "stream_test_slow_write", x, int32(9), int32(0), int32(n)) }), "WAR without a barrier")
	sync(t, a)
	sync(t, b)
	got, err := ya.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, int32(5), got[n-1], "the reader saw the later write")

	// WAW: a writer on a waits for the writer on b.
	e.launch(b, "stream_test_slow_write", x, int32(11), int32(50), int32(n))
	assert.EqualValues(t, 2, packets(t, a, func() { e.launch(a, "stream_test_inc", x, int32(n)) }), "WAW without a barrier")
	sync(t, a)
	got, err = x.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, int32(12), got[0], "the second writer ran first")

	// RAW: a reader waits for the writer.
	e.launch(a, "stream_test_slow_write", x, int32(13), int32(50), int32(n))
	assert.EqualValues(t, 2, packets(t, b, func() { e.launch(b, "stream_test_slow_read", yb, x, int32(0), int32(n)) }), "RAW without a barrier")
	sync(t, b)
	got, err = yb.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, int32(13), got[n-1])
	sync(t, a)
}

// More readers than a buffer tracks still let a writer wait for all.
func TestManyReadersThenWriter(t *testing.T) {
	e := setup(t)
	const n, readers = 16, 7
	x := newBuf(t, e.dev, n)
	require.NoError(t, x.Fill(1))
	outs := make([]*buffer.Buffer[int32], readers)
	for i := range outs {
		outs[i] = newBuf(t, e.dev, n)
		e.launch(e.stream(), "stream_test_slow_read", outs[i], x, int32(20), int32(n))
	}
	w := e.stream()
	e.launch(w, "stream_test_slow_write", x, int32(2), int32(0), int32(n))
	require.NoError(t, e.dev.Synchronize())
	for i, o := range outs {
		got, err := o.ToSlice()
		require.NoError(t, err)
		assert.Equal(t, int32(1), got[n-1], "reader %d saw the later write", i)
	}
}

// ManualDeps on a stream or a buffer leaves the order to the program.
func TestManualDeps(t *testing.T) {
	e := setup(t)
	const n = 16
	a := e.stream()
	manual, err := stream.NewWithFlags(e.dev, stream.ManualDeps, stream.PriorityLow)
	require.NoError(t, err)
	x := newBuf(t, e.dev, n)
	// The unordered launches touch no element (n = 0): they would race,
	// and -race sees kernels' memory.
	e.launch(a, "stream_test_slow_write", x, int32(1), int32(30), int32(n))
	assert.EqualValues(t, 1, packets(t, manual, func() { e.launch(manual, "stream_test_inc", x, int32(0)) }), "a ManualDeps stream got a barrier")
	sync(t, manual)
	sync(t, a)

	b := e.stream()
	x.SetManualDeps(true)
	e.launch(a, "stream_test_slow_write", x, int32(1), int32(30), int32(n))
	assert.EqualValues(t, 1, packets(t, b, func() { e.launch(b, "stream_test_inc", x, int32(0)) }), "a ManualDeps buffer got a barrier")
	sync(t, a)
	sync(t, b)
	require.NoError(t, manual.Destroy())
}

// HIPGO_CHECK_DEPS=1 reports an unordered dependency, naming both
// operations, and accepts one ordered with an event.
func TestCheckDeps(t *testing.T) {
	t.Setenv("HIPGO_CHECK_DEPS", "1")
	e := setup(t)
	const n = 16
	a, b := e.stream(), e.stream()
	x, y := newBuf(t, e.dev, n), newBuf(t, e.dev, n)
	e.launch(a, "stream_test_slow_write", x, int32(1), int32(100), int32(n))
	err := e.tryLaunch(b, "stream_test_copy", y, x, int32(n))
	require.Error(t, err)
	assert.True(t, errors.Is(err, gpu.ErrInvalidValue), "%v", err)
	for _, w := range []string{"stream_test_copy", "stream_test_slow_write", "no event"} {
		assert.Contains(t, err.Error(), w)
	}
	ev := e.event(stream.EventDefault)
	require.NoError(t, a.Record(ev))
	require.NoError(t, b.WaitEvent(ev))
	require.NoError(t, e.tryLaunch(b, "stream_test_copy", y, x, int32(n)))
	sync(t, b)
	got, err := y.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, int32(1), got[n-1])
}

// Across two devices sharing host memory: readers share, a writer waits.
func TestReadWriteDependenciesAcrossDevices(t *testing.T) {
	m := setupMulti(t, 2)
	const n = 16
	h, err := buffer.NewHost[int32](m.devs[0], n)
	require.NoError(t, err)
	defer h.Free()
	copy(h.Slice(), make([]int32, n))
	o0, err := buffer.New[int32](m.devs[0], n)
	require.NoError(t, err)
	o1, err := buffer.New[int32](m.devs[1], n)
	require.NoError(t, err)
	s0, s1 := m.stream(0), m.stream(1)
	launch := func(i int, s *stream.Stream, name string, args ...any) {
		f, err := m.mods[i].Function(name)
		require.NoError(t, err)
		require.NoError(t, f.Launch(s, gpu.D1(1), gpu.D1(1), 0, args...))
	}
	launch(0, s0, "stream_test_slow_read", o0, h, int32(50), int32(n))
	assert.EqualValues(t, 1, packets(t, s1, func() { launch(1, s1, "stream_test_slow_read", o1, h, int32(0), int32(n)) }), "RAR across devices got a barrier")
	assert.EqualValues(t, 2, packets(t, s1, func() { launch(1, s1, "stream_test_inc", h, int32(n)) }), "WAR across devices without a barrier")
	sync(t, s1)
	got, err := o0.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, int32(0), got[n-1], "the reader on device 0 saw device 1's later write")
	assert.Equal(t, int32(1), h.Slice()[0])
	launch(0, s0, "stream_test_slow_write", h, int32(4), int32(30), int32(n))
	assert.EqualValues(t, 2, packets(t, s1, func() { launch(1, s1, "stream_test_slow_read", o1, h, int32(0), int32(n)) }), "RAW across devices without a barrier")
	sync(t, s1)
	got, err = o1.ToSlice()
	require.NoError(t, err)
	assert.Equal(t, int32(4), got[n-1])
	sync(t, s0)
	require.NoError(t, o0.Free())
	require.NoError(t, o1.Free())
}

// A Free racing a launch on the same buffer never lets the launch write
// into memory that a new buffer got: the launch fails or Free waits for it.
func TestFreeRacingLaunch(t *testing.T) {
	e := setup(t)
	const n = 256
	s := e.stream()
	for round := range 300 {
		x := newBuf(t, e.dev, n)
		var wg gosync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := e.tryLaunch(s, "stream_test_slow_write", x, int32(7), int32(0), int32(n))
			if err != nil && !strings.Contains(err.Error(), "freed") {
				t.Errorf("round %d: %v", round, err)
			}
		}()
		require.NoError(t, x.Free())
		y := newBuf(t, e.dev, n)
		require.NoError(t, y.Fill(0))
		wg.Wait()
		require.NoError(t, s.Synchronize())
		got, err := y.ToSlice()
		require.NoError(t, err)
		require.Equal(t, int32(0), got[0], "round %d: a launch on a freed buffer wrote into a new one", round)
		require.NoError(t, y.Free())
	}
}

// Stream copies and fills make the host type agree with the buffer's.
func TestStreamOpsElementTypes(t *testing.T) {
	e := setup(t)
	s := e.stream()
	f, err := buffer.New[float32](e.dev, 4)
	require.NoError(t, err)
	defer f.Free()
	for name, err := range map[string]error{
		"fill":      stream.Fill(s, f, int32(1)),
		"to device": stream.CopyToDevice(s, f, 0, []uint32{1, 2, 3, 4}),
		"to host":   stream.CopyToHost(s, make([]int32, 4), f, 0),
	} {
		assert.ErrorIs(t, err, gpu.ErrInvalidValue, name)
		assert.ErrorContains(t, err, "float32", name)
	}
	require.NoError(t, stream.Fill(s, f, float32(1.5)))
	require.NoError(t, s.Synchronize())
	got, err := f.ToSlice()
	require.NoError(t, err)
	assert.InDelta(t, 1.5, got[3], 0)
}

// Free of a buffer whose uses the program orders itself waits for every
// packet that used it, not only the last: a write on another stream that
// replaced a pending one did not wait for it, so the buffer's state alone
// would forget it (and the first kernel would find its memory freed).
func TestManualDepsFree(t *testing.T) {
	e := setup(t)
	a, b := e.stream(), e.stream()
	for _, dropped := range []bool{false, true} {
		x := newBuf(t, e.dev, 16)
		x.SetManualDeps(true)
		// The second kernel touches no element (n = 0), so the two do not
		// race; the first writes x after 30 ms, when it must still be there.
		e.launch(a, "stream_test_slow_write", x, int32(1), int32(30), int32(16))
		e.launch(b, "stream_test_inc", x, int32(0))
		sync(t, b)
		if dropped {
			before := gputest.Backstops()
			x = nil
			require.True(t, gputest.Collect(func() bool { return gputest.Backstops() > before }), "the backstop released the buffer")
		} else {
			require.NoError(t, x.Free())
		}
		require.NoError(t, a.Synchronize(), "the slow write found its buffer (dropped: %v)", dropped)
	}
}
