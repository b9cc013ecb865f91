// Package reliability holds hipgo's reliability tests: API misuse with
// specific errors (*_misuse_test.go), faults of kernels, injected driver
// failures and shutdown with work in flight (*_fault_test.go), and a
// randomized multi-stream, multi-agent load checked against a sequential
// reference (*_stress_test.go). Everything runs on the cpu agent.
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
