package module

import (
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/hipgo/hipgo/gpu"
	"github.com/hipgo/hipgo/gpu/internal/core"
	"github.com/hipgo/hipgo/rocr/codeobj"
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// Function is a kernel of a module (hipFunction_t).
type Function struct {
	mod      *Module
	sym      hsa.KernelSymbol
	visible  []param
	hidden   *codeobj.Kernel
	printf   uint32 // core.Dispatch.Printf: 1 + hidden_printf_buffer's offset, or 0
	maxBlock int
	// The device's limits, cached so a launch does not copy Properties.
	maxDim    [3]int
	maxGrid   [3]int
	sharedMax int // the device's opt-in limit of static and dynamic shared memory
	// sharedBlock is the device's per-block limit (SharedMemPerBlock);
	// dynMax the dynamic shared memory f may ask beyond it, once raised
	// (SetMaxDynamicSharedMemory), or 0.
	sharedBlock int
	dynMax      atomic.Int64
	// kernargMax is the largest kernarg segment the device takes.
	kernargMax uint32
	// clusterMax is the device's portable cluster size, 0 without
	// clusters; nonPortable: the kernel may exceed it (cluster.go).
	clusterMax  int
	nonPortable atomic.Bool
}

// param is one argument the caller passes, with what it accepts.
type param struct {
	hsa.KernelArg
	scalar scalarKind // the Go scalar a by-value argument wants, if known
	// agg: the kernel takes a struct or array by value here. alignExact:
	// the signature states its alignment (PTX .align, a Go kernel), rather
	// than the loader estimating it from the size.
	agg, alignExact bool
}

// aggregateParam tells a struct parameter from a scalar one.
func aggregateParam(a *hsa.KernelArg) (agg, alignExact bool) {
	if a.Kind != hsa.ArgByValue {
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

func newFunction(m *Module, sym hsa.KernelSymbol) *Function {
	f := &Function{mod: m, sym: sym}
	for _, a := range sym.Args {
		if a.Kind == hsa.ArgHidden {
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
	f.sharedBlock = props.SharedMemPerBlock
	f.maxBlock = props.MaxThreadsPerBlock
	info := m.dev.Agent().Info()
	f.kernargMax = spi.KernargSlotSize
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
func (f *Function) valid(op string) error { return f.validAs(op, gpu.ErrInvalidDeviceFunction) }

func (f *Function) validAs(op string, code gpu.ErrorCode) error {
	if f == nil {
		return gpu.Errorf(code, op, "nil function")
	}
	if f.mod == nil {
		return gpu.Errorf(code, op, "function not made by Module.Function (a zero Function)")
	}
	return nil
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

// Attributes are hipFuncGetAttributes' fields (hipFuncAttributes).
type Attributes struct {
	MaxThreadsPerBlock int
	SharedSizeBytes    int // static group memory
	PrivateSizeBytes   int // localSizeBytes: private (scratch) memory per thread
	// MaxDynamicSharedSizeBytes is the dynamic shared memory a launch may
	// ask (Function.SetMaxDynamicSharedMemory raises it).
	MaxDynamicSharedSizeBytes int
	// NumRegs is the registers a thread uses: the kernel's VGPRs on AMD
	// (as HIP reports), cuFuncGetAttribute's on cuda, 0 on the cpu agent.
	NumRegs int
	// PTXVersion and BinaryVersion are major*10+minor: on cuda the PTX
	// and SASS versions the driver reports; on AMD, as HIP reports there,
	// 30 and the code object version; 0 on the cpu agent.
	PTXVersion, BinaryVersion int
	ConstSizeBytes            int  // constant memory the kernel declares (cuda; 0 elsewhere, as HIP on AMD)
	CacheModeCA               bool // compiled with -Xptxas --dlcm=ca; always false, as in HIP
	KernargSize               int
	NumArgs                   int
	Args                      []hsa.KernelArg // the arguments a caller passes
}

// Attributes describes the kernel; zero for a nil function (FuncGetAttributes
// says hipErrorInvalidDeviceFunction).
func (f *Function) Attributes() Attributes {
	if f == nil {
		return Attributes{}
	}
	a := Attributes{
		MaxThreadsPerBlock:        f.maxBlock,
		SharedSizeBytes:           int(f.sym.GroupSegmentSize),
		PrivateSizeBytes:          int(f.sym.PrivateSegmentSize),
		MaxDynamicSharedSizeBytes: f.maxDynamicShared(),
		NumRegs:                   int(f.sym.Registers),
		PTXVersion:                f.sym.PTXVersion,
		BinaryVersion:             f.sym.BinaryVersion,
		ConstSizeBytes:            f.sym.ConstSize,
		KernargSize:               int(f.sym.KernargSize),
		NumArgs:                   len(f.visible),
	}
	if k, ok := f.sym.Meta.(*codeobj.Kernel); ok && f.sym.CodeObjectVersion > 0 {
		a.NumRegs, a.PTXVersion, a.BinaryVersion = int(k.VGPRCount), 30, f.sym.CodeObjectVersion
	}
	for _, p := range f.visible {
		a.Args = append(a.Args, p.KernelArg)
	}
	return a
}

// FuncGetAttributes is hipFuncGetAttributes: f's attributes, or
// ErrInvalidDeviceFunction for a nil function or one whose module was
// unloaded.
func FuncGetAttributes(f *Function) (Attributes, error) {
	const op = "func get attributes"
	if err := f.valid(op); err != nil {
		return Attributes{}, err
	}
	if err := f.gone(op); err != nil {
		return Attributes{}, &gpu.Error{Code: gpu.ErrInvalidDeviceFunction, Op: op, Err: err}
	}
	return f.Attributes(), nil
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
	case hsa.ArgGlobalBuffer:
		if p.Elem != nil {
			return p.Elem.String() + "*"
		}
		if p.TypeName != "" {
			return p.TypeName
		}
		return "pointer"
	case hsa.ArgOther:
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
