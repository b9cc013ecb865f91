package cpu

import (
	"context"
	"fmt"
	"reflect"
	"runtime/pprof"
	"sync"
	"unsafe"

	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
)

// Kernel is a Go kernel: a function run once per work-group, with its
// argument list declared by a struct whose layout is the kernarg layout.
type Kernel struct {
	name   string
	handle uint64
	run    func(g *Group, kernarg unsafe.Pointer)
	fn     string // the kernel function's name in stack frames, for PanicError
	sym    rocr.KernelSymbol
	// buffers are the global-buffer arguments, for ownership checks;
	// readOnly[i] says whether buffers[i] is declared read-only.
	buffers  []rocr.BufferArg
	readOnly []bool
	// groupMem is the static group memory the kernel declares.
	groupMem uint32
	// labels carry the kernel's name to CPU profiles (LabelKernel); made
	// once here, so setting them on a launch allocates nothing.
	labels context.Context
}

// LabelKernel is the runtime/pprof label that names the kernel a
// goroutine is running, so CPU profiles attribute kernel time to kernels
// (go tool pprof -tagfocus hipgo.kernel=vector_add).
const LabelKernel = "hipgo.kernel"

// Name is the kernel's name.
func (k *Kernel) Name() string { return k.name }

// Symbol describes the kernel's signature as the loader sees it.
func (k *Kernel) Symbol() rocr.KernelSymbol { return k.sym }

// kernels maps handles to kernels. Names are not keyed here: a name
// belongs to the Set that carries the kernel, so two libraries may each
// define their own vector_add.
var kernels struct {
	mu   sync.RWMutex
	byID []*Kernel // handle-1
}

// Option configures a kernel at Define.
type Option func(*Kernel)

// StaticShared declares static group memory (a `__shared__` array) of n bytes.
func StaticShared(n uint32) Option { return func(k *Kernel) { k.groupMem = n } }

// MaxThreads declares the kernel's maximum work-group size
// (__launch_bounds__).
func MaxThreads(n int) Option { return func(k *Kernel) { k.sym.MaxFlatWorkGroupSize = n } }

// Define registers a Go kernel. A is a struct whose fields are the kernel's
// parameters in order: rocr.Ptr[T] for a `T*` (8 bytes), a fixed-size
// scalar (int8..int64, uint8..uint64, float32, float64, or a named type of
// one), or a struct or array of these passed by value (a C struct
// parameter; clayout.Check states the rule). Its Go layout is
// the kernarg layout, checked here once, so a launch views the kernarg bytes
// as *A in place. Define panics on a malformed declaration: it is a
// programming error found at init time, never on a launch.
func Define[A any](name string, fn func(g *Group, a *A), opts ...Option) *Kernel {
	k, err := define(name, reflect.TypeFor[A](), func(g *Group, p unsafe.Pointer) { fn(g, (*A)(p)) }, opts)
	if err != nil {
		panic(err)
	}
	k.fn = funcName(fn)
	return k
}

func define(name string, t reflect.Type, run func(*Group, unsafe.Pointer), opts []Option) (*Kernel, error) {
	if name == "" {
		return nil, fmt.Errorf("cpu.Define: empty kernel name")
	}
	sym, err := kernel.Signature(name, t)
	if err != nil {
		return nil, fmt.Errorf("cpu.Define %w", err)
	}
	k := &Kernel{name: name, run: run, sym: sym}
	k.labels = pprof.WithLabels(context.Background(), pprof.Labels(LabelKernel, name))
	for _, arg := range sym.Args {
		if arg.Kind == hsa.ArgGlobalBuffer {
			k.buffers = append(k.buffers, rocr.BufferArg{Offset: uintptr(arg.Offset), Name: arg.Name})
			k.readOnly = append(k.readOnly, arg.ReadOnly)
		}
	}
	for _, o := range opts {
		o(k)
	}
	k.sym.GroupSegmentSize = k.groupMem
	kernels.mu.Lock()
	defer kernels.mu.Unlock()
	kernels.byID = append(kernels.byID, k)
	k.handle = uint64(len(kernels.byID)) | kernelTag
	k.sym.Object = k.handle
	return k, nil
}

// kernelTag marks cpu kernel objects so a stray number is not taken for one.
const kernelTag = 0x6b00_0000_0000_0000

func kernelByHandle(h uint64) *Kernel {
	if h&kernelTag != kernelTag {
		return nil
	}
	i := h &^ kernelTag
	kernels.mu.RLock()
	defer kernels.mu.RUnlock()
	if i == 0 || i > uint64(len(kernels.byID)) {
		return nil
	}
	return kernels.byID[i-1]
}

// Set is a named collection of kernels: the Go counterpart of a code
// object, loaded with module.Load.
type Set struct {
	Name    string
	Kernels []*Kernel
	// Globals are the set's variables (kernel.Var), which module.Global
	// finds by name.
	Globals []kernel.Global
}

// NewSet groups kernels into a set.
func NewSet(name string, ks ...*Kernel) *Set { return &Set{Name: name, Kernels: ks} }

// Code returns the set as loadable code; nil for a nil set. A nil kernel
// is left out here and refused when the set is loaded.
func (s *Set) Code() *rocr.Code {
	if s == nil {
		return nil
	}
	c := &rocr.Code{Kind: hsa.CodeGo, Name: s.Name, Target: ISA, Go: s}
	for _, k := range s.Kernels {
		if k != nil {
			c.Kernels = append(c.Kernels, k.sym)
		}
	}
	return c
}

func (a *agent) Load(code *rocr.Code) (rocr.Executable, error) {
	if code.Kind != hsa.CodeGo {
		return nil, rocr.Newf(rocr.ErrNotSupported, hsa.StatusErrorInvalidISA, "load", "%s: the cpu agent runs Go kernels, not %s code for %s", code.Name, code.Kind, code.Target)
	}
	var ks []*Kernel
	var globals []kernel.Global
	switch set := code.Go.(type) {
	case *kernel.Set:
		if set == nil {
			return nil, rocr.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: not a cpu kernel set", code.Name)
		}
		var err error
		if ks, err = sdkKernelsOf(code.Name, set); err != nil {
			return nil, err
		}
		globals = set.Globals
	case *Set:
		if set == nil {
			return nil, rocr.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: not a cpu kernel set", code.Name)
		}
		ks = set.Kernels
		globals = set.Globals
	default:
		return nil, rocr.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: not a cpu kernel set", code.Name)
	}
	exe := &executable{globals: globals}
	for i, g := range globals {
		if g.Name == "" || g.Addr() == 0 {
			return nil, rocr.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: global %d was not made by kernel.Var", code.Name, i)
		}
		for _, o := range globals[:i] {
			if o.Name == g.Name {
				return nil, rocr.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: two globals named %q", code.Name, g.Name)
			}
		}
	}
	for i, k := range ks {
		if k == nil {
			return nil, rocr.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: nil kernel", code.Name)
		}
		// Names are unique within a set, as symbols are within a code
		// object; other sets may reuse them.
		for _, o := range ks[:i] {
			if o != nil && o.name == k.name {
				return nil, rocr.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: two kernels named %q", code.Name, k.name)
			}
		}
		exe.syms = append(exe.syms, k.sym)
	}
	return exe, nil
}

type executable struct {
	syms    []rocr.KernelSymbol
	globals []kernel.Global
}

func (e *executable) Kernels() []rocr.KernelSymbol { return e.syms }
func (e *executable) Destroy() error               { return nil }

// Global finds a variable the set declares (kernel.Var): its storage is
// the Go variable, which the host and the cpu agent share.
func (e *executable) Global(name string) (uintptr, uint64, error) {
	for _, g := range e.globals {
		if g.Name == name {
			return g.Addr(), uint64(g.Size()), nil
		}
	}
	names := make([]string, 0, len(e.globals))
	for _, g := range e.globals {
		names = append(names, g.Name)
	}
	return 0, 0, rocr.Errorf(hsa.StatusErrorInvalidSymbolName, "global", "no variable %q in the set (have %v)", name, names)
}

// sdkKernels are the cpu kernels that run SDK kernels, one per
// kernel.Kernel, made on its first load.
var sdkKernels sync.Map // *kernel.Kernel → *Kernel

// sdkKernelsOf is the cpu kernel of each per-work-item Go kernel of set
// (package rocr/kernel), nil where set holds nil.
func sdkKernelsOf(name string, set *kernel.Set) ([]*Kernel, error) {
	ks := make([]*Kernel, len(set.Kernels))
	for i, sk := range set.Kernels {
		if sk == nil {
			continue
		}
		k, ok := sdkKernels.Load(sk)
		if !ok {
			sym := sk.Symbol()
			ck, err := define(sk.Name(), sk.Args(), func(g *Group, p unsafe.Pointer) { sk.Run(g, p) },
				[]Option{StaticShared(sk.StaticShared()), MaxThreads(sym.MaxFlatWorkGroupSize)})
			if err != nil {
				return nil, rocr.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: %v", name, err)
			}
			k, _ = sdkKernels.LoadOrStore(sk, ck)
		}
		ks[i] = k.(*Kernel)
	}
	return ks, nil
}
