package cpu

import (
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// PanicError is a Go kernel's panic: the kernel, the work-group, where in
// the kernel function it panicked and the goroutine's stack there. The
// panic value is formatted once, when the dispatch fails, so printing the
// error never runs the value's methods again.
type PanicError struct {
	Kernel string
	Group  [3]int
	// File and Line are the kernel function's frame where it panicked:
	// the panic itself, or the call that led to it.
	File  string
	Line  int
	Value string // the panic value, or its type where it could not be formatted
	// Recovered is the panic value itself. hipgo runs none of the methods
	// of a value of the program's own type (see Value): printing it is the
	// program's call.
	Recovered any

	err   error // the panic value when it is an error that formats
	stack string
}

func (e *PanicError) Error() string {
	at := ""
	if e.File != "" {
		at = fmt.Sprintf(" at %s:%d", filepath.Base(e.File), e.Line)
	}
	return fmt.Sprintf("kernel %s work-group %v panicked%s: %s", e.Kernel, e.Group, at, e.Value)
}

// Unwrap is the panic value when it is an error whose Error method
// returned; nil otherwise.
func (e *PanicError) Unwrap() error { return e.err }

// Stack is the panicking goroutine's stack from the panic down to the
// kernel's caller, one "function\n\tfile:line" entry per frame.
func (e *PanicError) Stack() string { return e.stack }

// formatGrace bounds how long a panic value's Error or String method may
// run before the value is described by its type alone.
const formatGrace = time.Second

// describe formats a panic value. A hostile value must not take the
// process down or hang the queue, so the methods of a value of the
// program's own type are never run: it is described by its type (an
// Error method that calls itself overflows the goroutine's stack, which
// kills the process whatever recovers). The standard library's values
// and hipgo's are formatted on a goroutine of their own: one whose Error
// or String method panics, or does not return within formatGrace (its
// goroutine is left to finish on its own), is described by its type too.
func describe(r any) (text string, ok bool) {
	switch v := r.(type) {
	case string:
		return v, true
	case bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr, float32, float64, complex64, complex128:
		return fmt.Sprint(v), true
	}
	if !trustedType(reflect.TypeOf(r)) {
		return fmt.Sprintf("a %T (hipgo runs no method of a panic value of the program's own type; PanicError.Recovered is the value)", r), false
	}
	done := make(chan string, 1)
	go func() {
		s := ""
		defer func() {
			if recover() != nil {
				s = ""
			}
			done <- s
		}()
		switch v := r.(type) {
		case error:
			s = v.Error()
		case fmt.Stringer:
			s = v.String()
		default:
			s = fmt.Sprint(v)
		}
		if strings.Contains(s, "%!v(PANIC=") { // fmt caught a method's panic
			s = ""
		}
	}()
	t := time.NewTimer(formatGrace)
	defer t.Stop()
	select {
	case s := <-done:
		if s != "" {
			return s, true
		}
		return fmt.Sprintf("a %T whose Error or String method panicked", r), false
	case <-t.C:
		return fmt.Sprintf("a %T whose Error or String method did not return within %v", r, formatGrace), false
	}
}

// trustedType reports whether t (or what it points to) is a type of the
// standard library or of hipgo's own packages (not their tests), whose
// Error and String methods end.
func trustedType(t reflect.Type) bool {
	if t.Name() == "" { // unnamed: no methods of its own; fmt runs its elements'
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
			return trustedType(t.Elem())
		case reflect.Map:
			return trustedType(t.Key()) && trustedType(t.Elem())
		case reflect.Struct:
			for i := range t.NumField() {
				if !trustedType(t.Field(i).Type) {
					return false
				}
			}
		}
		return true
	}
	path := t.PkgPath()
	if path == "" {
		return true // predeclared: int, string, error
	}
	first, _, _ := strings.Cut(path, "/")
	if !strings.Contains(first, ".") {
		return true // the standard library
	}
	return strings.HasPrefix(path, "github.com/hipgo/hipgo/") && !strings.HasSuffix(path, "_test")
}

// panicError makes the error of a kernel panic with value r. It runs in
// the deferred function that recovered r, on the panicking stack, so
// runtime.Callers sees the frames between the panic and the kernel.
func (j *job) panicError(g *group, r any) *PanicError {
	text, ok := describe(r)
	e := &PanicError{Kernel: j.k.name, Group: g.ID, Value: text, Recovered: r}
	if err, isErr := r.(error); isErr && ok {
		e.err = err
	}
	e.File, e.Line, e.stack = j.where(kernelimpl.KernelFunc(g), true)
	// A panic carried out of a lockstep work-item's coroutine knows where
	// it happened; the stack here is only the scheduler's.
	if l, isLoc := r.(interface {
		Location() (string, int)
		Stack() string
	}); isLoc {
		if file, line := l.Location(); file != "" {
			e.File, e.Line, e.stack = file, line, l.Stack()
		}
	}
	return e
}

// where finds, on the stack of a panic being recovered, the kernel
// function's frame (or, where no frame is the kernel function's, the
// first frame outside the runtime, rocr and this package) and, if stack,
// formats the frames from the panic down to the kernel's caller.
func (j *job) where(fn string, stack bool) (file string, line int, frames string) {
	if strings.HasPrefix(fn, "github.com/hipgo/hipgo/rocr/drivers/cpu.") {
		fn = "" // the deprecated Define's wrapper: the kernel is below it
	}
	var pcs [64]uintptr
	n := runtime.Callers(3, pcs[:])
	it := runtime.CallersFrames(pcs[:n])
	var sb strings.Builder
	inPanic := true // frames up to runtime.gopanic are the recovery's own
	var first runtime.Frame
	for {
		f, more := it.Next()
		if inPanic {
			inPanic = f.Function != "runtime.gopanic"
			if !more {
				break
			}
			continue
		}
		if strings.HasSuffix(f.Function, "rocr/drivers/cpu.(*job).runChunk") {
			break
		}
		if file == "" && fn != "" && f.Function == fn {
			file, line = f.File, f.Line
		}
		if first.PC == 0 && !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "github.com/hipgo/hipgo/rocr.") && !strings.HasPrefix(f.Function, "github.com/hipgo/hipgo/rocr/drivers/cpu.") && !strings.HasPrefix(f.Function, "github.com/hipgo/hipgo/rocr/kernel.") && !strings.HasPrefix(f.Function, "github.com/hipgo/hipgo/rocr/kernel/kernelimpl.") {
			first = f
		}
		if stack {
			fmt.Fprintf(&sb, "%s\n\t%s:%d\n", f.Function, f.File, f.Line)
		}
		if !more {
			break
		}
	}
	if file == "" && first.PC != 0 {
		file, line = first.File, first.Line
	}
	return file, line, sb.String()
}
