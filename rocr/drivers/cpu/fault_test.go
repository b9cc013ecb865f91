package cpu_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/drivers/cpu"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// hostileErr is a panic value whose Error method panics with itself.
type hostileErr struct{}

func (hostileErr) Error() string { panic(hostileErr{}) }

var hostileK = kernel.Define("test_hostile_panic", func(g *kernel.Block, a *struct{}) {
	panic(hostileErr{})
})

// kernelLine is the line of deepK's call that panics, set as it runs.
var kernelLine int

func callerLine() int {
	_, _, line, _ := runtime.Caller(1)
	return line
}

func deepPanic(line int) {
	kernelLine = line
	panic("deep boom")
}

var deepK = kernel.Define("test_deep_panic", func(g *kernel.Block, a *struct{}) {
	deepPanic(callerLine())
})

// runOne dispatches k with no arguments as one work-item and returns its
// signal's error.
func runOne(t *testing.T, q *rocr.Queue, k *kernel.Kernel) error {
	t.Helper()
	sig, err := rocr.NewSignal(1)
	require.NoError(t, err)
	defer sig.Destroy()
	var args struct{}
	dispatch(t, q, k, unsafe.Pointer(&args), 0, 1, 1, sig)
	_, ok := sig.WaitTimed(hsa.CondEQ, 0, 10*time.Second, hsa.WaitBlocked)
	require.True(t, ok, "the dispatch did not complete")
	return sig.Err()
}

// A panic value whose Error method itself panics fails the dispatch,
// described by its type, instead of killing the process ("panic while
// printing panic value").
func TestPanicValueWhoseErrorPanics(t *testing.T) {
	q, err := setup(t).CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	defer q.Destroy()
	err = runOne(t, q, hostileK)
	require.Error(t, err)
	assert.True(t, errors.Is(err, hsa.StatusErrorException), "%v", err)
	assert.Contains(t, err.Error(), "test_hostile_panic")
	assert.Contains(t, err.Error(), "a cpu_test.hostileErr (hipgo runs no method of a panic value of the program's own type")
	var pe *cpu.PanicError
	require.ErrorAs(t, err, &pe)
	assert.NoError(t, pe.Unwrap(), "a value whose Error panics is not wrapped")
}

// recursiveErr is a panic value whose Error method calls itself: run, it
// overflows the goroutine's stack, which no recover survives (soon: each
// call's frame holds 64 KiB).
type recursiveErr struct{ depth int }

// recursions counts the calls of recursiveErr.Error.
var recursions atomic.Int64

func (e recursiveErr) Error() string {
	recursions.Add(1)
	var pad [1 << 16]byte
	pad[e.depth%len(pad)] = byte(e.depth)
	//lint:ignore SA5007 the endless recursion is what the test is about
	return recursiveErr{e.depth + 1}.Error() + string(pad[e.depth%len(pad):][:1])
}

var recursiveK = kernel.Define("test_recursive_panic", func(g *kernel.Block, a *struct{}) {
	panic(recursiveErr{})
})

// A panic value whose Error method recurses for ever fails the dispatch,
// described by its type, and the process lives: hipgo runs no method of
// a panic value of the program's own type. The value stays reachable.
func TestPanicValueWhoseErrorRecurses(t *testing.T) {
	q, err := setup(t).CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	defer q.Destroy()
	err = runOne(t, q, recursiveK)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "test_recursive_panic")
	assert.Contains(t, err.Error(), "a cpu_test.recursiveErr")
	var pe *cpu.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, recursiveErr{}, pe.Recovered)
	assert.Zero(t, recursions.Load(), "hipgo ran the value's Error method")
}

// A kernel's panic names the kernel function's file:line where it
// panicked (the call into the helper that panics) and carries the stack.
func TestPanicCarriesKernelLine(t *testing.T) {
	q, err := setup(t).CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	defer q.Destroy()
	err = runOne(t, q, deepK)
	var pe *cpu.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "fault_test.go", filepath.Base(pe.File))
	assert.Equal(t, kernelLine, pe.Line)
	assert.Contains(t, err.Error(), "test_deep_panic work-group [0 0 0] panicked at fault_test.go:")
	assert.Contains(t, err.Error(), ": deep boom")
	assert.Contains(t, pe.Stack(), "cpu_test.deepPanic")
	assert.NotContains(t, err.Error(), "deepPanic", "the stack stays out of the error's text")
}

// stuckErr is a panic value whose Error method blocks until its gate is
// closed.
type stuckErr struct{ gate chan struct{} }

func (e stuckErr) Error() string {
	<-e.gate
	return "stuck"
}

// stuckGate is the gate of the run under way: each run makes its own, so
// the test repeats under -count.
var stuckGate chan struct{}

var stuckK = kernel.Define("test_stuck_panic", func(g *kernel.Block, a *struct{}) {
	panic(stuckErr{stuckGate})
})

// A panic value whose Error method never returns fails the dispatch within
// about a second, described by its type, instead of hanging the queue.
// The method's goroutine ends when the test lets it go.
func TestPanicValueWhoseErrorHangs(t *testing.T) {
	q, err := setup(t).CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	defer q.Destroy()
	stuckGate = make(chan struct{})
	defer close(stuckGate)
	start := time.Now()
	err = runOne(t, q, stuckK)
	assert.Less(t, time.Since(start), 5*time.Second)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "test_stuck_panic")
	assert.Contains(t, err.Error(), "a cpu_test.stuckErr (hipgo runs no method")
}

// A malformed HIPGO_KERNEL_GRACE fails the queue's creation, naming it.
func TestBadKernelGrace(t *testing.T) {
	ag := setup(t)
	t.Setenv("HIPGO_KERNEL_GRACE", "soon")
	_, err := ag.CreateQueue(64, hsa.QueueMulti, nil)
	require.ErrorIs(t, err, hsa.ErrInvalidArgument)
	assert.Contains(t, err.Error(), `HIPGO_KERNEL_GRACE="soon"`)
}

// overrunLine is the line of overrunK's out-of-bounds access.
var overrunLine int

var overrunK = kernel.Define("test_overrun_line", func(g *kernel.Block, a *struct{ X rocr.Ptr[int32] }) {
	overrunLine = callerLine() + 1
	_ = a.X.Slice(g, 0, 2)
})

// An access outside the kernel's buffer names the kernel's line that made
// it.
func TestAccessErrorCarriesKernelLine(t *testing.T) {
	ag := setup(t)
	q, err := ag.CreateQueue(64, hsa.QueueMulti, nil)
	require.NoError(t, err)
	defer q.Destroy()
	al := alloc(t, ag, hsa.FlagCoarseGrained, 4)
	defer al.Free()
	sig, err := rocr.NewSignal(1)
	require.NoError(t, err)
	defer sig.Destroy()
	args := struct{ X rocr.Ptr[int32] }{rocr.Ptr[int32](al.Base)}
	dispatch(t, q, overrunK, unsafe.Pointer(&args), unsafe.Sizeof(args), 1, 1, sig)
	_, ok := sig.WaitTimed(hsa.CondEQ, 0, 10*time.Second, hsa.WaitBlocked)
	require.True(t, ok)
	var ae *cpu.AccessError
	require.ErrorAs(t, sig.Err(), &ae)
	assert.Equal(t, "fault_test.go", filepath.Base(ae.File))
	assert.Equal(t, overrunLine, ae.Line)
	assert.Contains(t, sig.Err().Error(), fmt.Sprintf("kernel test_overrun_line work-group [0 0 0] at fault_test.go:%d: ", overrunLine))
}
