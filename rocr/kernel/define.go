package kernel

import (
	"fmt"
	"reflect"
	"unsafe"

	"runtime"
	"sync"

	"github.com/hipgo/hipgo/internal/clayout"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel/internal/hook"
)

// Kernel is a Go kernel registered for the cpu agent: its name, its
// argument layout (the kernarg layout of its C++ twin) and the function
// that runs one work-group.
type Kernel struct {
	name     string
	run      func(b *Block, kernarg unsafe.Pointer)
	fn       string // the function Define was given, as stack frames name it
	sym      hsa.KernelSymbol
	static   uint32
	lockstep bool
}

func init() {
	hook.Run = func(k any, g hook.Group, kernarg unsafe.Pointer) {
		kk := k.(*Kernel)
		kk.run(block(g, kk), kernarg)
	}
	hook.GroupOf = func(b any) hook.Group { return b.(*Block).grp }
	hook.SetLockstep = func(k any) { k.(*Kernel).lockstep = true }
	hook.Cached = func(b any, p uintptr, n int64, size uintptr) (unsafe.Pointer, int, bool) {
		return b.(*Block).cached(p, n, size)
	}
	hook.Keep = func(b any, p uintptr, n int64, size uintptr, base unsafe.Pointer, length int) {
		b.(*Block).keep(p, n, size, base, length)
	}
	hook.FindFrame = func(b any, key unsafe.Pointer) unsafe.Pointer { return b.(*Block).findFrame(key) }
	hook.AddFrame = func(b any, key, frame unsafe.Pointer) { b.(*Block).addFrame(key, frame) }
	hook.FrameOfLane = func(l unsafe.Pointer) unsafe.Pointer { return (*lane)(l).b.frame }
	hook.Flat = func(b any, i int) int {
		var l lane
		b.(*Block).place(&l, i)
		return l.flat
	}
	hook.WarpError = warpError
	hook.KernelFunc = func(g hook.Group) string {
		if b, _ := (*g.Local()).(*Block); b != nil && b.kern != nil && !b.perItem {
			return b.kern.fn
		}
		return ""
	}
	hook.Lookup = func(obj uint64) any {
		if k := lookup(obj); k != nil {
			return k
		}
		return nil
	}
}

// registry numbers every kernel Define made: a kernel's Symbol().Object
// is its number with objectTag, the kernel object a dispatch packet
// names. Names are not keyed here: a name belongs to the Set that carries
// the kernel, so two libraries may each define their own vector_add.
var registry struct {
	mu   sync.RWMutex
	byID []*Kernel // number-1
}

// objectTag marks Go kernel objects, so a stray number is not taken for one.
const objectTag = 0x6b00_0000_0000_0000

// lookup is the kernel whose object is obj, nil if none.
func lookup(obj uint64) *Kernel {
	if obj&objectTag != objectTag {
		return nil
	}
	i := obj &^ objectTag
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	if i == 0 || i > uint64(len(registry.byID)) {
		return nil
	}
	return registry.byID[i-1]
}

// Name is the kernel's symbol name.
func (k *Kernel) Name() string { return k.name }

// Symbol is the kernel's signature as loaders see it.
func (k *Kernel) Symbol() hsa.KernelSymbol { return k.sym }

// Option configures a kernel at Define.
type Option func(*Kernel)

// StaticShared declares n bytes of static shared memory, the sum of the
// kernel's Shared variables.
func StaticShared(n uint32) Option { return func(k *Kernel) { k.static = n } }

// MaxThreads declares the kernel's largest block (__launch_bounds__).
func MaxThreads(n int) Option { return func(k *Kernel) { k.sym.MaxFlatWorkGroupSize = n } }

// Define registers a Go kernel for the cpu agent. A is a struct whose
// fields are the kernel's parameters in kernarg order: rocr.Ptr[T] (or
// ConstPtr[T]) for a `T*`, a fixed-size scalar (int8..int64,
// uint8..uint64, float32, float64, bool or a named type of one), or a
// struct or array of these passed by value, whose Go layout must be its
// C layout (clayout.Check states the rule). run runs one work-group of
// it: generated code passes a function that runs the group's work-items,
// a hand-written per-group kernel (the Go twin of a C++ kernel) works on
// the whole group itself (Block.Span, GroupShared, GridSync). Define
// panics on a malformed declaration, a programming error found at init
// time, never on a launch.
func Define[A any](name string, run func(b *Block, a *A), opts ...Option) *Kernel {
	t := reflect.TypeFor[A]()
	sym, err := signature(name, t)
	if err != nil {
		panic(fmt.Errorf("kernel.Define %w", err))
	}
	k := &Kernel{name: name, sym: sym, run: func(b *Block, p unsafe.Pointer) { run(b, (*A)(p)) }}
	if f := runtime.FuncForPC(reflect.ValueOf(run).Pointer()); f != nil {
		k.fn = f.Name()
	}
	for _, o := range opts {
		o(k)
	}
	k.sym.GroupSegmentSize = k.static
	registry.mu.Lock()
	defer registry.mu.Unlock()
	registry.byID = append(registry.byID, k)
	k.sym.Object = uint64(len(registry.byID)) | objectTag
	return k
}

// signature describes a Go kernel's argument struct t as a kernel symbol:
// rocr.Ptr[T] (or ConstPtr[T], a read) for a `T*` (8 bytes), a fixed-size
// scalar or a named type of one, or a struct or array of these passed by
// value, whose Go layout must be its C layout (clayout.Check). An
// error begins with the kernel's quoted name.
func signature(name string, t reflect.Type) (hsa.KernelSymbol, error) {
	sym := hsa.KernelSymbol{Name: name, MaxFlatWorkGroupSize: 1024, Wavefront: CPUWarpSize}
	if name == "" {
		return sym, fmt.Errorf("%q: empty kernel name", name)
	}
	if t.Kind() != reflect.Struct {
		return sym, fmt.Errorf("%q: arguments must be a struct, not %s", name, t)
	}
	sym.KernargSize, sym.KernargAlign = uint32(t.Size()), max(uint32(t.Align()), 8)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		arg := hsa.KernelArg{Name: f.Name, Offset: uint32(f.Offset), Size: uint32(f.Type.Size()), Align: uint32(f.Type.Align()), TypeName: f.Type.String()}
		switch {
		case f.Type.Implements(elemTyperType):
			arg.Kind = hsa.ArgGlobalBuffer
			arg.ValueKind = "global_buffer"
			arg.Elem = reflect.Zero(f.Type).Interface().(elemTyper).ElemType()
			arg.TypeName = arg.Elem.String() + "*"
			if ro, ok := reflect.Zero(f.Type).Interface().(interface{ ReadOnly() bool }); ok && ro.ReadOnly() {
				arg.ReadOnly = true
				arg.TypeName = "const " + arg.TypeName
			}
		case isScalar(f.Type.Kind()):
			arg.Kind = hsa.ArgByValue
			arg.ValueKind = "by_value"
			arg.Value = f.Type
		case f.Type.Kind() == reflect.Struct || f.Type.Kind() == reflect.Array:
			// A struct by value: its Go layout must be its C layout, so the
			// same argument fits this kernel and its C++ twin.
			if err := clayout.Check(f.Type); err != nil {
				return sym, fmt.Errorf("%q: field %s: %w", name, f.Name, err)
			}
			arg.Kind = hsa.ArgByValue
			arg.ValueKind = "by_value"
			arg.Value = f.Type
		case f.Type.Kind() == reflect.Int || f.Type.Kind() == reflect.Uint || f.Type.Kind() == reflect.Uintptr:
			return sym, fmt.Errorf("%q: field %s has type %s, whose size is the platform's: declare the C parameter's size (int32 for a C int, int64 for a long long; uint32, uint64 for unsigned ones); hipgo-gen -cpu checks twins against their C declarations when it generates", name, f.Name, f.Type)
		default:
			return sym, fmt.Errorf("%q: field %s has type %s: want rocr.Ptr[T], a fixed-size scalar, or a struct or array of these", name, f.Name, f.Type)
		}
		sym.Args = append(sym.Args, arg)
	}
	return sym, nil
}

// elemTyper is implemented by rocr.Ptr[T] and rocr.ConstPtr[T].
type elemTyper interface{ ElemType() reflect.Type }

var elemTyperType = reflect.TypeFor[elemTyper]()

func isScalar(k reflect.Kind) bool {
	switch k {
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.Bool:
		return true
	}
	return false
}

// Set is a named collection of Go kernels, the counterpart of a code
// object: module.Load loads it on the cpu agent.
type Set struct {
	Name    string
	Kernels []*Kernel
	// Globals are the package-level variables the kernels use as device
	// memory (`__device__` and `__constant__` variables in C++):
	// module.Global finds them by name.
	Globals []Global
}

// Global is a variable of a Set: a name and the Go variable that is its
// storage on the cpu agent. The Go variable must be package-level (its
// address never changes) and of a type with no pointers, as device
// memory holds none.
type Global struct {
	Name string
	addr unsafe.Pointer
	size uintptr
}

// Var declares the package-level variable *v as the global name. It
// panics on a nil v or a type that holds pointers: a programming error
// found where the set is made, never on a launch.
func Var[T any](name string, v *T) Global {
	t := reflect.TypeFor[T]()
	if v == nil {
		panic(fmt.Sprintf("kernel.Var %q: nil variable", name))
	}
	if name == "" {
		panic("kernel.Var: empty name")
	}
	if err := clayout.Check(t); err != nil {
		panic(fmt.Sprintf("kernel.Var %q: %v", name, err))
	}
	return Global{Name: name, addr: unsafe.Pointer(v), size: t.Size()}
}

// Addr is the variable's address and Size its size in bytes.
func (g Global) Addr() uintptr { return uintptr(g.addr) }

// Size is the variable's size in bytes.
func (g Global) Size() uintptr { return g.size }

// WithGlobals adds globals to the set and returns it.
func (s *Set) WithGlobals(gs ...Global) *Set {
	s.Globals = append(s.Globals, gs...)
	return s
}

// NewSet groups kernels into a set.
func NewSet(name string, ks ...*Kernel) *Set { return &Set{Name: name, Kernels: ks} }

// Code returns the set as loadable code; nil for a nil set.
func (s *Set) Code() *hsa.Code {
	if s == nil {
		return nil
	}
	c := &hsa.Code{Kind: hsa.CodeGo, Name: s.Name, Target: "go", Go: s}
	for _, k := range s.Kernels {
		if k != nil {
			c.Kernels = append(c.Kernels, k.sym)
		}
	}
	return c
}
