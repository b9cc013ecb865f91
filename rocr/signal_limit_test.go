package rocr_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/internal/cputest"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// At the signal table's capacity NewSignal returns an error wrapping
// hsa.ErrOutOfResources; the table stays usable: signals are loaded, stored,
// destroyed and created again, on this goroutine and others.
func TestSignalTableLimit(t *testing.T) {
	cputest.Agents(t, 1)
	restore := rocr.SetSignalCapacity(2)
	defer restore()
	var sigs []*rocr.Signal
	defer func() {
		for _, s := range sigs {
			_ = s.Destroy()
		}
	}()
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { assert.Nil(t, recover(), "NewSignal panicked at the limit") }()
		for i := 0; i < 1<<20; i++ {
			var s *rocr.Signal
			if s, err = rocr.NewSignal(1); err != nil {
				return
			}
			sigs = append(sigs, s)
		}
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("NewSignal hung filling the table")
	}
	require.Error(t, err, "no error after %d signals", len(sigs))
	assert.ErrorIs(t, err, hsa.ErrOutOfResources)
	assert.Contains(t, err.Error(), "signal")
	require.NotEmpty(t, sigs)

	usable := make(chan error, 1)
	go func() {
		last := sigs[len(sigs)-1]
		last.Store(7, hsa.Release)
		if v := last.Load(hsa.Acquire); v != 7 {
			t.Errorf("load after the limit = %d, want 7", v)
		}
		if err := last.Destroy(); err != nil {
			usable <- err
			return
		}
		sigs = sigs[:len(sigs)-1]
		s, err := rocr.NewSignal(3) // the freed record is reused
		if err == nil {
			sigs = append(sigs, s)
		}
		usable <- err
	}()
	select {
	case err := <-usable:
		assert.NoError(t, err, "the table is not usable after its limit")
	case <-time.After(10 * time.Second):
		t.Fatal("signal operations deadlock after the limit")
	}
}

// Queue doorbells are recycled: thousands of queue create/destroy cycles
// do not map new signal slabs.
func TestQueueDoorbellsRecycled(t *testing.T) {
	a := cputest.Agents(t, 1)[0]
	cycle := func() {
		q, err := a.CreateQueue(16, hsa.QueueMulti, nil)
		require.NoError(t, err)
		require.NoError(t, q.Destroy())
	}
	for i := 0; i < 100; i++ { // warm up
		cycle()
	}
	before := rocr.SignalSlabs()
	n := scale(20000)
	for i := 0; i < n; i++ {
		cycle()
	}
	assert.LessOrEqual(t, rocr.SignalSlabs()-before, 0, "%d queue create/destroy cycles mapped new signal slabs", n)
}
