package runner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onLateGoroutine runs f on a goroutine whose id is above 255, which
// boxing into an interface would allocate for. The runtime reuses the ids
// of goroutines that ended, so the goroutines tried stay alive until f
// returns: among 256 live ones, one has an id above 255.
func onLateGoroutine(t *testing.T, f func()) {
	t.Helper()
	release := make(chan struct{})
	defer close(release)
	for range 1000 {
		late := make(chan bool)
		done := make(chan struct{})
		go func() {
			if goid() <= 255 {
				late <- false
				<-release
				return
			}
			late <- true
			defer close(done)
			f()
		}()
		if <-late {
			<-done
			return
		}
	}
	t.Fatal("no goroutine id above 255 among 1000 live goroutines")
}

func TestRunningFindsTheMarkedQueue(t *testing.T) {
	q := new(int)
	onLateGoroutine(t, func() {
		assert.Nil(t, Running[int](), "an unmarked goroutine runs no queue")
		r := Mark[int]()
		assert.Nil(t, Running[int](), "marked, it serves no queue yet")
		r.Serve(q)
		assert.Same(t, q, Running[int]())
		assert.Nil(t, Running[string](), "a runner of another queue type")
		r.Close()
		assert.Nil(t, Running[int]())
	})
	assert.Nil(t, Running[int](), "another goroutine")
}

// A wait that asks whether it waits for itself allocates nothing.
func TestRunningAllocatesNothing(t *testing.T) {
	onLateGoroutine(t, func() {
		require.Greater(t, goid(), uint64(255))
		r := Mark[int]()
		defer r.Close()
		r.Serve(new(int))
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Running[int]() }))
		r.Serve(nil)
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = Running[int]() }))
	})
}

func TestCloseKeepsALaterMark(t *testing.T) {
	onLateGoroutine(t, func() {
		old := Mark[int]()
		r := Mark[int]()
		q := new(int)
		r.Serve(q)
		old.Close() // the same goroutine, marked again: the new mark stays
		assert.Same(t, q, Running[int]())
		r.Close()
	})
}
