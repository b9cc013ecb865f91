package rocr

import (
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// The value types that the runtime API and the driver interface share are
// declared in package hsa, with their values and methods. rocr names the
// types, so that its signatures read on their own; their values (StatusX,
// CondEQ, SegmentGlobal, ...) are hsa's alone, as hsa.h's enumerations are
// the header's and not the runtime's.

// AgentInfo is what an agent reports about itself (see hsa.AgentInfo).
type AgentInfo = hsa.AgentInfo

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
