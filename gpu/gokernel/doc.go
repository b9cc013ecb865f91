// Package gokernel loads and launches kernels written in Go (package
// rocr/kernel) as hipgo-gen -go generates them: one Library per package
// of kernels, holding the Go functions for the cpu agent, the code
// objects clang built for GPUs, and the C++ source that NVRTC or hipRTC
// compiles at run time when no code object fits the device.
//
// Generated launchers call Library.Launch; user code meets this package
// only to switch checked mode.
//
// # Checked mode
//
// Go panics on an index out of range, a slice bound out of range, a
// division by zero and a negative shift. On the cpu agent a kernel is Go
// code and does so always. On a GPU the generated C++ has two entry points
// per kernel: the plain one, with no checks at all, and NAME_checked,
// which records the first failure of a launch (the Go file and line, the
// index and the length) in a small record of pinned host memory and goes
// on with a zero value instead of touching memory out of bounds. Once a
// checked launch completed, the stream reads the record when it next
// releases its finished work (module.Args.OnComplete; no host function is
// queued, so a capture records the same graph as unchecked code): a
// failure fails the stream, and its Synchronize or Query returns an error
// naming the kernel, the Go source line, the index and the length. A
// checked kernel replayed from a graph records its fault, which the next
// checked launch of that kernel outside a graph reports.
//
// Checked mode is on in test binaries (testing.Testing) and off otherwise.
// HIPGO_CHECKED=1 or 0 overrides that for the process, and
// Library.SetChecked for one library.
//
// Every method may be called from several goroutines.
package gokernel
