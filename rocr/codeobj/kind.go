package codeobj

// ValueKind is the .value_kind of a kernel argument in AMDGPU metadata.
// Kinds this package does not know are KindUnknown, with the text kept in
// Arg.KindName.
type ValueKind uint8

const (
	KindUnknown ValueKind = iota
	KindByValue
	KindGlobalBuffer
	KindDynamicSharedPointer
	KindImage
	KindSampler
	KindPipe
	KindQueue
	KindHiddenGlobalOffsetX
	KindHiddenGlobalOffsetY
	KindHiddenGlobalOffsetZ
	KindHiddenNone
	KindHiddenPrintfBuffer
	KindHiddenHostcallBuffer
	KindHiddenDefaultQueue
	KindHiddenCompletionAction
	KindHiddenMultigridSyncArg
	KindHiddenBlockCountX
	KindHiddenBlockCountY
	KindHiddenBlockCountZ
	KindHiddenGroupSizeX
	KindHiddenGroupSizeY
	KindHiddenGroupSizeZ
	KindHiddenRemainderX
	KindHiddenRemainderY
	KindHiddenRemainderZ
	KindHiddenGridDims
	KindHiddenHeapV1
	KindHiddenDynamicLDSSize
	KindHiddenPrivateBase
	KindHiddenSharedBase
	KindHiddenQueuePtr
	numKinds
)

var kindNames = [numKinds]string{
	KindUnknown:                "unknown",
	KindByValue:                "by_value",
	KindGlobalBuffer:           "global_buffer",
	KindDynamicSharedPointer:   "dynamic_shared_pointer",
	KindImage:                  "image",
	KindSampler:                "sampler",
	KindPipe:                   "pipe",
	KindQueue:                  "queue",
	KindHiddenGlobalOffsetX:    "hidden_global_offset_x",
	KindHiddenGlobalOffsetY:    "hidden_global_offset_y",
	KindHiddenGlobalOffsetZ:    "hidden_global_offset_z",
	KindHiddenNone:             "hidden_none",
	KindHiddenPrintfBuffer:     "hidden_printf_buffer",
	KindHiddenHostcallBuffer:   "hidden_hostcall_buffer",
	KindHiddenDefaultQueue:     "hidden_default_queue",
	KindHiddenCompletionAction: "hidden_completion_action",
	KindHiddenMultigridSyncArg: "hidden_multigrid_sync_arg",
	KindHiddenBlockCountX:      "hidden_block_count_x",
	KindHiddenBlockCountY:      "hidden_block_count_y",
	KindHiddenBlockCountZ:      "hidden_block_count_z",
	KindHiddenGroupSizeX:       "hidden_group_size_x",
	KindHiddenGroupSizeY:       "hidden_group_size_y",
	KindHiddenGroupSizeZ:       "hidden_group_size_z",
	KindHiddenRemainderX:       "hidden_remainder_x",
	KindHiddenRemainderY:       "hidden_remainder_y",
	KindHiddenRemainderZ:       "hidden_remainder_z",
	KindHiddenGridDims:         "hidden_grid_dims",
	KindHiddenHeapV1:           "hidden_heap_v1",
	KindHiddenDynamicLDSSize:   "hidden_dynamic_lds_size",
	KindHiddenPrivateBase:      "hidden_private_base",
	KindHiddenSharedBase:       "hidden_shared_base",
	KindHiddenQueuePtr:         "hidden_queue_ptr",
}

var kindByName = func() map[string]ValueKind {
	m := make(map[string]ValueKind, numKinds)
	for k, n := range kindNames {
		m[n] = ValueKind(k)
	}
	delete(m, "unknown")
	return m
}()

// ParseValueKind maps metadata text onto a ValueKind; unknown text gives
// KindUnknown.
func ParseValueKind(s string) ValueKind { return kindByName[s] }

// String returns the metadata spelling ("global_buffer").
func (k ValueKind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return "unknown"
}

// Hidden reports whether the runtime, not the caller, supplies the
// argument. Unknown kinds starting with "hidden_" are reported through
// Arg.Hidden instead.
func (k ValueKind) Hidden() bool { return k >= KindHiddenGlobalOffsetX && k < numKinds }
