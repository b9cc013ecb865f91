package rocr

import (
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// The value types that the runtime API and the driver interface share are
// declared in package hsa, with their values and methods, and a program
// names them there (hsa.AgentInfo, hsa.Status, hsa.Error); their values
// (StatusX, CondEQ, SegmentGlobal, ...) are hsa's alone, as hsa.h's
// enumerations are the header's and not the runtime's. The names below
// remain for the code loading path and its tests, which still spell them
// rocr.X; they go once those do.

// GlobalFlag is hsa_amd_memory_pool_global_flag_t.
type GlobalFlag = hsa.GlobalFlag

// Code is one code object to load onto an agent (see hsa.Code).
type Code = hsa.Code

// CodeKind says what a Code holds.
type CodeKind = hsa.CodeKind

// KernelSymbol is one kernel of loaded code (see hsa.KernelSymbol).
type KernelSymbol = hsa.KernelSymbol

// KernelArg is one argument in a kernel's kernarg segment.
type KernelArg = hsa.KernelArg

// Executable is code loaded onto an agent (Agent.Load; see spi.Executable).
type Executable = spi.Executable
