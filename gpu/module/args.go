package module

import (
	"math"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/stream"
)

// MaxArgs is the most arguments an Args holds.
const MaxArgs = 32

// Args are a launch's arguments in the kernel's order, typed, for
// Function.LaunchArgs: the typed path that generated launchers take. An
// Args is a plain value (declare it on the stack and fill it with the
// methods, which chain); it holds no Go pointers into the caller's data
// beyond the buffers, so a launch through it allocates nothing and
// boxes nothing. Each argument is checked against the kernel's signature
// when the launch is made, as LaunchKernelGGL's are.
type Args struct {
	n    int
	over bool // more than MaxArgs were added
	vals [MaxArgs]argVal
}

// argVal is one argument: a buffer (mem set, or nilBuf for a nil one) or
// a scalar's bits with its Go kind and size.
type argVal struct {
	mem     *core.Mem
	bits    uint64
	kind    scalarKind
	size    uint8
	buf     bool // a buffer argument (mem may be nil: a nil buffer)
	isConst bool // the caller's source declares the pointee const
}

func (a *Args) add(v argVal) *Args {
	if a.n == MaxArgs {
		a.over = true
		return a
	}
	a.vals[a.n] = v
	a.n++
	return a
}

// Ptr adds a buffer where the kernel takes a pointer. The kernel's
// signature says whether it reads or writes through it.
func (a *Args) Ptr(b buffer.Object) *Args {
	m, _ := core.MemOf(b)
	return a.add(argVal{mem: m, buf: true})
}

// ConstPtr adds a buffer the kernel only reads (a const T* parameter):
// the launch orders it after the buffer's last writer only, so kernels on
// several streams read it concurrently.
func (a *Args) ConstPtr(b buffer.Object) *Args {
	m, _ := core.MemOf(b)
	return a.add(argVal{mem: m, buf: true, isConst: true})
}

// Int8 adds an int8 value.
func (a *Args) Int8(v int8) *Args { return a.add(argVal{bits: uint64(uint8(v)), kind: kInt8, size: 1}) }

// Uint8 adds a uint8 value.
func (a *Args) Uint8(v uint8) *Args { return a.add(argVal{bits: uint64(v), kind: kUint8, size: 1}) }

// Int16 adds an int16 value.
func (a *Args) Int16(v int16) *Args {
	return a.add(argVal{bits: uint64(uint16(v)), kind: kInt16, size: 2})
}

// Uint16 adds a uint16 value.
func (a *Args) Uint16(v uint16) *Args { return a.add(argVal{bits: uint64(v), kind: kUint16, size: 2}) }

// Int32 adds an int32 value.
func (a *Args) Int32(v int32) *Args {
	return a.add(argVal{bits: uint64(uint32(v)), kind: kInt32, size: 4})
}

// Uint32 adds a uint32 value.
func (a *Args) Uint32(v uint32) *Args { return a.add(argVal{bits: uint64(v), kind: kUint32, size: 4}) }

// Int64 adds an int64 value.
func (a *Args) Int64(v int64) *Args { return a.add(argVal{bits: uint64(v), kind: kInt64, size: 8}) }

// Uint64 adds a uint64 value.
func (a *Args) Uint64(v uint64) *Args { return a.add(argVal{bits: v, kind: kUint64, size: 8}) }

// Float32 adds a float32 value.
func (a *Args) Float32(v float32) *Args {
	return a.add(argVal{bits: uint64(math.Float32bits(v)), kind: kFloat32, size: 4})
}

// Float64 adds a float64 value.
func (a *Args) Float64(v float64) *Args {
	return a.add(argVal{bits: math.Float64bits(v), kind: kFloat64, size: 8})
}

// Len is the number of arguments added.
func (a *Args) Len() int { return a.n }

// Reset empties a for another launch.
func (a *Args) Reset() { a.n, a.over = 0, false }

// LaunchArgs is Launch with typed arguments: it checks them against the
// kernel's signature and the launch against the device's limits, then
// queues it on s (nil: the default stream). Nothing is queued when a check
// fails; the error names the kernel and the argument.
func (f *Function) LaunchArgs(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args *Args) error {
	const op = "launch"
	if f == nil {
		return gpu.Errorf(gpu.ErrorInvalidDeviceFunction, op, "nil function")
	}
	if args == nil {
		return gpu.Errorf(gpu.ErrorInvalidValue, op, "kernel %s: nil Args", f.sym.Name)
	}
	if args.over {
		return gpu.Errorf(gpu.ErrorInvalidValue, op, "kernel %s: more than %d arguments", f.sym.Name, MaxArgs)
	}
	return f.launchVals(s, grid, block, sharedMem, args.vals[:args.n])
}
