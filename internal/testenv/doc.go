// Package testenv holds what the project's tests share about their
// environment: whether a missing feature skips or fails a test, and the
// TestMain every package runs.
//
// A test that needs something this machine may lack (a C compiler, clang,
// a vendor library, a GPU) probes for it and hands the result to Require.
// Without the feature the test skips with the reason, unless the
// comma-separated environment variable HIPGO_REQUIRE lists the feature's
// word: then it fails, so a CI machine that installed the feature cannot
// skip silently. The words in use are hsa (the HSA headers), clang,
// rocm-lib (libhsa-runtime64), hiprtc, cuda, rocm, multi-gpu and the names
// of drivers.
//
// Main runs a package's tests and then checks that no goroutine outlived
// them (go.uber.org/goleak): the runtime's shutdown must end every
// goroutine it started.
//
// SkipAllocsUnderRace skips an allocation test under the race detector;
// every allocation test is named Test...Allocs, and make test-allocs runs
// them without -race.
//
// The package imports nothing of hipgo but internal/raceflag, so that
// every package's tests, rocr's own included, can use it; test kernels and
// cpu agents live in internal/cputest.
package testenv
