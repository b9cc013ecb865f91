package module

import (
	"math"
	"reflect"
	"sync"
	"unsafe"

	"github.com/hipgo/hipgo/gpu/buffer"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/rocr/spi"
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
//
// An Args holds InlineArgs arguments and MaxValueBytes of values in
// itself, small enough that declaring one per launch costs little; past
// either it takes a block from a pool, which it keeps (an Args launched
// again, or Reset and refilled, reuses it) until Release returns it.
type Args struct {
	n    int
	over bool // more than MaxArgs were added
	used int  // bytes of blob in use
	vals [InlineArgs]argVal
	// blob holds the bytes of the struct arguments, copied when added;
	// those past it go to big, a block from bigBlobs (see addValue).
	blob [MaxValueBytes]byte
	big  *bigBlob
	// more holds every argument once there are more than InlineArgs.
	more *moreArgs
	// check runs once the kernel completed (OnComplete).
	check func() error
}

// InlineArgs is the number of arguments an Args holds in itself; the
// rest, up to MaxArgs, go to a pooled block.
const InlineArgs = 16

// MaxValueBytes is the bytes of structs and arrays passed by value that
// an Args holds in itself. Past them, up to the kernel parameters the
// device takes (4 KB, as HIP and CUDA allow; 32,764 bytes on cuda devices
// whose driver allows it), it takes a block from a pool by size class,
// kept until Release, so large parameters cost no allocation per launch
// either.
const MaxValueBytes = 128

// bigBlob holds the struct arguments of an Args past its own blob, in one
// of the classes of bigBlobs.
type bigBlob struct {
	b     []byte
	used  int
	class int
}

// Block classes: 4 KiB doubling to 32 KiB, which holds core.MaxKernarg.
const bigClasses = 4

var bigBlobs [bigClasses]sync.Pool

// moreArgs holds an Args' arguments once they outgrow its own.
type moreArgs struct{ vals [MaxArgs]argVal }

var morePool = sync.Pool{New: func() any { return new(moreArgs) }}

func init() {
	for c := range bigBlobs {
		bigBlobs[c].New = func() any { return &bigBlob{b: make([]byte, spi.KernargSlotSize<<c), class: c} }
	}
}

// growBig makes a's block hold n more bytes, moving to a larger class if
// needed; false when that is past every class.
func (a *Args) growBig(n int) bool {
	used := 0
	if a.big != nil {
		used = a.big.used
		if used+n <= len(a.big.b) {
			return true
		}
	}
	c := 0
	for c < bigClasses && spi.KernargSlotSize<<c < used+n {
		c++
	}
	if c == bigClasses {
		return false
	}
	b := bigBlobs[c].Get().(*bigBlob)
	if a.big != nil {
		b.used = copy(b.b, a.big.b[:used])
		a.releaseBig()
	}
	a.big = b
	return true
}

// releaseBig returns a's block to the pool; a must not be launched again.
func (a *Args) releaseBig() {
	if a.big != nil {
		a.big.used = 0
		bigBlobs[a.big.class].Put(a.big)
		a.big = nil
	}
}

// list is a's arguments.
func (a *Args) list() []argVal {
	if a.more != nil {
		return a.more.vals[:a.n]
	}
	return a.vals[:a.n]
}

// Release returns the blocks a took past its own storage (more than
// InlineArgs arguments, more than MaxValueBytes of values) to their
// pools and empties a. Call it once a is launched and not wanted again:
// the kernarg image holds the bytes by then. An Args declared per launch
// past its own storage allocates its blocks each time without it; the
// launchers hipgo-gen writes and LaunchKernelGGL release theirs.
func (a *Args) Release() {
	if a == nil {
		return
	}
	a.releaseBig()
	a.releaseMore()
	a.n, a.over, a.used = 0, false, 0
}

// releaseMore returns a's arguments block, if any, to the pool.
func (a *Args) releaseMore() {
	if a.more != nil {
		clear(a.more.vals[:a.n]) // the pool keeps no buffers alive
		morePool.Put(a.more)
		a.more = nil
	}
}

// argVal is one argument: a buffer (mem set, or nilBuf for a nil one), a
// scalar's bits with its Go kind and size, or a struct's bytes in blob.
type argVal struct {
	mem  *core.Mem
	typ  reflect.Type // the Go type the caller passed; nil from the typed scalar methods
	lay  *valueLayout // a struct or array by value, or a type that cannot be passed
	bits uint64
	kind scalarKind
	size uint16
	off  uint16 // a struct's bytes: blob[off:off+size], or big's where inBig
	// inBig: the struct's bytes are in the Args' big block.
	inBig bool
	buf   bool // a buffer argument (mem may be nil: a nil buffer)
	// isConst: the caller's source declares the pointee const.
	isConst bool
}

// goType names the argument's Go type for messages.
func (v *argVal) goType() string {
	if v.typ != nil {
		return v.typ.String()
	}
	return scalarNames[v.kind]
}

// add appends v. A nil *Args stays nil, which the launch reports.
func (a *Args) add(v argVal) *Args {
	switch {
	case a == nil:
		return nil
	case a.n < InlineArgs:
		a.vals[a.n] = v
	case a.n == MaxArgs:
		a.over = true
		return a
	default:
		if a.more == nil {
			a.more = morePool.Get().(*moreArgs)
			copy(a.more.vals[:], a.vals[:a.n])
		}
		a.more.vals[a.n] = v
	}
	a.n++
	return a
}

// addScalar is add for the typed scalar methods, which pass the value's
// bits, kind and size in registers rather than a whole argVal.
func (a *Args) addScalar(bits uint64, kind scalarKind, size uint16) *Args {
	if a != nil && a.n < InlineArgs {
		a.vals[a.n] = argVal{bits: bits, kind: kind, size: size}
		a.n++
		return a
	}
	return a.add(argVal{bits: bits, kind: kind, size: size})
}

// addBuf is add for Ptr and ConstPtr.
func (a *Args) addBuf(m *core.Mem, isConst bool) *Args {
	if a != nil && a.n < InlineArgs {
		a.vals[a.n] = argVal{mem: m, buf: true, isConst: isConst}
		a.n++
		return a
	}
	return a.add(argVal{mem: m, buf: true, isConst: isConst})
}

// OnComplete makes check run once the launched kernel has completed, on
// the goroutine that next releases the stream's finished work: a later
// launch on the stream, or its Synchronize or Query, which run it before
// they return. An error check returns becomes the stream's sticky error,
// as a failed kernel's would; check must not call the stream. It is how
// a kernel's own fault record is read without a host function per
// launch (gpu/gokernel's checked mode). A launch captured into a graph
// does not run it. A kernel that failed (its sticky error) skips it.
func (a *Args) OnComplete(check func() error) *Args {
	a.check = check
	return a
}

// Ptr adds a buffer where the kernel takes a pointer. The kernel's
// signature says whether it reads or writes through it.
func (a *Args) Ptr(b buffer.Object) *Args {
	m, _ := core.MemOf(b)
	return a.addBuf(m, false)
}

// ConstPtr adds a buffer the kernel only reads (a const T* parameter):
// the launch orders it after the buffer's last writer only, so kernels on
// several streams read it concurrently.
func (a *Args) ConstPtr(b buffer.Object) *Args {
	m, _ := core.MemOf(b)
	return a.addBuf(m, true)
}

// Int8 adds an int8 value.
func (a *Args) Int8(v int8) *Args { return a.addScalar(uint64(uint8(v)), kInt8, 1) }

// Uint8 adds a uint8 value.
func (a *Args) Uint8(v uint8) *Args { return a.addScalar(uint64(v), kUint8, 1) }

// Int16 adds an int16 value.
func (a *Args) Int16(v int16) *Args {
	return a.addScalar(uint64(uint16(v)), kInt16, 2)
}

// Uint16 adds a uint16 value.
func (a *Args) Uint16(v uint16) *Args { return a.addScalar(uint64(v), kUint16, 2) }

// Int32 adds an int32 value.
func (a *Args) Int32(v int32) *Args {
	return a.addScalar(uint64(uint32(v)), kInt32, 4)
}

// Uint32 adds a uint32 value.
func (a *Args) Uint32(v uint32) *Args { return a.addScalar(uint64(v), kUint32, 4) }

// Int64 adds an int64 value.
func (a *Args) Int64(v int64) *Args { return a.addScalar(uint64(v), kInt64, 8) }

// Uint64 adds a uint64 value.
func (a *Args) Uint64(v uint64) *Args { return a.addScalar(v, kUint64, 8) }

// Float32 adds a float32 value.
func (a *Args) Float32(v float32) *Args {
	return a.addScalar(uint64(math.Float32bits(v)), kFloat32, 4)
}

// Float64 adds a float64 value.
func (a *Args) Float64(v float64) *Args {
	return a.addScalar(math.Float64bits(v), kFloat64, 8)
}

// Len is the number of arguments added; 0 for a nil *Args.
func (a *Args) Len() int {
	if a == nil {
		return 0
	}
	return a.n
}

// Reset empties a for another launch.
func (a *Args) Reset() {
	if a != nil {
		a.releaseMore()
		a.n, a.over, a.used = 0, false, 0
		if a.big != nil {
			a.big.used = 0
		}
	}
}

// Value adds a value passed by value: a struct or array where the kernel
// takes a struct by value (`struct Pair { float x; double y; }`), or a
// scalar of any type, named ones included (type Celsius float32 is passed
// as a float32). A struct's Go layout must be its C layout (see the
// package doc); its bytes are copied into a, so v may change afterwards.
// The type is examined once and cached; ArgStruct avoids boxing v.
func (a *Args) Value(v any) *Args {
	if v == nil {
		return a.add(argVal{lay: nilLayout})
	}
	if k, size := scalarKindOf(v); size != 0 {
		return a.add(argVal{typ: reflect.TypeOf(v), bits: scalarBits(v), kind: k, size: uint16(size)})
	}
	return a.addValue(reflect.TypeOf(v), valueData(v))
}

// ArgStruct adds v, a struct or array passed by value (or a named
// scalar), to a as Args.Value does, without boxing v: its bytes are
// copied from the caller's variable. It returns a, so calls chain:
// module.ArgStruct(args.Ptr(x), pair).Int32(n).
func ArgStruct[T any](a *Args, v T) *Args {
	return a.addValue(reflect.TypeFor[T](), unsafe.Pointer(&v))
}

// scalarKindOf classifies a Go scalar without reflection.
func scalarKindOf(a any) (scalarKind, int) {
	switch a.(type) {
	case int8:
		return kInt8, 1
	case int16:
		return kInt16, 2
	case int32:
		return kInt32, 4
	case int64:
		return kInt64, 8
	case int:
		return kInt64, 8
	case uint8:
		return kUint8, 1
	case uint16:
		return kUint16, 2
	case uint32:
		return kUint32, 4
	case uint64:
		return kUint64, 8
	case uint:
		return kUint64, 8
	case uintptr:
		return kUint64, 8
	case float32:
		return kFloat32, 4
	case float64:
		return kFloat64, 8
	}
	return anyScalar, 0
}

// scalarBits is a Go scalar's bits, zero-extended, without reflection.
func scalarBits(a any) uint64 {
	switch v := a.(type) {
	case int8:
		return uint64(uint8(v))
	case int16:
		return uint64(uint16(v))
	case int32:
		return uint64(uint32(v))
	case int64:
		return uint64(v)
	case int:
		return uint64(v)
	case uint8:
		return uint64(v)
	case uint16:
		return uint64(v)
	case uint32:
		return uint64(v)
	case uint64:
		return v
	case uint:
		return uint64(v)
	case uintptr:
		return uint64(v)
	case float32:
		return uint64(math.Float32bits(v))
	case float64:
		return math.Float64bits(v)
	}
	return 0
}

// addValue adds the value of type t at p: a named scalar by its bits, a
// struct or array by a copy of its bytes, or a type that cannot be passed,
// which the launch reports.
func (a *Args) addValue(t reflect.Type, p unsafe.Pointer) *Args {
	if a == nil {
		return nil
	}
	l := layoutOf(t)
	switch {
	case l.err != nil:
		return a.add(argVal{typ: t, lay: l})
	case l.scalar != anyScalar:
		return a.add(argVal{typ: t, kind: l.scalar, size: uint16(l.size), bits: readBits(p, l.size)})
	case a.used+int(l.size) > len(a.blob):
		if !a.growBig(int(l.size)) {
			return a.add(argVal{typ: t, lay: tooManyVal})
		}
		v := argVal{typ: t, lay: l, size: uint16(l.size), off: uint16(a.big.used), inBig: true}
		a.big.used += copy(a.big.b[a.big.used:], unsafe.Slice((*byte)(p), l.size))
		return a.add(v)
	}
	v := argVal{typ: t, lay: l, size: uint16(l.size), off: uint16(a.used)}
	a.used += copy(a.blob[a.used:], unsafe.Slice((*byte)(p), l.size))
	return a.add(v)
}

// readBits is the scalar of size bytes at p, zero-extended.
func readBits(p unsafe.Pointer, size uintptr) uint64 {
	switch size {
	case 1:
		return uint64(*(*uint8)(p))
	case 2:
		return uint64(*(*uint16)(p))
	case 4:
		return uint64(*(*uint32)(p))
	}
	return *(*uint64)(p)
}

// valueData is the address of the value an interface holds. Only types
// without pointers reach here, and those an interface holds by pointer to
// a copy of the value.
func valueData(v any) unsafe.Pointer { return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] }
