package gputest_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/hipgo/hipgo/internal/testenv"
)

// The package's tests run on two cpu agents, whatever GPUs the machine has.
func TestMain(m *testing.M) {
	testenv.Main(m, testenv.Setenv("HIPGO_DRIVER", "cpu"), testenv.Setenv("HIPGO_CPU_AGENTS", "2"))
}

// recorder is a testing.TB that records what a helper reports instead of
// reporting it, and runs its cleanups when told. Skip and Fatal end the
// calling goroutine, as testing's do: call the helper through run.
type recorder struct {
	testing.TB // for the methods a helper may call that are not recorded here
	name       string

	mu       sync.Mutex
	errors   []string
	logs     []string
	skipped  string
	cleanups []func()
}

func newRecorder(t *testing.T, name string) *recorder { return &recorder{TB: t, name: name} }

func (r *recorder) Name() string { return r.name }
func (r *recorder) Helper()      {}

func (r *recorder) Errorf(format string, args ...any) { r.add(&r.errors, fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.add(&r.errors, fmt.Sprint(args...)) }
func (r *recorder) Logf(format string, args ...any)   { r.add(&r.logs, fmt.Sprintf(format, args...)) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}
func (r *recorder) Skipf(format string, args ...any) {
	r.mu.Lock()
	r.skipped = fmt.Sprintf(format, args...)
	r.mu.Unlock()
	runtime.Goexit()
}
func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	r.cleanups = append(r.cleanups, f)
	r.mu.Unlock()
}

func (r *recorder) add(to *[]string, s string) {
	r.mu.Lock()
	*to = append(*to, s)
	r.mu.Unlock()
}

// run calls f on its own goroutine, as testing runs a test, so that Skip
// and Fatal can end it.
func (r *recorder) run(f func(tb testing.TB)) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
}

// finish runs the cleanups, last registered first.
func (r *recorder) finish() {
	r.mu.Lock()
	cs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i]()
	}
}

func (r *recorder) errorText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.errors, "\n")
}
