package module

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// check validates the configuration and builds the packet's sizes.
func (f *Function) check(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, e entry) (core.Dispatch, error) {
	const op = "launch"
	var d core.Dispatch
	dev := s.Device()
	if dev != f.mod.dev {
		if err := (*core.Stream)(s).Check(op); err != nil {
			return d, err // a zero Stream, which has no device
		}
		return d, gpu.Errorf(e.handleCode(), op, "kernel %s is loaded on %s, the stream is on %s", f.sym.Name, f.mod.dev, dev)
	}
	if err := core.Valid(dev, f.mod.gen); err != nil {
		return d, errs.Wrap(op, err) // Shutdown and Device.Reset also unload modules: say why
	}
	if err := f.gone(op); err != nil {
		return d, err
	}
	g := [3]uint32{grid.X, grid.Y, grid.Z}
	b := [3]uint32{block.X, block.Y, block.Z}
	for i := 0; i < 3; i++ {
		if g[i] == 0 || b[i] == 0 {
			return d, e.configErr(op, "kernel %s: grid %v and block %v must be at least 1 in every dimension", f.sym.Name, grid, block)
		}
		if int(b[i]) > f.maxDim[i] {
			return d, e.configErr(op, "kernel %s: block dimension %d is %d, the device allows %d", f.sym.Name, i, b[i], f.maxDim[i])
		}
		items := uint64(g[i]) * uint64(b[i])
		if items > 1<<32-1 || int(g[i]) > f.maxGrid[i] {
			return d, e.configErr(op, "kernel %s: grid dimension %d of %d blocks of %d exceeds the device's limit", f.sym.Name, i, g[i], b[i])
		}
		d.Grid[i] = uint32(items)
		d.Block[i] = uint16(b[i])
	}
	if e.cluster != (gpu.Dim3{}) {
		if err := f.checkCluster(dev, grid, e.cluster, e); err != nil {
			return d, err
		}
		d.Cluster = [3]uint32{e.cluster.X, e.cluster.Y, e.cluster.Z}
	}
	if n := block.Count(); n > uint64(f.maxBlock) {
		return d, e.configErr(op, "kernel %s: block of %d threads exceeds its limit of %d", f.sym.Name, n, f.maxBlock)
	}
	if sharedMem < 0 {
		return d, gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: negative dynamic shared memory %d", f.sym.Name, sharedMem)
	}
	if err := checkDynamicShared(&f.sym, sharedMem); err != nil {
		return d, err
	}
	if dyn := f.maxDynamicShared(); sharedMem > dyn {
		return d, f.sharedErr(op, sharedMem, dyn, e)
	}
	if f.sym.KernargSize > f.kernargMax {
		return d, gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: its parameters take %d bytes, over the %d bytes %s takes", f.sym.Name, f.sym.KernargSize, f.kernargMax, dev)
	}
	d.Dims = max(grid.Dims(), block.Dims())
	d.Object = f.sym.Object
	d.GroupSegment = f.sym.GroupSegmentSize + uint32(sharedMem)
	d.Private = f.sym.PrivateSegmentSize
	d.KernargSize = int(f.sym.KernargSize)
	d.Printf = f.printf
	return d, nil
}

// checkCluster checks a launch of grid blocks in clusters of c blocks
// against the device and the kernel.
func (f *Function) checkCluster(dev *gpu.Device, grid, c gpu.Dim3, e entry) error {
	const op = "launch"
	if f.clusterMax == 0 {
		return &gpu.Error{Code: gpu.ErrNotSupported, Op: op, Err: gpu.ErrInvalidConfiguration,
			Msg: "kernel " + f.sym.Name + ": " + dev.String() + " has no thread-block clusters (cuda devices of compute capability 9.0 and later have them)"}
	}
	g := [3]uint32{grid.X, grid.Y, grid.Z}
	for i, n := range [3]uint32{c.X, c.Y, c.Z} {
		if n == 0 {
			return e.configErr(op, "kernel %s: cluster %v must be at least 1 in every dimension (or zero in all: no clusters)", f.sym.Name, c)
		}
		if g[i]%n != 0 {
			return e.configErr(op, "kernel %s: grid %v is not a whole number of clusters %v (dimension %d)", f.sym.Name, grid, c, i)
		}
	}
	limit, hint := f.clusterMax, " (Function.SetNonPortableClusterSizeAllowed raises it to 16)"
	if f.nonPortable.Load() {
		limit, hint = max(limit, maxNonPortableCluster), ""
	}
	if n := c.Count(); n > uint64(limit) {
		return e.configErr(op, "kernel %s: cluster %v of %d blocks exceeds the %d %s allows%s", f.sym.Name, c, n, limit, dev, hint)
	}
	return nil
}

// maxDynamicShared is the dynamic shared memory a launch of f may ask
// (hipFuncAttributeMaxDynamicSharedMemorySize): what the device's
// per-block limit leaves beside f's static shared memory, or more once
// SetMaxDynamicSharedMemory raised it. Every driver gets this check: cuda
// would otherwise raise the kernel's limit itself, which CUDA and HIP
// leave to the program.
func (f *Function) maxDynamicShared() int {
	return max(f.sharedBlock-int(f.sym.GroupSegmentSize), int(f.dynMax.Load()), 0)
}

// sharedErr is a launch asking more dynamic shared memory than f may
// have: hipErrorInvalidValue, as hipLaunchKernel and
// hipModuleLaunchKernel answer it, and for a cooperative launch
// hipErrorCooperativeLaunchTooLarge, as hipLaunchCooperativeKernel does.
func (f *Function) sharedErr(op string, sharedMem, dyn int, e entry) error {
	code := gpu.ErrInvalidValue
	if e.coop {
		code = gpu.ErrCooperativeLaunchTooLarge
	}
	hint := ""
	if room := f.sharedMax - int(f.sym.GroupSegmentSize); room > dyn {
		hint = fmt.Sprintf(" (Function.SetMaxDynamicSharedMemory raises it to at most %d)", room)
	}
	return gpu.Errorf(code, op, "kernel %s: %d bytes of dynamic shared memory exceed the %d it may have beside its %d static bytes%s", f.sym.Name, sharedMem, dyn, f.sym.GroupSegmentSize, hint)
}

// checkDynamicShared refuses, before anything is queued, a launch that
// gives no dynamic shared memory to a kernel that uses it: the kernel's
// accesses would fall outside its window, which faults a GPU and leaves
// the whole context unusable.
func checkDynamicShared(sym *hsa.KernelSymbol, sharedMem int) error {
	if sharedMem > 0 || !usesDynamicShared(sym) {
		return nil
	}
	return gpu.Errorf(gpu.ErrInvalidValue, "launch", "kernel %s declares dynamic shared memory (extern __shared__) but the launch gives 0 bytes; pass its size as sharedMem", sym.Name)
}

// usesDynamicShared reports whether a kernel reads memory its launch
// sizes: extern __shared__ (PTX .extern .shared, recorded by codeobj) or
// an OpenCL-style local pointer argument.
func usesDynamicShared(sym *hsa.KernelSymbol) bool {
	if k, ok := sym.Meta.(*codeobj.Kernel); ok && k.UsesDynamicShared {
		return true
	}
	for _, a := range sym.Args {
		if a.Kind == hsa.ArgDynamicSharedPointer {
			return true
		}
	}
	return false
}

// checkCoResident refuses a cooperative grid larger than the device holds.
func (f *Function) checkCoResident(grid, block gpu.Dim3, sharedMem int) error {
	const op = "launch cooperative"
	limit, err := MaxCooperativeBlocks(f, int(block.Count()), sharedMem)
	if err != nil {
		return errs.Wrap(op, err)
	}
	if n := grid.Count(); n > uint64(limit) {
		return gpu.Errorf(gpu.ErrCooperativeLaunchTooLarge, op, "kernel %s: grid of %d blocks of %d threads exceeds the %d the device holds at once", f.sym.Name, n, block.Count(), limit)
	}
	return nil
}

// checkArg checks argument i against the kernel's declaration.
func (f *Function) checkArg(dev *gpu.Device, i int, v *argVal) error {
	const op = "launch"
	p := &f.visible[i]
	if v.buf {
		if p.Kind != hsa.ArgGlobalBuffer && p.Kind != hsa.ArgOther {
			return f.argErr(i, gpu.ErrInvalidValue, "got a buffer where the kernel takes a value")
		}
		m := v.mem
		if m == nil {
			return f.argErr(i, gpu.ErrInvalidValue, "nil buffer")
		}
		if err := m.CheckAccess(op, dev); err != nil {
			return f.argCause(i, err)
		}
		if p.Elem != nil && m.Elem() != p.Elem {
			return f.argErr(i, gpu.ErrInvalidValue, "%s holds %s", m, m.Elem())
		}
		if p.Elem == nil && p.TypeName != "" {
			if want := scalarFromTypeName(strings.TrimSuffix(strings.TrimSpace(p.TypeName), "*")); want != anyScalar && want != scalarOf(m.Elem()) {
				return f.argErr(i, gpu.ErrInvalidValue, "%s holds %s", m, m.Elem())
			}
		}
		return nil
	}
	if v.lay != nil && v.lay.err != nil {
		return f.argErr(i, gpu.ErrInvalidValue, "%v", v.lay.err)
	}
	if p.Kind == hsa.ArgGlobalBuffer {
		return f.argErr(i, gpu.ErrInvalidValue, "got %s where the kernel takes a buffer", v.goType())
	}
	if p.Kind == hsa.ArgDynamicSharedPointer {
		return f.argErr(i, gpu.ErrInvalidValue, "dynamic shared memory is sized by the launch's sharedMem, not an argument")
	}
	if p.agg && v.lay == nil {
		return f.argErr(i, gpu.ErrInvalidValue, "got %s where the kernel takes a struct by value: pass a struct of its layout or a [%d]byte", v.goType(), p.Size)
	}
	if uint32(v.size) != p.Size {
		return f.argErr(i, gpu.ErrInvalidValue, "got %s (%d bytes), the kernel takes %d bytes", v.goType(), v.size, p.Size)
	}
	if v.lay != nil {
		return f.checkAggregate(i, v)
	}
	if !p.scalar.accepts(v.kind) {
		return f.argErr(i, gpu.ErrInvalidValue, "got %s", v.goType())
	}
	return nil
}

// checkAggregate checks a struct or array passed by value, already known
// to be of the parameter's size: a struct must be aligned as the kernel's
// is; bytes go anywhere.
func (f *Function) checkAggregate(i int, v *argVal) error {
	p := &f.visible[i]
	if !p.agg && p.scalar != anyScalar {
		return f.argErr(i, gpu.ErrInvalidValue, "got %s, a struct, where the kernel takes a scalar", v.goType())
	}
	if v.lay.bytes {
		return nil
	}
	if p.agg && p.Value != nil && v.typ != p.Value {
		return f.argErr(i, gpu.ErrInvalidValue, "got %s, the kernel takes %s (or a [%d]byte)", v.goType(), p.Value, p.Size)
	}
	align := uint32(v.lay.align)
	if p.Offset%align != 0 || (p.alignExact && p.Align != 0 && p.Align != align) {
		return f.argErr(i, gpu.ErrInvalidValue, "got %s aligned to %d bytes, the kernel's parameter is aligned to %d", v.goType(), align, p.Align)
	}
	return nil
}

func (f *Function) countErr(n int) error {
	return gpu.Errorf(gpu.ErrInvalidValue, "launch", "kernel %s takes %d arguments, got %d: %s", f.sym.Name, len(f.visible), n, f.Signature())
}

// argErr is an error about argument i, naming the kernel and the argument.
func (f *Function) argErr(i int, code gpu.ErrorCode, format string, args ...any) error {
	p := &f.visible[i]
	name := p.Name
	if name == "" {
		name = fmt.Sprintf("#%d", i)
	}
	return &gpu.Error{Code: code, Op: "launch", Msg: fmt.Sprintf("kernel %s argument %d (%s, %s): ", f.sym.Name, i, name, p.describe()) + fmt.Sprintf(format, args...)}
}

// argCause is an error about argument i whose reason is err: one op and
// one code, err's message after the argument's name.
func (f *Function) argCause(i int, err error) error {
	e := f.argErr(i, gpu.CodeOf(err), "").(*gpu.Error)
	e.Msg = strings.TrimSuffix(e.Msg, ": ")
	var ge *gpu.Error
	if errors.As(err, &ge) && ge.Op == e.Op {
		if ge.Msg != "" {
			e.Msg += ": " + ge.Msg
		}
		e.Err = ge.Err
		return e
	}
	e.Err = err
	return e
}

// Cluster size limits in blocks: portable, and what sm_90 allows a kernel
// that opts in.
const (
	maxPortableCluster    = 8
	maxNonPortableCluster = 16
)
