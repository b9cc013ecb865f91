package core

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/gpu"
)

// streams makes n submitters on dev.
func streams(t *testing.T, dev *gpu.Device, n int) []*Stream {
	out := make([]*Stream, n)
	for i := range out {
		out[i] = newStream(t, dev, 16)
	}
	return out
}

// Read after write, write after read and write after write across
// streams wait; uses on the writer's own queue and completed work do not.
func TestDepsReadWrite(t *testing.T) {
	dev := device(t)
	ss := streams(t, dev, 3)
	x := newMem(t, dev, 16)
	w := fenceOn(t, ss[0], "w")
	assert.Empty(t, use(t, x, ss[0], w, Write))
	r0 := fenceOn(t, ss[0], "r0")
	assert.Empty(t, use(t, x, ss[0], r0, Read), "a read on the writer's queue")
	r1 := fenceOn(t, ss[1], "r1")
	assert.Equal(t, names(w), use(t, x, ss[1], r1, Read), "RAW")
	r2 := fenceOn(t, ss[2], "r2")
	assert.Equal(t, names(w), use(t, x, ss[2], r2, Read), "a second reader waits for the writer, not the first reader")
	w2 := fenceOn(t, ss[1], "w2")
	assert.ElementsMatch(t, names(w, r0, r2), use(t, x, ss[1], w2, Write), "WAR and WAW: the writer and the readers of other queues than w2's")
	assert.Same(t, w2, x.deps.writer)
	assert.Zero(t, x.deps.n, "a write forgets the readers")
	w3 := fenceOn(t, ss[0], "w3")
	assert.Equal(t, names(w2), use(t, x, ss[0], w3, Write), "WAW")
	w3.Cancel()
	r := fenceOn(t, ss[2], "r")
	assert.Empty(t, use(t, x, ss[2], r, Read), "completed work is not waited for")
	assert.Nil(t, x.deps.writer, "a completed writer is forgotten")
}

// The readers between two writers are all waited for by the second,
// even past MaxReaders: the reader beyond the bound waits for the oldest
// and stands for it.
func TestDepsManyReaders(t *testing.T) {
	dev := device(t)
	ss := streams(t, dev, MaxReaders+2)
	x := newMem(t, dev, 16)
	var rs []*Fence
	for i := range MaxReaders {
		r := fenceOn(t, ss[i], fmt.Sprint("r", i))
		assert.Empty(t, use(t, x, ss[i], r, Read))
		rs = append(rs, r)
	}
	last := fenceOn(t, ss[MaxReaders], "last")
	assert.Equal(t, names(rs[0]), use(t, x, ss[MaxReaders], last, Read), "the reader past the bound waits for the oldest")
	w := fenceOn(t, ss[MaxReaders+1], "w")
	assert.ElementsMatch(t, names(append(rs[1:], last)...), use(t, x, ss[MaxReaders+1], w, Write))
}

// One operation that finds two buffers last used by the same packet waits
// for it once.
func TestDepsOncePerPacket(t *testing.T) {
	dev := device(t)
	ss := streams(t, dev, 2)
	x, y := newMem(t, dev, 4), newMem(t, dev, 4)
	w := fenceOn(t, ss[0], "w")
	s := ss[1]
	require.NoError(t, hostOp(ss[0], func() error { return nil })) // a queue that runs
	use(t, x, ss[0], w, Write)
	use(t, y, ss[0], w, Write)
	f := fenceOn(t, s, "f")
	deps, err := useAll(s, f, []MemUse{{x, Read}, {y, Read}}, nil)
	require.NoError(t, err)
	assert.Equal(t, names(w), names(deps...))
	for _, d := range deps {
		d.Release()
	}
}

// Views are uses of their bytes: disjoint ranges do not wait for each
// other, overlapping ones do, and a whole-buffer write makes the buffer
// one state again.
func TestDepsViews(t *testing.T) {
	dev := device(t)
	ss := streams(t, dev, 4)
	x := newMem(t, dev, 16)
	a := fenceOn(t, ss[0], "a")
	assert.Empty(t, use(t, view(x, 0, 4), ss[0], a, Write))
	b := fenceOn(t, ss[1], "b")
	assert.Empty(t, use(t, view(x, 4, 4), ss[1], b, Write), "elements [4, 8) touch none of [0, 4)")
	c := fenceOn(t, ss[2], "c")
	assert.Equal(t, names(a), use(t, view(x, 3, 1), ss[2], c, Read), "element 3 is a's last")
	d := fenceOn(t, ss[2], "d")
	assert.ElementsMatch(t, names(a, b), use(t, view(x, 2, 4), ss[2], d, Read), "[2, 6) overlaps both writes")
	e := fenceOn(t, ss[3], "e")
	assert.Empty(t, use(t, view(x, 8, 8), ss[3], e, Write), "[8, 16) was never used")
	v := view(view(x, 4, 8), 4, 4) // a view of a view: elements [8, 12)
	g := fenceOn(t, ss[0], "g")
	assert.Equal(t, names(e), use(t, v, ss[0], g, Read))
	assert.NotNil(t, x.deps.parts)
	w := fenceOn(t, ss[1], "w")
	assert.ElementsMatch(t, names(a, d, e, g), use(t, x, ss[1], w, Write), "a whole write waits for every range (b is its own queue's, d stands for c of its queue)")
	assert.Nil(t, x.deps.parts, "one state again")
	assert.Same(t, w, x.deps.writer)
	z := fenceOn(t, ss[0], "z")
	assert.Empty(t, use(t, view(x, 0, 0), ss[0], z, Write), "an empty view touches nothing")
}

// Neighbouring ranges with the same state merge; past maxParts ranges the
// use that would leave more waits for all of them and stands for them.
func TestDepsRangesMergeAndCollapse(t *testing.T) {
	dev := device(t)
	ss := streams(t, dev, 2)
	x := newMem(t, dev, maxParts+8)
	a := fenceOn(t, ss[0], "a")
	use(t, view(x, 0, 4), ss[0], a, Write)
	use(t, view(x, 4, 4), ss[0], a, Write)
	assert.Len(t, x.deps.parts, 2, "[0, 8) by one packet is one range, then the rest")
	var fs []*Fence
	for i := range maxParts - 2 {
		f := fenceOn(t, ss[0], fmt.Sprint("w", i))
		use(t, view(x, 8+i, 1), ss[0], f, Write)
		fs = append(fs, f)
	}
	require.Len(t, x.deps.parts, maxParts)
	b := fenceOn(t, ss[1], "b")
	deps := use(t, view(x, maxParts+6, 1), ss[1], b, Write)
	assert.ElementsMatch(t, names(append(fs, a)...), deps, "the collapsing use waits for every range")
	assert.Nil(t, x.deps.parts)
	assert.Same(t, b, x.deps.writer)
}

// Under Check a dependency the stream did not order with an event is an
// error naming both operations; once it waited for the other queue's work
// it is not. Under Manual, and on a manual buffer, nothing is waited for.
func TestDepsOrders(t *testing.T) {
	dev := device(t)
	ss := streams(t, dev, 2)
	x, y := newMem(t, dev, 4), newMem(t, dev, 4)
	w := fenceOn(t, ss[0], "writer_kernel")
	use(t, x, ss[0], w, Write)

	ss[1].SetOrder(Check)
	r := fenceOn(t, ss[1], "reader_kernel")
	_, err := x.Use(ss[1], r, Read, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "reader_kernel")
	assert.ErrorContains(t, err, "writer_kernel")
	assert.ErrorContains(t, err, "HIPGO_CHECK_DEPS")
	ss[1].noteWaited(w)
	assert.Empty(t, use(t, x, ss[1], r, Read), "ordered by a wait")

	ss[1].SetOrder(Manual)
	m := fenceOn(t, ss[1], "m")
	assert.Empty(t, use(t, x, ss[1], m, Write))

	y.SetManual(true)
	ss[1].SetOrder(Auto)
	use(t, y, ss[0], w, Write)
	assert.Empty(t, use(t, y, ss[1], m, Read), "a manual buffer")
}

// A use of freed memory fails and records nothing.
func TestDepsFreed(t *testing.T) {
	dev := device(t)
	s := newStream(t, dev, 16)
	x := newMem(t, dev, 4)
	require.NoError(t, x.Free())
	f := fenceOn(t, s, "k")
	_, err := x.Use(s, f, Read, nil)
	assert.ErrorIs(t, err, gpu.ErrInvalidValue)
	assert.ErrorContains(t, err, "freed")
	assert.Zero(t, x.deps.n)
	assert.ErrorIs(t, hostOp(s, func() error { return nil }, MemUse{x, Read}), gpu.ErrInvalidValue)
}

// End to end: readers of two streams run at once after the writer of a
// third, and a later writer waits for both; a write to a disjoint view
// completes while an overlapping one waits.
func TestDepsRun(t *testing.T) {
	dev := device(t)
	ss := streams(t, dev, 4)
	x := newMem(t, dev, 16)
	g := newGate(t)
	var got runLog
	gated(t, ss[0], g, func() { got.add(0) }, MemUse{x, Write})
	met := make(chan struct{}, 2)
	reader := func(i int) func() error {
		return func() error {
			met <- struct{}{}
			got.add(i)
			return nil
		}
	}
	require.NoError(t, hostOp(ss[1], reader(1), MemUse{x, Read}))
	require.NoError(t, hostOp(ss[2], reader(2), MemUse{x, Read}))
	require.NoError(t, hostOp(ss[3], func() error { got.add(3); return nil }, MemUse{x, Write}))
	assert.ErrorIs(t, ss[1].Query(), gpu.ErrNotReady, "a reader ran before the writer")
	g.open()
	for _, s := range ss {
		require.NoError(t, s.SynchronizeContext(within(t)))
	}
	out := got.take()
	require.Len(t, out, 4)
	assert.Equal(t, 0, out[0])
	assert.ElementsMatch(t, []int{1, 2}, out[1:3])
	assert.Equal(t, 3, out[3])

	g2 := newGate(t)
	gated(t, ss[0], g2, func() {}, MemUse{view(x, 0, 8), Write})
	require.NoError(t, hostOp(ss[1], func() error { return nil }, MemUse{view(x, 8, 8), Write}))
	require.NoError(t, ss[1].SynchronizeContext(within(t)), "a disjoint view waited")
	require.NoError(t, hostOp(ss[2], func() error { return nil }, MemUse{view(x, 4, 8), Write}))
	assert.ErrorIs(t, ss[2].Query(), gpu.ErrNotReady, "an overlapping view did not wait")
	g2.open()
	require.NoError(t, ss[2].SynchronizeContext(within(t)))
}

// A synchronous copy of a buffer that a failed kernel wrote reports the
// failure its stream has not returned yet, once, even when the kernel
// completed before the copy began (a loaded machine runs it that way).
func TestSyncCopyReportsCompletedFailure(t *testing.T) {
	dev := device(t)
	for _, toDevice := range []bool{false, true} {
		t.Run(fmt.Sprint("to device ", toDevice), func(t *testing.T) {
			s := newStream(t, dev, 16)
			x := newMem(t, dev, 4)
			require.NoError(t, launch(s, kernelPanic, &tagArgs{}, MemUse{x, Write}))
			// Wait for the kernel without anyone reporting its failure.
			x.mu.Lock()
			w := x.deps.writer
			require.NotNil(t, w)
			w.Retain()
			x.mu.Unlock()
			assert.ErrorContains(t, w.Wait(hang), "core test kernel failed on purpose")
			require.True(t, w.Done())
			w.Release()
			require.False(t, s.isReported())

			b := make([]byte, 16)
			err := CopyHost("memcpy", x, 0, b, toDevice)
			assert.ErrorIs(t, err, gpu.ErrLaunchFailure, "the copy observed the failure first")
			assert.ErrorContains(t, err, "core test kernel failed on purpose")
			assert.NoError(t, CopyHost("memcpy", x, 0, b, toDevice), "a failure is reported once")
			assert.ErrorContains(t, s.SynchronizeContext(within(t)), "core_test_panic", "the stream stays failed")
		})
	}
}
