package rocm

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/hipgo/hipgo/internal/hostmem"
	"github.com/hipgo/hipgo/internal/hostref"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/aql"
	"github.com/hipgo/hipgo/rocr/hsa"
)

var agentHeader = aql.MakeHeader(aql.TypeAgentDispatch, true, aql.ScopeSystem, aql.ScopeSystem)

// agentWorkSetup opens the fake, a queue and a signal maker for its tests.
func agentWorkSetup(t *testing.T) (*fakeHSA, *rocr.Agent, *rocr.Queue, func(int64) *rocr.Signal) {
	f := newFake()
	ag := initFake(t, f)
	q, err := ag.CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, q.Destroy()) })
	sig := func(v int64) *rocr.Signal {
		s, err := rocr.NewSignalFor(ag, v)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Destroy() })
		return s
	}
	return f, ag, q, sig
}

func allocIn(t *testing.T, ag *rocr.Agent, flags hsa.GlobalFlag, n uint64) *rocr.Allocation {
	p, err := ag.Pool(hsa.SegmentGlobal, flags)
	require.NoError(t, err)
	al, err := p.Allocate(n)
	require.NoError(t, err)
	t.Cleanup(func() { _ = al.Free() })
	return al
}

// gate holds the queue's command processor on a barrier until opened.
func gate(t *testing.T, q *rocr.Queue, s *rocr.Signal) {
	var b aql.BarrierAnd
	b.DepSignal[0] = s.Handle()
	_, err := q.Submit(unsafe.Pointer(&b), aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem))
	require.NoError(t, err)
}

func TestQueueCopyIsAsynchronous(t *testing.T) {
	f, ag, q, sig := agentWorkSetup(t)
	dev := allocIn(t, ag, hsa.FlagCoarseGrained, 4096)
	host := allocIn(t, ag, hsa.FlagFineGrained, 4096)
	src := hostmem.Bytes(host.Base, 4096)
	for i := range src {
		src[i] = byte(i*5 + 1)
	}
	open, done, after := sig(1), sig(1), sig(1)
	gate(t, q, open)

	p := aql.CopyWork{Dst: uint64(dev.Base), Src: uint64(host.Base), Bytes: 4096}.Call().Packet(done.Handle())
	_, err := q.Submit(unsafe.Pointer(&p), agentHeader)
	require.NoError(t, err, "a queue of a GPU agent accepts AGENT_DISPATCH copies")
	var b aql.BarrierAnd
	b.CompletionSignal = after.Handle()
	_, err = q.Submit(unsafe.Pointer(&b), aql.MakeHeader(aql.TypeBarrierAnd, true, aql.ScopeSystem, aql.ScopeSystem))
	require.NoError(t, err)

	// Submit returned while the work before the copy still holds it.
	_, ok := done.WaitTimed(hsa.CondEQ, 0, 20*time.Millisecond, hsa.WaitBlocked)
	assert.False(t, ok, "the copy completed before the packets ahead of it")
	assert.Equal(t, make([]byte, 4096), hostmem.Bytes(dev.Base, 4096), "the copy ran before the packets ahead of it")

	open.Store(0, hsa.Release)
	_, ok = after.WaitTimed(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked)
	require.True(t, ok, "the packet after the copy did not complete")
	assert.Equal(t, int64(0), done.Load(hsa.Acquire), "the copy's signal completes before the packet after it")
	assert.NoError(t, done.Err())
	assert.Equal(t, src, hostmem.Bytes(dev.Base, 4096))

	f.mu.Lock()
	defer f.mu.Unlock()
	require.Len(t, f.copies, 1)
	c := f.copies[0]
	assert.Equal(t, uint64(4096), c.n)
	assert.Len(t, c.deps, 1, "the engine copy waits for the packets ahead of it")
	assert.NotEqual(t, signalH(done.Handle()), c.done, "the packet's own signal completes in queue order, after the engine's")
}

func TestQueueHostWorkInOrder(t *testing.T) {
	_, ag, q, sig := agentWorkSetup(t)
	dev := allocIn(t, ag, hsa.FlagCoarseGrained, 64)
	open, filled, called, copied := sig(1), sig(1), sig(1), sig(1)
	gate(t, q, open)

	fill := aql.FillWork{Dst: uint64(dev.Base), Pattern: 0x11223344, Count: 16, ElemSize: 4}.Call().Packet(filled.Handle())
	_, err := q.Submit(unsafe.Pointer(&fill), agentHeader)
	require.NoError(t, err)
	var seen []byte
	id := hostref.RegisterCallback(func() error {
		seen = append([]byte(nil), hostmem.Bytes(dev.Base, 8)...)
		return nil
	})
	cb := aql.CallbackWork{ID: id}.Call().Packet(called.Handle())
	_, err = q.Submit(unsafe.Pointer(&cb), agentHeader)
	require.NoError(t, err)
	out := make([]byte, 8)
	pin := hostref.PinHost(out)
	defer hostref.UnpinHost(pin)
	cp := aql.CopyWork{Dst: pin, Src: uint64(dev.Base), Bytes: 8, Flags: aql.CopyDstHost}.Call().Packet(copied.Handle())
	_, err = q.Submit(unsafe.Pointer(&cp), agentHeader)
	require.NoError(t, err)

	_, ok := copied.WaitTimed(hsa.CondEQ, 0, 20*time.Millisecond, hsa.WaitBlocked)
	assert.False(t, ok, "host work ran before the packets ahead of it")
	open.Store(0, hsa.Release)
	_, ok = copied.WaitTimed(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked)
	require.True(t, ok, "the copy to Go memory did not complete")
	want := []byte{0x44, 0x33, 0x22, 0x11, 0x44, 0x33, 0x22, 0x11}
	assert.Equal(t, want, seen, "the callback sees the fill before it")
	assert.Equal(t, want, out, "the copy to Go memory is staged back")
	for _, s := range []*rocr.Signal{filled, called, copied} {
		assert.Equal(t, int64(0), s.Load(hsa.Acquire))
		assert.NoError(t, s.Err())
	}
}

func TestQueueAgentWorkErrors(t *testing.T) {
	_, ag, q, sig := agentWorkSetup(t)
	dev := allocIn(t, ag, hsa.FlagCoarseGrained, 64)

	// Refused before the work starts: the caller sees the error at once.
	bad := aql.CopyWork{Dst: uint64(dev.Base), Src: uint64(dev.Base), Bytes: 128}.Call().Packet(0)
	_, err := q.Submit(unsafe.Pointer(&bad), agentHeader)
	assert.ErrorIs(t, err, hsa.ErrInvalidArgument, "a copy past its allocation")
	odd := aql.FillWork{Dst: uint64(dev.Base), Count: 4, ElemSize: 3}.Call().Packet(0)
	_, err = q.Submit(unsafe.Pointer(&odd), agentHeader)
	assert.ErrorIs(t, err, hsa.ErrInvalidArgument, "a 3-byte element")

	// Failing later: the packet's signal carries the error, and the queue
	// goes on.
	failed, next := sig(1), sig(1)
	id := hostref.RegisterCallback(func() error { panic("boom") })
	cb := aql.CallbackWork{ID: id}.Call().Packet(failed.Handle())
	_, err = q.Submit(unsafe.Pointer(&cb), agentHeader)
	require.NoError(t, err)
	fill := aql.FillWork{Dst: uint64(dev.Base), Pattern: 7, Count: 64, ElemSize: 1}.Call().Packet(next.Handle())
	_, err = q.Submit(unsafe.Pointer(&fill), agentHeader)
	require.NoError(t, err)
	_, ok := next.WaitTimed(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked)
	require.True(t, ok)
	assert.Equal(t, int64(0), failed.Load(hsa.Acquire))
	assert.ErrorContains(t, failed.Err(), "panicked")
	assert.NoError(t, next.Err())
	assert.Equal(t, byte(7), hostmem.Bytes(dev.Base, 64)[63])
}

// Goroutines submitting copies and callbacks to one hardware queue at once
// each see their own work done in their order, and Destroy racing the
// last submissions neither hangs nor leaks.
func TestQueueAgentWorkRacing(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	q, err := ag.CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	const workers, rounds = 4, 20
	bufs := make([]*rocr.Allocation, workers)
	for i := range bufs {
		bufs[i] = allocIn(t, ag, hsa.FlagCoarseGrained, 8)
	}
	src := allocIn(t, ag, hsa.FlagFineGrained, 8*rounds)
	for i, b := 0, hostmem.Bytes(src.Base, 8*rounds); i < len(b); i++ {
		b[i] = byte(i / 8)
	}
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		go func() {
			errs <- func() error {
				for r := 0; r < rounds; r++ {
					done, err := rocr.NewSignalFor(ag, 1)
					if err != nil {
						return err
					}
					cp := aql.CopyWork{Dst: uint64(bufs[w].Base), Src: uint64(src.Base) + uint64(8*r), Bytes: 8}.Call().Packet(0)
					if _, err := q.Submit(unsafe.Pointer(&cp), agentHeader); err != nil {
						return err
					}
					var seen byte
					id := hostref.RegisterCallback(func() error { seen = hostmem.Bytes(bufs[w].Base, 1)[0]; return nil })
					cb := aql.CallbackWork{ID: id}.Call().Packet(done.Handle())
					if _, err := q.Submit(unsafe.Pointer(&cb), agentHeader); err != nil {
						return err
					}
					if _, ok := done.WaitTimed(hsa.CondEQ, 0, 5*time.Second, hsa.WaitBlocked); !ok {
						return assert.AnError
					}
					_ = done.Destroy()
					if seen != byte(r) {
						return fmt.Errorf("worker %d round %d: callback saw %d", w, r, seen)
					}
				}
				return nil
			}()
		}()
	}
	for w := 0; w < workers; w++ {
		assert.NoError(t, <-errs)
	}
	// Destroy while one more goroutine submits: each submission either
	// fails with the queue's destruction or is carried out.
	stop := make(chan error, 1)
	go func() {
		for {
			id := hostref.RegisterCallback(func() error { return nil })
			cb := aql.CallbackWork{ID: id}.Call().Packet(0)
			if _, err := q.Submit(unsafe.Pointer(&cb), agentHeader); err != nil {
				stop <- err
				return
			}
		}
	}()
	time.Sleep(5 * time.Millisecond)
	require.NoError(t, q.Destroy())
	assert.ErrorIs(t, <-stop, hsa.ErrInvalidQueue)
}

// A callback with a failure hook that a hardware queue never runs (the
// queue is destroyed while the work before it holds it) runs its hook with
// why, once; one that runs does not run its hook.
func TestQueueCallbackFailureHook(t *testing.T) {
	f := newFake()
	ag := initFake(t, f)
	q, err := ag.CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	open, err := rocr.NewSignalFor(ag, 1)
	require.NoError(t, err)
	defer func() { _ = open.Destroy() }()
	pending := hostref.PendingCallbacks()

	ran := make(chan error, 2)
	hooked := make(chan error, 2)
	submit := func() {
		id := hostref.RegisterCallbackOr(func() error { ran <- nil; return nil }, func(err error) { hooked <- err })
		cb := aql.CallbackWork{ID: id}.Call().Packet(0)
		_, err := q.Submit(unsafe.Pointer(&cb), agentHeader)
		require.NoError(t, err)
	}
	submit() // runs
	gate(t, q, open)
	submit() // held by the gate until the queue is destroyed
	select {
	case <-ran:
	case <-time.After(5 * time.Second):
		t.Fatal("the first callback did not run")
	}
	require.NoError(t, q.Destroy())
	select {
	case err := <-hooked:
		assert.ErrorIs(t, err, hsa.ErrInvalidQueue, "%v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the held callback's hook did not run")
	}
	assert.Empty(t, ran, "the held callback ran")
	assert.Empty(t, hooked, "a hook ran twice, or for the callback that ran")
	assert.Equal(t, pending, hostref.PendingCallbacks())
	open.Store(0, hsa.Release)
}
