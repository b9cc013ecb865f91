package hsa

import (
	"fmt"
	"strings"
)

// Segment is hsa_amd_segment_t.
type Segment uint32

// Segments, with hsa_ext_amd.h's values.
const (
	SegmentGlobal   Segment = 0
	SegmentReadOnly Segment = 1
	SegmentPrivate  Segment = 2
	SegmentGroup    Segment = 3
)

func (s Segment) String() string {
	switch s {
	case SegmentGlobal:
		return "global"
	case SegmentReadOnly:
		return "readonly"
	case SegmentPrivate:
		return "private"
	case SegmentGroup:
		return "group"
	}
	return fmt.Sprintf("Segment(%d)", uint32(s))
}

// GlobalFlag is hsa_amd_memory_pool_global_flag_t.
type GlobalFlag uint32

// Global segment flags, with hsa_ext_amd.h's values.
const (
	FlagKernargInit   GlobalFlag = 1
	FlagFineGrained   GlobalFlag = 2
	FlagCoarseGrained GlobalFlag = 4
	FlagExtScopeFine  GlobalFlag = 8
)

func (f GlobalFlag) String() string {
	var parts []string
	if f&FlagKernargInit != 0 {
		parts = append(parts, "KERNARG_INIT")
	}
	if f&FlagFineGrained != 0 {
		parts = append(parts, "FINE_GRAINED")
	}
	if f&FlagCoarseGrained != 0 {
		parts = append(parts, "COARSE_GRAINED")
	}
	if f&FlagExtScopeFine != 0 {
		parts = append(parts, "EXTENDED_SCOPE_FINE_GRAINED")
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, "|")
}

// PoolInfo is what hsa_amd_memory_pool_get_info reports.
type PoolInfo struct {
	Segment      Segment
	Flags        GlobalFlag
	Size         uint64
	Granule      uint64
	Alignment    uint64
	AllocAllowed bool
	// AccessibleByAll: every agent may access the pool's memory by default
	// (hsa_amd_memory_pool_get_info ACCESSIBLE_BY_ALL).
	AccessibleByAll bool
	// Host: the memory is system memory the host may touch (fine-grained
	// host pools).
	Host bool
	// Managed: memory the host and every agent address, with no owner
	// (rocr.Agent.ManagedPool).
	Managed bool
}
