package cpu

import (
	"context"
	"github.com/hipgo/hipgo/rocr/spi"
	"runtime/pprof"
	"sync"
	"unsafe"

	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/kernel"
	"github.com/hipgo/hipgo/rocr/kernel/kernelimpl"
)

// kern is the agent's record of a Go kernel (package kernel), made on the
// kernel's first load: its handle, the function that runs one work-group,
// and what a dispatch checks.
type kern struct {
	name   string
	handle uint64
	sk     *kernel.Kernel
	sym    hsa.KernelSymbol
	// buffers are the global-buffer arguments, for ownership checks;
	// readOnly[i] says whether buffers[i] is declared read-only.
	buffers  []spi.BufferArg
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

// run runs work-group g of the kernel.
func (k *kern) run(g *group, kernarg unsafe.Pointer) { kernelimpl.Run(k.sk, g, kernarg) }

// kernels holds the agent's record of each kernel, by the number its
// object carries (kernelimpl.Lookup), made on first use.
var kernels struct {
	mu   sync.RWMutex
	byID []*kern // object number-1
}

// kernelByHandle is the record of the kernel whose object is h, nil if
// no kernel has it.
func kernelByHandle(h uint64) *kern {
	i := int(h & 0xffff_ffff)
	kernels.mu.RLock()
	if i > 0 && i <= len(kernels.byID) {
		if k := kernels.byID[i-1]; k != nil && k.handle == h {
			kernels.mu.RUnlock()
			return k
		}
	}
	kernels.mu.RUnlock()
	sk := kernelimpl.Lookup(h)
	if sk == nil {
		return nil
	}
	return kernOf(sk)
}

// kernOf is sk's record.
func kernOf(sk *kernel.Kernel) *kern {
	sym := sk.Symbol()
	i := int(sym.Object & 0xffff_ffff)
	kernels.mu.Lock()
	defer kernels.mu.Unlock()
	if i <= len(kernels.byID) && kernels.byID[i-1] != nil {
		return kernels.byID[i-1]
	}
	k := &kern{name: sk.Name(), handle: sym.Object, sk: sk, sym: sym, groupMem: sym.GroupSegmentSize}
	k.labels = pprof.WithLabels(context.Background(), pprof.Labels(LabelKernel, k.name))
	for _, arg := range sym.Args {
		if arg.Kind == hsa.ArgGlobalBuffer {
			k.buffers = append(k.buffers, spi.BufferArg{Offset: uintptr(arg.Offset), Name: arg.Name})
			k.readOnly = append(k.readOnly, arg.ReadOnly)
		}
	}
	for len(kernels.byID) < i {
		kernels.byID = append(kernels.byID, nil)
	}
	kernels.byID[i-1] = k
	return k
}

func (a *agent) Load(code *hsa.Code) (spi.Executable, error) {
	if code.Kind != hsa.CodeGo {
		return nil, hsa.Newf(hsa.ErrNotSupported, hsa.StatusErrorInvalidISA, "load", "%s: the cpu agent runs Go kernels, not %s code for %s", code.Name, code.Kind, code.Target)
	}
	set, ok := code.Go.(*kernel.Set)
	if !ok || set == nil {
		return nil, hsa.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: not a Go kernel set (kernel.NewSet)", code.Name)
	}
	ks, globals := set.Kernels, set.Globals
	exe := &executable{globals: globals}
	for i, g := range globals {
		if g.Name == "" || g.Addr() == 0 {
			return nil, hsa.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: global %d was not made by kernel.Var", code.Name, i)
		}
		for _, o := range globals[:i] {
			if o.Name == g.Name {
				return nil, hsa.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: two globals named %q", code.Name, g.Name)
			}
		}
	}
	for i, k := range ks {
		if k == nil {
			return nil, hsa.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: nil kernel", code.Name)
		}
		// Names are unique within a set, as symbols are within a code
		// object; other sets may reuse them.
		for _, o := range ks[:i] {
			if o != nil && o.Name() == k.Name() {
				return nil, hsa.Errorf(hsa.StatusErrorInvalidCodeObject, "load", "%s: two kernels named %q", code.Name, k.Name())
			}
		}
		exe.syms = append(exe.syms, kernOf(k).sym)
	}
	return exe, nil
}

type executable struct {
	syms    []hsa.KernelSymbol
	globals []kernel.Global
}

func (e *executable) Kernels() []hsa.KernelSymbol { return e.syms }
func (e *executable) Destroy() error              { return nil }

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
	return 0, 0, hsa.Errorf(hsa.StatusErrorInvalidSymbolName, "global", "no variable %q in the set (have %v)", name, names)
}
