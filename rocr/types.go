package rocr

import (
	"github.com/hipgo/hipgo/rocr/hsa"
	"github.com/hipgo/hipgo/rocr/spi"
)

// The value types that the runtime API and the driver interface share are
// declared in package hsa, with their values and methods; rocr names them
// too, so that a program that only uses the runtime imports only rocr.

// AgentInfo is what an agent reports about itself (see hsa.AgentInfo).
type AgentInfo = hsa.AgentInfo

// GlobalFlag is hsa_amd_memory_pool_global_flag_t.
type GlobalFlag = hsa.GlobalFlag

// WaitHint is hsa_wait_state_t.
type WaitHint = hsa.WaitHint

// Code is one code object to load onto an agent (see hsa.Code).
type Code = hsa.Code

// CodeKind says what a Code holds.
type CodeKind = hsa.CodeKind

// KernelSymbol is one kernel of loaded code (see hsa.KernelSymbol).
type KernelSymbol = hsa.KernelSymbol

// KernelArg is one argument in a kernel's kernarg segment.
type KernelArg = hsa.KernelArg

// Advice is a managed memory hint (hipMemoryAdvise).
type Advice = hsa.Advice

// Executable is code loaded onto an agent (Agent.Load; see spi.Executable).
type Executable = spi.Executable

// Rect is one 2-D or 3-D copy or fill (see spi.Rect and RegisterRect).
type Rect = spi.Rect

// The values of package hsa's enumerations, by their rocr names.
const (
	// hsa.DeviceType
	DeviceCPU = hsa.DeviceCPU
	DeviceGPU = hsa.DeviceGPU
	DeviceDSP = hsa.DeviceDSP

	// hsa.Segment
	SegmentGlobal   = hsa.SegmentGlobal
	SegmentReadOnly = hsa.SegmentReadOnly
	SegmentPrivate  = hsa.SegmentPrivate
	SegmentGroup    = hsa.SegmentGroup

	// hsa.GlobalFlag
	FlagKernargInit   = hsa.FlagKernargInit
	FlagFineGrained   = hsa.FlagFineGrained
	FlagCoarseGrained = hsa.FlagCoarseGrained
	FlagExtScopeFine  = hsa.FlagExtScopeFine

	// hsa.QueueType
	QueueMulti  = hsa.QueueMulti
	QueueSingle = hsa.QueueSingle

	// hsa.Condition
	CondEQ  = hsa.CondEQ
	CondNE  = hsa.CondNE
	CondLT  = hsa.CondLT
	CondGTE = hsa.CondGTE

	// hsa.WaitHint
	WaitBlocked = hsa.WaitBlocked
	WaitActive  = hsa.WaitActive

	// hsa.Order
	Relaxed = hsa.Relaxed
	Acquire = hsa.Acquire
	Release = hsa.Release
	AcqRel  = hsa.AcqRel

	// hsa.CodeKind
	CodeGo     = hsa.CodeGo
	CodeAMDGPU = hsa.CodeAMDGPU
	CodePTX    = hsa.CodePTX
	CodeCubin  = hsa.CodeCubin
	CodeNone   = hsa.CodeNone

	// hsa.ArgKind
	ArgByValue              = hsa.ArgByValue
	ArgGlobalBuffer         = hsa.ArgGlobalBuffer
	ArgDynamicSharedPointer = hsa.ArgDynamicSharedPointer
	ArgHidden               = hsa.ArgHidden
	ArgOther                = hsa.ArgOther

	// hsa.Advice
	AdviseSetReadMostly          = hsa.AdviseSetReadMostly
	AdviseUnsetReadMostly        = hsa.AdviseUnsetReadMostly
	AdviseSetPreferredLocation   = hsa.AdviseSetPreferredLocation
	AdviseUnsetPreferredLocation = hsa.AdviseUnsetPreferredLocation
	AdviseSetAccessedBy          = hsa.AdviseSetAccessedBy
	AdviseUnsetAccessedBy        = hsa.AdviseUnsetAccessedBy
)
