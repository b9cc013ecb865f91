// Package rocm is hipgo's driver for AMD GPUs over the installed ROCm
// runtime (ROCR, libhsa-runtime64.so.1). It registers itself with rocr as
// the driver "rocm", priority 30 (before cuda and cpu). Import it for its
// side effect; the gpu package does.
//
// # What it does
//
// Open loads libhsa-runtime64.so.1 with purego (no cgo) through
// internal/vendorlib: $HIPGO_ROCM_LIBRARY (or the older $HIPGO_ROCM_LIB) if
// set, else the dynamic linker's search path, $ROCM_PATH/lib and
// /opt/rocm/lib. A missing library is an error wrapping hsa.ErrNotSupported
// that lists the paths tried. hsa_init failing, as it does without
// /dev/kfd, is "no AMD agent: <hsa_status_string text>" wrapping
// hsa.ErrNoAgent; after a failed hsa_init nothing else in ROCR is called
// (but hsa_status_string), it leaves no thread behind, and rocr.Init moves
// on to the next driver. The library stays loaded for the life of the
// process.
//
// Agents are ROCR's GPU kernel agents (hsa_iterate_agents); ROCR's CPU
// agents only lend their system pools. Each agent offers, in this order,
// the coarse-grained device pool (hipMalloc), the fine-grained system pool
// of the first CPU agent the GPU may access (hipHostMalloc, followed by
// hsa_amd_agents_allow_access where ROCR says access is off by default),
// that CPU agent's kernarg pool, and the group segment (LDS).
//
// Queues are hsa_queue_create rings (spi.HardwareQueues): rocr reserves
// slots by atomic add on amd_queue_t's write_dispatch_id, writes packets
// with the same rocr/aql code as every agent, publishes the header with one
// release store and rings the doorbell with hsa_signal_store_screlease.
// Profiling is on, so completion signals carry dispatch timestamps
// (hsa_amd_profiling_get_dispatch_time, scaled to nanoseconds by
// HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY). Queue errors reach one callback,
// created once per process, and are handed to BindQueueErrors's function.
//
// Signals that the GPU completes must be ROCR's: the agent's NewSignal
// (hsa_signal_create) returns a spi.SignalBackend to wrap with
// spi.Host.SignalWithBackend. The runtime's soft signals live in host
// memory ROCR knows nothing of; packets and copies on this agent must not
// name them.
//
// A GPU cannot run hipgo's AGENT_DISPATCH copy and fill packets. The agent
// offers CopyAsync (hsa_amd_memory_async_copy, ordered by dependency
// signals, decrementing a completion signal) and FillAsync
// (hsa_amd_memory_fill, or a staged copy for patterns it cannot express)
// as spi.Copier: rocr hands each AGENT_DISPATCH copy and fill of a queue
// to them, with a dependency signal the queue sets once the packets ahead
// are done and a completion signal the queue waits for (rocr/hwagent.go).
// Both ends must lie in this driver's pool allocations; rocr stages Go
// memory through host memory and runs host callbacks itself.
//
// Code objects load with hsa_code_object_reader_create_from_memory (from a
// copy outside the Go heap, which ROCR may keep pointing at),
// hsa_executable_create_alt (HSA_PROFILE_FULL, default rounding, as HIP
// does), hsa_executable_load_agent_code_object and hsa_executable_freeze;
// each kernel is found by its "NAME.kd" symbol, and its kernel object and
// segment sizes are read from ROCR.
//
// Occupancy (spi.Occupancy) is computed, not asked of ROCR, which has no
// calculator: from the kernel's code object metadata and descriptor and
// the agent's target limits, by rocr/internal/amdgpu.
//
// All methods are safe for concurrent use. Signal waits block an OS thread
// in hsa_signal_wait_scacquire.
//
// # What was run, and where
//
// Nothing in this package has run on AMD hardware: no AMD GPU is reachable
// from the machines this project is developed and tested on. What was
// checked:
//
//   - Against Debian's libhsa-runtime-dev 5.2 headers (abi_test.go, with a C
//     compiler): every enum value, struct size and field offset the driver
//     uses, including hsa_queue_t and amd_queue_t's dispatch ids, and the
//     prototype of every ROCR function it calls, compared with the
//     compiler's type compatibility against the way lib.go passes arguments.
//   - Against Debian's libhsa-runtime64-1 5.2.3 (init_test.go): the library
//     loads, every function resolves, hsa_init fails without /dev/kfd, the
//     error carries ROCR's status string, and rocr.Init falls back to the
//     cpu agent; HIPGO_DRIVER=rocm fails with hsa.ErrNoAgent.
//   - Against a fake of ROCR's function table (fake_test.go): agent and pool
//     selection, agent properties, kernarg placement and access, packets
//     written into a ring laid out as amd_queue_t and run by a fake command
//     processor, doorbell stores, completion and timestamps, queue errors,
//     executable loading, copies, fills, shutdown, occupancy of the
//     kernel library's gfx90a code object, managed memory (SVM
//     attributes, prefetches and hints).
//
// Managed memory (spi.ManagedMemory) is mapped host memory made shared
// virtual memory with hsa_amd_svm_attributes_set, where ROCR reports SVM
// (HMM in the kernel); prefetches are hsa_amd_svm_prefetch_async, waited
// for on the host in stream order.
//
// Not checked anywhere: that ROCR's real callbacks reach Go through purego
// on ROCR's threads, the GPU's view of the packets, the copy engines, and
// timing. TestDevice does those on an AMD machine:
//
//	HIPGO_DRIVER=rocm HIPGO_REQUIRE=hsa,rocm-lib,rocm go test -race ./rocr/drivers/rocm/
//
// or build it here with CGO_ENABLED=0 go test -c and run the binary there.
//
// # Files
//
// driver.go, agent.go, memory.go (pools), code.go, queue.go (hardware
// rings), signal.go, lib.go as in every driver; api.go is the slice of
// ROCR the driver calls (the tests' fake implements it), copy.go the copy
// engine.
package rocm
