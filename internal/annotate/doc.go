// Package annotate emits ranges and marks for the profilers a program runs
// under: NVTX for Nsight Systems (nsys) and roctx for rocprof. The gpu
// packages put a range around each kernel launch (named by its kernel),
// copy, fill and graph launch; gpu.StartRange and gpu.Mark are the user's.
//
// Nothing is loaded unless a profiler asks. NVTX3 has no library: a tool
// names its injection library in NVTX_INJECTION64_PATH (nsys sets it), the
// client (here, this package) opens it and calls its
// InitializeInjectionNvtx2 with an export-table callback, and the tool
// fills the client's function-pointer tables through it. roctx is
// opened when rocprofv3 traces markers (ROCPROF_MARKER_API_TRACE), when
// rocprofv2 traces roctx (ROCPROFILER_ROCTX_TRACE), or when HIPGO_ROCTX=1;
// HIPGO_ROCTX=0 keeps it closed.
//
// The environment is read once, at the first use. With no tool attached
// every call is one atomic load and a branch.
//
// Push and Pop are a thread's nested ranges, as both APIs define them:
// Push locks the goroutine to its OS thread until the matching Pop, so
// the profiler sees both on one thread. Start and Stop make process
// ranges, which may end on any thread. Everything here is safe for
// concurrent use.
package annotate
