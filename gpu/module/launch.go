package module

import (
	"fmt"
	"log/slog"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/debug"
	"github.com/hipgo/hipgo/gpu/internal/errs"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/annotate"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// This file is one launch from top to bottom: the entry points (HIP's
// runtime API, then Function's methods, the module API), the intake of
// their arguments, dispatch, which checks, encodes and submits, then the
// encoding. The checks dispatch calls are in launch_check.go, the
// by-value arguments in args.go, the type cache the encoding consults in
// launch_cache.go; a graph's kernel node (graph.go) goes through the same
// checks and encoding.

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
