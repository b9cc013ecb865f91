package rocm

import (
	"fmt"
	"testing"

	"github.com/hipgo/hipgo/internal/cabitest"
	"github.com/hipgo/hipgo/rocr/hsa"
)

var abiHeaders = cabitest.Program{Headers: []string{"hsa/hsa.h", "hsa/hsa_ext_amd.h", "hsa/amd_hsa_queue.h"}}

// TestABI checks every value, size and offset the driver relies on against
// Debian's libhsa-runtime-dev headers (HIPGO_REQUIRE=hsa makes a missing
// compiler or header a failure).
func TestABI(t *testing.T) {
	t.Parallel()
	want := map[string]int64{
		"HSA_STATUS_SUCCESS":    int64(hsaSuccess),
		"HSA_STATUS_INFO_BREAK": int64(hsaInfoBreak),

		"HSA_SYSTEM_INFO_VERSION_MAJOR":       sysVersionMajor,
		"HSA_SYSTEM_INFO_VERSION_MINOR":       sysVersionMinor,
		"HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY": sysTimestampFrequency,

		"HSA_AMD_SYSTEM_INFO_SVM_SUPPORTED":             sysSVMSupported,
		"HSA_AMD_SYSTEM_INFO_SVM_ACCESSIBLE_BY_DEFAULT": sysSVMAccessDefault,
		"HSA_AMD_SVM_ATTRIB_GLOBAL_FLAG":                svmAttribGlobalFlag,
		"HSA_AMD_SVM_ATTRIB_PREFERRED_LOCATION":         svmAttribPreferredLocation,
		"HSA_AMD_SVM_ATTRIB_READ_MOSTLY":                svmAttribReadMostly,
		"HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE":           svmAttribAgentAccessible,
		"HSA_AMD_SVM_ATTRIB_AGENT_ACCESSIBLE_IN_PLACE":  svmAttribAccessibleInPlace,
		"HSA_AMD_SVM_GLOBAL_FLAG_COARSE_GRAINED":        svmGlobalFlagCoarseGrained,
		"HSA_AMD_SIGNAL_IPC":                            signalAttrIPC,
		"hsaHostToDevice":                               copyHostToDevice,
		"hsaDeviceToHost":                               copyDeviceToHost,
		"hsaDeviceToDevice":                             copyDeviceToDevice,
		"sizeof(hsa_pitched_ptr_t)":                     24,
		"offsetof(hsa_pitched_ptr_t, pitch)":            8,
		"offsetof(hsa_pitched_ptr_t, slice)":            16,
		"sizeof(hsa_amd_svm_attribute_pair_t)":          16,
		"offsetof(hsa_amd_svm_attribute_pair_t, value)": 8,
		"sizeof(hsa_amd_ipc_memory_t)":                  ipcHBytes,

		"HSA_AGENT_INFO_NAME":               agentName,
		"HSA_AGENT_INFO_VENDOR_NAME":        agentVendor,
		"HSA_AGENT_INFO_FEATURE":            agentFeature,
		"HSA_AGENT_INFO_WAVEFRONT_SIZE":     agentWavefrontSize,
		"HSA_AGENT_INFO_WORKGROUP_MAX_DIM":  agentWGMaxDim,
		"HSA_AGENT_INFO_WORKGROUP_MAX_SIZE": agentWGMaxSize,
		"HSA_AGENT_INFO_GRID_MAX_DIM":       agentGridMaxDim,
		"HSA_AGENT_INFO_GRID_MAX_SIZE":      agentGridMaxSize,
		"HSA_AGENT_INFO_QUEUES_MAX":         agentQueuesMax,
		"HSA_AGENT_INFO_QUEUE_MIN_SIZE":     agentQueueMinSize,
		"HSA_AGENT_INFO_QUEUE_MAX_SIZE":     agentQueueMaxSize,
		"HSA_AGENT_INFO_NODE":               agentNode,
		"HSA_AGENT_INFO_DEVICE":             agentDevice,
		"HSA_AGENT_INFO_CACHE_SIZE":         agentCacheSize,
		"HSA_AGENT_FEATURE_KERNEL_DISPATCH": featureKernelDispatch,

		"HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT":   amdComputeUnitCount,
		"HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY":  amdMaxClockMHz,
		"HSA_AMD_AGENT_INFO_BDFID":                amdBDFID,
		"HSA_AMD_AGENT_INFO_MEMORY_WIDTH":         amdMemoryWidth,
		"HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY": amdMemoryMaxMHz,
		"HSA_AMD_AGENT_INFO_PRODUCT_NAME":         amdProductName,
		"HSA_AMD_AGENT_INFO_DOMAIN":               amdDomain,
		"HSA_AMD_AGENT_INFO_UUID":                 amdUUID,

		"HSA_ISA_INFO_NAME_LENGTH": isaNameLength,
		"HSA_ISA_INFO_NAME":        isaName,

		"HSA_AMD_MEMORY_POOL_INFO_SEGMENT":                 poolSegment,
		"HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS":            poolGlobalFlags,
		"HSA_AMD_MEMORY_POOL_INFO_SIZE":                    poolSize,
		"HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED":   poolAllocAllowed,
		"HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE":   poolAllocGranule,
		"HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALIGNMENT": poolAllocAlignment,
		"HSA_AMD_MEMORY_POOL_INFO_ACCESSIBLE_BY_ALL":       poolAccessibleByAll,
		"HSA_AMD_AGENT_MEMORY_POOL_INFO_ACCESS":            agentPoolAccess,
		"HSA_AMD_MEMORY_POOL_ACCESS_NEVER_ALLOWED":         accessNeverAllowed,
		"HSA_AMD_MEMORY_POOL_ACCESS_ALLOWED_BY_DEFAULT":    accessAllowedDefault,
		"HSA_AMD_MEMORY_POOL_ACCESS_DISALLOWED_BY_DEFAULT": accessDisallowDefault,

		"HSA_AMD_SEGMENT_GLOBAL":                         int64(hsa.SegmentGlobal),
		"HSA_AMD_SEGMENT_READONLY":                       int64(hsa.SegmentReadOnly),
		"HSA_AMD_SEGMENT_PRIVATE":                        int64(hsa.SegmentPrivate),
		"HSA_AMD_SEGMENT_GROUP":                          int64(hsa.SegmentGroup),
		"HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT":   int64(hsa.FlagKernargInit),
		"HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED":   int64(hsa.FlagFineGrained),
		"HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED": int64(hsa.FlagCoarseGrained),

		"HSA_DEVICE_TYPE_CPU":                     int64(hsa.DeviceCPU),
		"HSA_DEVICE_TYPE_GPU":                     int64(hsa.DeviceGPU),
		"HSA_DEVICE_TYPE_DSP":                     int64(hsa.DeviceDSP),
		"HSA_QUEUE_TYPE_MULTI":                    int64(hsa.QueueMulti),
		"HSA_QUEUE_TYPE_SINGLE":                   int64(hsa.QueueSingle),
		"HSA_SIGNAL_CONDITION_EQ":                 int64(hsa.CondEQ),
		"HSA_SIGNAL_CONDITION_NE":                 int64(hsa.CondNE),
		"HSA_SIGNAL_CONDITION_LT":                 int64(hsa.CondLT),
		"HSA_SIGNAL_CONDITION_GTE":                int64(hsa.CondGTE),
		"HSA_WAIT_STATE_BLOCKED":                  int64(hsa.WaitBlocked),
		"HSA_WAIT_STATE_ACTIVE":                   int64(hsa.WaitActive),
		"HSA_PROFILE_FULL":                        profileFull,
		"HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT": roundingDefault,

		"HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT":                    symKernelObject,
		"HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE":      symKernargSize,
		"HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT": symKernargAlign,
		"HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE":        symGroupSize,
		"HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE":      symPrivateSize,
		"HSA_EXECUTABLE_SYMBOL_INFO_TYPE":                             symType,
		"HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS":                 symVariableAddr,
		"HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE":                    symVariableSize,
		"HSA_SYMBOL_KIND_VARIABLE":                                    symKindVariable,

		// The queue: hsa_queue_t leads amd_queue_t, whose dispatch ids are
		// the indexes rocr reserves and reads.
		"sizeof(hsa_queue_t)":                          40,
		"offsetof(hsa_queue_t, type)":                  0,
		"offsetof(hsa_queue_t, base_address)":          hsaQueueBase,
		"offsetof(hsa_queue_t, doorbell_signal)":       hsaQueueDoorbell,
		"offsetof(hsa_queue_t, size)":                  hsaQueueSize,
		"offsetof(hsa_queue_t, id)":                    hsaQueueID,
		"sizeof(((hsa_queue_t*)0)->size)":              4,
		"sizeof(((hsa_queue_t*)0)->id)":                8,
		"sizeof(((hsa_queue_t*)0)->base_address)":      8,
		"offsetof(amd_queue_t, hsa_queue)":             0,
		"offsetof(amd_queue_t, write_dispatch_id)":     amdQueueWriteDispatchID,
		"offsetof(amd_queue_t, read_dispatch_id)":      amdQueueReadDispatchID,
		"sizeof(((amd_queue_t*)0)->write_dispatch_id)": 8,
		"sizeof(((amd_queue_t*)0)->read_dispatch_id)":  8,
		"sizeof(amd_queue_t)":                          amdQueueBytes,

		// Handles are one uint64 passed by value; attribute buffers.
		"sizeof(hsa_agent_t)":                                  8,
		"sizeof(hsa_signal_t)":                                 8,
		"sizeof(hsa_isa_t)":                                    8,
		"sizeof(hsa_amd_memory_pool_t)":                        8,
		"sizeof(hsa_executable_t)":                             8,
		"sizeof(hsa_executable_symbol_t)":                      8,
		"sizeof(hsa_code_object_reader_t)":                     8,
		"sizeof(hsa_signal_value_t)":                           8,
		"sizeof(hsa_status_t)":                                 4,
		"sizeof(hsa_dim3_t)":                                   12,
		"sizeof(hsa_device_type_t)":                            4,
		"sizeof(hsa_amd_segment_t)":                            4,
		"sizeof(hsa_amd_memory_pool_access_t)":                 4,
		"sizeof(size_t)":                                       8,
		"sizeof(bool)":                                         1,
		"sizeof(hsa_amd_profiling_dispatch_time_t)":            16,
		"offsetof(hsa_amd_profiling_dispatch_time_t, start)":   0,
		"offsetof(hsa_amd_profiling_dispatch_time_t, end)":     8,
		"sizeof(hsa_amd_profiling_async_copy_time_t)":          16,
		"offsetof(hsa_amd_profiling_async_copy_time_t, start)": 0,
		"offsetof(hsa_amd_profiling_async_copy_time_t, end)":   8,
	}
	exprs := make([]string, 0, len(want))
	for e := range want {
		exprs = append(exprs, e)
	}
	got := abiHeaders.Eval(t, exprs)
	for _, e := range exprs {
		if got[e] != want[e] {
			t.Errorf("%s: the driver has %d, the headers say %d", e, want[e], got[e])
		}
	}
	t.Logf("checked %d values against the headers", len(exprs))
}

// prototypes are the C types of the functions lib calls, as lib.go passes
// their arguments: a changed prototype fails here, not on a GPU.
var prototypes = map[string]string{
	"hsa_init":                                  "hsa_status_t(void)",
	"hsa_shut_down":                             "hsa_status_t(void)",
	"hsa_status_string":                         "hsa_status_t(hsa_status_t, const char**)",
	"hsa_system_get_info":                       "hsa_status_t(hsa_system_info_t, void*)",
	"hsa_iterate_agents":                        "hsa_status_t(hsa_status_t (*)(hsa_agent_t, void*), void*)",
	"hsa_agent_get_info":                        "hsa_status_t(hsa_agent_t, hsa_agent_info_t, void*)",
	"hsa_agent_iterate_isas":                    "hsa_status_t(hsa_agent_t, hsa_status_t (*)(hsa_isa_t, void*), void*)",
	"hsa_isa_get_info_alt":                      "hsa_status_t(hsa_isa_t, hsa_isa_info_t, void*)",
	"hsa_amd_agent_iterate_memory_pools":        "hsa_status_t(hsa_agent_t, hsa_status_t (*)(hsa_amd_memory_pool_t, void*), void*)",
	"hsa_amd_memory_pool_get_info":              "hsa_status_t(hsa_amd_memory_pool_t, hsa_amd_memory_pool_info_t, void*)",
	"hsa_amd_agent_memory_pool_get_info":        "hsa_status_t(hsa_agent_t, hsa_amd_memory_pool_t, hsa_amd_agent_memory_pool_info_t, void*)",
	"hsa_amd_memory_pool_allocate":              "hsa_status_t(hsa_amd_memory_pool_t, size_t, uint32_t, void**)",
	"hsa_amd_memory_pool_free":                  "hsa_status_t(void*)",
	"hsa_amd_agents_allow_access":               "hsa_status_t(uint32_t, const hsa_agent_t*, const uint32_t*, const void*)",
	"hsa_signal_create":                         "hsa_status_t(hsa_signal_value_t, uint32_t, const hsa_agent_t*, hsa_signal_t*)",
	"hsa_signal_destroy":                        "hsa_status_t(hsa_signal_t)",
	"hsa_signal_load_scacquire":                 "hsa_signal_value_t(hsa_signal_t)",
	"hsa_signal_store_screlease":                "void(hsa_signal_t, hsa_signal_value_t)",
	"hsa_signal_add_scacq_screl":                "void(hsa_signal_t, hsa_signal_value_t)",
	"hsa_signal_cas_scacq_screl":                "hsa_signal_value_t(hsa_signal_t, hsa_signal_value_t, hsa_signal_value_t)",
	"hsa_signal_exchange_scacq_screl":           "hsa_signal_value_t(hsa_signal_t, hsa_signal_value_t)",
	"hsa_signal_wait_scacquire":                 "hsa_signal_value_t(hsa_signal_t, hsa_signal_condition_t, hsa_signal_value_t, uint64_t, hsa_wait_state_t)",
	"hsa_queue_create":                          "hsa_status_t(hsa_agent_t, uint32_t, hsa_queue_type32_t, void (*)(hsa_status_t, hsa_queue_t*, void*), void*, uint32_t, uint32_t, hsa_queue_t**)",
	"hsa_queue_destroy":                         "hsa_status_t(hsa_queue_t*)",
	"hsa_amd_profiling_set_profiler_enabled":    "hsa_status_t(hsa_queue_t*, int)",
	"hsa_amd_profiling_async_copy_enable":       "hsa_status_t(bool)",
	"hsa_amd_profiling_get_dispatch_time":       "hsa_status_t(hsa_agent_t, hsa_signal_t, hsa_amd_profiling_dispatch_time_t*)",
	"hsa_amd_profiling_get_async_copy_time":     "hsa_status_t(hsa_signal_t, hsa_amd_profiling_async_copy_time_t*)",
	"hsa_amd_memory_async_copy":                 "hsa_status_t(void*, hsa_agent_t, const void*, hsa_agent_t, size_t, uint32_t, const hsa_signal_t*, hsa_signal_t)",
	"hsa_amd_memory_fill":                       "hsa_status_t(void*, uint32_t, size_t)",
	"hsa_code_object_reader_create_from_memory": "hsa_status_t(const void*, size_t, hsa_code_object_reader_t*)",
	"hsa_code_object_reader_destroy":            "hsa_status_t(hsa_code_object_reader_t)",
	"hsa_executable_create_alt":                 "hsa_status_t(hsa_profile_t, hsa_default_float_rounding_mode_t, const char*, hsa_executable_t*)",
	"hsa_executable_load_agent_code_object":     "hsa_status_t(hsa_executable_t, hsa_agent_t, hsa_code_object_reader_t, const char*, hsa_loaded_code_object_t*)",
	"hsa_executable_freeze":                     "hsa_status_t(hsa_executable_t, const char*)",
	"hsa_executable_get_symbol_by_name":         "hsa_status_t(hsa_executable_t, const char*, const hsa_agent_t*, hsa_executable_symbol_t*)",
	"hsa_executable_symbol_get_info":            "hsa_status_t(hsa_executable_symbol_t, hsa_executable_symbol_info_t, void*)",
	"hsa_executable_destroy":                    "hsa_status_t(hsa_executable_t)",
	"hsa_amd_ipc_memory_create":                 "hsa_status_t(void*, size_t, hsa_amd_ipc_memory_t*)",
	"hsa_amd_ipc_memory_attach":                 "hsa_status_t(const hsa_amd_ipc_memory_t*, size_t, uint32_t, const hsa_agent_t*, void**)",
	"hsa_amd_ipc_memory_detach":                 "hsa_status_t(void*)",
	"hsa_amd_signal_create":                     "hsa_status_t(hsa_signal_value_t, uint32_t, const hsa_agent_t*, uint64_t, hsa_signal_t*)",
	"hsa_amd_ipc_signal_create":                 "hsa_status_t(hsa_signal_t, hsa_amd_ipc_signal_t*)",
	"hsa_amd_ipc_signal_attach":                 "hsa_status_t(const hsa_amd_ipc_signal_t*, hsa_signal_t*)",
}

// TestPrototypes checks, with the compiler's type compatibility, that each
// function lib resolves has the prototype lib.go calls it with, and that
// every enum passed as a uint32 is 4 bytes.
func TestPrototypes(t *testing.T) {
	t.Parallel()
	var l lib
	var exprs []string
	for _, s := range append(l.symbols(), l.optional()...) {
		p, ok := prototypes[s.name]
		if !ok {
			t.Errorf("%s: lib calls it but the test has no prototype for it", s.name)
			continue
		}
		exprs = append(exprs, fmt.Sprintf("__builtin_types_compatible_p(__typeof__(%s), %s)", s.name, p))
	}
	if len(exprs) != len(prototypes) {
		t.Errorf("%d prototypes for %d functions", len(prototypes), len(exprs))
	}
	enums := []string{"hsa_system_info_t", "hsa_agent_info_t", "hsa_isa_info_t", "hsa_amd_memory_pool_info_t",
		"hsa_amd_agent_memory_pool_info_t", "hsa_signal_condition_t", "hsa_wait_state_t", "hsa_profile_t",
		"hsa_default_float_rounding_mode_t", "hsa_executable_symbol_info_t", "hsa_queue_type32_t"}
	for _, e := range enums {
		exprs = append(exprs, "sizeof("+e+") == 4")
	}
	got := abiHeaders.Eval(t, exprs)
	for _, e := range exprs {
		if got[e] != 1 {
			t.Errorf("%s is false", e)
		}
	}
}
