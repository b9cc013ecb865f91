// Package reliability holds hipgo's reliability tests: API misuse with
// specific errors (*_misuse_test.go), faults of kernels, injected driver
// failures and shutdown with work in flight (*_fault_test.go), and a
// randomized multi-stream, multi-agent load checked against a sequential
// reference (*_stress_test.go). Everything runs on the cpu agent.
//
// TestMisuse and TestStress also run on a GPU when
// HIPGO_RELIABILITY_DRIVER names its driver; on the H200:
//
//	HIPGO_DRIVER=cuda HIPGO_REQUIRE=cuda HIPGO_RELIABILITY_DRIVER=cuda ./internal_reliability.test -test.run 'Misuse|Stress'
//
// They then use every device of that driver instead of two or three cpu
// agents: with one, the stress test spreads its operations over nine
// streams of it and moves no buffer between devices, and misuse cases that
// need a second device skip. Their kernels run as PTX compiled from
// testdata/reliability.hip (testdata/gen.sh, clang-19; the output is
// committed). Cases that depend on what only the cpu agent does skip with
// the reason: a kernel that fails ends a CUDA context, and a GPU kernel
// cannot be cancelled. Without such a device the tests skip, or fail where
// HIPGO_REQUIRE names the driver. HIPGO_STRESS_OPS=n sets the stress
// test's operations per goroutine.
//
// The package itself has only the small helpers the tests share: Guard runs
// a step so that a panic or a hang fails the test instead of the process.
package reliability

import (
	"fmt"
	"runtime/debug"
	"testing"
	"time"
)

// Guard runs fn and returns its error. A panic in fn, or fn not returning
// within timeout, fails t (a panic's stack is logged); Guard then returns a
// non-nil error saying so. A hung fn's goroutine is left behind: the test
// has failed anyway.
func Guard(t testing.TB, timeout time.Duration, fn func() error) error {
	t.Helper()
	type result struct {
		err   error
		panic any
		stack []byte
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{panic: r, stack: debug.Stack()}
			}
		}()
		done <- result{err: fn()}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-done:
		if r.panic != nil {
			t.Errorf("panicked: %v\n%s", r.panic, r.stack)
			return fmt.Errorf("panicked: %v", r.panic)
		}
		return r.err
	case <-timer.C:
		t.Errorf("did not return within %v", timeout)
		return fmt.Errorf("hung for %v", timeout)
	}
}
