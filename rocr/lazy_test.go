package rocr_test

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// awaiter completes its signal when asked to Await (a driver's own stream
// synchronize) and counts what it was asked.
type awaiter struct {
	s                      *rocr.Signal
	awaits, flushes, polls atomic.Int32
	decline                bool
}

func (a *awaiter) Flush(uint64) { a.flushes.Add(1) }
func (a *awaiter) Settle()      { a.polls.Add(1) }
func (a *awaiter) Await(uint64) bool {
	a.awaits.Add(1)
	if a.decline {
		return false
	}
	a.s.Store(0, hsa.Release)
	return true
}

// A wait without deadline on a deferred signal lets its completer block
// for it (Await) rather than flush and poll; with a deadline, or when the
// completer declines, it flushes once and polls.
func TestDeferredWaitAwaits(t *testing.T) {
	require.NoError(t, rocr.Init())
	defer rocr.ShutDown()
	for _, tc := range []struct {
		name    string
		timeout time.Duration
		decline bool
		awaits  int32
	}{
		{"no deadline", 0, false, 1},
		{"declined", 0, true, 1},
		{"deadline", time.Hour, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := rocr.NewSignal(1)
			require.NoError(t, err)
			defer s.Destroy()
			a := &awaiter{s: s, decline: tc.decline}
			s.Defer(spi.NewCompleterRef(a), 7)
			if tc.decline || tc.timeout > 0 {
				time.AfterFunc(5*time.Millisecond, func() { s.Store(0, hsa.Release) })
			}
			assert.Equal(t, int64(0), s.Wait(hsa.CondEQ, 0, tc.timeout, hsa.WaitActive))
			assert.Equal(t, tc.awaits, a.awaits.Load())
			if tc.awaits == 0 || tc.decline {
				assert.Equal(t, int32(1), a.flushes.Load(), "one flush")
			}
		})
	}
}

// Signal.Await asks the completer only for a packet it has issued.
func TestSignalAwait(t *testing.T) {
	require.NoError(t, rocr.Init())
	defer rocr.ShutDown()
	s, err := rocr.NewSignal(1)
	require.NoError(t, err)
	defer s.Destroy()
	assert.False(t, s.Await(), "not deferred")
	a := &awaiter{s: s}
	ref := spi.NewCompleterRef(a)
	s.Defer(ref, 0) // named, not yet issued
	assert.False(t, s.Await())
	assert.Zero(t, a.awaits.Load())
	s.Defer(ref, 3)
	assert.True(t, s.Await())
	assert.Equal(t, int64(0), s.Load(hsa.Acquire))
	a.decline = true
	s.Store(1, hsa.Release)
	s.Defer(ref, 4)
	assert.False(t, s.Await())
	assert.Equal(t, int32(2), a.awaits.Load())
}

// A deferred completion that races a re-arm (the program's Store of the
// next round) either lands before it, which the Store overwrites, or is
// refused: it never decrements the new value. A completion that checked
// the arm count apart from its decrement took the new round's 1 to 0, and
// a GPU waiting for that signal to be 0 then saw it pass to -1 and hung.
func TestCompleteArmedRacesStore(t *testing.T) {
	require.NoError(t, rocr.Init())
	defer rocr.ShutDown()
	s, err := rocr.NewSignal(1)
	require.NoError(t, err)
	defer s.Destroy()
	a := &awaiter{s: s}
	ref := spi.NewCompleterRef(a)
	rounds := 20000
	if testing.Short() {
		rounds = 2000
	}
	for i := 0; i < rounds; i++ {
		s.Store(1, hsa.Release)
		s.Defer(ref, uint64(i+1))
		arm := s.Armed()
		start := make(chan struct{})
		done := make(chan bool)
		go func() {
			<-start
			done <- s.CompleteArmed(arm, nil)
		}()
		close(start)
		s.Store(1, hsa.Release)
		completed := <-done
		require.Equal(t, int64(1), s.Load(hsa.Acquire), "round %d: the re-armed value (completion landed: %v)", i, completed)
	}
	// Not re-armed: it completes, records the failure and forgets the
	// completer.
	s.Defer(ref, 1)
	assert.True(t, s.CompleteArmed(s.Armed(), hsa.ErrInvalidArgument))
	assert.Equal(t, int64(0), s.Load(hsa.Acquire))
	assert.ErrorIs(t, s.Err(), hsa.ErrInvalidArgument)
	c, _ := s.Deferred()
	assert.Nil(t, c)
	// Re-armed: refused, the value untouched.
	arm := s.Armed()
	s.Store(1, hsa.Release)
	assert.False(t, s.CompleteArmed(arm, nil))
	assert.Equal(t, int64(1), s.Load(hsa.Acquire))
}
