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

// DeviceType is hsa_device_type_t.
type DeviceType = hsa.DeviceType

// DeviceType values, as hsa declares them.
const (
	DeviceCPU = hsa.DeviceCPU
	DeviceGPU = hsa.DeviceGPU
	DeviceDSP = hsa.DeviceDSP
)

// PoolInfo describes a memory pool (see hsa.PoolInfo).
type PoolInfo = hsa.PoolInfo

// Segment is hsa_amd_segment_t.
type Segment = hsa.Segment

// Segment values, as hsa declares them.
const (
	SegmentGlobal   = hsa.SegmentGlobal
	SegmentReadOnly = hsa.SegmentReadOnly
	SegmentPrivate  = hsa.SegmentPrivate
	SegmentGroup    = hsa.SegmentGroup
)

// GlobalFlag is hsa_amd_memory_pool_global_flag_t.
type GlobalFlag = hsa.GlobalFlag

// GlobalFlag values, as hsa declares them.
const (
	FlagKernargInit   = hsa.FlagKernargInit
	FlagFineGrained   = hsa.FlagFineGrained
	FlagCoarseGrained = hsa.FlagCoarseGrained
	FlagExtScopeFine  = hsa.FlagExtScopeFine
)

// QueueType is hsa_queue_type_t.
type QueueType = hsa.QueueType

// QueueType values, as hsa declares them.
const (
	QueueMulti  = hsa.QueueMulti
	QueueSingle = hsa.QueueSingle
)

// Condition is hsa_signal_condition_t.
type Condition = hsa.Condition

// Condition values, as hsa declares them.
const (
	CondEQ  = hsa.CondEQ
	CondNE  = hsa.CondNE
	CondLT  = hsa.CondLT
	CondGTE = hsa.CondGTE
)

// WaitHint is hsa_wait_state_t.
type WaitHint = hsa.WaitHint

// WaitHint values, as hsa declares them.
const (
	WaitBlocked = hsa.WaitBlocked
	WaitActive  = hsa.WaitActive
)

// Order is a memory order for signal operations.
type Order = hsa.Order

// Order values, as hsa declares them.
const (
	Relaxed = hsa.Relaxed
	Acquire = hsa.Acquire
	Release = hsa.Release
	AcqRel  = hsa.AcqRel
)

// Code is one code object to load onto an agent (see hsa.Code).
type Code = hsa.Code

// CodeKind says what a Code holds.
type CodeKind = hsa.CodeKind

// CodeKind values, as hsa declares them.
const (
	CodeGo     = hsa.CodeGo
	CodeAMDGPU = hsa.CodeAMDGPU
	CodePTX    = hsa.CodePTX
	CodeCubin  = hsa.CodeCubin
	CodeNone   = hsa.CodeNone
)

// KernelSymbol is one kernel of loaded code (see hsa.KernelSymbol).
type KernelSymbol = hsa.KernelSymbol

// KernelArg is one argument in a kernel's kernarg segment.
type KernelArg = hsa.KernelArg

// ArgKind classifies a kernel argument.
type ArgKind = hsa.ArgKind

// ArgKind values, as hsa declares them.
const (
	ArgByValue              = hsa.ArgByValue
	ArgGlobalBuffer         = hsa.ArgGlobalBuffer
	ArgDynamicSharedPointer = hsa.ArgDynamicSharedPointer
	ArgHidden               = hsa.ArgHidden
	ArgOther                = hsa.ArgOther
)

// Advice is a managed memory hint (hipMemoryAdvise).
type Advice = hsa.Advice

// Advice values, as hsa declares them.
const (
	AdviseSetReadMostly          = hsa.AdviseSetReadMostly
	AdviseUnsetReadMostly        = hsa.AdviseUnsetReadMostly
	AdviseSetPreferredLocation   = hsa.AdviseSetPreferredLocation
	AdviseUnsetPreferredLocation = hsa.AdviseUnsetPreferredLocation
	AdviseSetAccessedBy          = hsa.AdviseSetAccessedBy
	AdviseUnsetAccessedBy        = hsa.AdviseUnsetAccessedBy
)

// Executable is code loaded onto an agent (Agent.Load; see spi.Executable).
type Executable = spi.Executable

// Rect is one 2-D or 3-D copy or fill (see spi.Rect and RegisterRect).
type Rect = spi.Rect
