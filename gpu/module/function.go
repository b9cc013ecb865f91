package module

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/gpu/internal/debug"
	"github.com/hipgo/hipgo/gpu/stream"
	"github.com/hipgo/hipgo/internal/annotate"
	"github.com/hipgo/hipgo/rocr"
	"github.com/hipgo/hipgo/rocr/codeobj"
)

// Function is a kernel of a module (hipFunction_t).
type Function struct {
	mod      *Module
	sym      rocr.KernelSymbol
	visible  []param
	hidden   *codeobj.Kernel
	printf   uint32 // core.Dispatch.Printf: 1 + hidden_printf_buffer's offset, or 0
	maxBlock int
	// The device's limits, cached so a launch does not copy Properties.
	maxDim    [3]int
	maxGrid   [3]int
	sharedMax int
	// kernargMax is the largest kernarg segment the device takes.
	kernargMax uint32
	// clusterMax is the device's portable cluster size, 0 without
	// clusters; nonPortable: the kernel may exceed it (cluster.go).
	clusterMax  int
	nonPortable atomic.Bool
}

// param is one argument the caller passes, with what it accepts.
type param struct {
	rocr.KernelArg
	scalar scalarKind // the Go scalar a by-value argument wants, if known
	// agg: the kernel takes a struct or array by value here. alignExact:
	// the signature states its alignment (PTX .align, a Go kernel), rather
	// than the loader estimating it from the size.
	agg, alignExact bool
}

// aggregateParam tells a struct parameter from a scalar one.
func aggregateParam(a *rocr.KernelArg) (agg, alignExact bool) {
	if a.Kind != rocr.ArgByValue {
		return false, false
	}
	if a.Value != nil {
		k := a.Value.Kind()
		return k == reflect.Struct || k == reflect.Array, true
	}
	if strings.HasPrefix(a.TypeName, ".") { // PTX: .align A .b8 name[N]
		elem := ptxElemSize(a.TypeName)
		return elem != 0 && a.Size != elem, true
	}
	if scalarFromTypeName(a.TypeName) != anyScalar {
		return false, false
	}
	return a.Size > 8 || a.Size&(a.Size-1) != 0 || strings.HasPrefix(a.TypeName, "struct "), false
}

// ptxElemSize is the size of a PTX fundamental type (.b8, .f32, .u64).
func ptxElemSize(t string) uint32 {
	bits := 0
	for _, c := range t[min(2, len(t)):] {
		if c < '0' || c > '9' {
			return 0
		}
		bits = bits*10 + int(c-'0')
	}
	return uint32(bits / 8)
}

type scalarKind uint8

const (
	anyScalar scalarKind = iota
	kInt8
	kInt16
	kInt32
	kInt64
	kUint8
	kUint16
	kUint32
	kUint64
	kFloat32
	kFloat64
	// PTX integer parameters carry no signedness (clang writes .u32 for
	// int): either Go type of the size matches.
	kInt8Or
	kInt16Or
	kInt32Or
)

var scalarNames = [...]string{"scalar", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "int8 or uint8", "int16 or uint16", "int32 or uint32"}

// accepts reports whether a Go scalar of kind got fits a parameter of kind want.
func (want scalarKind) accepts(got scalarKind) bool {
	switch want {
	case anyScalar:
		return true
	case kInt8Or:
		return got == kInt8 || got == kUint8
	case kInt16Or:
		return got == kInt16 || got == kUint16
	case kInt32Or:
		return got == kInt32 || got == kUint32
	}
	return want == got
}

func scalarOf(t reflect.Type) scalarKind {
	if t == nil {
		return anyScalar
	}
	switch t.Kind() {
	case reflect.Int8:
		return kInt8
	case reflect.Int16:
		return kInt16
	case reflect.Int32:
		return kInt32
	case reflect.Int64:
		return kInt64
	case reflect.Uint8:
		return kUint8
	case reflect.Uint16:
		return kUint16
	case reflect.Uint32:
		return kUint32
	case reflect.Uint64:
		return kUint64
	case reflect.Float32:
		return kFloat32
	case reflect.Float64:
		return kFloat64
	}
	return anyScalar
}

// scalarFromTypeName maps the source type of code object metadata and PTX
// params onto Go scalars where that is unambiguous.
func scalarFromTypeName(tn string) scalarKind {
	switch strings.TrimSpace(tn) {
	case "float", ".f32":
		return kFloat32
	case "double", ".f64":
		return kFloat64
	case "int", "int32_t":
		return kInt32
	case "unsigned int", "uint", "uint32_t":
		return kUint32
	case ".s32", ".u32", ".b32":
		return kInt32Or
	case ".s16", ".u16", ".b16":
		return kInt16Or
	case ".s8", ".u8", ".b8":
		return kInt8Or
	case "long", "long long", "int64_t", "ptrdiff_t", ".s64":
		return kInt64
	case "unsigned long", "unsigned long long", "uint64_t", "size_t":
		return kUint64
	case "short":
		return kInt16
	case "unsigned short":
		return kUint16
	case "char", "signed char":
		return kInt8
	case "unsigned char":
		return kUint8
	}
	return anyScalar
}

func newFunction(m *Module, sym rocr.KernelSymbol) *Function {
	f := &Function{mod: m, sym: sym}
	for _, a := range sym.Args {
		if a.Kind == rocr.ArgHidden {
			continue
		}
		p := param{KernelArg: a, scalar: scalarOf(a.Value)}
		if p.scalar == anyScalar {
			p.scalar = scalarFromTypeName(a.TypeName)
		}
		p.agg, p.alignExact = aggregateParam(&a)
		if p.agg {
			p.scalar = anyScalar
		}
		f.visible = append(f.visible, p)
	}
	if k, ok := sym.Meta.(*codeobj.Kernel); ok {
		f.hidden = k
		for _, a := range k.Args {
			if a.Kind == codeobj.KindHiddenPrintfBuffer && a.Size == 8 {
				f.printf = a.Offset + 1
			}
		}
	}
	props := m.dev.Properties()
	f.maxDim, f.maxGrid = props.MaxThreadsDim, props.MaxGridSize
	f.sharedMax = max(props.SharedMemPerBlock, props.MaxSharedMemPerBlockOptin)
	f.maxBlock = props.MaxThreadsPerBlock
	info := m.dev.Agent().Info()
	f.kernargMax = rocr.KernargSlotSize
	if info.MaxKernargSize > 0 {
		f.kernargMax = uint32(min(info.MaxKernargSize, core.MaxKernarg))
	}
	f.clusterMax = info.MaxClusterSize
	if sym.MaxFlatWorkGroupSize > 0 && sym.MaxFlatWorkGroupSize < f.maxBlock {
		f.maxBlock = sym.MaxFlatWorkGroupSize
	}
	return f
}

// valid reports a function that is no kernel: nil, or a zero Function,
// which Module.Function did not make.
func (f *Function) valid(op string) error { return f.validAs(op, gpu.ErrorInvalidDeviceFunction) }

func (f *Function) validAs(op string, code gpu.ErrorCode) error {
	if f == nil {
		return gpu.Errorf(code, op, "nil function")
	}
	if f.mod == nil {
		return gpu.Errorf(code, op, "function not made by Module.Function (a zero Function)")
	}
	return nil
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
		return gpu.ErrorInvalidDeviceFunction
	}
	return gpu.ErrorInvalidHandle
}

// configErr is a grid or block the device cannot take. The runtime API
// says hipErrorInvalidConfiguration; the module API says
// hipErrorInvalidValue (CUDA_ERROR_INVALID_VALUE), with
// ErrInvalidConfiguration as the cause, so errors.Is matches
// gpu.ErrInvalidConfiguration from every entry point.
func (e entry) configErr(op, format string, args ...any) error {
	err := &gpu.Error{Code: gpu.ErrorInvalidConfiguration, Op: op, Msg: fmt.Sprintf(format, args...)}
	if !e.runtime {
		err.Code, err.Err = gpu.ErrorInvalidValue, gpu.ErrInvalidConfiguration
	}
	return err
}

// Name is the kernel's name; "" for a nil function.
func (f *Function) Name() string {
	if f == nil {
		return ""
	}
	return f.sym.Name
}

// Module is the function's module; nil for a nil function.
func (f *Function) Module() *Module {
	if f == nil {
		return nil
	}
	return f.mod
}

// Attributes are hipFuncGetAttributes' fields.
type Attributes struct {
	MaxThreadsPerBlock int
	SharedSizeBytes    int // static group memory
	PrivateSizeBytes   int
	KernargSize        int
	NumArgs            int
	Args               []rocr.KernelArg // the arguments a caller passes
}

// Attributes describes the kernel; zero for a nil function.
func (f *Function) Attributes() Attributes {
	if f == nil {
		return Attributes{}
	}
	a := Attributes{
		MaxThreadsPerBlock: f.maxBlock,
		SharedSizeBytes:    int(f.sym.GroupSegmentSize),
		PrivateSizeBytes:   int(f.sym.PrivateSegmentSize),
		KernargSize:        int(f.sym.KernargSize),
		NumArgs:            len(f.visible),
	}
	for _, p := range f.visible {
		a.Args = append(a.Args, p.KernelArg)
	}
	return a
}

// Signature is the kernel's argument list, for messages: "vector_add(float32*, float32*, float32*, int32)".
func (f *Function) Signature() string {
	if f == nil {
		return ""
	}
	parts := make([]string, len(f.visible))
	for i, p := range f.visible {
		parts[i] = p.describe()
	}
	return f.sym.Name + "(" + strings.Join(parts, ", ") + ")"
}

func (p *param) describe() string {
	switch p.Kind {
	case rocr.ArgGlobalBuffer:
		if p.Elem != nil {
			return p.Elem.String() + "*"
		}
		if p.TypeName != "" {
			return p.TypeName
		}
		return "pointer"
	case rocr.ArgOther:
		return fmt.Sprintf("pointer or %d-byte value", p.Size)
	}
	if p.agg {
		if p.Value != nil {
			return p.Value.String()
		}
		if p.alignExact {
			return fmt.Sprintf("%d-byte struct aligned to %d", p.Size, p.Align)
		}
		return fmt.Sprintf("%d-byte struct", p.Size)
	}
	if p.scalar != anyScalar {
		return scalarNames[p.scalar]
	}
	return fmt.Sprintf("%d-byte value", p.Size)
}

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
	a.releaseBig() // the kernarg image holds the bytes now
	return err
}

// logged logs a launch error at AMD_LOG_LEVEL 1.
func (f *Function) logged(err error) error {
	if err != nil && debug.Logging(debug.LogError) {
		debug.Log(debug.LogError, "launch failed", slog.String("kernel", f.sym.Name), slog.Any("error", err))
	}
	return err
}

func (f *Function) countErr(n int) error {
	return gpu.Errorf(gpu.ErrorInvalidValue, "launch", "kernel %s takes %d arguments, got %d: %s", f.sym.Name, len(f.visible), n, f.Signature())
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
	vals := args.vals[:args.n]
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
	l, err := core.StreamOf(s).BeginLaunch(op)
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
			return gpu.Wrap(op, err)
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

// check validates the configuration and builds the packet's sizes.
func (f *Function) check(s *stream.Stream, grid, block gpu.Dim3, sharedMem int, e entry) (core.Dispatch, error) {
	const op = "launch"
	var d core.Dispatch
	dev := s.Device()
	if dev != f.mod.dev {
		if err := core.StreamOf(s).Check(op); err != nil {
			return d, err // a zero Stream, which has no device
		}
		return d, gpu.Errorf(e.handleCode(), op, "kernel %s is loaded on %s, the stream is on %s", f.sym.Name, f.mod.dev, dev)
	}
	if err := core.Valid(dev, f.mod.gen); err != nil {
		return d, gpu.Wrap(op, err) // Shutdown and Device.Reset also unload modules: say why
	}
	if f.mod.unloaded.Load() {
		return d, gpu.Errorf(gpu.ErrorInvalidHandle, op, "kernel %s: its module was unloaded", f.sym.Name)
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
		return d, gpu.Errorf(gpu.ErrorInvalidValue, op, "kernel %s: negative dynamic shared memory %d", f.sym.Name, sharedMem)
	}
	if err := checkDynamicShared(&f.sym, sharedMem); err != nil {
		return d, err
	}
	limit := f.sharedMax
	if total := int(f.sym.GroupSegmentSize) + sharedMem; total > limit {
		return d, gpu.Errorf(gpu.ErrorInvalidValue, op, "kernel %s: %d bytes of static and %d of dynamic shared memory exceed the device's %d", f.sym.Name, f.sym.GroupSegmentSize, sharedMem, limit)
	}
	if f.sym.KernargSize > f.kernargMax {
		return d, gpu.Errorf(gpu.ErrorInvalidValue, op, "kernel %s: its parameters take %d bytes, over the %d bytes %s takes", f.sym.Name, f.sym.KernargSize, f.kernargMax, dev)
	}
	d.Dims = max(grid.Dims(), block.Dims())
	d.Object = f.sym.Object
	d.GroupSegment = f.sym.GroupSegmentSize + uint32(sharedMem)
	d.Private = f.sym.PrivateSegmentSize
	d.KernargSize = int(f.sym.KernargSize)
	d.Printf = f.printf
	return d, nil
}

// checkArg checks argument i against the kernel's declaration.
func (f *Function) checkArg(dev *gpu.Device, i int, v *argVal) error {
	const op = "launch"
	p := &f.visible[i]
	if v.buf {
		if p.Kind != rocr.ArgGlobalBuffer && p.Kind != rocr.ArgOther {
			return f.argErr(i, gpu.ErrorInvalidValue, "got a buffer where the kernel takes a value")
		}
		m := v.mem
		if m == nil {
			return f.argErr(i, gpu.ErrorInvalidValue, "nil buffer")
		}
		if err := m.CheckAccess(op, dev); err != nil {
			return f.argCause(i, err)
		}
		if p.Elem != nil && m.Elem() != p.Elem {
			return f.argErr(i, gpu.ErrorInvalidValue, "%s holds %s", m, m.Elem())
		}
		if p.Elem == nil && p.TypeName != "" {
			if want := scalarFromTypeName(strings.TrimSuffix(strings.TrimSpace(p.TypeName), "*")); want != anyScalar && want != scalarOf(m.Elem()) {
				return f.argErr(i, gpu.ErrorInvalidValue, "%s holds %s", m, m.Elem())
			}
		}
		return nil
	}
	if v.lay != nil && v.lay.err != nil {
		return f.argErr(i, gpu.ErrorInvalidValue, "%v", v.lay.err)
	}
	if p.Kind == rocr.ArgGlobalBuffer {
		return f.argErr(i, gpu.ErrorInvalidValue, "got %s where the kernel takes a buffer", v.goType())
	}
	if p.Kind == rocr.ArgDynamicSharedPointer {
		return f.argErr(i, gpu.ErrorInvalidValue, "dynamic shared memory is sized by the launch's sharedMem, not an argument")
	}
	if p.agg && v.lay == nil {
		return f.argErr(i, gpu.ErrorInvalidValue, "got %s where the kernel takes a struct by value: pass a struct of its layout or a [%d]byte", v.goType(), p.Size)
	}
	if uint32(v.size) != p.Size {
		return f.argErr(i, gpu.ErrorInvalidValue, "got %s (%d bytes), the kernel takes %d bytes", v.goType(), v.size, p.Size)
	}
	if v.lay != nil {
		return f.checkAggregate(i, v)
	}
	if !p.scalar.accepts(v.kind) {
		return f.argErr(i, gpu.ErrorInvalidValue, "got %s", v.goType())
	}
	return nil
}

// checkAggregate checks a struct or array passed by value, already known
// to be of the parameter's size: a struct must be aligned as the kernel's
// is; bytes go anywhere.
func (f *Function) checkAggregate(i int, v *argVal) error {
	p := &f.visible[i]
	if !p.agg && p.scalar != anyScalar {
		return f.argErr(i, gpu.ErrorInvalidValue, "got %s, a struct, where the kernel takes a scalar", v.goType())
	}
	if v.lay.bytes {
		return nil
	}
	if p.agg && p.Value != nil && v.typ != p.Value {
		return f.argErr(i, gpu.ErrorInvalidValue, "got %s, the kernel takes %s (or a [%d]byte)", v.goType(), p.Value, p.Size)
	}
	align := uint32(v.lay.align)
	if p.Offset%align != 0 || (p.alignExact && p.Align != 0 && p.Align != align) {
		return f.argErr(i, gpu.ErrorInvalidValue, "got %s aligned to %d bytes, the kernel's parameter is aligned to %d", v.goType(), align, p.Align)
	}
	return nil
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
