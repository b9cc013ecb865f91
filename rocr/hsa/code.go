package hsa

import (
	"fmt"
	"reflect"
)

// CodeKind says what a Code holds.
type CodeKind uint8

// Code kinds.
const (
	CodeGo     CodeKind = iota // Go kernels for the cpu agent
	CodeAMDGPU                 // an AMDGPU ELF code object
	CodePTX                    // NVIDIA PTX text
	CodeCubin                  // an NVIDIA cubin for one SM
)

// CodeNone is the kind of no code: what a nil or zero module reports.
// The zero CodeKind is CodeGo, a real kind, so this one is set apart at
// the top of the range.
const CodeNone CodeKind = 255

func (k CodeKind) String() string {
	switch k {
	case CodeGo:
		return "go"
	case CodeAMDGPU:
		return "amdgpu"
	case CodePTX:
		return "ptx"
	case CodeCubin:
		return "cubin"
	case CodeNone:
		return "none"
	}
	return fmt.Sprintf("CodeKind(%d)", uint8(k))
}

// Code is one code object to load onto an agent.
type Code struct {
	Kind   CodeKind
	Name   string // for errors: file or set name
	Target string // "go", "sm_90", "gfx90a:xnack-"
	Data   []byte // ELF bytes or PTX text
	// Kernels describes the kernels the code holds (from metadata, PTX
	// params, or Go declarations). Drivers fill Object when loading.
	Kernels []KernelSymbol
	// Go is driver-specific content for CodeGo (the cpu driver's kernels).
	Go any
}

// ArgKind classifies a kernel argument.
type ArgKind uint8

// Argument kinds (a subset of the code object's .value_kind).
const (
	ArgByValue ArgKind = iota
	ArgGlobalBuffer
	ArgDynamicSharedPointer
	ArgHidden
	ArgOther
)

func (k ArgKind) String() string {
	switch k {
	case ArgByValue:
		return "by_value"
	case ArgGlobalBuffer:
		return "global_buffer"
	case ArgDynamicSharedPointer:
		return "dynamic_shared_pointer"
	case ArgHidden:
		return "hidden"
	}
	return "other"
}

// KernelArg is one argument in a kernel's kernarg segment.
type KernelArg struct {
	Name      string
	TypeName  string // source type where known: "float*", "int"
	Offset    uint32
	Size      uint32
	Align     uint32
	Kind      ArgKind
	ValueKind string // the code object's .value_kind, e.g. "hidden_block_count_x"
	// Elem is a pointer argument's element type and Value a by-value
	// argument's Go type, where the kernel declares them (Go kernels).
	Elem  reflect.Type
	Value reflect.Type
	// ReadOnly: the kernel only reads through this pointer (metadata
	// .is_const or .access read_only, rocr.ConstPtr in Go kernels).
	ReadOnly bool
}

// KernelSymbol is a loaded kernel: its kernel object handle for the
// dispatch packet and its signature for checking launches.
type KernelSymbol struct {
	Name                 string
	Object               uint64
	KernargSize          uint32
	KernargAlign         uint32
	GroupSegmentSize     uint32 // static group memory, bytes
	PrivateSegmentSize   uint32
	MaxFlatWorkGroupSize int
	Wavefront            int
	CodeObjectVersion    int // 4, 5, 6 for AMDGPU; 0 otherwise
	// Registers is the registers a work-item uses: the VGPRs of an AMDGPU
	// kernel (.vgpr_count), NUM_REGS of a loaded CUDA function; 0 where
	// nothing says (PTX before it is loaded, Go kernels).
	Registers uint32
	Args      []KernelArg
	// Meta is the parsed metadata the loader may need (hidden arguments).
	Meta any
	// What the driver reports of the compiled kernel, where it does
	// (cuda: cuFuncGetAttribute): the PTX and binary versions
	// (major*10+minor) and constant memory bytes.
	PTXVersion, BinaryVersion, ConstSize int
}

// Visible returns the arguments a caller passes (not hidden ones).
func (k *KernelSymbol) Visible() []KernelArg {
	var out []KernelArg
	for _, a := range k.Args {
		if a.Kind != ArgHidden {
			out = append(out, a)
		}
	}
	return out
}
