package module

import (
	"errors"
	"fmt"
	"reflect"
	"sync"

	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/internal/clayout"
)

// The cache that launch.go's encoding of values consults, so that a
// launch reflects over a type once, not on every call.

// valueLayout is what a Go type passed by value is to a kernel, found by
// reflection once per type.
type valueLayout struct {
	scalar scalarKind // a named scalar (type Celsius float32): by its underlying type
	size   uintptr
	align  uintptr
	bytes  bool // an array of bytes: raw bytes, matched by size alone
	err    error
}

var (
	layouts    sync.Map // reflect.Type -> *valueLayout
	nilLayout  = &valueLayout{err: errors.New("nil")}
	tooManyVal = &valueLayout{err: fmt.Errorf("the launch's structs passed by value exceed the %d bytes of kernel parameters any device takes", core.MaxKernarg)}
)

func layoutOf(t reflect.Type) *valueLayout {
	if l, ok := layouts.Load(t); ok {
		return l.(*valueLayout)
	}
	l := &valueLayout{size: t.Size(), align: uintptr(t.Align())}
	switch k := t.Kind(); {
	case k == reflect.Bool:
		l.scalar = kUint8
	case k == reflect.Int:
		l.scalar = kInt64
	case k == reflect.Uint || k == reflect.Uintptr:
		l.scalar = kUint64
	case scalarOf(t) != anyScalar:
		l.scalar = scalarOf(t)
	case k == reflect.Struct || k == reflect.Array:
		l.err = clayout.Check(t)
		l.bytes = k == reflect.Array && t.Elem().Size() == 1
		if l.err == nil && t.Size() > core.MaxKernarg {
			l.err = fmt.Errorf("%s is %d bytes, over the %d bytes of kernel parameters any device takes", t, t.Size(), core.MaxKernarg)
		}
	default:
		l.err = fmt.Errorf("unsupported argument type %s: pass a buffer, a number, or a struct or array of numbers", t)
	}
	if l.scalar != anyScalar && l.size > 8 {
		l.err = fmt.Errorf("unsupported argument type %s", t)
	}
	v, _ := layouts.LoadOrStore(t, l)
	return v.(*valueLayout)
}
