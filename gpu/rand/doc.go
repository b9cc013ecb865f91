// Package rand fills buffers with random numbers on any device, as cuRAND
// and hipRAND do for CUDA and HIP programs: uniform, normal and log-normal
// float32 and float64 values, and uint32 and uint64 integers of every bit
// pattern or in a range, from a counter-based Philox4x32-10 generator.
//
// The generator is written once as Go kernels (kernels.go), translated by
// hipgo-gen into the C++, PTX and AMDGPU code objects of gen/; the cpu
// agent runs the Go functions themselves, uniform values and bits
// through span kernels (span.go) whose work-items run a plain loop over
// their share of the stream's blocks. Every transform from random
// words to values uses integer operations and correctly rounded +, -, *,
// /, square roots and explicit fused multiply-adds only (its own log,
// exp, sin and cos, never a vendor math library, every other product
// rounded on its own; float32 normals in float32), so the same
// seed and offset give the same numbers, bit for bit, on the cpu agent,
// NVIDIA and AMD GPUs. docs/random.md gives the stream's layout.
//
// A Generator holds a seed and an offset into its stream of 32-bit words,
// as cuRAND's host API does. A call (Uniform, Normal, LogNormal, Bits,
// Range) checks its arguments first and queues nothing when they are
// wrong, returning an error wrapping gpu.ErrInvalidValue or
// gpu.ErrInvalidHandle; otherwise it queues one launch on the stream it
// is given, moves the offset past the words it takes, and returns. The
// values are there once the stream has run it. A call allocates nothing
// on the host. Calls on a capturing stream are captured into the graph
// like any other stream work; the graph then replays the same words.
//
// Generators and the functions are safe for concurrent use: calls sharing
// a Generator take disjoint words, never the same numbers, and hold its
// lock only to reserve them, not while queuing their launch. Calls on one
// stream run in the order they were made. A call racing a Free of its
// buffer (or a view's parent), a Destroy of its stream or gpu.Shutdown
// returns nil or the runtime's error for the released object.
package rand
