// Package gputest is for testing and benchmarking code that uses hipgo, in
// the spirit of net/http/httptest.
//
// Device (DeviceOf, Devices for a driver or several devices) returns a
// device for one test: the real device seen through a view of the test's
// own. Its default stream, copy queue and library cache are the test's;
// what the test makes on it (buffers, streams, events, modules) is
// recorded. When the test ends (t.Cleanup) the view waits for the test's
// streams, reports with t.Error whatever the test did not release (naming
// the test, each object's kind, size and element type, and the line that
// made it), releases it and closes the view. A buffer, stream, event or
// module the test dropped unreleased, which the garbage collector's
// backstop released, is reported the same way; Backstops counts those
// releases, and Collect waits for them.
// The runtime stays open for
// the other tests: never call gpu.Shutdown in tests that use this package.
// Tests may run in parallel (t.Parallel), on one device or several.
//
// Where no device of the kind asked for exists, the test is skipped with
// the reason; where HIPGO_REQUIRE lists the driver ("cuda", "rocm", "cpu",
// or "multi-gpu" for several devices), it fails instead, so CI notices a
// test that should have run. The cpu driver has as many agents as
// HIPGO_CPU_AGENTS says when the runtime opens: set it in TestMain for
// tests on several cpu devices.
//
// Objects made on the view belong to it: load modules (kernels.Load) on
// the test's device, not on gpu.Default's, or launches on the test's
// streams will refuse them. Objects made on other devices are not tracked.
//
// Benchmark times an operation on a stream so that ns/op is the work's:
// a warm-up run outside the timed region, then b.Loop, and the stream is
// synchronized before the timer stops. It reports the GPU's own time per
// operation from events (gpu-ns/op), the host's time over the same
// operations (window-ns/op) and, given Bytes and FLOPs, GB/s and
// GFLOP/s of that time. StartTimer and Timer.Stop do the same around a
// loop written by hand, with b.Loop or b.N. The units are ones benchstat
// reads.
//
// Under go test -race the cpu agent's device memory is memory the race
// detector watches: a kernel whose work-groups race (a histogram without
// atomics), kernels on unordered streams, or the host touching memory a
// kernel uses are reported as data races and fail the test. What is and is
// not caught is in rocr/drivers/cpu's documentation.
//
// Sanitize turns on the cpu agent's sanitizer for a test (HIPGO_SANITIZE=1
// does for the process): reads of device memory never written since
// allocation and buffers used on unordered ManualDeps streams are errors
// naming the kernel, the buffer and the range; leaks are reported per test
// as always.
//
// All functions may be called from parallel tests.
package gputest
