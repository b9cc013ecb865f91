package module

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"strings"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/debug"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/annotate"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
)

// This file is one launch from top to bottom: the entry points (HIP's
// runtime API, then Function's methods, the module API), the intake of
// their arguments, dispatch, which checks, encodes and submits, then the
// checks and the encoding in the order dispatch calls them. The type
// cache the encoding consults is in launch_cache.go; a graph's kernel
// node (graph.go) goes through the same checks and encoding.

// LaunchKernelGGL launches f in HIP's argument order:
// hipLaunchKernelGGL(kernel, gridDim, blockDim, sharedMemBytes, stream, args...).
// A nil stream is the device's default stream.
// Its errors are hipLaunchKernelGGL's: a grid or block the device cannot
// take is ErrInvalidConfiguration, a nil function
// ErrInvalidDeviceFunction.
func LaunchKernelGGL(f *Function, grid, block gpu.Dim3, sharedMem int, s *stream.Stream, args ...any) error {
	return f.launchAny(s, grid, block, sharedMem, args, entry{runtime: true})
}

// LaunchKernel is LaunchKernelGGL with typed arguments, in hipLaunchKernel's
// argument order; the typed launchers that hipgo-gen writes call it.
func LaunchKernel(f *Function, grid, block gpu.Dim3, args *Args, sharedMem int, s *stream.Stream) error {
	return f.launchArgs(s, grid, block, sharedMem, args, entry{runtime: true})
}

// LaunchCooperativeKernel launches f so that every block of the grid is
// resident at once (hipLaunchCooperativeKernel, in LaunchKernelGGL's
// argument order): the kernel may wait at a grid-wide barrier,
// kernel.Block's GridSync in a Go kernel, cooperative_groups::this_grid().sync() in HIP
// or CUDA source. A grid of more blocks than the device holds at once
// (OccupancyMaxActiveBlocksPerMultiprocessor x its compute units) is
// ErrCooperativeLaunchTooLarge, and nothing is queued.
//
// Its errors are LaunchKernelGGL's; those of f.LaunchCooperative[Args] are
// Launch's (hipModuleLaunchCooperativeKernel).
func LaunchCooperativeKernel(f *Function, grid, block gpu.Dim3, sharedMem int, s *stream.Stream, args ...any) error {
	return f.launchAny(s, grid, block, sharedMem, args, entry{runtime: true, coop: true})
}

// LaunchConfig is a launch's configuration with its attributes as fields
// (hipLaunchConfig_t and its hipLaunchAttribute list, CUDA's
// cudaLaunchConfig_t): what LaunchKernelEx and Function.LaunchEx take.
// The zero attributes make an ordinary launch.
type LaunchConfig struct {
	Grid, Block gpu.Dim3
	SharedMem   int
	Stream      *stream.Stream // nil: the device's default stream
	// Cluster is the thread-block cluster, in blocks
	// (cudaLaunchAttributeClusterDimension); zero for none. It needs a
	// device with clusters (Properties.ClusterLaunch: cuda on compute
	// capability 9.0 and later); each dimension must divide the grid's,
	// and a cluster holds at most 8 blocks, or 16 once the kernel allows
	// non-portable sizes (Function.SetNonPortableClusterSizeAllowed).
	Cluster gpu.Dim3
	// Cooperative makes every block resident at once
	// (cudaLaunchAttributeCooperative), as LaunchCooperativeKernel does.
	Cooperative bool
}

// LaunchKernelEx launches f with cfg's configuration and attributes
// (hipLaunchKernelExC, cudaLaunchKernelEx). Its errors are
// LaunchKernelGGL's; a cluster that does not divide the grid or is too
// large is ErrInvalidConfiguration, and a cluster on a device without
// clusters (the cpu agent, rocm, cuda before sm_90) is ErrNotSupported,
// naming the device (errors.Is matches ErrInvalidConfiguration too).
// Nothing is queued when a check fails.
func LaunchKernelEx(cfg *LaunchConfig, f *Function, args ...any) error {
	if err := f.validAs("launch", gpu.ErrInvalidDeviceFunction); err != nil {
		return err
	}
	e, err := cfg.entry(true)
	if err != nil {
		return err
	}
	return f.launchAny(cfg.Stream, cfg.Grid, cfg.Block, cfg.SharedMem, args, e)
}

// LaunchKernelExArgs is LaunchKernelEx with typed arguments.
func LaunchKernelExArgs(cfg *LaunchConfig, f *Function, args *Args) error {
	if err := f.validAs("launch", gpu.ErrInvalidDeviceFunction); err != nil {
		return err
	}
	e, err := cfg.entry(true)
	if err != nil {
		return err
	}
	return f.launchArgs(cfg.Stream, cfg.Grid, cfg.Block, cfg.SharedMem, args, e)
}

// Launch checks the launch against the kernel's signature and the device's
// limits, then queues it on s (a nil s is the default stream). grid is in
// blocks, block in threads, as in HIP. Arguments: a buffer.Object
// (*buffer.Buffer[T], *buffer.Host[T]) where the kernel takes a pointer,
// a Go scalar of the exact type and size where it takes a value (a named
// type by its underlying type), a struct or array where it takes a struct
// by value (see the package doc for the layout rule). Nothing is
// queued when a check fails; the error names the kernel and the argument.
// LaunchArgs is the same launch with typed arguments.
//
// Its errors are hipModuleLaunchKernel's: a grid or block the device
// cannot take is ErrInvalidValue (errors.Is matches
// ErrInvalidConfiguration too), a nil function or a stream of another
// device ErrInvalidHandle.
func (f *Function) Launch(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args ...any) error {
	return f.launchAny(s, grid, block, sharedMem, args, entry{})
}

// LaunchArgs is Launch with typed arguments: it checks them against the
// kernel's signature and the launch against the device's limits, then
// queues it on s (nil: the default stream). Nothing is queued when a check
// fails; the error names the kernel and the argument.
func (f *Function) LaunchArgs(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args *Args) error {
	return f.launchArgs(s, grid, block, sharedMem, args, entry{})
}

// LaunchCooperative is Launch as a cooperative launch (see
// LaunchCooperativeKernel).
func (f *Function) LaunchCooperative(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args ...any) error {
	return f.launchAny(s, grid, block, sharedMem, args, entry{coop: true})
}

// LaunchCooperativeArgs is LaunchArgs as a cooperative launch.
func (f *Function) LaunchCooperativeArgs(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args *Args) error {
	return f.launchArgs(s, grid, block, sharedMem, args, entry{coop: true})
}

// LaunchEx is Launch with cfg's configuration and attributes
// (hipDrvLaunchKernelEx, cuLaunchKernelEx); its errors are Launch's, and
// a cluster the device cannot take is as LaunchKernelEx says.
func (f *Function) LaunchEx(cfg *LaunchConfig, args ...any) error {
	if err := f.validAs("launch", gpu.ErrInvalidHandle); err != nil {
		return err
	}
	e, err := cfg.entry(false)
	if err != nil {
		return err
	}
	return f.launchAny(cfg.Stream, cfg.Grid, cfg.Block, cfg.SharedMem, args, e)
}

// entry is the HIP entry point a launch follows. HIP's runtime and module
// APIs answer the same mistakes with different codes, and each hipgo call
// answers as the HIP call it stands for.
type entry struct {
	// runtime: hipLaunchKernelGGL, hipLaunchKernel (LaunchKernelGGL,
	// LaunchKernel, the typed launchers, graph kernel nodes); otherwise
	// hipModuleLaunchKernel (Function's methods).
	runtime bool
	coop    bool
	cluster gpu.Dim3 // thread-block cluster (LaunchConfig.Cluster); zero: none
}

// handleCode is the code for a function that is no kernel of the
// stream's device: hipErrorInvalidDeviceFunction from the runtime API,
// hipErrorInvalidHandle (CUDA's CUDA_ERROR_INVALID_HANDLE) from the
// module API.
func (e entry) handleCode() gpu.ErrorCode {
	if e.runtime {
		return gpu.ErrInvalidDeviceFunction
	}
	return gpu.ErrInvalidHandle
}

// configErr is a grid or block the device cannot take. The runtime API
// says hipErrorInvalidConfiguration; the module API says
// hipErrorInvalidValue (CUDA_ERROR_INVALID_VALUE), with
// ErrInvalidConfiguration as the cause, so errors.Is matches
// gpu.ErrInvalidConfiguration from every entry point.
func (e entry) configErr(op, format string, args ...any) error {
	err := &gpu.Error{Code: gpu.ErrInvalidConfiguration, Op: op, Msg: fmt.Sprintf(format, args...)}
	if !e.runtime {
		err.Code, err.Err = gpu.ErrInvalidValue, gpu.ErrInvalidConfiguration
	}
	return err
}

// entry is the entry point a launch with cfg follows.
func (cfg *LaunchConfig) entry(runtime bool) (entry, error) {
	if cfg == nil {
		return entry{}, gpu.Errorf(gpu.ErrInvalidValue, "launch", "nil LaunchConfig")
	}
	return entry{runtime: runtime, coop: cfg.Cooperative, cluster: cfg.Cluster}, nil
}

func (f *Function) launchAny(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args []any, e entry) error {
	const op = "launch"
	if err := f.validAs(op, e.handleCode()); err != nil {
		return err
	}
	if len(args) > MaxArgs {
		return f.logged(f.countErr(len(args)))
	}
	var a Args
	for _, x := range args {
		if m, ok := core.MemOf(x); ok {
			a.add(argVal{mem: m, buf: true})
			continue
		}
		a.Value(x)
	}
	err := f.launchVals(s, grid, block, sharedMem, &a, e)
	a.Release() // the kernarg image holds the bytes now
	return err
}

func (f *Function) launchArgs(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args *Args, e entry) error {
	const op = "launch"
	if err := f.validAs(op, e.handleCode()); err != nil {
		return err
	}
	if args == nil {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: nil Args", f.sym.Name)
	}
	if args.over {
		return gpu.Errorf(gpu.ErrInvalidValue, op, "kernel %s: more than %d arguments", f.sym.Name, MaxArgs)
	}
	return f.launchVals(s, grid, block, sharedMem, args, e)
}

func (f *Function) launchVals(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args *Args, e entry) error {
	if s == nil {
		var err error
		if s, err = stream.DefaultStream(f.mod.dev); err != nil {
			return err
		}
	}
	return f.logged(f.launch(s, grid, block, sharedMem, args, e))
}

// launch is dispatch within a profiler range named by the kernel, when a
// profiler is attached.
func (f *Function) launch(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args *Args, e entry) error {
	if !annotate.On() {
		return f.dispatch(s, grid, block, sharedMem, args, e)
	}
	annotate.Push(f.sym.Name)
	defer annotate.Pop()
	return f.dispatch(s, grid, block, sharedMem, args, e)
}

func (f *Function) dispatch(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, args *Args, e entry) error {
	const op = "launch"
	vals := args.list()
	d, err := f.check(s, grid, block, sharedMem, e)
	if err != nil {
		return err
	}
	d.Check = args.check
	if d.Cooperative = e.coop; e.coop {
		if err := f.checkCoResident(grid, block, sharedMem); err != nil {
			return err
		}
	}
	before, after := debug.Kernel()
	if before {
		if err := s.Synchronize(); err != nil {
			return err
		}
	}
	if debug.Logging(debug.LogInfo) {
		debug.Log(debug.LogInfo, "launch", slog.String("kernel", f.sym.Name), slog.Any("grid", grid), slog.Any("block", block),
			slog.Int("shared", sharedMem), slog.String("device", s.Device().String()))
	}
	if len(vals) != len(f.visible) {
		return f.countErr(len(vals))
	}
	for i := range vals {
		if err := f.checkArg(s.Device(), i, &vals[i]); err != nil {
			return err
		}
	}
	l, err := (*core.Stream)(s).BeginLaunch(op)
	if err != nil {
		return err
	}
	l.Name(f.sym.Name)
	ka, err := l.KernargFor(int(f.sym.KernargSize))
	if err != nil {
		l.Abort()
		return err
	}
	clear(ka)
	if err := f.pack(ka, vals, args, l.Use); err != nil {
		l.Abort()
		return err
	}
	if f.hidden != nil {
		hl := codeobj.Launch{Grid: d.Grid, Block: [3]uint32{uint32(d.Block[0]), uint32(d.Block[1]), uint32(d.Block[2])}, Dims: d.Dims, DynamicShared: uint32(sharedMem)}
		if err := f.hidden.FillHidden(ka, &hl); err != nil {
			l.Abort()
			return errs.Wrap(op, err)
		}
	}
	if err := l.Commit(&d); err != nil {
		return err
	}
	if after {
		return s.Synchronize()
	}
	return nil
}

// logged logs a launch error at AMD_LOG_LEVEL 1.
func (f *Function) logged(err error) error {
	if err != nil && debug.Logging(debug.LogError) {
		debug.Log(debug.LogError, "launch failed", slog.String("kernel", f.sym.Name), slog.Any("error", err))
	}
	return err
}

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

// Cluster size limits in blocks: portable, and what sm_90 allows a kernel
// that opts in.
const (
	maxPortableCluster    = 8
	maxNonPortableCluster = 16
)

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
func checkDynamicShared(sym *rocr.KernelSymbol, sharedMem int) error {
	if sharedMem > 0 || !usesDynamicShared(sym) {
		return nil
	}
	return gpu.Errorf(gpu.ErrInvalidValue, "launch", "kernel %s declares dynamic shared memory (extern __shared__) but the launch gives 0 bytes; pass its size as sharedMem", sym.Name)
}

// usesDynamicShared reports whether a kernel reads memory its launch
// sizes: extern __shared__ (PTX .extern .shared, recorded by codeobj) or
// an OpenCL-style local pointer argument.
func usesDynamicShared(sym *rocr.KernelSymbol) bool {
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

// pack writes checked argument values into the kernarg image ka at the
// kernel's offsets (structs by value come from blob) and hands each buffer
// with its access, a read where the parameter or the buffer is read-only,
// to use. A direct launch and a graph's kernel node encode through it.
func (f *Function) pack(ka []byte, vals []argVal, args *Args, use func(*core.Mem, core.Access) error) error {
	for i := range vals {
		v := &vals[i]
		p := &f.visible[i]
		switch {
		case v.buf:
			*(*uint64)(unsafe.Pointer(&ka[p.Offset])) = uint64(v.mem.Addr())
			acc := core.Write
			if p.ReadOnly || v.isConst {
				acc = core.Read
			}
			if err := use(v.mem, acc); err != nil {
				return err
			}
		case v.lay != nil && v.inBig:
			copy(ka[p.Offset:p.Offset+uint32(v.size)], args.big.b[v.off:])
		case v.lay != nil:
			copy(ka[p.Offset:p.Offset+uint32(v.size)], args.blob[v.off:])
		default:
			writeBits(unsafe.Pointer(&ka[p.Offset]), v.bits, v.size)
		}
	}
	return nil
}

// writeBits stores the low size bytes of bits at dst.
func writeBits(dst unsafe.Pointer, bits uint64, size uint16) {
	switch size {
	case 1:
		*(*uint8)(dst) = uint8(bits)
	case 2:
		*(*uint16)(dst) = uint16(bits)
	case 4:
		*(*uint32)(dst) = uint32(bits)
	case 8:
		*(*uint64)(dst) = bits
	}
}
