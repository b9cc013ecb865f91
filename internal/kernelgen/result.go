package kernelgen

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Result is one package's kernels, translated.
type Result struct {
	Package string // the Go package name
	// Source is one self-contained C++ translation unit (its prelude
	// inline, no #include) that compiles as HIP (clang -x hip, hipRTC) and
	// as CUDA (clang -x cuda, NVRTC), with #line directives naming the Go
	// source.
	Source string
	// BareSlices: the translation passes a slice whose length the kernel
	// never reads as a bare pointer (Param.Len); otherwise every slice
	// carries its length.
	BareSlices bool
	// Files are the Go files a fault record's File indexes.
	Files   []string
	Kernels []Kernel
	// Globals are the //hipgo:constant and //hipgo:device variables, in
	// declaration order: the generated Set declares each (kernel.Var).
	Globals []Global
	// Fset and Info are the loaded package's positions and types, for
	// generators that rewrite a kernel's Go (Kernel.Decl).
	Fset *token.FileSet
	Info *types.Info
	// Lockstep holds every device function (as its origin) that calls
	// SyncThreads, SyncWarp or a warp operation, itself or through others.
	Lockstep map[*types.Func]bool
	// Devices are the device functions the kernels reach (as their
	// origins), with their declarations: the cpu agent's loop fission
	// fissions one that synchronizes as a function of its own.
	Devices map[*types.Func]*ast.FuncDecl
}

// Kernel is one //hipgo:kernel function.
type Kernel struct {
	GoName string // the Go function, e.g. Saxpy
	Name   string // the C symbol, snake_case of GoName: saxpy; the checked variant is Name+"_checked"
	// TypeArgs are the type arguments of this instance of a generic
	// kernel, nil for a kernel without type parameters. Each instance is
	// a Kernel of its own, the instances of one kernel one after another
	// in Result.Kernels with the same GoName and Decl, a Name of their own
	// (scale_float32, pair_int32_float64: the type arguments' names in
	// snake case) and the Params with the type arguments in place.
	TypeArgs []types.Type
	// Ident is the Go identifier the generated Go names this kernel by:
	// GoName, then for an instance its type arguments' names with a
	// capital (ScaleFloat32).
	Ident  string
	Pos    token.Position
	Decl   *ast.FuncDecl // the kernel's declaration, as loaded
	Params []Param       // the Go parameters after the kernel.Thread, in order
	// Lockstep: the kernel calls SyncThreads, SyncWarp or a warp operation,
	// itself or through device functions.
	Lockstep bool
	// StaticShared is the bytes of its kernel.Shared variables, laid out in
	// call order, each aligned to its type's alignment.
	StaticShared int
	// DynamicShared: the kernel calls kernel.DynamicShared; its checked
	// entry point takes `unsigned int hg_dyn_bytes` after the user
	// parameters.
	DynamicShared bool
	// MaxThreads is the kernel's largest block, from `//hipgo:kernel
	// maxthreads=N` (__launch_bounds__(N)); 0: the target's limit.
	MaxThreads int
	// MinBlocks is the blocks of MaxThreads work-items the kernel asks to
	// fit on one multiprocessor at once, from `//hipgo:kernel maxthreads=N
	// minblocks=M` (__launch_bounds__(N, M)); 0: none asked.
	MinBlocks int
	// DynamicSharedLen: the kernel reads the length of a
	// kernel.DynamicShared slice (len, cap, range, s[lo:], a device
	// function that does), so the plain entry point takes hg_dyn_bytes
	// too. Otherwise it does not, which keeps a C kernel's signature
	// (reduce_sum(const float*, float*, int) with extern __shared__).
	DynamicSharedLen bool
}

// ParamKind is how a parameter crosses into the kernel.
type ParamKind int

const (
	Scalar ParamKind = iota // a fixed-size number or bool: one C scalar
	Slice                   // []T: `T* name_p` (const T* when ReadOnly), with `long long name_n` (see Len)
	Struct                  // a struct by value: the C struct of the same name and layout
)

// Param is one kernel parameter.
type Param struct {
	Name string
	Kind ParamKind
	// Type is the parameter's Go type; for a Slice, its element type.
	Type types.Type
	// CType is the C spelling of Type (of the element for a Slice).
	CType string
	// ReadOnly: a Slice the kernel never writes, through any device
	// function either; a const pointer and a read for dependencies.
	ReadOnly bool
	// Len: the kernel reads the Slice's length (len, range, a slice
	// expression without both bounds, a device function that does), so
	// both entry points take `T* name_p, long long name_n`. Otherwise the
	// plain entry point takes the bare pointer, which keeps a C kernel's
	// signature (vector_add(const float*, const float*, float*, int)), and
	// only the checked one takes the length: `long long name_n` after the
	// user parameters and hg_dyn_bytes, for each such slice in order, then
	// hg_f.
	Len bool
}

// A checked kernel writes the first failure of its launch into the
// trailing `hg_fault*` parameter of Name+"_checked", 32 bytes:
//
//	struct hg_fault { unsigned set, kind, line, file; long long index, len; };
//
// The prelude writes it (kinds 1 index, 2 divide, 3 slice, 4 shift) and
// gpu/gokernel reads it; its faultIndex... constants are the one Go copy.
